// Elias-Fano encoding of a strictly increasing sequence of n integers below u, with exact
// membership and rank queries: the position index of table format 2 (format/FORMAT.md §4.1).
//
// Sources: P. Elias, "Efficient storage and retrieval by content and address of static files",
// JACM 1974; R. Fano, "On the number of bits required to implement an associative memory",
// MIT Project MAC memo 61, 1971; S. Vigna, "Quasi-succinct indices", WSDM 2013 (the layout
// below, select by sampled positions).
//
// Layout, for l = floor(log2(u / n)) (0 when u <= n) and buckets = ((u - 1) >> l) + 1:
//   low bits:  the l low bits of x_i, packed at bit i*l of little-endian 64-bit words;
//   high bits: for each bucket b in 0..buckets-1, one 1 per element whose x >> l == b, then
//              one 0 (so element i is the 1 at bit (x_i >> l) + i, and bucket b ends with the
//              b-th 0), packed LSB first in 64-bit words; n + buckets bits;
//   samples:   the bit position of every Q-th 0 of the high bits (0-th, Q-th, 2Q-th, ...),
//              one 64-bit word each: ceil(buckets / Q) words.
// Space: n*l + n + buckets + 64*ceil(buckets/Q) bits, about n (2 + log2(u/n)) + 64 buckets/Q.
// Membership of x: find the start of bucket x >> l (select of the (x>>l)-1-th zero from the
// nearest sample, at most Q zeros away), then compare the low bits of the bucket's elements
// (about one on average). The answer's index i is the rank of x in the sequence.
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

namespace konane::index {

/// The sizes of an Elias-Fano sequence, all derived from n, u and the sample interval q.
struct EliasFanoShape {
    std::uint64_t n = 0;        ///< elements
    std::uint64_t u = 0;        ///< universe: every element < u; u >= n
    std::uint64_t q = 0;        ///< zeros between samples (a power of two)
    unsigned l = 0;             ///< low bits per element
    std::uint64_t buckets = 0;  ///< ((u - 1) >> l) + 1, or 0 when n == 0

    /// The shape for n elements below u with a sample every q zeros.
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
    std::uint64_t sample_words() const { return (buckets + q - 1) / q; }
    /// Total words of the three arrays.
    std::uint64_t words() const { return low_words() + high_words() + sample_words(); }
};

/// Index (0-based) of the r-th set bit of w (r < popcount(w)).
inline unsigned select64(std::uint64_t w, unsigned r) {
    for (; r > 0; --r)
        w &= w - 1;
    return static_cast<unsigned>(std::countr_zero(w));
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

/// Builds the three arrays of an Elias-Fano sequence, one element at a time.
class EliasFanoBuilder {
  public:
    explicit EliasFanoBuilder(const EliasFanoShape& s)
        : s_(s), low_(s.low_words(), 0), high_(s.high_words(), 0) {}

    /// Appends x (strictly greater than the previous element, < u).
    /// @throws std::invalid_argument on a broken order or range, or too many elements
    void push(std::uint64_t x) {
        if (i_ >= s_.n) throw std::invalid_argument("Elias-Fano: more elements than declared");
        if (x >= s_.u || (i_ > 0 && x <= last_))
            throw std::invalid_argument("Elias-Fano: elements not strictly increasing below u");
        last_ = x;
        if (s_.l > 0) {
            const std::uint64_t pos = i_ * s_.l;
            const std::uint64_t lo = s_.l == 64 ? x : x & ((std::uint64_t{1} << s_.l) - 1);
            low_[pos >> 6] |= lo << (pos & 63);
            if ((pos & 63) + s_.l > 64) low_[(pos >> 6) + 1] |= lo >> (64 - (pos & 63));
        }
        const std::uint64_t hb = (x >> s_.l) + i_;
        high_[hb >> 6] |= std::uint64_t{1} << (hb & 63);
        ++i_;
    }

    /// Checks the count and computes the samples. @throws std::invalid_argument if short
    void finish() {
        if (i_ != s_.n) throw std::invalid_argument("Elias-Fano: fewer elements than declared");
        samples_.clear();
        samples_.reserve(s_.sample_words());
        std::uint64_t zeros = 0;  // zeros before the current word
        const std::uint64_t bits = s_.high_bits();
        for (std::uint64_t w = 0; w < high_.size(); ++w) {
            std::uint64_t z = ~high_[w];
            if ((w + 1) * 64 > bits) z &= (std::uint64_t{1} << (bits - w * 64)) - 1;
            const auto c = static_cast<std::uint64_t>(std::popcount(z));
            // Next zero index to sample: samples_.size() * q.
            while (samples_.size() * s_.q < zeros + c) {
                const auto r = static_cast<unsigned>(samples_.size() * s_.q - zeros);
                samples_.push_back(w * 64 + select64(z, r));
            }
            zeros += c;
        }
    }

    const std::vector<std::uint64_t>& low() const { return low_; }
    const std::vector<std::uint64_t>& high() const { return high_; }
    const std::vector<std::uint64_t>& samples() const { return samples_; }

  private:
    EliasFanoShape s_;
    std::uint64_t i_ = 0, last_ = 0;
    std::vector<std::uint64_t> low_, high_, samples_;
};

/// The first bit of bucket h in the high bits: one past the (h-1)-th zero, from the sample
/// before it (the first half of ef_find()). sample(i) and high(i) as for ef_find().
template <class High, class Sample>
std::uint64_t ef_bucket_start(const EliasFanoShape& s, const High& high, const Sample& sample,
                              std::uint64_t h) {
    if (h == 0) return 0;
    const std::uint64_t j = h - 1;
    const std::uint64_t p0 = sample(j / s.q);
    std::uint64_t r = j % s.q;  // more zeros to pass after p0
    if (r == 0) return p0 + 1;
    std::uint64_t w = (p0 + 1) >> 6;
    const unsigned b = static_cast<unsigned>((p0 + 1) & 63);
    std::uint64_t z = ~high(w) & (~std::uint64_t{0} << b);
    for (;;) {
        const auto c = static_cast<std::uint64_t>(std::popcount(z));
        if (c >= r) return w * 64 + select64(z, static_cast<unsigned>(r - 1)) + 1;
        r -= c;
        z = ~high(++w);
    }
}

/// The index of the element of bucket h whose low bits are lo, scanning the bucket from its
/// first bit pos (ef_bucket_start()), or nullopt (the second half of ef_find()).
template <class Low, class High>
std::optional<std::uint64_t> ef_bucket_find(const EliasFanoShape& s, const Low& low,
                                            const High& high, std::uint64_t pos, std::uint64_t h,
                                            std::uint64_t lo) {
    // The ones of bucket h: elements (pos - h), (pos + 1 - h), ... until the bucket's zero.
    for (;; ++pos) {
        if (((high(pos >> 6) >> (pos & 63)) & 1) == 0) return std::nullopt;
        const std::uint64_t i = pos - h;
        const std::uint64_t v = read_bits(low, i * s.l, s.l);
        if (v == lo) return i;
        if (v > lo) return std::nullopt;
    }
}

/// Rank of x in the sequence (its index), or nullopt when x is not an element.
/// The arrays are read through accessors, so that a caller can check or bound every read:
/// low(i), high(i) and sample(i) return word i of the low bits, high bits and samples
/// (they may throw; high(i) for i past the array must throw or return ~0 so no scan runs away).
template <class Low, class High, class Sample>
std::optional<std::uint64_t> ef_find(const EliasFanoShape& s, const Low& low, const High& high,
                                     const Sample& sample, std::uint64_t x) {
    if (s.n == 0 || x >= s.u) return std::nullopt;
    const std::uint64_t h = x >> s.l;
    const std::uint64_t lo = s.l == 0 ? 0 : x & ((std::uint64_t{1} << s.l) - 1);
    return ef_bucket_find(s, low, high, ef_bucket_start(s, high, sample, h), h, lo);
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
