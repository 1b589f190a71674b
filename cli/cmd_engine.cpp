// `konane engine`: the engine over the Go Text Protocol on standard input and output
// (engine/gtp.hpp; the commands and a transcript: docs/engine.md).
#include <iostream>
#include <memory>
#include <string>

#include "cli/common.hpp"
#include "cli/engine_args.hpp"
#include "cli/help.hpp"
#include "engine/gtp.hpp"
#include "konane_version.hpp"

namespace konane::cli {

namespace {

struct GtpArgs : EngineArgs {
    std::string board = "8x8";
};

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

void add_engine_command(CLI::App& app, Commands& out) {
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
    help_footer(eng,
                {"konane engine --time 1", "konane engine --baseline",
                 "printf 'boardsize 6\\ngenmove black\\nquit\\n' | konane engine --nodes 100000"});
    out.push_back({eng, [g] { return run_engine(*g); }});
}

}  // namespace konane::cli
