// Boards past 64 squares: the geometry, positions and moves of boards of up to 64*N squares on
// the N-word bitboard WideBits<N>, with the rules (core/rules_generic.hpp) and the notation
// (core/notation_generic.hpp) that the 64-bit Board uses, written once for both. Tables and
// their 64-bit keys stay on the 64-bit Board; this is for the rules, moves, perft, the search
// (search/wide_search.hpp) and the values (cgt/wide.hpp).
// Source of every rule: docs/rules.md.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/bitboard.hpp"
#include "core/board.hpp"
#include "core/notation.hpp"
#include "core/rules_generic.hpp"

namespace konane {

/// Words of the wide bitboard the commands use: 7 x 64 = 448 squares (21x21, 20x22, 14x32...).
inline constexpr int kWideWords = 7;

/// The most squares a wide board may have.
inline constexpr int kMaxWideSquares = 64 * kWideWords;

/// A position on a wide board: the occupied squares (bit s = square s, the 64-bit Board's
/// numbering: s = (rank - 1) * cols + file) and the side to move.
template <int N>
struct WidePosition {
    WideBits<N> occ{};
    Color to_move = Color::Black;
    friend bool operator==(const WidePosition&, const WidePosition&) = default;
};

/// A move on a wide board: from == to is a removal of that square, else a jump from `from` to
/// `to` (square indices up to 65,535).
struct WideMove {
    std::uint16_t from = 0;
    std::uint16_t to = 0;
    bool is_removal() const { return from == to; }
    friend bool operator==(const WideMove&, const WideMove&) = default;
};

/// A legal move on a wide board and the position it leads to.
template <int N>
struct WideMoveChild {
    WideMove move;
    WidePosition<N> child;
};

/// The geometry of an R x C board of at most 64*N squares, with the masks of core/board.hpp
/// Board (the same meaning, on WideBits<N>).
template <int N>
struct WideBoard {
    using Bits = WideBits<N>;
    static constexpr int kMaxSquares = 64 * N;
    int rows = 0;
    int cols = 0;
    Bits all{};
    Bits color[2] = {};
    Bits can_jump[4] = {};
    int step[4] = {};
    Bits first_file{};  ///< the squares of file a
    Bits last_file{};   ///< the squares of the last file

    /// Makes an R x C board. Throws std::invalid_argument when R or C is below 1 or R*C is
    /// past kMaxSquares, naming the size.
    static WideBoard make(int rows, int cols) {
        if (rows < 1 || cols < 1 || rows > kMaxSquares || cols > kMaxSquares ||
            rows * cols > kMaxSquares) {
            const bool positive = rows >= 1 && cols >= 1;
            throw std::invalid_argument(
                "board " + std::to_string(rows) + "x" + std::to_string(cols) +
                " is out of range: " +
                (positive ? "it has " + std::to_string(static_cast<long long>(rows) * cols) +
                                " squares, boards have at most " + std::to_string(kMaxSquares)
                          : "rows and columns must be at least 1 (and rows x columns at most " +
                                std::to_string(kMaxSquares) + ")"));
        }
        WideBoard b;
        b.rows = rows;
        b.cols = cols;
        rules::init_geometry(b);
        for (int r = 1; r <= rows; ++r) {
            BitOps<Bits>::set(b.first_file, b.square(0, r));
            BitOps<Bits>::set(b.last_file, b.square(cols - 1, r));
        }
        return b;
    }

    int squares() const { return rows * cols; }
    int file_of(int s) const { return s % cols; }
    int rank_of(int s) const { return s / cols + 1; }
    int square(int file, int rank) const { return (rank - 1) * cols + file; }
    Color color_of(int s) const {
        return ((file_of(s) + rows - rank_of(s)) & 1) ? Color::White : Color::Black;
    }
    std::string name() const { return std::to_string(rows) + "x" + std::to_string(cols); }
    WidePosition<N> start() const { return WidePosition<N>{all, Color::Black}; }
    Bits black_removals(Ruleset r) const { return rules::black_removals(*this, r); }
    Bits neighbours(int s) const { return rules::neighbours(*this, s); }
    Bits centre() const { return rules::centre(*this); }
    Bits corners() const { return rules::corners(*this); }
    friend bool operator==(const WideBoard& a, const WideBoard& b) {
        return a.rows == b.rows && a.cols == b.cols;
    }
};

template <int N>
struct RulesTypes<WideBoard<N>> {
    using Pos = WidePosition<N>;
    using Move = WideMove;
    using MoveChild = WideMoveChild<N>;
};

/// The wide board the commands use, and its bitboard.
using BigBoard = WideBoard<kWideWords>;
using BigBits = WideBits<kWideWords>;
using BigPosition = WidePosition<kWideWords>;
using BigMoveChild = WideMoveChild<kWideWords>;

/// Parses "RxC" for a wide board (at most kMaxWideSquares squares). Throws
/// std::invalid_argument on malformed or out-of-range text.
BigBoard parse_big_board(std::string_view text);

/// The 64-bit board of the same size as a wide board of at most 64 squares, and back.
Board narrow_board(const BigBoard& b);
BigBoard widen_board(const Board& b);
/// The same position on the other board type (the board of at most 64 squares).
Position narrow(const BigPosition& p);
BigPosition widen(Position p);

/// Calls f(WideMove, WidePosition child) for every jump of the side to move in p, in the order
/// of core/movegen.hpp for_each_jump (the same rule, core/rules_generic.hpp).
template <int N, class F>
inline void for_each_jump(const WideBoard<N>& b, const WidePosition<N>& p, F&& f) {
    const Color next = other(p.to_move);
    rules::jumps(b, p.occ, p.to_move, [&](int from, int land, const WideBits<N>& child) {
        f(WideMove{static_cast<std::uint16_t>(from), static_cast<std::uint16_t>(land)},
          WidePosition<N>{child, next});
    });
}

/// The stage of p under ruleset r (core/board.hpp stage_of's rule).
template <int N>
Stage stage_of(const WideBoard<N>& b, Ruleset r, const WidePosition<N>& p) {
    return rules::stage(b, r, p.occ, p.to_move);
}

/// Every legal move of p under r (jumps only with jumps_only), as core/movegen.hpp legal_moves.
template <int N>
std::vector<WideMoveChild<N>> legal_moves(const WideBoard<N>& b, Ruleset r,
                                          const WidePosition<N>& p, bool jumps_only = false) {
    return rules::legal_moves(b, r, p, jumps_only);
}

/// Move sequences of `depth` plies from p under r, as core/movegen.hpp perft.
template <int N>
std::uint64_t perft(const WideBoard<N>& b, Ruleset r, const WidePosition<N>& p, int depth) {
    return rules::perft(b, r, p, depth);
}

/// Number of pieces on the board.
template <int N>
int piece_count(const WidePosition<N>& p) {
    return BitOps<WideBits<N>>::count(p.occ);
}

/// A parsed position on a wide board.
struct ParsedBigPosition {
    BigBoard board;
    BigPosition position;
};

/// Formats a position on a wide board (core/notation.hpp format_position's notation).
std::string format_position(const BigBoard& b, const BigPosition& p);

/// Parses a position of up to kMaxWideSquares squares (core/notation.hpp parse_position's
/// notation and errors). Throws NotationError.
ParsedBigPosition parse_big_position(std::string_view text, const BigBoard* expected = nullptr);

/// True when the text of a position (or "RxC") describes a board of more than 64 squares:
/// the commands then take the wide path (whose parser refuses more than kMaxWideSquares,
/// naming that limit). Malformed text answers false (the 64-bit parser names the problem).
bool is_wide_text(std::string_view text);

/// Square, move and game record notation on a wide board (core/notation.hpp's).
std::string square_name(const BigBoard& b, int s);
std::string format_move(const BigBoard& b, WideMove m);
BigMoveChild parse_move(const BigBoard& b, Ruleset r, const BigPosition& p, std::string_view text);

/// The positions of a game record from `start` (positions.size() == moves.size() + 1).
struct BigGame {
    std::vector<BigMoveChild> moves;
    std::vector<BigPosition> positions;
};
BigGame parse_game(const BigBoard& b, Ruleset r, std::string_view record, const BigPosition& start);

}  // namespace konane
