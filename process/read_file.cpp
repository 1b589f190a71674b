#include "process/read_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace konane::process {

namespace {

const char* kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a named pipe";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

}  // namespace

std::string read_regular_file(const std::filesystem::path& path, std::uint64_t max_bytes,
                              const std::string& advice) {
    const std::string name = path.string();
    auto refuse = [&](const struct stat& st) {
        if (!S_ISREG(st.st_mode)) {
            throw std::runtime_error(name + ": not a regular file (" + kind_of(st.st_mode) + ")");
        }
        if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
            throw std::runtime_error(name + ": " + std::to_string(st.st_size) +
                                     " bytes, more than the " + std::to_string(max_bytes) +
                                     " it can hold" + (advice.empty() ? "" : "; " + advice));
        }
    };
    // Looked at before it is opened (opening a device or a pipe may block or act), and again
    // once open (it may have been replaced in between).
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        throw std::runtime_error(name + ": cannot open: " + std::strerror(errno));
    }
    refuse(st);
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) throw std::runtime_error(name + ": cannot open: " + std::strerror(errno));
    std::string bytes;
    try {
        if (::fstat(fd, &st) != 0) {
            throw std::runtime_error(name + ": cannot open: " + std::strerror(errno));
        }
        refuse(st);
        // Up to one byte more than its size, so that a file growing as it is read is refused.
        bytes.resize(static_cast<std::size_t>(st.st_size) + 1);
        std::size_t got = 0;
        while (got < bytes.size()) {
            const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) throw std::runtime_error(name + ": reading: " + std::strerror(errno));
            if (n == 0) break;
            got += static_cast<std::size_t>(n);
        }
        if (got > static_cast<std::size_t>(st.st_size)) {
            throw std::runtime_error(name + ": grew while it was read");
        }
        bytes.resize(got);
    } catch (...) {
        ::close(fd);
        throw;
    }
    ::close(fd);
    return bytes;
}

}  // namespace konane::process
