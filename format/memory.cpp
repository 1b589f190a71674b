#include "format/memory.hpp"

#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "format/table.hpp"

namespace konane::format::detail {

namespace {

constexpr std::uint64_t kHuge = std::uint64_t{2} << 20;

}  // namespace

void load_file(int fd, std::uint64_t size, const std::string& name, LoadedFile& out) {
    const std::uint64_t mapped = (size + kHuge - 1) & ~(kHuge - 1);
    // Map 2 MiB more than needed and keep the 2 MiB aligned part, so that every huge page of
    // the copy lies inside it (a kernel aligns large anonymous mappings itself only since 6.7).
    void* raw = ::mmap(nullptr, mapped + kHuge, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (raw == MAP_FAILED)
        throw IoError(name + ": load: cannot map " + std::to_string(size) +
                      " bytes of memory: " + std::strerror(errno));
    const auto r = reinterpret_cast<std::uintptr_t>(raw);
    const std::uintptr_t a = (r + kHuge - 1) & ~std::uintptr_t{kHuge - 1};
    if (a > r) ::munmap(raw, a - r);
    if (const std::uintptr_t end = r + mapped + kHuge; end > a + mapped)
        ::munmap(reinterpret_cast<void*>(a + mapped), end - (a + mapped));
    auto* base = reinterpret_cast<std::uint8_t*>(a);
    LoadedFile f{base, size, mapped};
#ifdef MADV_HUGEPAGE
    ::madvise(base, mapped, MADV_HUGEPAGE);  // advice: THP "never" or no THP ignore it
#endif
#ifdef PR_SET_VMA
    // A name in /proc/self/smaps ("[anon:konane table]", Linux 5.17 with CONFIG_ANON_VMA_NAME),
    // which also keeps the mapping from merging with a neighbour (anon_huge_bytes()); an older
    // kernel refuses it, which changes nothing else.
    ::prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, a, mapped, "konane table");
#endif
    try {
        constexpr std::uint64_t kChunk = std::uint64_t{64} << 20;
        for (std::uint64_t off = 0; off < size;) {
            const std::size_t want = static_cast<std::size_t>(std::min(kChunk, size - off));
            const ssize_t got = ::pread(fd, base + off, want, static_cast<off_t>(off));
            if (got < 0 && errno == EINTR) continue;
            if (got < 0) throw IoError(name + ": load: read: " + std::strerror(errno));
            if (got == 0)
                throw FormatError(name + ": file: changed while loading: it ends at byte " +
                                  std::to_string(off) + ", it had " + std::to_string(size) +
                                  " bytes when opened (open it again once it is whole)");
            off += static_cast<std::uint64_t>(got);
        }
    } catch (...) {
        unload_file(f);
        throw;
    }
    ::mprotect(base, mapped, PROT_READ);
    out = f;
}

void unload_file(LoadedFile& f) {
    if (f.base != nullptr) ::munmap(const_cast<std::uint8_t*>(f.base), f.mapped);
    f = LoadedFile{};
}

std::int64_t anon_huge_bytes(const void* addr) {
    std::ifstream in("/proc/self/smaps");
    if (!in) return -1;
    const auto want = reinterpret_cast<std::uintptr_t>(addr);
    std::string line;
    bool inside = false;
    while (std::getline(in, line)) {
        std::uintmax_t lo = 0, hi = 0;
        // A mapping's first line: "start-end perms offset dev inode [name]" (hex addresses).
        if (std::sscanf(line.c_str(), "%jx-%jx ", &lo, &hi) == 2 && line.find(':') > 20) {
            inside = lo == want;
            continue;
        }
        if (inside && line.rfind("AnonHugePages:", 0) == 0) {
            std::istringstream s(line.substr(14));
            std::int64_t kb = -1;
            s >> kb;
            return kb < 0 ? -1 : kb * 1024;
        }
    }
    return -1;
}

std::string thp_mode(const char* file) {
    std::ifstream in(std::string("/sys/kernel/mm/transparent_hugepage/") + file);
    std::string text;
    if (!in || !std::getline(in, text)) return {};
    const auto open = text.find('['), close = text.find(']');
    if (open == std::string::npos || close == std::string::npos || close < open) return {};
    return text.substr(open + 1, close - open - 1);
}

std::int64_t meminfo_bytes(const char* field) {
    std::ifstream in("/proc/meminfo");
    std::string line;
    const std::string key = std::string(field) + ":";
    while (std::getline(in, line)) {
        if (line.rfind(key, 0) != 0) continue;
        std::istringstream s(line.substr(key.size()));
        std::int64_t kb = -1;
        s >> kb;
        return kb < 0 ? -1 : kb * 1024;
    }
    return -1;
}

}  // namespace konane::format::detail
