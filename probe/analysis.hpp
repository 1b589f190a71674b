// Game analysis: each move of a game judged against a table (`konane analyse`, the review of
// `konane serve`'s page). Values: docs/rules.md ("Values").
#pragma once

#include <cstddef>
#include <vector>

#include "core/notation.hpp"
#include "probe/probe.hpp"

namespace konane {

/// One ply of a game judged against a table.
struct PlyAnalysis {
    Position before;     ///< the position the move was played in
    MoveValue played;    ///< the move played, its child, and its value for the mover
    Value value_before;  ///< the value of `before` for the mover
    Value value_after;   ///< the value of the child for the opponent, now to move
    MoveValue best;      ///< the perfect move of `before` (Tablebase::best_move())
    /// The value changed hands: the mover was winning and the opponent now wins.
    bool mistake = false;
    /// Not a mistake, but the move's value differs from the perfect move's: a win that takes
    /// longer, or a loss that comes sooner, than with perfect play.
    bool inaccurate = false;
};

/// A game judged against a table.
struct GameAnalysis {
    std::vector<Value> values;       ///< the value of each position of the game, for its mover
    std::vector<PlyAnalysis> plies;  ///< one per move
    bool over = false;               ///< the last position has no legal move
};

/// A position of the game that the table does not hold (nor, for a move's judgement, one of
/// its children): `index` is its place in Game::positions (0 the start).
struct GameNotStored : NotStored {
    std::size_t index;
    GameNotStored(const std::string& what, std::size_t i) : NotStored(what), index(i) {}
};

/// Judges every move of `game` (parse_game() on tb's board and ruleset, from any start the table
/// holds) with tb's values. @throws GameNotStored naming the first position the table does not
/// hold ("position P (after move i) is not stored in FILE"); format::FormatError on a damaged
/// block.
GameAnalysis analyse_game(const Tablebase& tb, const Game& game);

}  // namespace konane
