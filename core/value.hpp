// The value of a position (WIN or LOSS and the depth to end), the value of a move, the perfect
// move among values, and the value of a position from its children's, written once for every
// engine (tables, the searches, the proof search) and every board type.
// Source: docs/rules.md ("Values", "Equivalent positions").
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "core/board.hpp"
#include "core/movegen.hpp"
#include "core/rules_generic.hpp"

namespace konane {

/// The value of a position for the side to move: WIN or LOSS, and the depth to end in plies
/// (the winner hurries, the loser delays). WIN depths are odd, LOSS depths even; a position
/// without a move is a LOSS at depth 0 (rules.md "Values").
struct Value {
    bool win = false;
    int depth = 0;
    /// The value a depth byte stands for (odd = WIN).
    static Value from_depth(int d) { return Value{(d & 1) != 0, d}; }
    friend bool operator==(const Value&, const Value&) = default;
};

/// The value of a move for the player who makes it, from the value of the child position for
/// the opponent: WIN when the child is a LOSS, depth 1 + the child's depth.
constexpr Value move_value(const Value& child) {
    return Value{!child.win, child.depth + 1};
}

/// A legal move with the value it leads to for the player who makes it: `value.win` when the
/// child is a LOSS for the opponent, and `value.depth` = 1 + the child's depth, counted from
/// before the move, so the perfect move's depth equals the position's.
struct MoveValue {
    Move move;
    Position child;
    Value value;
};

/// The preference between two move values of one position (rules.md "Values"): a WIN beats a
/// LOSS; among WINs the smaller depth, among LOSSes the greater depth. better(a, b) is strict:
/// equal values are not better, so scanning the moves in legal_moves() order and keeping a move
/// only when it is better breaks ties towards the earlier move (direction up, down, right,
/// left; start square a1, b1, ...; shorter jumps first; removals by square).
constexpr bool better(const Value& a, const Value& b) {
    if (a.win != b.win) return a.win;
    return a.win ? a.depth < b.depth : a.depth > b.depth;
}

/// The perfect move among `moves` (better(), earliest on ties); nullopt when empty. MV is
/// MoveValue or a wide board's (search/wide_search.hpp WideMoveValue): any type with `value`.
template <class MV>
std::optional<MV> pick_best(const std::vector<MV>& moves) {
    std::optional<MV> best;
    for (const auto& mv : moves) {
        if (!best || better(mv.value, best->value)) best = mv;
    }
    return best;
}

/// Whether position p of a game under ruleset r is played by removals (rules.md "Opening: two
/// removals"): core/board.hpp stage_of is not Play; never with jumps_only (every position is
/// then played by jumps). BoardT: Board or WideBoard<N>.
template <class BoardT>
bool in_opening(const BoardT& b, Ruleset r, const typename RulesTypes<BoardT>::Pos& p,
                bool jumps_only = false) {
    return !jumps_only && rules::stage(b, r, p.occ, p.to_move) != Stage::Play;
}

/// The value of a position from its moves (rules.md "Values"): child(mc, i, n) gives the value
/// of the i-th of the n moves' child mc.child for its side to move, as std::optional<Value>;
/// the result is the best move_value() of them by better(), a LOSS at depth 0 without a move,
/// and nullopt as soon as one child's value is nullopt (unknown). With first_win the moves
/// after the first winning one are not asked (for a search that asks only who wins: the
/// depth is then that of the first winning move, not the least).
template <class MoveChildT, class ChildValue>
std::optional<Value> value_from_moves(const std::vector<MoveChildT>& moves, ChildValue&& child,
                                      bool first_win = false) {
    std::optional<Value> best;
    for (std::size_t i = 0; i < moves.size(); ++i) {
        const std::optional<Value> v = child(moves[i], i, moves.size());
        if (!v) return std::nullopt;
        const Value mine = move_value(*v);
        if (!best || better(mine, *best)) best = mine;
        if (first_win && mine.win) break;
    }
    return best ? *best : Value{false, 0};
}

/// The value of an opening-stage position p (in_opening()) from its children's, the one
/// recursion of every engine through the opening removals: value_from_moves() over
/// legal_moves(b, r, p) (the removals in increasing square order). Opening-stage positions are
/// answered from their children and never stored nor memoised (rules.md "Equivalent
/// positions"; a colour-swapping symmetry can map the full board with Black to move onto the
/// full board with White to move).
template <class BoardT, class ChildValue>
std::optional<Value> opening_value(const BoardT& b, Ruleset r,
                                   const typename RulesTypes<BoardT>::Pos& p, ChildValue&& child,
                                   bool first_win = false) {
    return value_from_moves(rules::legal_moves(b, r, p, false), child, first_win);
}

}  // namespace konane
