#include "format/resident.hpp"

#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

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
    // Under a seccomp filter, a system call the filter predates may kill the process (systemd's
    // SystemCallFilter= without SystemCallErrorNumber=): do without the mapping then.
    if (::prctl(PR_GET_SECCOMP) != 0) return;
    constexpr std::uint64_t kRange = std::uint64_t{2} << 20;
    // A bound on the time it takes: 4 ms map the 3.3 GB 6x6 table cached in 2 MiB folios, but
    // the same table in 4 KiB folios would take 275 ms (800,000 page table entries); past the
    // budget the rest is left to fault in on demand, as without this function.
    constexpr auto kBudget = std::chrono::milliseconds(10);
    const auto start = std::chrono::steady_clock::now();
    const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    auto* base = static_cast<char*>(const_cast<void*>(addr));
    for (std::uint64_t off = 0; off < size; off += kRange) {
        const std::uint64_t len = std::min(kRange, size - off);
        CachestatRange range{off, len};
        Cachestat stat{};
        if (::syscall(kCachestat, fd, &range, &stat, 0) != 0) return;  // ENOSYS: an older kernel
        if (stat.nr_cache < (len + page - 1) / page) continue;         // not all cached: leave it
        if (::madvise(base + off, len, kPopulateRead) != 0 && errno == EINVAL) return;
        if (std::chrono::steady_clock::now() - start > kBudget) return;
    }
}

}  // namespace konane::format::detail
