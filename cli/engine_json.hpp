// The JSON object of the engine's decision (engine/engine.hpp): what `konane bestmove --json`
// prints and `konane serve` answers at /api/bestmove, built in one place so that they cannot
// drift apart.
#pragma once

#include <optional>

#include "cli/json.hpp"
#include "core/board.hpp"
#include "engine/engine.hpp"

namespace konane::cli {

/// {"position", "move", "child" (the position after it), "source" ("table", "proof", "value",
/// "search", "only move"), "describe", "proven" ("win", "loss" or null), "depth", "score", "pv":
/// [moves], "nodes", "proof_nodes", "seconds", "value" (source "value": the position's CGT value
/// in CGSuite's notation, Black as Left, cut after 120 characters with "..."; else null)} for
/// decision d in p on board b; without a decision (no legal move): {"position", "move": null,
/// "describe": "no legal move: ..."}.
json decision_json(const Board& b, Position p, const std::optional<engine::Decision>& d);

}  // namespace konane::cli
