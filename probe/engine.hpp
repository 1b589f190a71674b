// What every engine that values positions with depths shares (Tablebase, Searcher,
// WideSearcher): the perfect move and the perfect line, written once over a small interface.
// Values and tie-breaks: docs/rules.md ("Values").
#pragma once

#include <concepts>
#include <optional>
#include <utility>
#include <vector>

#include "core/value.hpp"

namespace konane {

/// An engine that gives every legal move of a position with its value for the mover:
/// e.moves(p) returns a std::vector of move values (MoveValue, or a wide board's
/// WideMoveValue) in legal_moves() order, each with `move`, `child` (a position of the same
/// type as p) and `value` (core/value.hpp Value, depth counted from before the move).
/// Satisfied by Tablebase (probe/probe.hpp), Searcher (search/search.hpp) and WideSearcher
/// (search/wide_search.hpp); the proof search (search/proof.hpp) answers only who wins, without
/// depths, and has no moves().
template <class Engine, class Pos>
concept MoveValuer = requires(Engine& e, const Pos& p) {
    { e.moves(p).front().value } -> std::convertible_to<Value>;
    { e.moves(p).front().child } -> std::convertible_to<Pos>;
};

/// The perfect move of p: pick_best() of e.moves(p) (better(), earliest on ties); nullopt when
/// p has no move. Throws what e.moves() throws.
template <class Engine, class Pos>
requires MoveValuer<Engine, Pos>
auto best_move_of(Engine& e, const Pos& p) {
    return pick_best(e.moves(p));
}

/// The perfect line from p: perfect moves (best_move_of()), one per ply, until the side to move
/// has none; its length is p's depth to end. Throws what e.moves() throws.
template <class Engine, class Pos>
requires MoveValuer<Engine, Pos>
auto perfect_line_of(Engine& e, Pos p) {
    std::vector<typename decltype(e.moves(p))::value_type> line;
    while (auto mv = best_move_of(e, p)) {
        line.push_back(*mv);
        p = mv->child;
    }
    return line;
}

}  // namespace konane
