// The symmetry group of a board and canonical positions.
// Source: shared/docs/rules.md, "Equivalent positions".
#pragma once

#include <cstdint>
#include <vector>

#include "core/board.hpp"

namespace konane {

/// The symmetries of an R x C board as table-driven bit permutations: identity, 180-degree
/// rotation, left-right and top-bottom mirrors, and on square boards the two diagonal mirrors
/// and the two quarter turns (4 or 8 elements, identity first). A symmetry that maps Black's
/// squares onto White's "swaps colour": the image of a position then has the roles of Black and
/// White exchanged, and it is the same game for the side to move.
///
/// Applying one symmetry costs ceil(squares / 8) table look-ups (one per byte of the
/// occupancy), no per-square loop. Tables: size() x ceil(squares/8) x 256 words of 8 bytes.
class SymmetryGroup {
  public:
    explicit SymmetryGroup(const Board& b);

    const Board& board() const { return board_; }
    /// Number of symmetries (4, or 8 on square boards).
    int size() const { return size_; }
    /// True when symmetry g maps Black's squares onto White's.
    bool swaps_colour(int g) const { return (swap_mask_ >> g) & 1; }
    /// Image of square s under symmetry g.
    int map_square(int g, int s) const { return perm_[g * 64 + s]; }

    /// Image of an occupancy set under symmetry g.
    std::uint64_t apply(int g, std::uint64_t occ) const {
        const std::uint64_t* t = &table_[static_cast<std::size_t>(g) * bytes_ * 256];
        std::uint64_t r = 0;
        for (int j = 0; j < bytes_; ++j, t += 256)
            r |= t[(occ >> (8 * j)) & 0xff];
        return r;
    }

    /// Image of a position under symmetry g: the occupancy mapped; the side to move exchanged
    /// when g swaps colour (the mover's pieces then stand on the other colour's squares).
    Position image(int g, Position p) const {
        return Position{apply(g, p.occ), swaps_colour(g) ? other(p.to_move) : p.to_move};
    }

    /// The canonical form of p: the least image of p over the group in the order of
    /// Position's operator< (side to move, then occupancy). Positions are the same game
    /// exactly when their canonical forms are equal.
    Position canonical(Position p) const;

    /// key_of(canonical(p)); boards of at most 63 squares.
    std::uint64_t canonical_key(Position p) const {
        std::uint64_t best = key_of(p);
        for (int g = 1; g < size_; ++g) {
            const std::uint64_t k =
                apply(g, p.occ) |
                (static_cast<std::uint64_t>(static_cast<int>(p.to_move) ^ ((swap_mask_ >> g) & 1))
                 << 63);
            if (k < best) best = k;
        }
        return best;
    }

    /// Number of distinct positions in p's orbit under the colour-preserving symmetries (the
    /// raw positions of p's class that share p's side to move).
    int preserving_orbit_size(Position p) const;

    /// True when the group has at least one colour-swapping symmetry.
    bool has_colour_swap() const { return swap_mask_ != 0; }

  private:
    Board board_;
    int size_ = 0;
    int bytes_ = 0;
    unsigned swap_mask_ = 0;
    std::vector<int> perm_;
    std::vector<std::uint64_t> table_;
};

}  // namespace konane
