// LSD radix sort of 64-bit integers with few significant bits, serial and parallel (OpenMP).
// Source: the classic least-significant-digit radix sort (Knuth, TAOCP vol. 3, 5.2.5), one
// histogram per thread and per digit for the parallel version (Zagha and Blelloch 1991).
#pragma once

#include <omp.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "index/huge_pages.hpp"

namespace konane::solver {

/// Sorts `v` ascending by its low `bits` bits (all higher bits must be zero), in passes of 11
/// bits, using `scratch` (resized to v.size()) as the second buffer. Stable. `threads` > 1
/// splits every pass between OpenMP threads; the result is the same for any thread count.
inline void radix_sort(std::vector<std::uint64_t>& v, std::vector<std::uint64_t>& scratch, int bits,
                       int threads = 1) {
    constexpr int kDigit = 11;
    constexpr std::size_t kBuckets = std::size_t{1} << kDigit;
    const std::size_t n = v.size();
    if (n < 2) return;
    if (n < 4096) {
        std::sort(v.begin(), v.end());
        return;
    }
    reserve_huge(scratch, n);
    scratch.resize(n);
    threads = std::max(1, std::min<int>(threads, static_cast<int>(n / 65536) + 1));
    std::vector<std::array<std::size_t, kBuckets>> count(static_cast<std::size_t>(threads));
    std::uint64_t* src = v.data();
    std::uint64_t* dst = scratch.data();
    int passes = 0;
    for (int shift = 0; shift < bits; shift += kDigit, ++passes) {
#pragma omp parallel num_threads(threads)
        {
            const int t = omp_get_thread_num();
            const int nt = omp_get_num_threads();
            const std::size_t lo = n * static_cast<std::size_t>(t) / static_cast<std::size_t>(nt);
            const std::size_t hi =
                n * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(nt);
            auto& c = count[t];
            c.fill(0);
            for (std::size_t i = lo; i < hi; ++i)
                ++c[(src[i] >> shift) & (kBuckets - 1)];
#pragma omp barrier
#pragma omp single
            {
                std::size_t sum = 0;
                for (std::size_t b = 0; b < kBuckets; ++b) {
                    for (int u = 0; u < nt; ++u) {
                        const std::size_t x = count[u][b];
                        count[u][b] = sum;
                        sum += x;
                    }
                }
            }
            for (std::size_t i = lo; i < hi; ++i) {
                const std::uint64_t x = src[i];
                dst[c[(x >> shift) & (kBuckets - 1)]++] = x;
            }
        }
        std::swap(src, dst);
    }
    if (passes & 1) v.swap(scratch);
}

}  // namespace konane::solver
