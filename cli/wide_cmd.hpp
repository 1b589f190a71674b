// The commands on boards past 64 squares (core/wide.hpp): `moves`, `perft` and `solve` take this
// path when the position or board has more than 64 squares (is_wide_text()); `value` does in
// cli/cmd_value.cpp. The output is the 64-bit path's, line for line.
#pragma once

#include <string>

#include "cli/proof_cmd.hpp"

namespace konane::cli {

/// `konane moves` on a wide board: POSITION (or the full board of board_text, with the moves
/// of `game` played from it), its legal moves under `rules`. Returns the exit code.
int run_moves_wide(const std::string& board_text, const std::string& position,
                   const std::string& rules, const std::string& game, bool game_given, bool json);

/// `konane perft BOARD DEPTH` on a wide board (no --gap). Returns the exit code.
int run_perft_wide(const std::string& board_text, int depth, const std::string& rules, bool json);

/// `konane solve` on a wide board: the search of probe/wide_search.hpp (values, depths, every
/// move, the perfect line; --both the outcome class); no table, no --wdl, no --gap.
int run_solve_wide(const SolveArgs& a);

}  // namespace konane::cli
