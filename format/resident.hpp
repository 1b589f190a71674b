// Internal to konane_format: mapping the parts of a table already in the page cache.
#pragma once

#include <cstdint>

namespace konane::format::detail {

/// Enters into the page tables the 2 MiB ranges of the mapping [addr, addr + size) of file `fd`
/// whose pages are all in the page cache (cachestat(2), Linux 6.5; MADV_POPULATE_READ, Linux
/// 5.14), so that a probe of a table open for microseconds meets no page fault there; reads
/// nothing from the disk. Stops after about 10 ms: 4 ms map the 3.3 GB 6x6 table cached in
/// 2 MiB folios, where the same table in 4 KiB folios would take 275 ms (docs/results.md).
/// Does nothing where the kernel lacks either call, or under a seccomp filter; never fails.
void map_resident(int fd, const void* addr, std::uint64_t size);

}  // namespace konane::format::detail
