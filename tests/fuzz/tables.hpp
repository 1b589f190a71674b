// Small real tables for the fuzz targets: written by the generator into a directory.
#pragma once

#include <filesystem>
#include <string>

#include "core/board.hpp"
#include "solver/solve.hpp"

namespace konane::fuzz {

/// Writes the table of board `board` under `rules` into `dir` (one thread, a small memory
/// budget) and returns its path, named like `konane generate` names it.
inline std::filesystem::path write_table(const std::filesystem::path& dir, const Board& board,
                                         Ruleset rules) {
    solver::GenerateOptions o;
    o.board = board;
    o.rules = rules;
    o.threads = 1;
    o.memory_bytes = std::uint64_t{256} << 20;
    o.output = dir / solver::default_table_name(board, rules);
    solver::generate(o);
    return o.output;
}

}  // namespace konane::fuzz
