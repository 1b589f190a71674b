#include "process/atomic_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <random>

#include "process/cleanup.hpp"
#include "process/output_path.hpp"

namespace konane::process {

namespace {

// 16 random hex digits: the suffix of a temporary name.
std::string random_suffix() {
    std::random_device rd;
    const std::uint64_t r = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
    std::string s(16, '0');
    for (int i = 0; i < 16; ++i)
        s[static_cast<std::size_t>(i)] = "0123456789abcdef"[(r >> (4 * i)) & 15];
    return s;
}

}  // namespace

int sync_directory(const std::filesystem::path& dir) {
    const std::filesystem::path d = dir.empty() ? std::filesystem::path(".") : dir;
    const int dfd = ::open(d.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) return errno;
    const int r = ::fsync(dfd);
    const int err = errno;
    ::close(dfd);
    if (r != 0 && err != EINVAL && err != EROFS) return err;
    return 0;
}

AtomicFile::AtomicFile(std::filesystem::path target, mode_t mode) : target_(std::move(target)) {
    for (int attempt = 0;; ++attempt) {
        tmp_ = temporary_path(target_, random_suffix());
        // Registered before it exists, so that a signal right after the open removes it too.
        handle_ = register_temporary(tmp_);
        fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
        if (fd_ >= 0) break;
        const int err = errno;
        unregister_temporary(handle_);
        handle_ = -1;
        if (err == EEXIST && attempt < 8) continue;
        throw AtomicFileError(
            target_.string() + ": create " + tmp_.string() + ": " + std::strerror(err), "create",
            err, tmp_);
    }
    // Held while it is written: remove_stale_temporaries() leaves a locked file.
    ::flock(fd_, LOCK_EX | LOCK_NB);
}

AtomicFile::~AtomicFile() {
    discard();
}

void AtomicFile::discard() noexcept {
    if (committed_) return;
    if (fd_ >= 0) {
        ::close(fd_);
        fd_ = -1;
    }
    if (!tmp_.empty()) ::unlink(tmp_.c_str());
    unregister_temporary(handle_);
    handle_ = -1;
}

void AtomicFile::fail(const std::string& step, int err) {
    throw AtomicFileError(
        target_.string() + ": " + step + " " + tmp_.string() + ": " + std::strerror(err), step, err,
        tmp_);
}

void AtomicFile::write(const void* data, std::size_t n) {
    if (committed_ || fd_ < 0) fail("write", EBADF);
    const char* p = static_cast<const char*>(data);
    while (n > 0) {
        const ssize_t w = ::write(fd_, p, std::min<std::size_t>(n, std::size_t{1} << 30));
        if (w < 0) {
            if (errno == EINTR) continue;
            fail("write", errno);
        }
        if (w == 0) fail("write", ENOSPC);
        p += w;
        n -= static_cast<std::size_t>(w);
    }
}

void AtomicFile::commit() {
    if (committed_ || fd_ < 0) fail("commit", EBADF);
    const auto failing = [&](const std::string& step, int err) {
        discard();
        fail(step, err);
    };
    if (::fsync(fd_) != 0) failing("fsync", errno);
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) failing("close", errno);
    // Only a regular file is replaced: a device, a pipe, a link or a directory at the target
    // stays (the callers check before their work, output_path.hpp; this is the last look).
    if (const std::string kind = non_regular_kind(target_); !kind.empty()) {
        discard();
        throw AtomicFileError(
            target_.string() + ": exists and is not a regular file (" + kind + "): not replaced",
            "replace", 0, tmp_);
    }
    if (::rename(tmp_.c_str(), target_.c_str()) != 0) failing("rename", errno);
    committed_ = true;
    unregister_temporary(handle_);
    handle_ = -1;
    // Make the rename durable. The complete file is already under its target's name here.
    const std::filesystem::path dir = target_.parent_path();
    if (const int err = sync_directory(dir); err != 0) {
        throw AtomicFileError(target_.string() + ": fsync directory " +
                                  (dir.empty() ? std::string(".") : dir.string()) + ": " +
                                  std::strerror(err),
                              "fsync directory", err, tmp_);
    }
}

}  // namespace konane::process
