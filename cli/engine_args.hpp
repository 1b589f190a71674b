// What the engine's commands (bestmove, engine, play) share: the engine's options as given on
// the command line (budget, table, memory, threads, ruleset, experiments) and the text of a line
// of moves. The engine: engine/engine.hpp, docs/engine.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/board.hpp"
#include "core/movegen.hpp"
#include "engine/engine.hpp"

namespace konane::cli {

/// The longest --time taken: a week a move.
inline constexpr double kMaxSeconds = 7 * 24 * 3600.0;

/// The engine's options as given on the command line (add_engine_options()).
struct EngineArgs {
    double seconds = 1;
    std::uint64_t nodes = 0;
    std::uint64_t depth = 0;
    std::string table, load, rules = "brainking", memory = "256M";
    std::string evaluation, features;
    double proof_share = 0.5;
    std::uint64_t threads = 1;
    bool baseline = false;
    bool quiet = false;
    CLI::Option* time_option = nullptr;  ///< --time, to tell whether it was given
};

/// Adds the engine's options to `cmd`: --time, --nodes, --depth, --table, --load, --rules,
/// --memory, -j, --evaluation, --features, --proof-share, --baseline (not --quiet).
void add_engine_options(CLI::App* cmd, EngineArgs& a);

/// The engine's options of `a`; opens the table. @throws UsageError for a bad --memory,
/// std::invalid_argument for a bad ruleset, evaluation or feature list, format::FormatError
/// for a damaged or foreign table.
engine::EngineOptions engine_options(const EngineArgs& a);

/// A move's budget from `a`: --nodes and --depth as given, --time when given or when neither
/// of the others is (1 s by default).
engine::MoveLimits move_limits(const EngineArgs& a);

/// The moves of `pv` in the project's notation, separated by spaces.
std::string line_text(const Board& b, const std::vector<Move>& pv);

}  // namespace konane::cli
