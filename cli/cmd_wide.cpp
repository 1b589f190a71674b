// `konane moves`, `perft` and `solve` on boards past 64 squares (cli/wide_cmd.hpp).
#include <cstdio>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/answer_text.hpp"
#include "cli/common.hpp"
#include "cli/json.hpp"
#include "cli/progress.hpp"
#include "cli/query_args.hpp"
#include "cli/wide_cmd.hpp"
#include "core/text.hpp"
#include "core/wide.hpp"
#include "probe/wide_search.hpp"
#include "solver/solve.hpp"

namespace konane::cli {

int run_moves_wide(const std::string& board_text, const std::string& position,
                   const std::string& rules_text, const std::string& game, bool game_given,
                   bool json) {
    const Ruleset rules = parse_ruleset(rules_text);
    std::optional<BigBoard> board;
    if (!board_text.empty()) board = parse_big_board(board_text);
    if (!position.empty() && game_given)
        throw UsageError("give either a POSITION or --game, not both");
    BigPosition pos;
    if (!position.empty()) {
        const auto parsed = parse_big_position(position, board ? &*board : nullptr);
        board = parsed.board;
        pos = parsed.position;
    } else {
        pos = parse_game(*board, rules, game, board->start()).positions.back();
    }
    print_moves(*board, rules, pos, legal_moves(*board, rules, pos), json);
    return kOk;
}

int run_perft_wide(const std::string& board_text, int depth, const std::string& rules_text,
                   bool json) {
    const BigBoard board = parse_big_board(board_text);
    const Ruleset rules = parse_ruleset(rules_text);
    const std::uint64_t nodes = perft(board, rules, board.start(), depth);
    print_perft(cli::json{{"board", board.name()}, {"rules", ruleset_name(rules)}}, depth, nodes,
                json);
    return kOk;
}

int run_solve_wide(const SolveArgs& a) {
    if (!a.table.empty()) throw UsageError("--table: tables are for boards of at most 64 squares");
    if (a.wdl || !a.gap.empty() || a.plain || a.dfpn || a.max_nodes || !a.certificate.empty() ||
        !a.work.empty()) {
        throw UsageError(
            "--wdl, --gap, --plain, --dfpn, --max-nodes, --certificate and --work are for boards "
            "of at most 64 squares; past 64 squares solve searches with depths (--max-positions, "
            "--memory)");
    }
    std::optional<BigBoard> want;
    if (!a.board.empty()) want = parse_big_board(a.board);
    std::string text = a.position;
    if (text.empty() && want) text = format_position(*want, want->start());
    const ParsedBigPosition parsed = parse_big_position(text, want ? &*want : nullptr);
    const BigBoard& b = parsed.board;
    const BigPosition p = parsed.position;
    SearchOptions opt;
    opt.rules = parse_ruleset(a.rules);
    opt.jumps_only = a.jumps_only;
    opt.max_positions = a.max_positions;
    const query::PositionBudget budget =
        memory_budget(a.memory, opt.max_positions, kWideSearchBytesPerPosition);
    opt.max_positions = budget.positions;
    ProgressLine progress(!a.quiet);
    opt.progress = [&](std::size_t n) { progress.count("search", n, opt.max_positions); };
    WideSearcher s(b, opt);
    WideAnswer ans;
    std::optional<Value> black_starts, white_starts;
    try {
        ans = engine_answer(s, p);
        if (a.both) {
            black_starts = s.value(BigPosition{p.occ, Color::Black});
            white_starts = s.value(BigPosition{p.occ, Color::White});
        }
    } catch (const SearchLimit& e) {
        progress.finish();
        if (!budget.memory_binds) throw;
        throw SearchLimit(fmt::format("{}; {}", e.what(), budget.limit_reason("--memory", "")));
    }
    progress.finish();
    if (a.json) {
        std::optional<std::pair<Value, Value>> both;
        if (a.both) both = std::pair{*black_starts, *white_starts};
        const json j =
            solve_json(b, ans, SearchFigures{s.positions(), 0, 0}, opt.rules, opt.jumps_only, both);
        std::printf("%s\n", dump(j).c_str());
        return kOk;
    }
    print_answer(b, ans,
                 fmt::format("search, ruleset {}{}", ruleset_name(opt.rules),
                             opt.jumps_only ? ", jumps only" : ""));
    std::printf("game:     %s\n", game_kind(b, opt.rules, opt.jumps_only, p));
    if (a.both) print_outcome(*black_starts, *white_starts);
    std::printf("searched: %zu position%s\n", s.positions(), s.positions() == 1 ? "" : "s");
    return kOk;
}

}  // namespace konane::cli
