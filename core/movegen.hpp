// Move generation: the two opening removals and straight multi-jumps.
// Source: docs/rules.md, "Opening: two removals" and "Jumps".
#pragma once

#include <array>
#include <atomic>
#include <bit>
#include <cstdint>
#include <vector>

#include "core/board.hpp"
#include "core/rules_generic.hpp"

namespace konane {

/// A move: a removal when from == to (the square emptied), else a jump from `from` to `to`
/// along one line, the jumped squares being implied.
struct Move {
    std::uint8_t from = 0;
    std::uint8_t to = 0;
    bool is_removal() const { return from == to; }
    friend bool operator==(const Move&, const Move&) = default;
};

/// A legal move and the position it leads to.
struct MoveChild {
    Move move;
    Position child;
};

/// The position and move types of the 64-bit board for the rules written once
/// (core/rules_generic.hpp).
template <>
struct RulesTypes<Board> {
    using Pos = Position;
    using Move = konane::Move;
    using MoveChild = konane::MoveChild;
};

/// The largest number of legal moves a position on a board of up to 64 squares can have,
/// with a safe margin: each jump of one direction takes a different opponent piece (two pieces
/// jumping the same way never jump the same piece), so at most 4 directions x 32 opponent
/// pieces = 128 jumps, and at most 32 removals.
inline constexpr int kMaxMoves = 384;

/// Calls f(Move, Position child) for every jump of the side to move in p (Stage::Play
/// semantics: removals are not generated). Order: directions Up, Down, Right, Left; within a
/// direction, start squares in increasing index; for one start square, shorter jumps first.
/// Multi-jumps continue in one direction while the next square holds an opponent piece and the
/// one beyond is empty; every stopping point is a move (rules.md "Jumps").
template <class F>
inline void for_each_jump(const Board& b, Position p, F&& f) {
    const Color next = other(p.to_move);
    rules::jumps(b, p.occ, p.to_move, [&](int from, int land, std::uint64_t child) {
        f(Move{static_cast<std::uint8_t>(from), static_cast<std::uint8_t>(land)},
          Position{child, next});
    });
}

/// True when the side to move in p has at least one jump (Stage::Play semantics).
bool has_jump(const Board& b, Position p);

/// The number of jumps the side to move has in p (Stage::Play semantics: the moves
/// for_each_jump() would give), by bit operations without making the children
/// (core/rules_generic.hpp count_jumps). Inline: the proof search calls it at every node.
inline int count_jumps(const Board& b, Position p) {
    return rules::count_jumps(b, p.occ, p.to_move);
}

/// Every legal move in p under ruleset r, with its child, in the order of for_each_jump for
/// jumps; removals in increasing square index. By stage_of(b, r, p): full board
/// (Stage::FullBoard): Black's removals; one-hole board whose hole Black may empty under r
/// (Stage::OneHole): White's pieces next to the hole; otherwise (Stage::Play) jumps.
std::vector<MoveChild> legal_moves(const Board& b, Ruleset r, Position p);

/// The moves of a game under ruleset r: legal_moves(b, r, p); with jumps_only (no opening
/// removals: the full and one-hole boards are played by jumps too) every jump of p in
/// for_each_jump order.
std::vector<MoveChild> legal_moves(const Board& b, Ruleset r, Position p, bool jumps_only);

/// The number of move sequences of `depth` plies from position p (perft); the removals count
/// as plies. perft(.., 0) = 1. When `stop` is given, throws rules::PerftStopped soon after
/// *stop becomes true (the caller's interruption: Python's Ctrl-C).
std::uint64_t perft(const Board& b, Ruleset r, Position p, int depth,
                    const std::atomic<bool>* stop = nullptr);

}  // namespace konane
