// Internal to konane_format: layout constants (see FORMAT.md), little-endian helpers, hashing
// and a small parallel-for. Not installed, not part of the API.
#pragma once

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "format/table.hpp"

namespace konane::format::detail {

// ---- layout (FORMAT.md) -------------------------------------------------------------------
static_assert(std::endian::native == std::endian::little, "little-endian hosts only");
inline constexpr std::uint8_t kMagic[8] = {0x8B, 'K', 'T', 'B', '\r', '\n', 0x1A, '\n'};
inline constexpr std::uint8_t kTrailerMagic[8] = {'K', 'T', 'B', 'T', 'R', 'A', 'I', 'L'};
inline constexpr std::size_t kHeaderSize = 256;
inline constexpr std::size_t kTrailerSize = 80;
inline constexpr std::size_t kLayerEntrySize = 416;
inline constexpr std::size_t kAlign = 8;
/// Bytes of a block's check (FORMAT.md §4.3), before its group directory.
inline constexpr std::size_t kBlockCheckBytes = 4;
/// Zero bytes at least after a layer's last block, so that 8 bytes can be loaded at any bit
/// of any block.
inline constexpr std::size_t kBlockTail = 8;
/// Longest Huffman code of the values, in bits.
inline constexpr unsigned kMaxCodeLength = 24;

// Header field offsets.
namespace hdr {
inline constexpr std::size_t magic = 0, version = 8, header_size = 12, rows = 16, cols = 17,
                             reserved0 = 18, block_buckets = 20, value_group = 24, reserved1 = 28,
                             ruleset = 40, generator = 56, reserved2 = 120, checksum = 248;
inline constexpr std::size_t ruleset_len = 16, generator_len = 64;
}  // namespace hdr

// Trailer field offsets (relative to the trailer start = file_size - kTrailerSize).
namespace trl {
inline constexpr std::size_t magic = 0, file_size = 8, layer_count = 16, reserved = 20,
                             lt_offset = 24, lt_size = 32, lt_xxh = 40, header_xxh = 48,
                             file_xxh128_lo = 56, file_xxh128_hi = 64, checksum = 72;
}  // namespace trl

// Layer table entry field offsets.
namespace lte {
inline constexpr std::size_t pieces = 0, low_bits = 4, classes = 8, raw = 16, universe = 24,
                             value_bits = 32, group_bytes = 40, entry_width = 48, reserved0 = 52,
                             dir_offset = 56, dir_size = 64, blocks_offset = 72, blocks_size = 80,
                             reserved1 = 88, code = 160;
}  // namespace lte

// ---- little-endian ------------------------------------------------------------------------
inline std::uint64_t load_le(const std::uint8_t* p, std::size_t bytes) {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < bytes; ++i)
        v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
    return v;
}
inline std::uint64_t le64(const std::uint8_t* p) {
    return load_le(p, 8);
}
inline std::uint32_t le32(const std::uint8_t* p) {
    return static_cast<std::uint32_t>(load_le(p, 4));
}
inline std::uint16_t le16(const std::uint8_t* p) {
    return static_cast<std::uint16_t>(p[0] | (p[1] << 8));
}
/// 64 bits from bit `bit` of the bit string at `p` (bit i is bit i % 8 of byte i / 8): at least
/// the low 57 are bits of the string. Reads bytes [bit / 8, bit / 8 + 8) of p.
inline std::uint64_t load_bits(const std::uint8_t* p, std::uint64_t bit) {
    std::uint64_t w;
    std::memcpy(&w, p + (bit >> 3), 8);
    return w >> (bit & 7);
}
inline void store_le(std::uint8_t* p, std::uint64_t v, std::size_t bytes) {
    for (std::size_t i = 0; i < bytes; ++i)
        p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
inline void put64(std::uint8_t* p, std::uint64_t v) {
    store_le(p, v, 8);
}
inline void put32(std::uint8_t* p, std::uint32_t v) {
    store_le(p, v, 4);
}

// ---- hashing ------------------------------------------------------------------------------
std::uint64_t xxh3_64(const void* data, std::size_t len);
/// XXH3-64 with a seed (XXH3_64bits_withSeed).
std::uint64_t xxh3_64_seeded(const void* data, std::size_t len, std::uint64_t seed);
/// 16 random hex digits, the suffix of a temporary file's name (temporary_path()).
std::string random_suffix();

// ---- checks -------------------------------------------------------------------------------
inline bool is_pow2(std::uint64_t x) {
    return x != 0 && (x & (x - 1)) == 0;
}
inline unsigned log2u(std::uint64_t x) {
    unsigned r = 0;
    while ((std::uint64_t{1} << r) < x)
        ++r;
    return r;
}
inline std::uint64_t align8(std::uint64_t x) {
    return (x + 7) & ~std::uint64_t{7};
}
/// Blocks needed for n slots at `per_block` slots per block.
inline std::uint64_t block_count(std::uint64_t n, std::uint64_t per_block) {
    return n / per_block + (n % per_block != 0 ? 1 : 0);
}
/// Empty string if meta is valid, otherwise what is wrong with it.
std::string check_meta(const TableMeta& meta);
/// "ruleset" chars: [a-z0-9_-]; generator chars: printable ASCII.
bool valid_ruleset(std::string_view s);
bool valid_generator(std::string_view s);
/// Human name of a known foreign file type from its first bytes, or "".
std::string sniff_foreign(std::span<const std::uint8_t> head);

// ---- parallel for -------------------------------------------------------------------------
/// Effective thread count: `threads` if > 0, else the hardware concurrency (at least 1).
unsigned resolve_threads(int threads);

/// Runs fn(i, worker) for i in [0, n) on up to `threads` std::threads (worker in
/// [0, threads)); inline if threads <= 1 or n <= 1. The first exception thrown stops the
/// remaining work and is rethrown in the caller. std::thread rather than OpenMP so that
/// ThreadSanitizer sees every synchronisation.
template <class Fn>
void parallel_for(std::size_t n, unsigned threads, Fn&& fn) {
    if (threads > n) threads = static_cast<unsigned>(n);
    if (threads <= 1) {
        for (std::size_t i = 0; i < n; ++i)
            fn(i, 0u);
        return;
    }
    std::atomic<std::size_t> next{0};
    std::atomic<bool> stop{false};
    std::exception_ptr error;
    std::mutex error_mutex;
    auto work = [&](unsigned worker) {
        try {
            for (;;) {
                if (stop.load(std::memory_order_relaxed)) return;
                const std::size_t i = next.fetch_add(1, std::memory_order_relaxed);
                if (i >= n) return;
                fn(i, worker);
            }
        } catch (...) {
            std::lock_guard lock(error_mutex);
            if (!error) error = std::current_exception();
            stop = true;
        }
    };
    std::vector<std::thread> pool;
    pool.reserve(threads - 1);
    try {
        for (unsigned w = 1; w < threads; ++w)
            pool.emplace_back(work, w);
    } catch (...) {
        // A thread that cannot be started (std::system_error, e.g. `ulimit -u`): stop and
        // join those started, then report it; a joinable std::thread must never be destroyed.
        stop = true;
        for (auto& t : pool)
            t.join();
        throw;
    }
    work(0);
    for (auto& t : pool)
        t.join();
    if (error) std::rethrow_exception(error);
}

}  // namespace konane::format::detail
