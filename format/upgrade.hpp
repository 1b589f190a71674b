// Rewriting a table of an older format version as the current one without generating it again.
#pragma once

#include <cstdint>
#include <filesystem>

namespace konane::format {

/// Rewrites the version-2 table `input` as version 3 at `output` (which may be `input`: it is
/// replaced only once the new file is complete). Version 3 has the same data area, layer table
/// and chunk checksums; only the header's version and checksum and the trailer (which now
/// repeats the header's checksum, FORMAT.md §7) change. Streams the file once (4 MiB buffers),
/// checking version 2's header, trailer and whole-file XXH3-128 on the way, and writes to a
/// temporary name beside `output`, fsynced and renamed when complete. Returns the bytes written.
/// Throws FormatError when `input` is not an intact version-2 table (a version-3 table says
/// so), IoError for a file-system failure (nothing is left under `output`'s name then).
std::uint64_t upgrade_v2_table(const std::filesystem::path& input,
                               const std::filesystem::path& output);

}  // namespace konane::format
