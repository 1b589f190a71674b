// Internal to konane_format: faults on a table's memory mapping become a flag, not a signal.
//
// A file shrunk under a live mapping (truncate, a rewrite by a program that truncates first) or
// a page the kernel cannot read (an I/O error) raises SIGBUS on the next access, which kills
// the process. The reader registers each mapping here; a SIGBUS handler, installed on first
// use, finds the mapping the faulting address falls in, sets that table's flag, maps zero pages
// over the rest of the mapping (MAP_FIXED, anonymous, read-only) and returns, so the access is
// retried and reads zeros. The reader checks the flag after each read and reports the table as
// changed while open (FormatError), so no answer is built on the zeros. A SIGBUS at any other
// address goes to the handler that was installed before (or kills the process as before).
#pragma once

#include <atomic>
#include <cstddef>

namespace konane::format::detail {

/// Registers the read-only mapping [base, base + size) (a whole mmap, page-aligned base):
/// from now on a SIGBUS in it sets *flag to 1 and is absorbed as described above. Installs the
/// handler on the first call (keeping the previous one for other addresses). Thread-safe.
/// @returns a handle for unregister_mapping()
/// @throws std::runtime_error when 4096 mappings are registered already or the handler cannot
///         be installed
int register_mapping(const void* base, std::size_t size, std::atomic<int>* flag);

/// Forgets a registration; call before munmap. Thread-safe; -1 is ignored.
void unregister_mapping(int handle);

}  // namespace konane::format::detail
