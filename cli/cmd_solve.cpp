// `konane solve`: any position's value by search, in every mode: with depths (a memoised search,
// using a table's values with --table), win/loss by proof search (--wdl), and past 64 squares
// (the search of search/wide_search.hpp).
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/answer_text.hpp"
#include "cli/common.hpp"
#include "cli/gap_arg.hpp"
#include "cli/help.hpp"
#include "cli/json.hpp"
#include "cli/progress.hpp"
#include "cli/proof_run.hpp"
#include "cli/query_args.hpp"
#include "core/notation.hpp"
#include "core/text.hpp"
#include "core/wide.hpp"
#include "probe/probe.hpp"
#include "query/proof.hpp"
#include "search/proof.hpp"
#include "search/proof_certificate.hpp"
#include "search/search.hpp"
#include "search/wide_search.hpp"
#include "solver/solve.hpp"

namespace konane::cli {

namespace {

/// The arguments of `konane solve`: by memoised search (run_solve), win/loss only by proof
/// search with --wdl (run_solve_wdl), or past 64 squares (run_solve_wide).
struct SolveArgs {
    std::string position;
    std::string board;
    std::string table;
    std::string load;  ///< --load of the --table (add_load_option()); empty: auto
    std::string rules = "brainking";
    bool rules_given = false;
    bool both = false;
    bool jumps_only = false;
    bool json = false;
    bool quiet = false;
    std::size_t max_positions = 50'000'000;
    std::string memory;  ///< the search's memory budget; with --wdl the transposition table's
                         ///< size (default kDefaultProofMemory)
    bool wdl = false;    ///< --wdl: win/loss by proof search (run_solve_wdl)
    bool plain = false;
    bool dfpn = false;  ///< --dfpn: proof-number search (with --wdl)
    std::uint64_t max_nodes = 0;
    std::string gap;                 ///< --gap SQ,SQ: solve that gap's start position
    std::string certificate;         ///< --certificate FILE: write the proof (with --wdl)
    std::string work;                ///< --work DIR: checkpoints of a long search (with --wdl)
    std::uint64_t checkpoint = 300;  ///< --checkpoint SECONDS between checkpoints
    int threads = 1;                 ///< -j: threads of the proof search
};
/// `konane solve` on a wide board: the search of search/wide_search.hpp (values, depths, every
/// move, the perfect line; --both the outcome class); no table, no --wdl, no --gap.
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
        throw search_limit(e, budget);
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
/// Which game p is played as, in words, for the `game:` line: e.g. "jumps (no opening of ruleset
/// brainking leaves this position, so it is played by jumps)".
std::string game_description(const Board& b, Ruleset r, bool jumps_only, Position p) {
    if (jumps_only) return "jumps only (--jumps-only: no opening removals)";
    const std::uint64_t holes = b.all & ~p.occ;
    switch (stage_of(b, r, p)) {
        case Stage::FullBoard:
            return fmt::format(
                "opening: Black removes a piece (ruleset {}), then White, then jumps",
                ruleset_name(r));
        case Stage::OneHole:
            return fmt::format(
                "opening: White removes a piece next to the hole (ruleset {}), then jumps",
                ruleset_name(r));
        case Stage::Play:
            break;
    }
    if (std::popcount(holes) <= 1) {
        return fmt::format(
            "jumps (no opening of ruleset {} leaves this position; it is played by jumps)",
            ruleset_name(r));
    }
    return "jumps";
}
/// `konane solve POSITION --wdl`.
int run_solve_wdl(const SolveArgs& a) {
    std::optional<Board> want;
    if (!a.board.empty()) want = Board::parse(a.board);
    const ParsedPosition parsed = parse_position(a.position, want ? &*want : nullptr);
    const Board& b = parsed.board;
    Ruleset rules = parse_ruleset(a.rules);
    std::optional<Tablebase> tb = open_table(a.table, a.load, b, a.rules_given, rules);
    const ProofOptions opt =
        proof_options(rules, a.jumps_only, a.memory, a.max_nodes, a.plain, a.dfpn, a.threads);
    if (!a.memory.empty()) warn_memory_over_physical(opt.memory_bytes, a.memory, a.quiet);
    check_search_outputs(a.certificate, a.work);
    ProofSearch s(b, opt, tb);
    ProofProgressLine progress(b, !a.quiet, "");
    progress.attach(s);
    SearchWork work(a.work, b, rules, algorithm_name(a.plain, a.dfpn), a.quiet);
    work.resume(s, {});
    if (work.enabled()) {
        s.on_checkpoint([&] { work.save_proven(s); }, static_cast<double>(a.checkpoint));
    }
    const Position p = parsed.position;
    const query::ProofAnswer ans = query::prove(
        s, p, a.both, [&](std::string_view side) { progress.label(std::string(side)); });
    progress.finish();
    const bool decided = ans.decided();
    s.on_checkpoint({}, 0);
    if (!decided) work.save_proven(s);
    std::optional<WrittenCertificate> cert;
    CertificateFailure cert_failure;
    if (!a.certificate.empty()) {
        if (!decided) {
            throw SearchLimit(
                "no certificate: the position was not decided (raise --max-nodes or "
                "--memory)");
        }
        std::vector<ProofRoot> roots{{p, *ans.win ? p.to_move : other(p.to_move)}};
        if (a.both) {
            for (const Color side : {Color::Black, Color::White}) {
                if (side == p.to_move) continue;
                const bool wins = *(side == Color::Black ? ans.black_starts : ans.white_starts);
                roots.push_back({Position{p.occ, side}, wins ? side : other(side)});
            }
        }
        cert = cert_failure.attempt([&] {
            return write_proof(s, roots, CertificateKind::Positions, Opening(rules), a.certificate,
                               a.quiet);
        });
    }
    // The work directory stays when the certificate failed: a rerun resumes from it.
    if (decided && !cert_failure.error) work.finish();
    const std::string undecided_text =
        a.max_nodes ? fmt::format("not decided within {} nodes", a.max_nodes) : "not decided";
    if (a.json) {
        json j = proof_json(b, rules, a.jumps_only, ans);
        j["search"] = {{"algorithm", algorithm_name(a.plain, a.dfpn)},
                       {"nodes", ans.nodes},
                       {"seconds", ans.seconds},
                       {"cpu_seconds", ans.cpu_seconds},
                       {"table_hits", ans.table_hits},
                       {"max_nodes", a.max_nodes},
                       {"threads", a.threads},
                       {"memory_bytes", s.table_bytes()},
                       {"stored", s.stored()}};
        if (cert) j["certificate"] = certificate_json(*cert);
        if (cert_failure.error) j["certificate_error"] = cert_failure.message();
        std::printf("%s\n", dump(j).c_str());
        cert_failure.rethrow();
        return decided ? kOk : kFailed;
    }
    std::string source = fmt::format("proof search{}, ruleset {}",
                                     a.plain  ? " (plain)"
                                     : a.dfpn ? " (df-pn)"
                                              : "",
                                     ruleset_name(rules));
    if (tb) source += ", table " + printable(a.table);
    const Position pb{p.occ, Color::Black}, pw{p.occ, Color::White};
    std::printf("position: %s  (%s, %s)\n", format_position(b, p).c_str(), b.name().c_str(),
                source.c_str());
    if (a.both) {
        std::printf("game:     Black to move: %s; White to move: %s\n",
                    game_description(b, rules, a.jumps_only, pb).c_str(),
                    game_description(b, rules, a.jumps_only, pw).c_str());
    } else {
        std::printf("game:     %s\n", game_description(b, rules, a.jumps_only, p).c_str());
    }
    std::printf("to move:  %s\n", color_name(p.to_move));
    if (ans.win) {
        std::printf("value:    %s for %s (win/loss only: no depth)\n", *ans.win ? "win" : "loss",
                    color_name(p.to_move));
        if (ans.winning_move) {
            std::printf("winning move: %s\n", format_move(b, *ans.winning_move).c_str());
        }
    } else {
        std::printf("value:    %s\n", undecided_text.c_str());
    }
    if (a.both) {
        if (ans.outcome) {
            std::printf("outcome:  %s (%s): Black to move: %s; White to move: %s\n",
                        outcome_name(*ans.outcome), outcome_description(*ans.outcome),
                        verdict_word(ans.black_starts), verdict_word(ans.white_starts));
        } else {
            std::printf("outcome:  %s: Black to move: %s; White to move: %s\n",
                        undecided_text.c_str(), verdict_word(ans.black_starts),
                        verdict_word(ans.white_starts));
        }
    }
    std::printf("searched: %s; transposition table %.0f MiB, %llu entries",
                rate_text(ans.nodes, ans.seconds, ans.cpu_seconds).c_str(),
                static_cast<double>(s.table_bytes()) / 1048576.0,
                static_cast<unsigned long long>(s.stored()));
    if (tb)
        std::printf(", %llu values from the table",
                    static_cast<unsigned long long>(ans.table_hits));
    std::printf("\n");
    if (cert) print_certificate(*cert);
    cert_failure.rethrow();
    if (!decided) {
        std::fprintf(stderr, "konane solve: %s (raise --max-nodes or --memory)\n",
                     undecided_text.c_str());
        return kFailed;
    }
    return kOk;
}
int run_solve(SolveArgs a) {
    if (is_board_text(a.position)) merge_board(a.position, a.board);  // `solve 6x6`
    if (is_wide_text(a.position) || is_wide_text(a.board)) return run_solve_wide(a);
    if (!a.gap.empty()) {
        // The gap's start position (Black to move) is the position solved.
        if (!a.position.empty()) throw UsageError("give a POSITION or --gap, not both");
        std::optional<Board> board;
        if (!a.board.empty()) {
            board = Board::parse(a.board);
        } else if (!a.table.empty()) {
            board = Tablebase::open(a.table).board();
        } else {
            throw UsageError("--gap needs --board RxC (or a --table of the board)");
        }
        const Gap g = gap_arg(*board, a.gap, a.rules_given, a.rules);
        a.position = format_position(*board, gap_start(*board, g));
        a.board = board->name();
    } else if (a.position.empty() && !a.board.empty()) {
        const Board b = Board::parse(a.board);  // a board alone: its full board, Black to move
        a.position = format_position(b, b.start());
    } else if (a.position.empty()) {
        throw UsageError(
            "give a POSITION, a board RxC (its full board), or --gap SQUARE,SQUARE with --board "
            "RxC");
    }
    if (a.wdl) {
        return run_solve_wdl(a);
    }
    if (a.plain || a.dfpn || a.max_nodes || !a.certificate.empty() || !a.work.empty()) {
        throw UsageError("--plain, --dfpn, --max-nodes, --certificate and --work go with --wdl");
    }
    std::optional<Board> want;
    if (!a.board.empty()) want = Board::parse(a.board);
    const ParsedPosition parsed = parse_position(a.position, want ? &*want : nullptr);
    const Board& b = parsed.board;
    SearchOptions opt;
    opt.rules = parse_ruleset(a.rules);
    opt.jumps_only = a.jumps_only;
    opt.max_positions = a.max_positions;
    // The memory budget bounds the memo too: the smaller of the two limits holds.
    const query::PositionBudget budget =
        memory_budget(a.memory, opt.max_positions, kSearchBytesPerPosition);
    opt.max_positions = budget.positions;
    ProgressLine progress(!a.quiet);
    opt.progress = [&](std::size_t n) { progress.count("search", n, opt.max_positions); };
    std::optional<Tablebase> tb;
    if (!a.table.empty()) {
        tb = open_table(a.table, a.load, b, a.rules_given, opt.rules);
    }
    Searcher s(b, opt, tb);
    const Position p = parsed.position;
    Answer ans;
    std::optional<Value> black_starts, white_starts;
    try {
        ans = search_answer(s, p);  // SearchLimit: exit 1 (failure_of())
        if (a.both) {
            black_starts = s.value(Position{p.occ, Color::Black});
            white_starts = s.value(Position{p.occ, Color::White});
        }
    } catch (const SearchLimit& e) {
        progress.finish();
        throw search_limit(e, budget);
    }
    progress.finish();
    std::string source = fmt::format("search, ruleset {}{}", ruleset_name(opt.rules),
                                     opt.jumps_only ? ", jumps only" : "");
    if (tb) source += ", table " + printable(a.table);
    if (a.json) {
        std::optional<std::pair<Value, Value>> both;
        if (a.both) both = std::pair{*black_starts, *white_starts};
        const json j = solve_json(b, ans, s, both);
        std::printf("%s\n", dump(j).c_str());
        return kOk;
    }
    print_answer(b, ans, source);
    if (!a.both) {
        std::printf("game:     %s\n", game_description(b, opt.rules, opt.jumps_only, p).c_str());
    } else {
        const Position pb{p.occ, Color::Black}, pw{p.occ, Color::White};
        std::printf("game:     Black to move: %s; White to move: %s\n",
                    game_description(b, opt.rules, opt.jumps_only, pb).c_str(),
                    game_description(b, opt.rules, opt.jumps_only, pw).c_str());
        print_outcome(*black_starts, *white_starts);
    }
    std::printf("searched: %zu position%s", s.positions(), s.positions() == 1 ? "" : "s");
    if (tb) {
        std::printf(", %llu values from the table",
                    static_cast<unsigned long long>(s.table_hits()));
    }
    std::printf("\n");
    return kOk;
}
}  // namespace

void add_solve_command(CLI::App& app, Commands& out) {
    auto so = std::make_shared<SolveArgs>();
    auto* solve = app.add_subcommand(
        "solve",
        "Value, depth and perfect move of any position on a board of up to 64 squares, by search");
    solve
        ->add_option("POSITION", so->position,
                     "Position, e.g. '.oxox. b' (a 1x6 board); or a board RxC for its full board")
        ->check(non_empty());
    solve
        ->add_option("--gap", so->gap,
                     std::string(kGapHelp) + ": solve that start position (needs --board)")
        ->check(non_empty());
    solve
        ->add_option("--board", so->board,
                     "Board size RxC the position must have (alone: its full board)")
        ->check(non_empty());
    solve->add_option("--table", so->table, "Table of the same board whose values the search uses")
        ->check(non_empty());
    add_load_option(solve, so->load, "auto");
    auto* rules_opt =
        solve->add_option("--rules", so->rules, "Opening ruleset (for full and one-hole boards)")
            ->capture_default_str()
            ->check(non_empty());
    solve->add_flag("--both", so->both,
                    "Also the outcome class: who wins when Black starts and when White starts");
    solve->add_flag("--jumps-only", so->jumps_only,
                    "No opening removals: full and one-hole boards are played with jumps too");
    solve
        ->add_option("--max-positions", so->max_positions,
                     "Most positions the search may keep (0: no limit)")
        ->capture_default_str()
        ->check(decimal(0, std::uint64_t{1} << 40));
    solve
        ->add_option("--memory", so->memory,
                     "Memory budget of the search, e.g. 500M, 1.5G: the positions kept, about 64 "
                     "bytes each (default as generate: 60% of the machine's memory, at most "
                     "16G); with --wdl the transposition table's size (default 512M)")
        ->check(non_empty());
    solve->add_flag("-q,--quiet", so->quiet, "No progress line on stderr");
    solve->add_flag("--json", so->json, "JSON output");
    solve->add_flag("--wdl", so->wdl,
                    "Win/loss only, by proof search (alpha-beta with a transposition table, "
                    "enhanced transposition cut-offs, mobility ordering): much faster");
    solve
        ->add_option("--max-nodes", so->max_nodes,
                     "With --wdl: stop undecided after this many nodes (0: no limit)")
        ->check(decimal(0, kMaxNodes));
    solve->add_flag("--plain", so->plain,
                    "With --wdl: plain boolean alpha-beta with the same table (the baseline)");
    solve
        ->add_option("-j,--threads", so->threads,
                     "With --wdl: threads of the search, sharing one transposition table "
                     "(default 1; at most 256, each past the first taking about 2 MiB of "
                     "--memory)")
        ->check(decimal(1, 256));
    solve->add_flag("--dfpn", so->dfpn,
                    "With --wdl: depth-first proof-number search (df-pn) instead of alpha-beta");
    solve
        ->add_option("--work", so->work,
                     "With --wdl: a directory for checkpoints (the expensive proofs, every "
                     "--checkpoint seconds): the same command continues a killed run; removed "
                     "when the position is decided")
        ->check(non_empty());
    solve
        ->add_option("--checkpoint", so->checkpoint,
                     "With --work: seconds between checkpoints (default 300)")
        ->check(decimal(1, 1000000));
    solve
        ->add_option("--certificate", so->certificate,
                     "With --wdl: write the proof of the value to this file, for `konane "
                     "check-proof` (docs/certificate.md)")
        ->check(non_empty());
    help_footer(solve,
                {"konane solve '.oxox. b'                  a 1x6 row, value and perfect line",
                 "konane solve '.oxox. b' --both --json    and its outcome class",
                 "konane solve 6x6 --gap c3,c4 --wdl       win/loss of that gap's start",
                 "konane solve 5x5 --wdl                   the full board (with its removals)",
                 "konane solve '..xo/oxox/xoxo/oxox b' --table konane-4x4-brainking.kbt"});
    out.push_back({solve, [so, rules_opt] {
                       so->rules_given = rules_opt->count() > 0;
                       return run_solve(*so);
                   }});
}

}  // namespace konane::cli
