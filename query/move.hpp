// The engine's move in one position (engine/engine.hpp `Decision`: the move, its source, score
// and line), asked here once for the command (`konane bestmove`) and `konane serve`
// (/api/bestmove): the table checked against the board and ruleset (tables.hpp), the engine made
// and asked. Python's `konane.Engine` keeps its engine between moves and renders the same
// Decision.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "core/board.hpp"
#include "engine/engine.hpp"

namespace konane::query {

/// What the engine is asked for one position.
struct MoveRequest {
    Board board = Board::make(1, 1);
    Position position;
    /// The engine's options: its table (when given, checked here), ruleset, memory, threads.
    engine::EngineOptions options;
    /// The ruleset the user gave, if any: with a table it must be the table's (else the table's
    /// holds). `table_name` and `rules_option` name them in the messages (table_rules()).
    std::optional<Ruleset> asked_rules;
    std::string table_name = "given";
    std::string rules_option = "--rules ";
    engine::MoveLimits limits;
};

/// The engine's decision in r.position within r.limits (nullopt: the side to move has no move,
/// it has lost); `progress` receives the heuristic search's completed iterations. With a table,
/// the engine plays under the table's ruleset. @throws std::invalid_argument for a table of
/// another board, or of another ruleset than the one asked (table_rules()); what
/// engine::Engine and Engine::decide throw (std::bad_alloc, a damaged table's FormatError).
std::optional<engine::Decision> best_move(
    MoveRequest r, const std::function<void(const engine::SearchInfo&)>& progress = {});

}  // namespace konane::query
