// `konane bestmove`: the engine's move in one position, with its source, score and line
// (engine/engine.hpp, docs/engine.md).
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "cli/common.hpp"
#include "cli/engine_args.hpp"
#include "cli/engine_json.hpp"
#include "cli/help.hpp"
#include "core/notation.hpp"
#include "engine/engine.hpp"
#include "query/move.hpp"

namespace konane::cli {

namespace {

struct BestmoveArgs : EngineArgs {
    std::string position, board;
    bool json = false;
};

int run_bestmove(BestmoveArgs a) {
    const ParsedPosition parsed = engine_position(a.position, a.board, nullptr);
    const Board& b = parsed.board;
    query::MoveRequest req;
    req.board = b;
    req.position = parsed.position;
    req.options = engine_options(a);
    if (a.rules_option && a.rules_option->count() > 0) req.asked_rules = parse_ruleset(a.rules);
    req.table_name = a.table;
    req.limits = move_limits(a);
    const std::function<void(const engine::SearchInfo&)> progress =
        a.quiet ? std::function<void(const engine::SearchInfo&)>{}
                : [&](const engine::SearchInfo& i) {
                      std::fprintf(stderr, "depth %d  score %d  nodes %llu  %.2f s  %s\n", i.depth,
                                   i.score, static_cast<unsigned long long>(i.nodes), i.seconds,
                                   line_text(b, i.pv).c_str());
                  };
    const auto d = query::best_move(std::move(req), progress);
    if (a.json) {
        std::printf("%s\n", dump(decision_json(b, parsed.position, d), 2).c_str());
        return kOk;
    }
    if (!d) {
        std::printf("no legal move: %s has lost\n", color_name(parsed.position.to_move));
        return kOk;
    }
    std::printf("move:   %s\n", format_move(b, d->move.move).c_str());
    std::printf("source: %s\n", d->describe().c_str());
    std::printf("line:   %s\n", line_text(b, d->pv).c_str());
    std::printf("nodes:  %llu (%llu by the proof search), %.3f s\n",
                static_cast<unsigned long long>(d->nodes),
                static_cast<unsigned long long>(d->proof_nodes), d->seconds);
    return kOk;
}

}  // namespace

void add_bestmove_command(CLI::App& app, Commands& out) {
    auto b = std::make_shared<BestmoveArgs>();
    auto* bm = app.add_subcommand(
        "bestmove",
        "The engine's move in any position of up to 64 squares: the table's perfect move, a "
        "proven win, else the best the search finds in the time given");
    bm->add_option("POSITION", b->position,
                   "Position (the side to move may be left out: Black), or a board RxC for its "
                   "full board")
        ->check(non_empty());
    bm->add_option("--board", b->board, "Board size RxC the position must have")
        ->check(non_empty());
    add_engine_options(bm, *b);
    bm->add_flag("--json", b->json, "JSON output");
    bm->add_flag("-q,--quiet", b->quiet, "No progress lines on stderr");
    help_footer(bm,
                {"konane bestmove 8x8 --time 1", "konane bestmove 'x.xo/oxox/xoxo/oxox w' --json",
                 "konane bestmove 6x6 --depth 8 -q",
                 "konane bestmove 5x5 --table konane-5x5-brainking.kbt"});
    out.push_back({bm, [b] { return run_bestmove(*b); }});
}

}  // namespace konane::cli
