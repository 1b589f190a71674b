#include "format/resident.hpp"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace konane::format::detail {

namespace {

// cachestat(2) (Linux 6.5): the same number on every architecture, as all system calls since
// 5.1. Declared here for C libraries and kernel headers that predate it.
constexpr long kCachestat = 451;
#ifndef MADV_POPULATE_READ
constexpr int kPopulateRead = 22;
#else
constexpr int kPopulateRead = MADV_POPULATE_READ;
#endif
struct CachestatRange {
    std::uint64_t off, len;
};
struct Cachestat {
    std::uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted;
};

}  // namespace

void map_resident(int fd, const void* addr, std::uint64_t size) {
    constexpr std::uint64_t kRange = std::uint64_t{2} << 20;
    const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    auto* base = static_cast<char*>(const_cast<void*>(addr));
    for (std::uint64_t off = 0; off < size; off += kRange) {
        const std::uint64_t len = std::min(kRange, size - off);
        CachestatRange range{off, len};
        Cachestat stat{};
        if (::syscall(kCachestat, fd, &range, &stat, 0) != 0) return;  // ENOSYS: an older kernel
        if (stat.nr_cache < (len + page - 1) / page) continue;         // not all cached: leave it
        if (::madvise(base + off, len, kPopulateRead) != 0 && errno == EINVAL) return;
    }
}

}  // namespace konane::format::detail
