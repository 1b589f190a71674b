// Temporary files removed when the process is interrupted (SIGINT, SIGTERM, SIGHUP), so that
// an interrupted generation leaves neither a table nor its temporary files behind.
#pragma once

#include <filesystem>

namespace konane::format {

/// Registers a temporary file (or, with `directory`, an empty-at-the-end directory) to remove if
/// the process is interrupted. Returns a handle for unregister_temporary(), or -1 when the
/// fixed table of 256 entries is full or the path is longer than 4095 bytes (then the path is
/// simply not cleaned up on interruption). Thread-safe.
int register_temporary(const std::filesystem::path& path, bool directory = false);

/// Forgets a registration (the file was renamed or removed). Thread-safe; -1 is ignored.
void unregister_temporary(int handle);

/// Installs handlers for SIGINT, SIGTERM and SIGHUP that remove every registered file, then
/// every registered directory, and re-raise the signal with its default action (so the exit
/// status says which signal ended the process). Idempotent.
void install_interrupt_cleanup();

}  // namespace konane::format
