#include "process/read_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
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

constexpr std::size_t kPiece = std::size_t{1} << 20;

/// Opens `path` read-only after the checks of read_regular_file(); returns the descriptor and
/// the file's size.
std::pair<int, std::uint64_t> open_regular(const std::filesystem::path& path,
                                           std::uint64_t max_bytes, const std::string& advice,
                                           Links links) {
    const std::string name = path.string();
    auto refuse = [&](const struct stat& st) {
        if (S_ISLNK(st.st_mode)) {
            throw std::runtime_error(name +
                                     ": a symbolic link (not followed here: replace it by the "
                                     "file itself)");
        }
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
    // once open (it may have been replaced in between; O_NOFOLLOW then refuses a new link).
    struct stat st {};
    const int got = links == Links::Refuse ? ::lstat(path.c_str(), &st) : ::stat(path.c_str(), &st);
    if (got != 0) throw std::runtime_error(name + ": cannot open: " + std::strerror(errno));
    refuse(st);
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC |
                                            (links == Links::Refuse ? O_NOFOLLOW : 0));
    if (fd < 0) throw std::runtime_error(name + ": cannot open: " + std::strerror(errno));
    try {
        if (::fstat(fd, &st) != 0) {
            throw std::runtime_error(name + ": cannot open: " + std::strerror(errno));
        }
        refuse(st);
    } catch (...) {
        ::close(fd);
        throw;
    }
    return {fd, static_cast<std::uint64_t>(st.st_size)};
}

/// Reads up to n bytes at `offset`; returns how many (fewer only at the end of the file).
std::size_t read_at(int fd, const std::string& name, std::uint64_t offset, std::size_t n,
                    char* out) {
    std::size_t got = 0;
    while (got < n) {
        const ssize_t r = ::pread(fd, out + got, n - got, static_cast<off_t>(offset + got));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) throw std::runtime_error(name + ": reading: " + std::strerror(errno));
        if (r == 0) break;
        got += static_cast<std::size_t>(r);
    }
    return got;
}

std::uint64_t get64(const char* p) {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
        v |= std::uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
    return v;
}

}  // namespace

std::string read_regular_file(const std::filesystem::path& path, std::uint64_t max_bytes,
                              const std::string& advice, Links links) {
    const std::string name = path.string();
    const auto [fd, size] = open_regular(path, max_bytes, advice, links);
    std::string bytes;
    try {
        // Up to one byte more than its size, so that a file growing as it is read is refused.
        bytes.resize(static_cast<std::size_t>(size) + 1);
        const std::size_t got = read_at(fd, name, 0, bytes.size(), bytes.data());
        if (got > size) throw std::runtime_error(name + ": grew while it was read");
        bytes.resize(got);
    } catch (...) {
        ::close(fd);
        throw;
    }
    ::close(fd);
    return bytes;
}

bool checksum_matches(std::uint64_t size,
                      const std::function<void(std::uint64_t, std::size_t, char*)>& read) {
    if (size < 8) return false;
    XXH64_state_t* st = XXH64_createState();
    XXH64_reset(st, 0);
    std::string piece;
    try {
        for (std::uint64_t at = 0; at < size - 8;) {
            const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(size - 8 - at, kPiece));
            piece.resize(n);
            read(at, n, piece.data());
            XXH64_update(st, piece.data(), n);
            at += n;
        }
    } catch (...) {
        XXH64_freeState(st);
        throw;
    }
    const std::uint64_t sum = XXH64_digest(st);
    XXH64_freeState(st);
    char trailer[8];
    read(size - 8, 8, trailer);
    return sum == get64(trailer);
}

ChecksummedFile::ChecksummedFile(const std::filesystem::path& path, std::uint64_t max_bytes,
                                 Links links, const std::string& advice)
    : name_(path.string()) {
    std::tie(fd_, size_) = open_regular(path, max_bytes, advice, links);
}

ChecksummedFile::ChecksummedFile(ChecksummedFile&& o) noexcept
    : name_(std::move(o.name_)), fd_(o.fd_), size_(o.size_) {
    o.fd_ = -1;
}

ChecksummedFile::~ChecksummedFile() {
    if (fd_ >= 0) ::close(fd_);
}

void ChecksummedFile::read(std::uint64_t offset, std::size_t n, char* out) {
    if (read_at(fd_, name_, offset, n, out) != n) {
        throw std::runtime_error(name_ + ": cut short while it was read");
    }
}

std::optional<std::string> ChecksummedFile::header(std::size_t max_header) {
    const std::uint64_t limit = std::min<std::uint64_t>(max_header, size_ < 8 ? 0 : size_ - 8);
    std::string head;
    constexpr std::size_t kStep = 64 * 1024;
    while (head.size() < limit) {
        const std::size_t from = head.size();
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(kStep, limit - from));
        head.resize(from + n);
        read(from, n, head.data() + from);
        // The "\nend\n" may straddle two pieces: looked for from 4 bytes back.
        const std::size_t at = head.find("\nend\n", from < 4 ? 0 : from - 4);
        if (at != std::string::npos) {
            head.resize(at + 5);
            return head;
        }
    }
    return std::nullopt;
}

bool ChecksummedFile::checksum_matches() {
    return process::checksum_matches(
        size_, [&](std::uint64_t at, std::size_t n, char* out) { read(at, n, out); });
}

std::pair<std::string, bool> ChecksummedFile::body(std::uint64_t offset) {
    if (size_ < 8 || offset > size_ - 8) return {std::string(), false};
    std::string bytes(static_cast<std::size_t>(size_ - 8 - offset), '\0');
    bool ok = process::checksum_matches(size_, [&](std::uint64_t at, std::size_t n, char* out) {
        if (at + n <= offset || at >= size_ - 8) {
            read(at, n, out);
            return;
        }
        // The body's pieces are read into it and copied for the checksum.
        const std::uint64_t lo = std::max(at, offset);
        const std::uint64_t skip = lo - at;
        if (skip > 0) read(at, static_cast<std::size_t>(skip), out);
        read(lo, n - static_cast<std::size_t>(skip), bytes.data() + (lo - offset));
        std::memcpy(out + skip, bytes.data() + (lo - offset), n - static_cast<std::size_t>(skip));
    });
    return {std::move(bytes), ok};
}

}  // namespace konane::process
