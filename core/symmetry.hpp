// The symmetry group of a board and canonical positions.
// Source: docs/rules.md, "Equivalent positions".
#pragma once

#include <algorithm>
#include <bit>
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

    /// key_of(canonical(p)); boards of at most 63 squares. On boards of at most 8 rows and 8
    /// columns it computes the images with bit operations on an 8x8 layout (byte swap, byte
    /// mirror, transpose: a few dozen register operations, no memory access) instead of the
    /// byte tables; the result is the same.
    std::uint64_t canonical_key(Position p) const {
        if (fast_) return size_ == 8 ? canonical_key_8x8<true>(p) : canonical_key_8x8<false>(p);
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

    /// The images of one position's occupancy under the group, kept for the canonical keys of
    /// its children (child_key()). Filled only on boards where canonical_key() uses bit
    /// operations (at most 8 x 8, at most 63 squares); elsewhere unused.
    struct ParentImages {
        std::uint64_t img[8];
    };

    /// The images of occupancy `occ` for child_key(): computed once per position, they save
    /// each child the work of its own images.
    ParentImages parent_images(std::uint64_t occ) const {
        ParentImages pi{};
        if (fast_) images_8x8(to_8x8(occ), pi.img);
        return pi;
    }

    /// canonical_key(child) for `child`, reached from a position whose parent_images() are
    /// `pi` by the jump `from` -> `land` (a jump in a line, landing an even number of squares
    /// away: the squares that change are from, land and every second square between). Since
    /// each symmetry permutes squares, the image of the child's occupancy is the parent's image
    /// XOR the image of the squares the jump changes, read from a table of every jump of the
    /// board (8 words each): 8 XORs and the least of 8 keys instead of computing 8 images.
    /// Where canonical_key() uses the byte tables, or for a (from, land) that is no jump of the
    /// board, it is canonical_key(child). Same result as canonical_key(child) whenever
    /// child.occ is the parent's occupancy with that jump made.
    std::uint64_t child_key(const ParentImages& pi, Position child, int from, int land) const {
        if (!fast_) return canonical_key(child);
        const std::uint16_t j = jump_index_[static_cast<std::size_t>(from * 64 + land)];
        if (j == kNoJump) return canonical_key(child);
        const std::uint64_t* m = &jump_images_[static_cast<std::size_t>(j) * 8];
        const std::uint64_t side = static_cast<std::uint64_t>(child.to_move) << 63;
        std::uint64_t best = (pi.img[0] ^ m[0]) | (side ^ side_flip_[0]);
        for (int k = 1; k < 4; ++k)
            best = std::min(best, (pi.img[k] ^ m[k]) | (side ^ side_flip_[k]));
        if (size_ == 8) {
            for (int k = 4; k < 8; ++k)
                best = std::min(best, (pi.img[k] ^ m[k]) | (side ^ side_flip_[k]));
        }
        return key_from_8x8(best);
    }

    /// Number of distinct positions in p's orbit under the colour-preserving symmetries (the
    /// raw positions of p's class that share p's side to move). On boards of at most 8 x 8 by
    /// the bit operations of canonical_key() and the orbit-stabiliser theorem (the orbit has
    /// as many positions as the colour-preserving subgroup has elements, divided by the number
    /// of them that leave p as it is); the enumeration calls it once per position.
    int preserving_orbit_size(Position p) const {
        if (!fast_) return preserving_orbit_size_by_tables(p);
        std::uint64_t img[8];
        images_8x8(to_8x8(p.occ), img);
        int subgroup = 0, stabiliser = 0;
        for (int k = 0; k < size_; ++k) {
            const int keeps = side_flip_[k] == 0 ? 1 : 0;
            subgroup += keeps;
            stabiliser += keeps & (img[k] == img[0] ? 1 : 0);
        }
        // Both are powers of two (subgroups of the dihedral group of order 8): a shift, no
        // division.
        return subgroup >> std::countr_zero(static_cast<unsigned>(stabiliser));
    }
    /// preserving_orbit_size() by the byte tables (apply() per colour-preserving symmetry, the
    /// distinct images counted): the path of boards past 8 x 8, and the baseline its benchmark
    /// measures the bit operations against.
    int preserving_orbit_size_by_tables(Position p) const;

    /// True when the group has at least one colour-swapping symmetry.
    bool has_colour_swap() const { return swap_mask_ != 0; }

  private:
    // The 8x8 layout: square (rank y, file f) at bit 8y + f. Moving a board of C <= 8 columns
    // to it and back keeps the order of occupancies (both number squares rank by rank), so the
    // least image there is the least image in the board's own layout.
    // Row y moves up by y * (8 - C) bits, in three delta steps (rows with bit 2, 1, 0 of y set
    // move by 4, 2, 1 times 8 - C), each a mask, a shift and an or.
    std::uint64_t to_8x8(std::uint64_t x) const {
        x = (x & ~spread_[0]) | ((x & spread_[0]) << (4 * gap_));
        x = (x & ~spread_[1]) | ((x & spread_[1]) << (2 * gap_));
        return (x & ~spread_[2]) | ((x & spread_[2]) << gap_);
    }
    std::uint64_t from_8x8(std::uint64_t x) const {
        x = (x & ~gather_[2]) | ((x & gather_[2]) >> gap_);
        x = (x & ~gather_[1]) | ((x & gather_[1]) >> (2 * gap_));
        return (x & ~gather_[0]) | ((x & gather_[0]) >> (4 * gap_));
    }
    // A key in the 8x8 layout (side to move in bit 63) back in the board's layout.
    std::uint64_t key_from_8x8(std::uint64_t k) const {
        const std::uint64_t side = std::uint64_t{1} << 63;
        return from_8x8(k & ~side) | (k & side);
    }
    // Reverses the bits of each byte (file f -> 7 - f).
    static std::uint64_t mirror_bytes(std::uint64_t x) {
        x = ((x >> 1) & 0x5555555555555555ull) | ((x & 0x5555555555555555ull) << 1);
        x = ((x >> 2) & 0x3333333333333333ull) | ((x & 0x3333333333333333ull) << 2);
        return ((x >> 4) & 0x0F0F0F0F0F0F0F0Full) | ((x & 0x0F0F0F0F0F0F0F0Full) << 4);
    }
    // (rank y, file f) -> (rank f, file y) by three delta swaps (the "flip about the a1-h8
    // diagonal" of chess bitboards, chessprogramming.org "Flipping Mirroring and Rotating").
    static std::uint64_t transpose_8x8(std::uint64_t x) {
        std::uint64_t t = 0x0F0F0F0F00000000ull & (x ^ (x << 28));
        x ^= t ^ (t >> 28);
        t = 0x3333000033330000ull & (x ^ (x << 14));
        x ^= t ^ (t >> 14);
        t = 0x5500550055005500ull & (x ^ (x << 7));
        return x ^ t ^ (t >> 7);
    }
    // The images of an occupancy x in the 8x8 layout, in canonical_key_8x8's order (and
    // side_flip_'s): the first four, and on square boards the four after a transpose.
    void images_8x8(std::uint64_t x, std::uint64_t* img) const {
        const int vshift = 8 * (8 - board_.rows), hshift = 8 - board_.cols;
        const std::uint64_t m = mirror_bytes(x);
        img[0] = x;
        img[1] = __builtin_bswap64(x) >> vshift;
        img[2] = m >> hshift;
        img[3] = __builtin_bswap64(m) >> (vshift + hshift);
        if (size_ == 8) {
            const std::uint64_t t = transpose_8x8(x), tm = mirror_bytes(t);
            img[4] = t;
            img[5] = __builtin_bswap64(t) >> vshift;
            img[6] = tm >> hshift;
            img[7] = __builtin_bswap64(tm) >> (vshift + hshift);
        }
    }
    // The least key over the group's images, in the 8x8 layout: identity, top-bottom mirror,
    // left-right mirror, 180-degree rotation, and on square boards the same four after a
    // transpose. The byte mirror commutes with the byte swap and with shifts by whole bytes.
    template <bool Square>
    std::uint64_t canonical_key_8x8(Position p) const {
        const int vshift = 8 * (8 - board_.rows), hshift = 8 - board_.cols;
        const std::uint64_t side = static_cast<std::uint64_t>(p.to_move) << 63;
        auto least4 = [&](std::uint64_t a, const std::uint64_t* flip) {
            const std::uint64_t m = mirror_bytes(a);
            const std::uint64_t k0 = a | (side ^ flip[0]);
            const std::uint64_t k1 = (__builtin_bswap64(a) >> vshift) | (side ^ flip[1]);
            const std::uint64_t k2 = (m >> hshift) | (side ^ flip[2]);
            const std::uint64_t k3 = (__builtin_bswap64(m) >> (vshift + hshift)) | (side ^ flip[3]);
            return std::min(std::min(k0, k1), std::min(k2, k3));
        };
        const std::uint64_t x = to_8x8(p.occ);
        std::uint64_t best = least4(x, side_flip_);
        if constexpr (Square) best = std::min(best, least4(transpose_8x8(x), side_flip_ + 4));
        return key_from_8x8(best);
    }

    static constexpr std::uint16_t kNoJump = 0xFFFF;

    Board board_;
    std::vector<std::uint16_t> jump_index_;   // from * 64 + land -> row of jump_images_
    std::vector<std::uint64_t> jump_images_;  // per jump, the 8x8 images of the squares it changes
    bool fast_ = false;                       // canonical_key() by canonical_key_8x8()
    int gap_ = 0;                             // 8 - C
    std::uint64_t spread_[3] = {};            // to_8x8's rows moving at step i, where they are then
    std::uint64_t gather_[3] = {};     // from_8x8's rows moving at step i, where they are then
    std::uint64_t side_flip_[8] = {};  // bit 63 set where image k of canonical_key_8x8 swaps colour
    int size_ = 0;
    int bytes_ = 0;
    unsigned swap_mask_ = 0;
    std::vector<int> perm_;
    std::vector<std::uint64_t> table_;
};

}  // namespace konane
