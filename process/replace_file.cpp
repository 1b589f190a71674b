#include "process/replace_file.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <system_error>

#include "process/output_path.hpp"
#include "process/resource_error.hpp"

namespace konane::process {

namespace {

// Writes all of [data, data + n) to fd; false (errno set) when it cannot.
bool write_all(int fd, const char* data, std::size_t n) {
    while (n > 0) {
        const ssize_t w = ::write(fd, data, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        data += w;
        n -= static_cast<std::size_t>(w);
    }
    return true;
}

}  // namespace

void replace_file(const std::filesystem::path& path, std::initializer_list<std::string_view> parts,
                  const ReplaceOptions& options) {
    const std::filesystem::path tmp =
        options.temporary.empty()
            ? std::filesystem::path(path.string() + ".tmp." +
                                    std::to_string(static_cast<long>(::getpid())))
            : options.temporary;
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        throw std::runtime_error(path.string() + ": cannot create " + tmp.string() + ": " +
                                 std::strerror(errno));
    }
    XXH64_state_t* st = options.xxh64_trailer ? XXH64_createState() : nullptr;
    if (st) XXH64_reset(st, 0);
    bool ok = true;
    for (std::string_view p : parts) {
        if (st) XXH64_update(st, p.data(), p.size());
        if (ok) ok = write_all(fd, p.data(), p.size());
    }
    if (st) {
        const std::uint64_t sum = XXH64_digest(st);
        XXH64_freeState(st);
        char trailer[8];
        for (int i = 0; i < 8; ++i)
            trailer[i] = static_cast<char>(sum >> (8 * i));
        if (ok) ok = write_all(fd, trailer, 8);
    }
    if (ok && options.durable) ok = ::fsync(fd) == 0;
    int err = errno;
    if (::close(fd) != 0 && ok) ok = false, err = errno;
    if (!ok) {
        std::error_code ec;
        std::filesystem::remove(tmp, ec);
        const std::string what =
            path.string() + ": writing " + tmp.string() + " failed: " + std::strerror(err);
        if (err == ENOSPC || err == EDQUOT) throw ResourceError(what);
        throw std::runtime_error(what);
    }
    std::error_code ec;
    // Only a regular file is replaced: a device, a pipe, a link or a directory at `path` stays
    // (the callers check before their work, process/output_path.hpp; this is the last look).
    const std::string kind = non_regular_kind(path);
    if (!kind.empty()) {
        std::filesystem::remove(tmp, ec);
        throw std::runtime_error(path.string() + ": exists and is not a regular file (" + kind +
                                 "): not replaced");
    }
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        const std::string why = ec.message();  // before remove() sets ec again
        std::filesystem::remove(tmp, ec);
        throw std::runtime_error(path.string() + ": cannot rename " + tmp.string() +
                                 " into place: " + why);
    }
}

}  // namespace konane::process
