// How the enumeration packs a canonical key, its flags and the number of pieces a jump captured
// into one 64-bit word, so that one radix sort orders the children by layer, then key.
// Source: docs/architecture.md, README.md ("How it works"); the sort is solver/radix_sort.hpp.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/board.hpp"

namespace konane::solver {

/// The largest board the generator handles, in squares (6x6 is the goal; 1x36 the longest jump).
inline constexpr int kMaxGenerateSquares = 36;

/// The one check of a generator's size limit (generate(), enumerate_to(), preflight_generate(),
/// generate_parts() with its larger limit).
/// @throws std::invalid_argument "board RxC has N squares: tablebases are generated for at most
///         M" when b has more than `max_squares` (M) squares
inline void require_generatable(const Board& b, int max_squares = kMaxGenerateSquares) {
    if (b.squares() > max_squares) {
        throw std::invalid_argument("board " + b.name() + " has " + std::to_string(b.squares()) +
                                    " squares: tablebases are generated for at most " +
                                    std::to_string(max_squares));
    }
}

/// The most flag bits an entry carries: a gap's run has one per symmetry of the board (at most
/// 8, the square's), a ruleset's run two (the sides to move the class was reached with).
inline constexpr int kMaxFlagBits = 8;

/// The most pieces one jump can capture on board b: a piece crosses at most
/// (max(R, C) - 1) / 2 opponents in one straight move (at least 1). Children of a position with
/// n pieces have n-1 .. n-max_capture(b) pieces.
constexpr int max_capture(const Board& b) {
    return std::max(1, (std::max(b.rows, b.cols) - 1) / 2);
}

/// The layout of an enumeration entry, from bit 0 up:
///   bits 0 .. F-1           the flags (F = flag_bits),
///   bits F .. F+S-1         the occupied squares of the canonical key (S = squares),
///   bit  F+S                the key's side to move,
///   bits F+S+1 .. +T-1      the tag: how many pieces the jump captured (1 .. max_capture),
///                           T = tag_bits; 0 in a layer's run (written without the tag).
/// Numeric order is then the order of (tag, key), and equal keys are adjacent.
struct EntryPacking {
    int squares = 0;
    int flag_bits = 2;
    int tag_bits = 0;

    /// The layout for board b with `flag_bits` flags and a tag wide enough for max_capture(b).
    /// Throws std::invalid_argument when the fields do not fit in 64 bits.
    static EntryPacking of(const Board& b, int flag_bits) {
        const EntryPacking p{
            b.squares(), flag_bits,
            static_cast<int>(std::bit_width(static_cast<unsigned>(max_capture(b))))};
        if (flag_bits < 1 || p.sort_bits() > 64) {
            throw std::invalid_argument("board " + b.name() + ": an enumeration entry needs " +
                                        std::to_string(p.sort_bits()) + " bits (" +
                                        std::to_string(flag_bits) + " flags), more than 64");
        }
        return p;
    }

    /// The width of an entry without its tag (a layer's run).
    constexpr int bits() const { return squares + flag_bits + 1; }
    /// The width of an entry with its tag: the radix sort's width (every higher bit is zero).
    constexpr int sort_bits() const { return bits() + tag_bits; }
    constexpr std::uint64_t flag_mask() const { return (std::uint64_t{1} << flag_bits) - 1; }
    /// The entry of canonical key `key` (side to move in bit 63) with `flags`.
    constexpr std::uint64_t pack(std::uint64_t key, std::uint64_t flags) const {
        return ((key >> 63) << (squares + flag_bits)) |
               ((key & ~(std::uint64_t{1} << 63)) << flag_bits) | flags;
    }
    /// The canonical key of an entry without its tag.
    constexpr std::uint64_t key(std::uint64_t e) const {
        const std::uint64_t side = e >> (squares + flag_bits);
        return (side << 63) |
               ((e & ((std::uint64_t{1} << (squares + flag_bits)) - 1)) >> flag_bits);
    }
    /// The entry `e` tagged with `captured` (1 .. max_capture).
    constexpr std::uint64_t tagged(std::uint64_t e, std::uint64_t captured) const {
        return (captured << bits()) | e;
    }
    /// The tag of a tagged entry, and the entry without it.
    constexpr std::uint64_t tag(std::uint64_t e) const { return e >> bits(); }
    constexpr std::uint64_t untagged(std::uint64_t e) const {
        return e & ((std::uint64_t{1} << bits()) - 1);
    }
};

// A bound on every layout: 36 squares, 8 flags, the side and a tag for 1x36's 17 captures make
// 36 + 8 + 1 + bit_width(17) = 50 bits.
static_assert(kMaxGenerateSquares + kMaxFlagBits + 1 +
                      std::bit_width(static_cast<unsigned>((kMaxGenerateSquares - 1) / 2)) <=
                  64,
              "an enumeration entry of the largest board must fit in 64 bits");

}  // namespace konane::solver
