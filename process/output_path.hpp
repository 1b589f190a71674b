// Where a command may write a file, checked before any work: nothing but a regular file is ever
// replaced, and a location that cannot take the file is refused at once rather than after the
// work. Every output path of the command, the generator and the Python module goes through it.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

namespace konane::process {

/// An output's directory is missing or does not take new files (the command exits with 1).
struct OutputDirectoryError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// "" when nothing is at `path` or a regular file is (a link is not followed: lstat); else what
/// is there: "a directory", "a symbolic link", "a named pipe", "a character device", "a block
/// device", "a socket" or "not a regular file".
std::string non_regular_kind(const std::filesystem::path& path);

/// Throws OutputDirectoryError "<what>: cannot create files in <dir> (<reason>)" unless a file
/// can be created in directory `dir` (tried for real, so permissions, a read-only file system
/// and root's rights all count; the file is removed at once).
void check_creatable(const std::filesystem::path& dir, const std::string& what);

/// The one check of an output file, before any work: throws unless `path` can be written as a
/// new file through a temporary name beside it (replace_file()). `what` starts the messages (the
/// option and the path, or the path alone).
/// @throws std::invalid_argument "<what>: exists and is not a regular file (a directory)" (or a
///         symbolic link, which would be replaced rather than written through, a named pipe, a
///         device, a socket); OutputDirectoryError "<what>: <dir>: no such directory" when its
///         directory is missing, or check_creatable()'s when that does not take new files
void check_output_path(const std::filesystem::path& path, const std::string& what);

}  // namespace konane::process
