// The lock of a work directory: an exclusive flock on DIR/lock held for the life of the object,
// so that two processes never work in one directory at once (the generator's work directory,
// an MPI rank's folder, the proof manager's tree). The lock goes with the process: a run that is
// killed leaves the file, not the lock.
#pragma once

#include <filesystem>
#include <optional>

namespace konane::process {

/// An exclusive flock on `lock` in a directory. Movable, not copyable; the destructor releases it.
class DirectoryLock {
  public:
    /// The lock of `dir` (its file `lock` created with mode 0644 less the umask when missing),
    /// or nullopt when another process (or another DirectoryLock of this one) holds it.
    /// A link at `lock` is not followed (it would create or lock a file elsewhere): refused.
    /// @throws std::system_error with the errno of open(2) when the file cannot be opened (a
    ///         directory that is missing or not writable; ELOOP, "<dir>/lock is a symbolic
    ///         link, not followed (remove it)", for a link).
    static std::optional<DirectoryLock> try_take(const std::filesystem::path& dir);

    DirectoryLock(DirectoryLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
    DirectoryLock& operator=(DirectoryLock&& o) noexcept;
    DirectoryLock(const DirectoryLock&) = delete;
    DirectoryLock& operator=(const DirectoryLock&) = delete;
    ~DirectoryLock() { release(); }

    /// Releases the lock now (the file stays).
    void release() noexcept;

  private:
    explicit DirectoryLock(int fd) : fd_(fd) {}
    int fd_ = -1;
};

}  // namespace konane::process
