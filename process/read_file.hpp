// Reading a whole file that a run wrote earlier (a work directory's checkpoint, say) and that
// anything may have replaced since: only a regular file of bounded size is read.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace konane::process {

/// The bytes of `path`, which must be a regular file (a link to one is followed) of at most
/// `max_bytes` bytes. Checked before anything is read, so that a link to a device such as
/// /dev/zero is not read without end, a named pipe does not block, and a directory gets a
/// message rather than a stream error. `advice` ends the message of a file too large (what to
/// do about it; may be empty).
/// @throws std::runtime_error "<path>: cannot open: <reason>", "<path>: not a regular file (a
///         directory|a named pipe|a character device|...)", "<path>: N bytes, more than the M
///         it can hold[; advice]", "<path>: grew while it was read" or "<path>: reading:
///         <reason>"
std::string read_regular_file(const std::filesystem::path& path, std::uint64_t max_bytes,
                              const std::string& advice = "");

}  // namespace konane::process
