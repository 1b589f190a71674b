// Board geometry, positions, keys and opening rulesets of Konane.
// Source of every rule: docs/rules.md ("Board and colours", "Opening: two removals").
#pragma once

#include <bit>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace konane {

/// The two sides. Black moves first after the removals (rules.md "Jumps").
enum class Color : std::uint8_t { Black = 0, White = 1 };

/// The other side.
constexpr Color other(Color c) {
    return c == Color::Black ? Color::White : Color::Black;
}

/// "black" or "white".
const char* color_name(Color c);

/// Opening rulesets (rules.md "Opening: two removals"):
/// - Brainking: Black removes a corner or a central piece (the default);
/// - Center: Black removes a central piece only (Berlekamp's opening);
/// - Any: Black removes any of its pieces.
/// In all three White then removes a piece orthogonally adjacent to the emptied square.
enum class Ruleset : std::uint8_t { Brainking = 0, Center = 1, Any = 2 };

/// "brainking", "center" or "any".
const char* ruleset_name(Ruleset r);

/// Parses a ruleset name (case-sensitive, as ruleset_name prints it).
/// Throws std::invalid_argument naming the bad value and the accepted ones.
Ruleset parse_ruleset(std::string_view name);

/// A position: the occupied squares and the side to move. Which piece stands on a square
/// follows from the square's colour (rules.md "Board and colours"), so no colour bits are needed.
/// Square index s = (rank - 1) * cols + file, rank 1 at the bottom, file 0 = `a`; bit s of `occ`.
struct Position {
    std::uint64_t occ = 0;
    Color to_move = Color::Black;
    friend bool operator==(const Position&, const Position&) = default;
};

/// Order used for canonical forms: by side to move (Black first), then by occupancy.
/// This is the numeric order of key() on boards of up to 63 squares.
constexpr bool operator<(const Position& a, const Position& b) {
    return a.to_move != b.to_move ? a.to_move < b.to_move : a.occ < b.occ;
}

/// Directions of a jump; shift() gives the square-index step of each.
enum Direction : int { Up = 0, Down = 1, Right = 2, Left = 3 };

/// The most squares a board may have: a position's occupancy is one 64-bit word. Any R x C with
/// R, C >= 1 and R*C <= 64 is a board (1x64, 3x12, 8x8, 64x1, ...) for the rules, moves,
/// perft and the searches; tables need keys (key_of, at most kMaxKeySquares squares) and are
/// generated for smaller boards still (solver/entry_packing.hpp kMaxGenerateSquares).
inline constexpr int kMaxSquares = 64;

/// The most squares a board may have for key_of: bit 63 of a key holds the side to move.
inline constexpr int kMaxKeySquares = 63;

/// Geometry of an R x C board, R, C >= 1, R*C <= kMaxSquares (64), with the bit masks that move
/// generation and symmetry use.
struct Board {
    int rows = 0;
    int cols = 0;
    std::uint64_t all = 0;        ///< every square of the board
    std::uint64_t color[2] = {};  ///< [Black] Black's squares, [White] White's squares
    /// can_jump[d]: squares from which the square two steps in direction d is on the board.
    std::uint64_t can_jump[4] = {};
    int step[4] = {};  ///< index step of each direction: +cols, -cols, +1, -1

    /// Makes the geometry of an R x C board. Throws std::invalid_argument when R or C is below
    /// 1 or R*C > 64, with a message naming the size.
    static Board make(int rows, int cols);

    /// Parses "RxC" (e.g. "6x6"); throws std::invalid_argument on malformed or out-of-range text.
    static Board parse(std::string_view text);

    int squares() const { return rows * cols; }
    /// 0-based file of square s.
    int file_of(int s) const { return s % cols; }
    /// 1-based rank of square s.
    int rank_of(int s) const { return s / cols + 1; }
    int square(int file, int rank) const { return (rank - 1) * cols + file; }
    /// Colour of square s: Black's when (file + R - rank) is even (rules.md).
    Color color_of(int s) const {
        return ((file_of(s) + rows - rank_of(s)) & 1) ? Color::White : Color::Black;
    }
    /// "RxC".
    std::string name() const;
    /// The full board, Black to move (the first stage of the opening).
    Position start() const { return Position{all, Color::Black}; }
    /// The squares Black may empty first under ruleset r (always Black squares).
    std::uint64_t black_removals(Ruleset r) const;
    /// Squares orthogonally adjacent to square s.
    std::uint64_t neighbours(int s) const;
    /// The central squares: rows floor((R-1)/2)..floor(R/2) x columns floor((C-1)/2)..floor(C/2).
    std::uint64_t centre() const;
    /// The four corner squares (fewer on boards one square wide).
    std::uint64_t corners() const;

    friend bool operator==(const Board& a, const Board& b) {
        return a.rows == b.rows && a.cols == b.cols;
    }
};

/// Pieces of the side to move / of its opponent in position p.
inline std::uint64_t mover_pieces(const Board& b, Position p) {
    return p.occ & b.color[static_cast<int>(p.to_move)];
}
inline std::uint64_t opponent_pieces(const Board& b, Position p) {
    return p.occ & b.color[static_cast<int>(other(p.to_move))];
}

/// Number of pieces on the board.
inline int piece_count(Position p) {
    return std::popcount(p.occ);
}

/// The tablebase key of a position on a board of at most kMaxKeySquares (63) squares: bits
/// 0..62 the occupied squares, bit 63 set when White is to move (equivalently: when the
/// mover's pieces stand on White's squares). Keys order as Positions do. On a 64-square board
/// (8x8, 1x64, 2x32, 4x16, ...) square 63 would collide with the side to move: keys, and so
/// tables, are for smaller boards; the searches key their memos by Position, not by key_of.
constexpr std::uint64_t key_of(Position p) {
    return p.occ | (static_cast<std::uint64_t>(p.to_move) << 63);
}

/// Inverse of key_of.
constexpr Position position_of_key(std::uint64_t key) {
    return Position{key & ~(std::uint64_t{1} << 63), static_cast<Color>(key >> 63)};
}

/// The stage of the game a position is in (rules.md "Opening: two removals", "Jumps"; README.md
/// "Positions no opening produces"): FullBoard: no empty square and Black to move (Black
/// removes); OneHole: one empty square, White to move, and the hole is one of Black's removals
/// under the ruleset (White removes next to it); Play: everything else (jumps). A position no
/// opening of the ruleset produces (a one-hole board whose hole is on a White square, or on a
/// Black square the ruleset does not let Black empty; a full board with White to move) is in
/// the Play stage: it is played by jumps.
enum class Stage : std::uint8_t { FullBoard, OneHole, Play };

/// The stage of position p on board b under ruleset r (the rule above). Every command decides
/// the stage with this function, through legal_moves().
Stage stage_of(const Board& b, Ruleset r, Position p);

/// The stage of p under ruleset Any, the widest: a one-hole board with White to move is OneHole
/// when its hole is on a Black square. Equal to stage_of(b, r, p) on every position an opening
/// of ruleset r produces; use the three-argument form where a ruleset is known.
Stage stage_of(const Board& b, Position p);

}  // namespace konane
