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
#include "core/notation.hpp"
#include "engine/engine.hpp"
#include "probe/probe.hpp"

namespace konane::cli {

/// The longest --time taken: a week a move.
inline constexpr double kMaxSeconds = 7 * 24 * 3600.0;

/// The most threads (-j) the engine's commands take: past the cores of any machine they run on
/// many times over, where each thread still costs its own state and a share of the time.
inline constexpr std::uint64_t kMaxEngineThreads = 256;

/// The engine's options as given on the command line (add_engine_options()).
struct EngineArgs {
    double seconds = 1;
    std::uint64_t nodes = 0;
    std::uint64_t depth = 0;
    std::string table, load, rules = "brainking", memory = "256M";
    std::string evaluation, features;
    double proof_share = 0.5;
    bool no_values = false;  ///< --no-values: no CGT value as a source
    std::uint64_t threads = 1;
    bool baseline = false;
    bool quiet = false;
    CLI::Option* time_option = nullptr;   ///< --time, to tell whether it was given
    CLI::Option* rules_option = nullptr;  ///< --rules, to tell whether it was given
};

/// Adds the engine's options to `cmd`: --time, --nodes, --depth, --table, --load, --rules,
/// --memory, -j, --evaluation, --features, --proof-share, --no-values, --baseline (not --quiet).
void add_engine_options(CLI::App* cmd, EngineArgs& a);

/// The engine's options of `a`; opens the table, whose ruleset the engine then plays
/// (engine_rules()). @throws UsageError for a bad --memory or a --rules other than the table's,
/// std::invalid_argument for a bad ruleset, evaluation or feature list, format::FormatError
/// for a damaged or foreign table.
engine::EngineOptions engine_options(const EngineArgs& a);

/// The ruleset the engine plays with `table` (--table of `a`): the table's. The one check of
/// --rules against the table for every command of the engine (bestmove, engine, play).
/// @throws UsageError "--rules R differs from the table's ruleset S" when --rules was given
/// and names another ruleset.
Ruleset engine_rules(const EngineArgs& a, const Tablebase& table);

/// A move's budget from `a`: --nodes and --depth as given, --time when given or when neither
/// of the others is (1 s by default).
engine::MoveLimits move_limits(const EngineArgs& a);

/// A game record in the project's notation ("d5 d4 f5-d5 ...") from a record in it or in
/// BrainKing's (upper-case squares "D5", "F5-D5", move numbers "1." or "1..." between the
/// moves): squares lower-cased, move numbers dropped. `brainking` (when given) is set when the
/// text was in BrainKing's form (upper case or move numbers), so that the command can say what
/// it read.
std::string read_record(const std::string& text, bool* brainking = nullptr);

/// `konane analyse` without a table: each move of `record` on board b set beside the engine's
/// choice at the budget of `a`, proven mistakes marked apart from the engine's judgements;
/// text, or JSON with `json`. Returns the exit code.
int run_engine_review(const Board& b, const std::string& record, const EngineArgs& a, bool json);

/// The position a command of the engine starts from: POSITION (the side to move may be left
/// out: Black), or a board RxC given as POSITION or --board for its full board, or, when
/// neither is given, `default_board`'s full board (nullptr: none). A position and --board must
/// agree. @throws UsageError when there is nothing to start from or the board is given twice,
/// NotationError or std::invalid_argument for a malformed position or board.
ParsedPosition engine_position(std::string position, std::string board, const char* default_board);

/// The moves of `pv` in the project's notation, separated by spaces.
std::string line_text(const Board& b, const std::vector<Move>& pv);

}  // namespace konane::cli
