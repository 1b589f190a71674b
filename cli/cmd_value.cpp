// `konane value`: the combinatorial game value of a position played by jumps alone (cgt/).
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "cgt/konane.hpp"
#include "cli/common.hpp"
#include "cli/help.hpp"
#include "cli/progress.hpp"
#include "cli/query_args.hpp"
#include "cli/value_json.hpp"
#include "core/notation.hpp"
#include "core/text.hpp"
#include "core/wide.hpp"
#include "query/value.hpp"

namespace konane::cli {

namespace {

struct ValueArgs {
    std::string position;
    std::string board;
    bool ascii = false;
    bool json = false;
    bool whole = false;
    bool quiet = false;
    std::uint64_t max_nodes = 0;
    std::string memory;
};

/// Values occ on board b (the 64-bit Board or the wide board: the same code) and prints it.
template <class BoardT, class Bits>
int value_on(const BoardT& b, const Bits& occ, const ValueArgs& a) {
    const query::PositionBudget budget =
        memory_budget(a.memory, a.max_nodes, cgt::kValueBytesPerPosition);
    cgt::ValueOptions opt = query::value_options(budget);
    opt.decompose = !a.whole;
    ProgressLine progress(!a.quiet);
    opt.progress = [&](std::size_t n, std::size_t) {
        progress.count("value", n, opt.max_positions);
    };
    cgt::GameStore store;
    cgt::BasicValuer<BoardT> v(b, store, opt);
    const auto ans = [&] {
        try {
            return query::value_answer(v, occ, budget, "--memory", "--max-nodes");
        } catch (...) {
            progress.finish();
            throw;
        }
    }();
    progress.finish();
    if (a.json) {
        std::printf("%s\n", dump(value_json(b, ans, store)).c_str());
        return kOk;
    }
    auto form = [&](cgt::GameId g) { return store.format(g, {a.ascii}); };
    std::printf("position:    %s (%s, jumps only, Black is Left)\n", rows_text(b, occ).c_str(),
                b.name().c_str());
    std::printf("value:       %s\n", form(ans.value).c_str());
    const Outcome o = cgt::konane_outcome(ans.outcome);
    std::printf("outcome:     %s (%s: %s)\n", cgt::outcome_letter(ans.outcome), outcome_name(o),
                outcome_description(o));
    if (!ans.number) {
        std::printf("mean:        %s\n", ans.thermal.mean.str().c_str());
        std::printf("temperature: %s\n", ans.thermal.temperature.str().c_str());
    }
    if (ans.regions.size() > 1) {
        std::printf("regions:     %zu\n", ans.regions.size());
        for (const auto& [r, rv] : ans.regions)
            std::printf("  %s  %s\n", rows_text(b, r).c_str(), form(rv).c_str());
    }
    std::printf("valued:      %zu position%s, %zu games\n", ans.positions,
                ans.positions == 1 ? "" : "s", ans.games);
    return kOk;
}

int run_value(const ValueArgs& a) {
    // A board size where the position belongs ("value 4x4"): said as such, not as a bad
    // character of a position.
    if (is_board_text(a.position)) {
        throw UsageError("value takes a position, not a board size ('" + printable(a.position) +
                         "'): e.g. konane value '.ox./o..x/....', or --board RxC beside it");
    }
    // The side to move does not enter a value: it may be left out.
    const std::string text = with_side(a.position);
    if (is_wide_text(text) || is_wide_text(a.board)) {  // past 64 squares
        std::optional<BigBoard> want;
        if (!a.board.empty()) want = parse_big_board(a.board);
        const ParsedBigPosition parsed = parse_big_position(text, want ? &*want : nullptr);
        return value_on(parsed.board, parsed.position.occ, a);
    }
    std::optional<Board> want;
    if (!a.board.empty()) want = Board::parse(a.board);
    const ParsedPosition parsed = parse_position(text, want ? &*want : nullptr);
    return value_on(parsed.board, parsed.position.occ, a);
}

}  // namespace

void add_value_command(CLI::App& app, Commands& out) {
    auto a = std::make_shared<ValueArgs>();
    auto* cmd = app.add_subcommand(
        "value",
        "Combinatorial game value of a position played by jumps alone (Black is Left): "
        "canonical form, outcome class, mean and temperature");
    cmd->add_option("POSITION", a->position,
                    "Position, e.g. '.ox./o..x/....' (the side to move may be left out: a value "
                    "does not depend on it)")
        ->required()
        ->check(non_empty());
    cmd->add_option("--board", a->board, "Board size RxC the position must have")
        ->check(non_empty());
    cmd->add_flag("--ascii", a->ascii, "^ and v for the arrows instead of Unicode");
    cmd->add_flag("--json", a->json, "JSON output: the form as text and as a tree");
    cmd->add_flag("--whole", a->whole,
                  "Value the board as one game instead of the sum of its independent regions");
    cmd->add_option("--max-nodes", a->max_nodes,
                    "Most positions (regions up to symmetry) to value (0: no limit but --memory)")
        ->check(decimal(0, std::uint64_t{1} << 40));
    cmd->add_option("--memory", a->memory,
                    "Memory budget, e.g. 500M: about 512 bytes a position (default as generate: "
                    "60% of the machine's memory, at most 16G)")
        ->check(non_empty());
    cmd->add_flag("-q,--quiet", a->quiet, "No progress line on stderr");
    out.push_back({cmd, [a] { return run_value(*a); }});
}

}  // namespace konane::cli
