// Elias-Fano encoding of a strictly increasing sequence of n integers below u: the split of
// each element into high and low bits that table format 4 stores, cut into blocks
// (format/block.hpp, format/FORMAT.md §4), and the decoding of format 3's whole-layer arrays,
// which `konane upgrade` reads (format/upgrade.cpp).
//
// Sources: P. Elias, "Efficient storage and retrieval by content and address of static files",
// JACM 1974; R. Fano, "On the number of bits required to implement an associative memory",
// MIT Project MAC memo 61, 1971; S. Vigna, "Quasi-succinct indices", WSDM 2013.
//
// For l = floor(log2(u / n)) (0 when u <= n) and buckets = ((u - 1) >> l) + 1:
//   low bits:  the l low bits of each element x_i;
//   high bits: for each bucket b in 0..buckets-1, one 1 per element whose x >> l == b, then
//              one 0 (so element i is the 1 at bit (x_i >> l) + i, and bucket b ends with the
//              b-th 0): n + buckets bits.
// Format 3 stored them as two arrays of little-endian 64-bit words (low bits at bit i*l,
// high bits LSB first) beside a select sample every Q zeros of the high bits.
#pragma once

#include <bit>
#include <cstdint>
#include <stdexcept>

namespace konane::index {

/// The sizes of an Elias-Fano sequence, all derived from n, u and q (format 3's zeros between
/// select samples, format 4's buckets per block).
struct EliasFanoShape {
    std::uint64_t n = 0;        ///< elements
    std::uint64_t u = 0;        ///< universe: every element < u; u >= n
    std::uint64_t q = 0;        ///< zeros between samples, or buckets per block (a power of two)
    unsigned l = 0;             ///< low bits per element
    std::uint64_t buckets = 0;  ///< ((u - 1) >> l) + 1, or 0 when n == 0

    /// The shape for n elements below u, with q as above.
    /// @throws std::invalid_argument when u < n, q is not a power of two, or n > 0 == u.
    static EliasFanoShape make(std::uint64_t n, std::uint64_t u, std::uint64_t q) {
        if (u < n) throw std::invalid_argument("Elias-Fano: universe smaller than the count");
        if (!std::has_single_bit(q)) throw std::invalid_argument("Elias-Fano: q not a power of 2");
        EliasFanoShape s;
        s.n = n;
        s.u = u;
        s.q = q;
        if (n == 0) return s;
        s.l = u / n > 1 ? static_cast<unsigned>(std::bit_width(u / n) - 1) : 0;
        s.buckets = ((u - 1) >> s.l) + 1;
        return s;
    }
    std::uint64_t low_words() const { return (n * l + 63) / 64; }
    std::uint64_t high_bits() const { return n + buckets; }
    std::uint64_t high_words() const { return (high_bits() + 63) / 64; }
};

/// Index of set bit number r (from 0) of w; requires r < popcount(w). A byte at a time, then
/// within the byte: at most 8 + 7 steps.
inline unsigned select64(std::uint64_t w, unsigned r) {
    unsigned base = 0;
    for (;;) {
        const auto c = static_cast<unsigned>(std::popcount(w & 0xFF));
        if (r < c) break;
        r -= c;
        w >>= 8;
        base += 8;
    }
    for (; r > 0; --r)
        w &= w - 1;
    return base + static_cast<unsigned>(std::countr_zero(w));
}

/// Reads `l` bits at bit position `pos` of a word array through `word(i)`.
template <class Word>
std::uint64_t read_bits(const Word& word, std::uint64_t pos, unsigned l) {
    if (l == 0) return 0;
    const std::uint64_t w = pos >> 6;
    const unsigned off = static_cast<unsigned>(pos & 63);
    std::uint64_t v = word(w) >> off;
    if (off + l > 64) v |= word(w + 1) << (64 - off);
    return l == 64 ? v : v & ((std::uint64_t{1} << l) - 1);
}

/// Decodes every element, in order, into out[0..n). The arrays are plain in memory here.
/// @throws std::runtime_error when the high bits do not hold exactly n ones before their end
inline void ef_decode_all(const EliasFanoShape& s, const std::uint64_t* low,
                          const std::uint64_t* high, std::uint64_t* out) {
    const std::uint64_t words = s.high_words();
    std::uint64_t i = 0;
    auto lw = [&](std::uint64_t k) { return low[k]; };
    for (std::uint64_t w = 0; w < words && i < s.n; ++w) {
        std::uint64_t ones = high[w];
        while (ones != 0 && i < s.n) {
            const std::uint64_t pos = w * 64 + static_cast<unsigned>(std::countr_zero(ones));
            ones &= ones - 1;
            out[i] = ((pos - i) << s.l) | read_bits(lw, i * s.l, s.l);
            ++i;
        }
    }
    if (i != s.n) throw std::runtime_error("Elias-Fano: high bits hold fewer elements than n");
}

}  // namespace konane::index
