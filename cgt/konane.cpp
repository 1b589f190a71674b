// Kōnane positions as combinatorial games (konane.hpp; the region rule: docs/cgt.md).
#include "cgt/konane.hpp"

#include "cgt/konane_generic.hpp"

#include <algorithm>
#include <bit>
#include <string>
#include <unordered_set>

#include "core/movegen.hpp"

namespace konane::cgt {

// The code is written once, over the board type, in cgt/konane_generic.hpp.

std::uint64_t reach(const Board& b, std::uint64_t occ) {
    return generic::reach(b, occ);
}

std::uint64_t bounded_reach(const Board& b, std::uint64_t occ) {
    return generic::bounded_reach(b, occ);
}

std::uint64_t dilate(const Board& b, std::uint64_t x) {
    // The first and last files' masks, kept for the last board seen (one per thread).
    thread_local int rows = 0, cols = 0;
    thread_local std::uint64_t first_file = 0, last_file = 0;
    if (rows != b.rows || cols != b.cols) {
        rows = b.rows;
        cols = b.cols;
        first_file = last_file = 0;
        for (int r = 1; r <= b.rows; ++r) {
            first_file |= std::uint64_t{1} << b.square(0, r);
            last_file |= std::uint64_t{1} << b.square(b.cols - 1, r);
        }
    }
    return generic::dilate(b, x, first_file, last_file);
}

std::optional<std::uint64_t> exact_reach(const Board& b, std::uint64_t occ, std::size_t budget) {
    return generic::exact_reach(b, occ, budget);
}

std::vector<std::uint64_t> regions(const Board& b, std::uint64_t occ, std::size_t exact_budget) {
    return generic::regions_within(
        b, occ, exact_budget, [&](std::uint64_t x) { return dilate(b, x); },
        [&](std::uint64_t g) {
            const std::uint64_t r = generic::bounded_reach(b, g);
            return ReachSet<std::uint64_t>{r, dilate(b, r)};
        });
}

BigBits reach(const BigBoard& b, const BigBits& occ) {
    return generic::reach(b, occ);
}

BigBits bounded_reach(const BigBoard& b, const BigBits& occ) {
    return generic::bounded_reach(b, occ);
}

BigBits dilate(const BigBoard& b, const BigBits& x) {
    return generic::dilate(b, x, b.first_file, b.last_file);
}

std::optional<BigBits> exact_reach(const BigBoard& b, const BigBits& occ, std::size_t budget) {
    return generic::exact_reach(b, occ, budget);
}

std::vector<BigBits> regions(const BigBoard& b, const BigBits& occ, std::size_t exact_budget) {
    return generic::regions_within(
        b, occ, exact_budget, [&](const BigBits& x) { return dilate(b, x); },
        [&](const BigBits& g) {
            const BigBits r = generic::bounded_reach(b, g);
            return ReachSet<BigBits>{r, dilate(b, r)};
        });
}

template class BasicValuer<Board>;
template class BasicValuer<BigBoard>;

}  // namespace konane::cgt
