// Combinatorial (colex) rank of an occupancy within its layer: the index of the table format
// (format/FORMAT.md; the index since format 2, kept in format 4).
//
// A layer holds positions with the same number k of pieces on S squares. Its keys
// (core/board.hpp key_of: bits 0..62 the occupied squares, bit 63 the side to move) are mapped
// to a dense range by the colexicographic rank of the occupancy among all k-subsets of the S
// squares (the "combinatorial number system", Knuth TAOCP 7.2.1.3, Theorem L):
//     colex_rank(occ) = sum over the set bits p_1 < p_2 < ... < p_k of C(p_i, i)
// which is a bijection from the k-subsets of {0..S-1} onto [0, C(S, k)) and preserves numeric
// order (for two k-subsets, the one with the larger highest differing bit is larger in both).
// The side to move is put on top: key_rank = side * C(S, k) + colex_rank(occ). So sorted keys
// of a layer map to sorted ranks below 2 C(S, k), and the Elias-Fano set over them
// (index/elias_fano.hpp) costs about 2 + log2(C(S, k) / n) bits per key instead of
// 2 + log2(2^S / n) for raw occupancies.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

namespace konane::index {

namespace colex_detail {
/// C(n, k) for 0 <= n, k <= 64 (0 when k > n). The largest, C(64, 32) ~ 1.8e18, fits in 64 bits.
struct Binomials {
    std::uint64_t c[65][65] = {};
    constexpr Binomials() {
        for (int n = 0; n <= 64; ++n) {
            c[n][0] = 1;
            for (int k = 1; k <= n; ++k)
                c[n][k] = c[n - 1][k - 1] + (k <= n - 1 ? c[n - 1][k] : 0);
        }
    }
};
inline constexpr Binomials kBinomials{};
}  // namespace colex_detail

/// The binomial coefficient C(n, k) for n, k in 0..64 (0 when k > n).
constexpr std::uint64_t binomial(unsigned n, unsigned k) {
    return colex_detail::kBinomials.c[n][k];
}

/// Colex rank of the set bits of `occ` among all subsets of the same size: sum of C(p_i, i) over
/// the set bits p_1 < ... < p_k (i from 1). Order-preserving among sets of equal popcount.
constexpr std::uint64_t colex_rank(std::uint64_t occ) {
    std::uint64_t r = 0;
    for (unsigned i = 1; occ != 0; ++i, occ &= occ - 1)
        r += binomial(static_cast<unsigned>(std::countr_zero(occ)), i);
    return r;
}

/// Inverse of colex_rank: the set of k bits below bit `squares` whose colex rank is r.
/// Requires k <= squares <= 64 and r < C(squares, k) (not checked). At most squares + k steps.
constexpr std::uint64_t colex_unrank(std::uint64_t r, unsigned k, unsigned squares) {
    std::uint64_t occ = 0;
    unsigned p = squares;
    for (unsigned i = k; i >= 1; --i) {
        // The largest p < previous p with C(p, i) <= r (C(i-1, i) = 0 stops the scan).
        do
            --p;
        while (binomial(p, i) > r);
        occ |= std::uint64_t{1} << p;
        r -= binomial(p, i);
    }
    return occ;
}

/// Rank of a tablebase key (bit 63 = White to move) within the layer of keys with the same
/// number of pieces on a board of `squares` (<= 63) squares: side * C(squares, k) + colex rank.
/// Order-preserving over the keys of one layer; below 2 C(squares, k).
constexpr std::uint64_t key_rank(std::uint64_t key, unsigned squares) {
    const std::uint64_t occ = key & ~(std::uint64_t{1} << 63);
    const std::uint64_t side = key >> 63;
    return side * binomial(squares, static_cast<unsigned>(std::popcount(occ))) + colex_rank(occ);
}

/// Inverse of key_rank for a layer of k pieces: requires rank < 2 C(squares, k) (not checked).
constexpr std::uint64_t key_unrank(std::uint64_t rank, unsigned k, unsigned squares) {
    const std::uint64_t c = binomial(squares, k);
    const std::uint64_t side = rank >= c ? 1 : 0;
    return colex_unrank(rank - side * c, k, squares) | (side << 63);
}

}  // namespace konane::index
