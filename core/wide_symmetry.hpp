// The symmetry group of a wide board (core/wide.hpp): the same symmetries as core/symmetry.hpp
// SymmetryGroup (docs/rules.md "Equivalent positions"), applied square by square.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/wide.hpp"

namespace konane {

/// The symmetries of an R x C wide board: identity, 180-degree rotation, left-right and
/// top-bottom mirrors, and on square boards the two diagonal mirrors and the two quarter turns
/// (4 or 8, identity first, in SymmetryGroup's order). apply() maps the occupied squares one by
/// one (a loop over the pieces: positions valued on wide boards are sparse).
template <int N>
class WideSymmetryGroup {
  public:
    using Bits = WideBits<N>;
    explicit WideSymmetryGroup(const WideBoard<N>& b) : board_(b) {
        const int R = b.rows, C = b.cols, n = b.squares();
        size_ = R == C ? 8 : 4;
        perm_.assign(static_cast<std::size_t>(size_) * n, 0);
        auto map = [&](int g, int f, int y) -> std::pair<int, int> {
            switch (g) {
                case 0:
                    return {f, y};
                case 1:
                    return {C - 1 - f, R - 1 - y};
                case 2:
                    return {C - 1 - f, y};
                case 3:
                    return {f, R - 1 - y};
                case 4:
                    return {y, f};
                case 5:
                    return {C - 1 - y, R - 1 - f};
                case 6:
                    return {y, C - 1 - f};
                default:
                    return {C - 1 - y, f};
            }
        };
        for (int g = 0; g < size_; ++g) {
            for (int s = 0; s < n; ++s) {
                auto [f2, y2] = map(g, b.file_of(s), b.rank_of(s) - 1);
                perm_[static_cast<std::size_t>(g) * n + s] =
                    static_cast<std::uint16_t>(y2 * C + f2);
            }
            if (b.color_of(perm_[static_cast<std::size_t>(g) * n]) != b.color_of(0))
                swap_mask_ |= 1u << g;
        }
    }

    const WideBoard<N>& board() const { return board_; }
    /// Number of symmetries (4, or 8 on square boards).
    int size() const { return size_; }
    /// True when symmetry g maps Black's squares onto White's.
    bool swaps_colour(int g) const { return (swap_mask_ >> g) & 1; }
    /// Image of square s under symmetry g.
    int map_square(int g, int s) const {
        return perm_[static_cast<std::size_t>(g) * board_.squares() + s];
    }
    /// Image of an occupancy set under symmetry g.
    Bits apply(int g, Bits occ) const {
        Bits r{};
        const std::uint16_t* p = &perm_[static_cast<std::size_t>(g) * board_.squares()];
        while (occ) {
            const int s = BitOps<Bits>::lowest(occ);
            BitOps<Bits>::pop_lowest(occ);
            BitOps<Bits>::set(r, p[s]);
        }
        return r;
    }

  private:
    WideBoard<N> board_;
    int size_ = 0;
    unsigned swap_mask_ = 0;
    std::vector<std::uint16_t> perm_;
};

}  // namespace konane
