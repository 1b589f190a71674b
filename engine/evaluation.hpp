// The engine's evaluation of a Kōnane position on a board of up to 64 squares: how good the
// position looks to the side to move when no search, table or proof decides it. Rules:
// docs/rules.md ("Jumps", "End": the side with no jump loses). Each term and its measured
// effect in matches: docs/engine.md.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/board.hpp"

namespace konane::engine {

/// The evaluation's terms and weights, in hundredths of a move.
struct Evaluation {
    /// Mobility: own jumps minus the opponent's (rules::count_jumps), the classic Kōnane
    /// evaluation (Ernst 1995; the control player of course tournaments).
    int mobility = 100;
    /// Movable pieces: own pieces with at least one jump minus the opponent's (a piece with
    /// three jumps is still one move a turn).
    int movable = 0;
    /// Safe jumps: own jumps from pieces the opponent cannot capture at once (no opponent jump
    /// takes them) minus the opponent's such jumps.
    int safe = 0;
};

/// The baseline's evaluation: the mobility difference alone (`konane engine --baseline`).
inline constexpr Evaluation kMobilityOnly{100, 0, 0};

/// Parses "mobility=100,movable=30,safe=50" (any of the terms, in any order; the terms not
/// named keep their default) into an Evaluation. Weights are integers from -10000 to 10000.
/// @throws std::invalid_argument naming the unknown term or the bad weight.
Evaluation parse_evaluation(std::string_view text);

/// The evaluation as parse_evaluation() reads it: "mobility=100,movable=0,safe=0".
std::string evaluation_text(const Evaluation& e);

/// Score of a won position for the side to move, less the plies to the end: a win in n plies
/// scores kWinScore - n, a loss in n plies -(kWinScore - n).
inline constexpr int kWinScore = 30000;

/// Scores at least this far from 0 are proven wins or losses found by the search.
inline constexpr int kWinBound = kWinScore - 1000;

/// The evaluation of (occ, to_move) on board b for the side to move, in hundredths of a move.
/// When the side to move has no jump the position is lost: -(kWinScore - ply).
int evaluate(const Board& b, std::uint64_t occ, Color to_move, const Evaluation& e, int ply);

}  // namespace konane::engine
