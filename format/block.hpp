// Internal to konane_format: the blocks of a layer (FORMAT.md §4). A block holds, side by side,
// the Elias-Fano high and low bits of the positions of `Q` consecutive buckets and the Huffman
// codes of their values, behind a 32-bit check bound to the block's two directory entries, so
// that a probe reads one directory line and one block, and the first check of a block hashes
// only the bytes the probe reads anyway.
//
// Sources: Elias 1974, Fano 1971 and Vigna, "Quasi-succinct indices" (WSDM 2013) for the
// high/low split (index/elias_fano.hpp); Huffman 1952 and RFC 1951 §3.2.2 for the canonical code
// (format/values.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <vector>

#include "format/detail.hpp"
#include "index/elias_fano.hpp"

namespace konane::format::detail {

/// Everything about a layer's blocks that follows from n, u and the header (FORMAT.md §4.1).
struct LayerGeometry {
    index::EliasFanoShape ef;  ///< n, u, low bits l and buckets B of the layer
    std::uint64_t q = 0;       ///< buckets per block (a power of two)
    std::uint64_t blocks = 0;  ///< ceil(B / q); 0 for an empty layer
    std::uint32_t v = 1;       ///< values per group (a power of two)
    unsigned q_shift = 0;      ///< log2(q)
    unsigned v_shift = 0;      ///< log2(v)

    static LayerGeometry make(std::uint64_t n, std::uint64_t u, std::uint32_t q, std::uint32_t v) {
        LayerGeometry g;
        g.ef = index::EliasFanoShape::make(n, u, q);
        g.q = q;
        g.blocks = n == 0 ? 0 : (g.ef.buckets + q - 1) / q;
        g.v = v;
        g.q_shift = static_cast<unsigned>(std::countr_zero(q));
        g.v_shift = static_cast<unsigned>(std::countr_zero(v));
        return g;
    }
    /// Buckets of block j: q, or fewer in the last block.
    std::uint64_t buckets_in(std::uint64_t j) const { return std::min(q, ef.buckets - j * q); }
    /// Entries of the group directory of a block of m elements.
    std::uint64_t groups_in(std::uint64_t m) const { return m == 0 ? 0 : (m - 1) >> v_shift; }
};

/// The parts of block j of m elements, in bits from the start of its bit string (which
/// follows its check and group directory): high bits [0, high), low bits [high, values),
/// codes from `values` on.
/// Trivial (no default initialisers): make() sets every field.
struct BlockParts {
    std::uint64_t m;       ///< elements
    std::uint64_t groups;  ///< group directory entries
    std::uint64_t high;    ///< m + buckets: the end of the high bits
    std::uint64_t values;  ///< high + m * l: the start of the codes
    std::uint64_t bits;    ///< bits of the bit string the block's length leaves (codes end
                           ///< there, less at most 7 zero bits)
    std::uint64_t start;   ///< byte offset of the bit string in the block

    /// The parts of a block of `len` bytes; false when `len` cannot hold them (m elements need
    /// at least one bit of code each).
    static bool make(const LayerGeometry& g, std::uint64_t j, std::uint64_t m, std::uint64_t len,
                     BlockParts& out) {
        out.m = m;
        out.bits = 0;
        out.groups = g.groups_in(m);
        out.high = m + g.buckets_in(j);
        out.values = out.high + m * g.ef.l;
        out.start = kBlockCheckBytes + 2 * out.groups;
        if (len < out.start) return false;
        out.bits = 8 * (len - out.start);
        return out.values + m <= out.bits;
    }
};

/// The seed of block j's check (FORMAT.md §4.3): XXH3-64 of j and its two directory entries
/// (j, offset_j, first_j, offset_j+1, first_j+1, five u64), seeded with the layer's key.
inline std::uint64_t block_seed(std::uint64_t layer_key, std::uint64_t j, std::uint64_t off0,
                                std::uint64_t first0, std::uint64_t off1, std::uint64_t first1) {
    std::uint8_t b[40];
    put64(b, j);
    put64(b + 8, off0);
    put64(b + 16, first0);
    put64(b + 24, off1);
    put64(b + 32, first1);
    return xxh3_64_seeded(b, sizeof b, layer_key);
}

/// A block's check: the low 32 bits of XXH3-64 of its bytes after the check, with its seed.
inline std::uint32_t block_check(const std::uint8_t* block, std::uint64_t len, std::uint64_t seed) {
    return static_cast<std::uint32_t>(
        xxh3_64_seeded(block + kBlockCheckBytes, len - kBlockCheckBytes, seed));
}

/// Appends bits least significant first to a byte vector.
class ByteBitWriter {
  public:
    explicit ByteBitWriter(std::vector<std::uint8_t>& out) : out_(out) {}
    /// Appends the n low bits of `bits` (n <= 64).
    void put(std::uint64_t bits, unsigned n) {
        if (n > 32) {
            put32(bits & 0xFFFFFFFFu, 32);
            put32(bits >> 32, n - 32);
        } else {
            put32(bits, n);
        }
    }
    void zeros(std::uint64_t n) {
        for (; n >= 32; n -= 32)
            put32(0, 32);
        put32(0, static_cast<unsigned>(n));
    }
    std::uint64_t bits() const { return total_; }
    /// Pads the last byte with zeros.
    void finish() {
        if (fill_ > 0) out_.push_back(static_cast<std::uint8_t>(acc_));
        acc_ = 0;
        fill_ = 0;
    }

  private:
    void put32(std::uint64_t bits, unsigned n) {  // n <= 32
        if (n == 0) return;
        acc_ |= (bits & ((std::uint64_t{1} << n) - 1)) << fill_;
        fill_ += n;
        total_ += n;
        while (fill_ >= 8) {
            out_.push_back(static_cast<std::uint8_t>(acc_));
            acc_ >>= 8;
            fill_ -= 8;
        }
    }
    std::vector<std::uint8_t>& out_;
    std::uint64_t acc_ = 0, total_ = 0;
    unsigned fill_ = 0;
};

/// Appends block j (its check left 0) to `out`: the group directory, then the high bits, the
/// low bits and the codes of its m elements (ranks ascending, all in the block's buckets).
/// Adds the codes' bits to value_bits and the directory's bytes to group_bytes.
/// `scratch` is reused between calls.
inline void encode_block(const LayerGeometry& g, std::uint64_t j,
                         std::span<const std::uint64_t> ranks, std::span<const std::uint8_t> depths,
                         const std::array<std::uint8_t, 256>& lengths,
                         const std::array<std::uint32_t, 256>& codes,
                         std::vector<std::uint8_t>& out, std::vector<std::uint8_t>& scratch,
                         std::uint64_t& value_bits, std::uint64_t& group_bytes) {
    const std::uint64_t m = ranks.size();
    const unsigned l = g.ef.l;
    scratch.clear();
    ByteBitWriter w(scratch);
    // High bits: per bucket, a 1 per element, then a 0.
    std::uint64_t bucket = j * g.q;
    for (const std::uint64_t x : ranks) {
        const std::uint64_t b = x >> l;
        w.zeros(b - bucket);
        bucket = b;
        w.put(1, 1);
    }
    w.zeros(j * g.q + g.buckets_in(j) - bucket);
    // Low bits.
    if (l > 0)
        for (const std::uint64_t x : ranks)
            w.put(x, l);
    // Codes, noting where each group of v starts.
    const std::uint64_t codes_at = w.bits();
    std::vector<std::uint64_t> group_len;
    std::uint64_t group_at = codes_at;
    for (std::uint64_t i = 0; i < m; ++i) {
        if (i > 0 && i % g.v == 0) {
            group_len.push_back(w.bits() - group_at);
            group_at = w.bits();
        }
        w.put(codes[depths[i]], lengths[depths[i]]);
    }
    value_bits += w.bits() - codes_at;
    w.finish();
    out.insert(out.end(), kBlockCheckBytes, 0);
    for (const std::uint64_t len : group_len) {  // < 2^16: a group is at most 1024 x 24 bits
        out.push_back(static_cast<std::uint8_t>(len));
        out.push_back(static_cast<std::uint8_t>(len >> 8));
    }
    group_bytes += 2 * group_len.size();
    out.insert(out.end(), scratch.begin(), scratch.end());
}

}  // namespace konane::format::detail
