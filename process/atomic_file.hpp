// The one way a file is written: under a temporary name beside its target, then fsync of the
// file, rename over the target and fsync of the directory, so that a reader (or a crash) sees the
// old file or the complete new one, never a part. The temporary is removed on a signal
// (cleanup.hpp) and when the AtomicFile goes without commit(); a SIGKILL's leftover is found by
// remove_stale_temporaries(). Every writer of the project goes through it: the table
// (format/writer.cpp), the work files (solver/keyfile.cpp, solver/distributed.cpp) and
// replace_file() (replace_file.hpp) for whole files held in memory.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace konane::process {

/// A step of AtomicFile that failed. what(): "<target>: <step> <temporary>: <reason>" (for
/// "fsync directory": "<target>: fsync directory <dir>: <reason>"; for "replace": "<target>:
/// exists and is not a regular file (<kind>): not replaced").
struct AtomicFileError : std::runtime_error {
    AtomicFileError(const std::string& what, std::string step, int error,
                    std::filesystem::path temporary)
        : std::runtime_error(what),
          step(std::move(step)),
          error(error),
          temporary(std::move(temporary)) {}
    /// "create", "write", "fsync", "close", "replace" (the target is not a regular file),
    /// "rename" or "fsync directory" (the file is then complete under its target's name).
    std::string step;
    int error;                        ///< the errno of the step; 0 for "replace"
    std::filesystem::path temporary;  ///< the temporary name (removed unless committed)
};

/// A file written through "<name>.tmp.<16 random hex digits>" beside its target
/// (temporary_path()): created exclusively, held with an exclusive flock while it is written (so
/// that remove_stale_temporaries() leaves it) and registered for removal on a signal. Not
/// thread-safe; non-copyable.
class AtomicFile {
  public:
    /// Creates the temporary file (mode `mode` less the umask). Throws AtomicFileError "create".
    explicit AtomicFile(std::filesystem::path target, mode_t mode = 0666);
    ~AtomicFile();  ///< discard() unless committed
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    /// The descriptor to write to (-1 after commit() or discard()); the caller may write, seek
    /// and pwrite through it but must not close it.
    int fd() const { return fd_; }
    const std::filesystem::path& target() const { return target_; }
    const std::filesystem::path& temporary() const { return tmp_; }
    bool committed() const { return committed_; }

    /// Writes all of [data, data + n) at the current offset (a write of 0 bytes counts as
    /// ENOSPC). Throws AtomicFileError "write" (the file stays, discard() or the destructor
    /// removes it).
    void write(const void* data, std::size_t n);

    /// fsyncs and closes the file, renames it over the target (which must be nothing or a
    /// regular file: a link, a device, a pipe or a directory there is left alone) and fsyncs the
    /// directory (EINVAL and EROFS, a file system that cannot sync a directory, are not errors).
    /// Throws AtomicFileError; before the rename the temporary is removed first and the target is
    /// as it was; for "fsync directory" the file is complete under its target's name.
    void commit();

    /// Closes and removes the temporary file (nothing after commit()). Never throws.
    void discard() noexcept;

  private:
    [[noreturn]] void fail(const std::string& step, int err);
    std::filesystem::path target_, tmp_;
    int fd_ = -1;
    int handle_ = -1;  // register_temporary()
    bool committed_ = false;
};

/// fsyncs the directory `dir` ("" is "."); returns 0 or the errno (EINVAL and EROFS count as 0).
int sync_directory(const std::filesystem::path& dir);

}  // namespace konane::process
