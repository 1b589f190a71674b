// A game reviewed by the engine, for boards and positions no table holds (`konane analyse`
// without a table): each move set beside the engine's choice, a mistake marked as proven when
// the proof search (or a table) shows the mover threw a won position away, else judged by the
// heuristic search's score drop. docs/engine.md "Reviewing a game".
#pragma once

#include <optional>
#include <vector>

#include "core/notation.hpp"
#include "engine/engine.hpp"

namespace konane::engine {

/// One ply of a game reviewed by the engine.
struct PlyReview {
    Position before;   ///< the position the move was played in
    MoveChild played;  ///< the move played and its child
    Decision choice;   ///< the engine's move in `before`, with its source
    /// The proven value of `before` for the mover (true: won), when the table or the proof
    /// search decided it within the budget.
    std::optional<bool> before_won;
    /// The proven value of the child for the opponent, now to move (true: the opponent wins).
    std::optional<bool> after_won;
    /// Proven: the mover was winning and the opponent now wins.
    bool proven_mistake = false;
    /// The move played is the engine's choice.
    bool agrees = false;
    /// Heuristic judgement, when no proof settles the move and it differs from the engine's:
    /// the engine's score of its own move and of the move played (for the mover, hundredths
    /// of a move, from searches of the same budget), and the drop between them.
    std::optional<int> choice_score, played_score;
    int drop() const { return choice_score && played_score ? *choice_score - *played_score : 0; }
};

/// Reviews every move of `game` (parse_game() on e's board and ruleset) with e, `limits` a
/// move (for the engine's choice, and again for the proof and the judgement of the move played
/// when it differs). `each` (optional) is called after each ply. Throws what Engine::decide
/// throws.
std::vector<PlyReview> review_game(Engine& e, const Game& game, const MoveLimits& limits,
                                   const std::function<void(const PlyReview&)>& each = {});

}  // namespace konane::engine
