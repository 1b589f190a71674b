// `konane bestmove` (the engine's move in one position) and `konane engine` (the engine over
// the Go Text Protocol on standard input and output). The engine: engine/engine.hpp; the
// protocol: engine/gtp.hpp; both documented in docs/engine.md.
#include <atomic>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/help.hpp"
#include "core/notation.hpp"
#include "engine/engine.hpp"
#include "engine/gtp.hpp"
#include "konane_version.hpp"
#include "probe/probe.hpp"

namespace konane::cli {

namespace {

using json = nlohmann::json;

/// The longest --time taken: a week a move.
constexpr double kMaxSeconds = 7 * 24 * 3600.0;

/// What bestmove and engine share: the engine's options as given on the command line.
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
    bool time_given = false;
};

struct BestmoveArgs : EngineArgs {
    std::string position, board;
    bool json = false;
};

struct GtpArgs : EngineArgs {
    std::string board = "8x8";
};

/// Adds the engine's options (budget, table, memory, threads, ruleset) to `cmd`.
void add_engine_options(CLI::App* cmd, EngineArgs& a) {
    cmd->add_option("--time", a.seconds,
                    "Seconds a move (wall clock; default 1 when neither --nodes nor --depth "
                    "is given)")
        ->check(CLI::Range(0.001, kMaxSeconds));
    cmd->add_option("--nodes", a.nodes,
                    "Nodes a move, of the proof and heuristic searches together (reproducible)")
        ->check(decimal(1, kMaxNodes));
    cmd->add_option("--depth", a.depth,
                    "Deepest iteration of the heuristic search, in plies (reproducible)")
        ->check(decimal(1, 128));
    cmd->add_option("--table", a.table, "Table of the board: its positions are played perfectly")
        ->check(non_empty());
    add_load_option(cmd, a.load, "map");
    cmd->add_option("--rules", a.rules, "Opening ruleset (brainking, center, any)")
        ->capture_default_str()
        ->check(non_empty());
    cmd->add_option("--memory", a.memory,
                    "Memory of the searches' tables, e.g. 64M, 1G (a quarter for the heuristic "
                    "search, the rest for the proof search)")
        ->capture_default_str()
        ->check(non_empty());
    cmd->add_option("-j,--threads", a.threads, "Threads of the proof search")
        ->capture_default_str()
        ->check(decimal(1, 1024));
    cmd->add_option("--evaluation", a.evaluation,
                    "Evaluation weights for experiments, e.g. mobility=100,movable=30,safe=50 "
                    "(hundredths of a move; default: docs/engine.md)")
        ->check(non_empty());
    cmd->add_option("--features", a.features,
                    "Search features switched on, for experiments: any of "
                    "tt,pvs,killers,history,aspiration, or none (default: docs/engine.md)")
        ->check(non_empty());
    cmd->add_option("--proof-share", a.proof_share,
                    "Share of a move's budget the proof search gets first (0: none)")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 1.0));
    cmd->add_flag("--baseline", a.baseline,
                  "The baseline player instead: alpha-beta to depth 4 on the mobility "
                  "difference (the control player of course tournaments)");
}

engine::EngineOptions engine_options(const EngineArgs& a) {
    engine::EngineOptions o;
    o.rules = parse_ruleset(a.rules);
    o.baseline = a.baseline;
    o.memory_bytes = static_cast<std::size_t>(parse_size(a.memory, "--memory"));
    if (o.memory_bytes < (std::size_t{1} << 20))
        throw UsageError("--memory: at least 1M (the searches' tables need it)");
    o.threads = static_cast<int>(a.threads);
    o.proof_share = a.proof_share;
    if (!a.evaluation.empty()) o.evaluation = engine::parse_evaluation(a.evaluation);
    if (!a.features.empty()) o.features = engine::parse_features(a.features);
    if (!a.table.empty())
        o.table = Tablebase::open(a.table, {}, open_options(a.load, format::Load::map));
    return o;
}

engine::MoveLimits move_limits(const EngineArgs& a) {
    engine::MoveLimits l;
    l.nodes = a.nodes;
    l.depth = static_cast<int>(a.depth);
    // --time alone, or by default when no reproducible limit is given.
    if (a.time_given || (!a.nodes && !a.depth)) l.seconds = a.seconds;
    return l;
}

std::string line_text(const Board& b, const std::vector<Move>& pv) {
    std::string s;
    for (const Move& m : pv)
        s += (s.empty() ? "" : " ") + format_move(b, m);
    return s;
}

int run_bestmove(BestmoveArgs a) {
    if (is_board_text(a.position)) merge_board(a.position, a.board);  // `bestmove 8x8`
    std::optional<Board> want;
    if (!a.board.empty()) want = Board::parse(a.board);
    std::string text = a.position;
    if (text.empty()) {
        if (!want) throw UsageError("give a POSITION or a board RxC (its full board)");
        text = format_position(*want, want->start());
    }
    if (text.find(' ') == std::string::npos) text += " b";  // the side, when not given
    const ParsedPosition parsed = parse_position(text, want ? &*want : nullptr);
    const Board& b = parsed.board;
    engine::Engine eng(b, engine_options(a));
    const std::function<void(const engine::SearchInfo&)> progress =
        a.quiet ? std::function<void(const engine::SearchInfo&)>{}
                : [&](const engine::SearchInfo& i) {
                      std::fprintf(stderr, "depth %d  score %d  nodes %llu  %.2f s  %s\n", i.depth,
                                   i.score, static_cast<unsigned long long>(i.nodes), i.seconds,
                                   line_text(b, i.pv).c_str());
                  };
    const auto d = eng.decide(parsed.position, move_limits(a), progress);
    if (a.json) {
        json j;
        j["position"] = format_position(b, parsed.position);
        if (d) {
            j["move"] = format_move(b, d->move.move);
            j["child"] = format_position(b, d->move.child);
            j["source"] = engine::source_name(d->source);
            j["describe"] = d->describe();
            j["proven"] = d->proven_win ? json(*d->proven_win ? "win" : "loss") : json(nullptr);
            j["depth"] = d->depth;
            j["score"] = d->score;
            json pv = json::array();
            for (const Move& m : d->pv)
                pv.push_back(format_move(b, m));
            j["pv"] = pv;
            j["nodes"] = d->nodes;
            j["proof_nodes"] = d->proof_nodes;
            j["seconds"] = d->seconds;
        } else {
            j["move"] = nullptr;
            j["describe"] = "no legal move: the side to move has lost";
        }
        std::printf("%s\n", j.dump(2).c_str());
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

int run_engine(const GtpArgs& a) {
    engine::GtpOptions o;
    o.engine = engine_options(a);
    o.limits = move_limits(a);
    o.version = kVersion;
    if (a.baseline) o.name = "konane-baseline";
    o.board = Board::parse(a.board);
    if (!a.quiet) o.log = &std::cerr;
    engine::GtpSession session(std::move(o));
    std::ios::sync_with_stdio(false);
    session.run(std::cin, std::cout);
    return kOk;
}

}  // namespace

void add_engine_commands(CLI::App& app, Commands& out) {
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
    bm->preparse_callback([b](std::size_t) { b->time_given = false; });
    bm->callback([b, bm] { b->time_given = bm->count("--time") > 0; });
    help_footer(bm,
                {"konane bestmove 8x8 --time 1", "konane bestmove 'x.xo/oxox/xoxo/oxox w' --json",
                 "konane bestmove 6x6 --depth 8 -q",
                 "konane bestmove 5x5 --table konane-5x5-brainking.kbt"});
    out.push_back({bm, [b] { return run_bestmove(*b); }});

    auto g = std::make_shared<GtpArgs>();
    auto* eng = app.add_subcommand(
        "engine",
        "The engine over the Go Text Protocol (GTP 2) on standard input and output, for GUIs, "
        "match runners and agents (docs/engine.md)");
    eng->add_option("--board", g->board, "Board before any boardsize command")
        ->capture_default_str()
        ->check(non_empty());
    add_engine_options(eng, *g);
    eng->add_flag("-q,--quiet", g->quiet, "No line per generated move on stderr");
    eng->callback([g, eng] { g->time_given = eng->count("--time") > 0; });
    help_footer(eng,
                {"konane engine --time 1", "konane engine --baseline",
                 "printf 'boardsize 6\\ngenmove black\\nquit\\n' | konane engine --nodes 100000"});
    out.push_back({eng, [g] { return run_engine(*g); }});
}

}  // namespace konane::cli
