// Writing a whole file held in memory so that readers see the old one or the complete new one,
// never a part: through an AtomicFile (atomic_file.hpp, the one way a file is written).
#pragma once

#include <filesystem>
#include <initializer_list>
#include <string_view>

namespace konane::process {

/// How replace_file() writes.
struct ReplaceOptions {
    /// Append the 8 bytes of XXH64 (seed 0) of everything written before them, least
    /// significant byte first (the trailer of proof certificates and proof checkpoints).
    bool xxh64_trailer = false;

    /// The options with the XXH64 trailer (and nothing else).
    static ReplaceOptions with_trailer() {
        ReplaceOptions o;
        o.xxh64_trailer = true;
        return o;
    }
};

/// Writes `parts` one after another (then the trailer ReplaceOptions asks for) through an
/// AtomicFile: a temporary name beside `path`, fsync, a rename over `path` (which must be nothing
/// or a regular file: a link, a device, a pipe or a directory there is left alone) and fsync of
/// the directory. On any failure before the rename the temporary file is removed and `path` is
/// left as it was.
/// @throws std::runtime_error "<path>: cannot create <tmp>: <reason>", "<path>: writing <tmp>
///         failed: <reason>", "<path>: exists and is not a regular file (<kind>): not replaced"
///         "<path>: cannot rename <tmp> into place: <reason>" or "<path>: fsync directory <dir>:
///         <reason>" (the file is then in place); the write's
///         failure is a konane::ResourceError (resource_error.hpp) when the disk is full (ENOSPC,
///         EDQUOT)
void replace_file(const std::filesystem::path& path, std::initializer_list<std::string_view> parts,
                  const ReplaceOptions& options = {});

}  // namespace konane::process
