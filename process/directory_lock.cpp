#include "process/directory_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace konane::process {

std::optional<DirectoryLock> DirectoryLock::try_take(const std::filesystem::path& dir) {
    const std::filesystem::path path = dir / "lock";
    // O_NOFOLLOW: a link at `lock` (dangling or not) would create or lock a file anywhere.
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0 && errno == ELOOP) {
        throw std::system_error(errno, std::generic_category(),
                                path.string() + " is a symbolic link, not followed (remove it)");
    }
    if (fd < 0) throw std::system_error(errno, std::generic_category(), path.string());
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        ::close(fd);
        return std::nullopt;
    }
    return DirectoryLock(fd);
}

DirectoryLock& DirectoryLock::operator=(DirectoryLock&& o) noexcept {
    if (this != &o) {
        release();
        fd_ = o.fd_;
        o.fd_ = -1;
    }
    return *this;
}

void DirectoryLock::release() noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

}  // namespace konane::process
