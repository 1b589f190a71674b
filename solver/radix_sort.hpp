// Radix sort of 64-bit integers with few significant bits, serial and parallel (OpenMP).
// Source: the classic least-significant-digit radix sort (Knuth, TAOCP vol. 3, 5.2.5), one
// histogram per thread and per digit for the parallel version (Zagha and Blelloch 1991); for
// large arrays one most-significant-digit pass first, so that the remaining LSD passes run on
// buckets that fit in the cache (the hybrid of e.g. Polychroniou and Ross, "A comprehensive
// study of main-memory partitioning and its application to large-scale comparison- and
// radix-sort", SIGMOD 2014).
#pragma once

#include <omp.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "process/huge_pages.hpp"

namespace konane::solver {

namespace radix_detail {

inline constexpr int kDigit = 11;
inline constexpr std::size_t kBuckets = std::size_t{1} << kDigit;

// Serial LSD passes over [src, src + n) by bits [lo, lo + bits) (a stable sort by that field;
// the bits above it must be zero), digits of at most kDigit bits spread evenly; dst is the
// second buffer. Returns true when the result ends in dst.
inline bool lsd_serial(std::uint64_t* src, std::uint64_t* dst, std::size_t n, int bits,
                       int lo = 0) {
    if (bits <= 0 || n < 2) return false;
    const int passes = (bits + kDigit - 1) / kDigit;
    const int digit = (bits + passes - 1) / passes;
    const std::uint64_t mask = (std::uint64_t{1} << digit) - 1;
    std::array<std::size_t, kBuckets> count;
    bool in_dst = false;
    for (int shift = lo; shift < lo + bits; shift += digit) {
        count.fill(0);
        for (std::size_t i = 0; i < n; ++i)
            ++count[(src[i] >> shift) & mask];
        std::size_t sum = 0;
        for (std::size_t b = 0; b <= mask; ++b) {
            const std::size_t x = count[b];
            count[b] = sum;
            sum += x;
        }
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint64_t x = src[i];
            dst[count[(x >> shift) & mask]++] = x;
        }
        std::swap(src, dst);
        in_dst = !in_dst;
    }
    return in_dst;
}

// Entries up to which a bucket's LSD passes stay in the cache: 512 KiB of 8-byte words, and
// as much again for the second buffer (a level-2 cache).
inline constexpr std::size_t kCacheWords = std::size_t{1} << 16;

// Serial sort of [src, src + n) by bits [lo, lo + bits) (the bits above the field must be equal
// in every entry; the order of entries equal in the field is unspecified), dst the second
// buffer; returns true when the result ends in dst. Past kCacheWords entries (and fields of
// more than two digits) one MSD pass by the field's top kDigit bits scatters into dst, then
// each bucket is sorted the same way: buckets split until they fit the cache, so that their
// LSD passes read the cache instead of memory. Every bucket of the MSD pass ends in dst.
inline bool msd_lsd_serial(std::uint64_t* src, std::uint64_t* dst, std::size_t n, int bits,
                           int lo = 0) {
    if (bits <= 0 || n < 2) return false;
    if (n <= kCacheWords || bits <= 2 * kDigit) return lsd_serial(src, dst, n, bits, lo);
    const int rest = bits - kDigit;
    const int shift = lo + rest;
    const std::uint64_t mask = kBuckets - 1;
    std::array<std::size_t, kBuckets + 1> start{};
    for (std::size_t i = 0; i < n; ++i)
        ++start[((src[i] >> shift) & mask) + 1];
    for (std::size_t b = 0; b < kBuckets; ++b)
        start[b + 1] += start[b];
    std::array<std::size_t, kBuckets> at;
    std::copy_n(start.begin(), kBuckets, at.begin());
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t x = src[i];
        dst[at[(x >> shift) & mask]++] = x;
    }
    for (std::size_t b = 0; b < kBuckets; ++b) {
        const std::size_t a = start[b], m = start[b + 1] - a;
        if (m < 2) continue;
        if (m < 256) {
            // Whole words in order are in order by the field: the bits above it are equal,
            // those below come after it.
            std::sort(dst + a, dst + a + m);
        } else if (msd_lsd_serial(dst + a, src + a, m, rest, lo)) {
            std::memcpy(dst + a, src + a, m * sizeof(std::uint64_t));
        }
    }
    return true;
}

}  // namespace radix_detail

/// Sorts `v` ascending by its low `bits` bits (all higher bits must be zero), using `scratch`
/// (resized to v.size(), in huge pages when it grows) as the second buffer. `threads` > 1
/// splits the work between OpenMP threads; the result is the same for any thread count.
///
/// Arrays of 2^16 entries or more with over 2 * 11 bits: one parallel pass by the top 11 bits
/// scatters into 2048 buckets (one histogram per thread), then each bucket is sorted on its
/// own, buckets shared between threads: by serial LSD passes over the remaining bits when it
/// fits the cache (2^16 entries), else split again by its next 11 bits first
/// (radix_detail::msd_lsd_serial), so that the LSD passes run in the cache instead of on memory
/// however unevenly the keys fill the buckets (canonical keys leave their top squares mostly
/// empty: on 6x6 about 200 of the first pass's 2048 buckets hold entries).
/// Smaller inputs: LSD passes of 11 bits (or std::sort under 4096 entries).
inline void radix_sort(std::vector<std::uint64_t>& v, std::vector<std::uint64_t>& scratch, int bits,
                       int threads = 1) {
    using namespace radix_detail;
    const std::size_t n = v.size();
    if (n < 2) return;
    if (n < 4096) {
        std::sort(v.begin(), v.end());
        return;
    }
    process::reserve_huge(scratch, n);
    scratch.resize(n);
    if (n < (std::size_t{1} << 16) || bits <= 2 * kDigit) {
        if (lsd_serial(v.data(), scratch.data(), n, bits)) v.swap(scratch);
        return;
    }
    threads = std::max(1, std::min<int>(threads, static_cast<int>(n / 65536) + 1));
    const int shift = bits - kDigit;
    std::vector<std::array<std::size_t, kBuckets>> count(static_cast<std::size_t>(threads));
    std::array<std::size_t, kBuckets + 1> start{};
    std::uint64_t* const src = v.data();
    std::uint64_t* const dst = scratch.data();
    // The remaining passes are the same for every bucket, so every bucket's result ends in the
    // same array: scratch after an even number of them, v after an odd number.
    const int rest_passes = (shift + kDigit - 1) / kDigit;
    const bool end_in_v = rest_passes % 2 == 1;
#pragma omp parallel num_threads(threads)
    {
        const int t = omp_get_thread_num();
        const int nt = omp_get_num_threads();
        const std::size_t lo = n * static_cast<std::size_t>(t) / static_cast<std::size_t>(nt);
        const std::size_t hi = n * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(nt);
        auto& c = count[t];
        c.fill(0);
        for (std::size_t i = lo; i < hi; ++i)
            ++c[src[i] >> shift];
#pragma omp barrier
#pragma omp single
        {
            std::size_t sum = 0;
            for (std::size_t b = 0; b < kBuckets; ++b) {
                start[b] = sum;
                for (int u = 0; u < nt; ++u) {
                    const std::size_t x = count[u][b];
                    count[u][b] = sum;
                    sum += x;
                }
            }
            start[kBuckets] = sum;
        }
        for (std::size_t i = lo; i < hi; ++i) {
            const std::uint64_t x = src[i];
            dst[c[x >> shift]++] = x;
        }
#pragma omp barrier
        // Now bucket b is dst[start[b], start[b + 1]); sort each by the low `shift` bits.
#pragma omp for schedule(dynamic, 1)
        for (std::size_t b = 0; b < kBuckets; ++b) {
            const std::size_t a = start[b], m = start[b + 1] - a;
            if (m == 0) continue;
            bool in_v;
            if (m < 256) {
                std::sort(dst + a, dst + a + m);
                in_v = false;
            } else {
                in_v = msd_lsd_serial(dst + a, src + a, m, shift);
            }
            if (in_v != end_in_v) {
                if (in_v) {
                    std::memcpy(dst + a, src + a, m * sizeof(std::uint64_t));
                } else {
                    std::memcpy(src + a, dst + a, m * sizeof(std::uint64_t));
                }
            }
        }
    }
    if (!end_in_v) v.swap(scratch);
}

/// Sorts packed entries (radix_sort over their low `bits` bits) and merges entries whose bits
/// outside `flags` are equal into one, OR-ing their `flags` bits; v shrinks to the distinct
/// entries, ascending. Used by the enumeration of one process and of layer parts.
inline void compact(std::vector<std::uint64_t>& v, std::vector<std::uint64_t>& scratch, int bits,
                    std::uint64_t flags, int threads) {
    radix_sort(v, scratch, bits, threads);
    std::size_t j = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (j > 0 && (v[j - 1] & ~flags) == (v[i] & ~flags)) {
            v[j - 1] |= v[i] & flags;
        } else {
            v[j++] = v[i];
        }
    }
    v.resize(j);
}

}  // namespace konane::solver
