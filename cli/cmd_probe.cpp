// `konane probe`, `konane analyse`, `konane solve`: perfect play from a table, game analysis,
// and search for positions no table holds.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/answer_text.hpp"
#include "cli/common.hpp"
#include "cli/engine_args.hpp"
#include "cli/gap_arg.hpp"
#include "cli/help.hpp"
#include "cli/json.hpp"
#include "cli/progress.hpp"
#include "cli/proof_cmd.hpp"
#include "cli/query_args.hpp"
#include "cli/wide_cmd.hpp"
#include "core/notation.hpp"
#include "core/text.hpp"
#include "core/wide.hpp"
#include "probe/analysis.hpp"
#include "probe/probe.hpp"
#include "probe/search.hpp"
#include "solver/solve.hpp"

namespace konane::cli {

namespace {

/// The exit for a position the table does not hold: a message suggesting `solve`.
int not_stored(const char* cmd, const std::string& what, const Board& b, Position p) {
    std::fprintf(stderr,
                 "konane %s: %s\n  the table holds the positions reachable from its openings; "
                 "search finds any position's value: konane solve '%s'\n",
                 cmd, safe_message(what).c_str(), format_position(b, p).c_str());
    return kNotStored;
}

// --------------------------------------------------------------------------------------------
// probe

struct ProbeArgs {
    std::string file;
    std::string position;
    std::string game;
    bool json = false;
    bool batch = false;
    std::string load;  ///< --load (add_load_option()); empty: map, auto with --batch
};

/// The longest line `probe --batch` takes (bytes): a position is at most 64 squares, 63 slashes,
/// a space and the side; longer lines end the batch with an error rather than grow a buffer.
constexpr std::size_t kMaxBatchLine = 4096;

/// `probe FILE --batch`: one position per line of standard input, one JSON object per line of
/// standard output in the same order: position, stored, and value and depth when stored; a
/// line that is no position of the table's board gets "error" and the batch goes on. A damaged
/// table ends the batch (format::FormatError, exit 2) after the answers to every line before
/// the one that met the damage are written: their count says which line it was.
int run_batch(const ProbeArgs& a) {
    const Tablebase tb = Tablebase::open(a.file, {}, open_options(a.load, format::Load::automatic));
    std::string line;
    std::string out;
    auto send = [&] {
        if (out.empty()) return;
        if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size() ||
            std::fflush(stdout) != 0)
            throw format::IoError(std::string("standard output: ") + std::strerror(errno));
        out.clear();
    };
    // One line's answer; a damaged table sends the answers before it first.
    auto answer = [&](std::string_view text) {
        try {
            out += batch_line(tb, text);
        } catch (const format::FormatError&) {
            send();
            throw;
        }
        out += '\n';
    };
    // Standard input is read with read(2) into our own buffer, so that we know when the lines
    // received so far are all answered: the answers are then sent before waiting for more, and
    // a client that writes one line and waits for its answer gets it at once.
    std::vector<char> buf(std::size_t{1} << 16);
    std::size_t pos = 0, len = 0, lines = 0;
    for (;;) {
        if (pos == len) {
            send();
            const ssize_t r = ::read(STDIN_FILENO, buf.data(), buf.size());
            if (r < 0 && errno == EINTR) continue;
            if (r < 0)
                throw format::IoError(std::string("standard input: ") + std::strerror(errno));
            if (r == 0) break;
            pos = 0;
            len = static_cast<std::size_t>(r);
        }
        const char* start = buf.data() + pos;
        const void* nl = std::memchr(start, '\n', len - pos);
        const auto n =
            nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - start) : len - pos;
        if (line.size() + n > kMaxBatchLine) {
            send();
            throw UsageError(fmt::format(
                "standard input: line {} is longer than {} bytes (a position is at most {})",
                lines + 1, kMaxBatchLine, 2 * kMaxSquares + 1));
        }
        line.append(start, n);
        if (nl == nullptr) {
            pos = len;
            continue;
        }
        pos += n + 1;
        ++lines;
        answer(line);
        if (out.size() > (1 << 16)) send();
        line.clear();
    }
    if (!line.empty()) answer(line);  // a last line without a newline
    send();
    return kOk;
}

int run_probe(const ProbeArgs& a) {
    if (!a.position.empty() && !a.game.empty()) {
        throw UsageError("give either a POSITION or --game, not both");
    }
    if (a.batch) {
        if (!a.position.empty() || !a.game.empty())
            throw UsageError("--batch reads positions from standard input: no POSITION or --game");
        return run_batch(a);
    }
    const Tablebase tb = Tablebase::open(a.file, {}, open_options(a.load, format::Load::map));
    const Board& b = tb.board();
    // By default the start: the full board, or a gap's table's start position.
    Position p = tb.opening().gap ? gap_start(b, *tb.opening().gap) : b.start();
    if (!a.position.empty()) {
        p = parse_position(a.position, &b).position;
    } else if (!a.game.empty()) {
        p = parse_game(b, tb.rules(), a.game).positions.back();
    }
    std::optional<Answer> ans;
    try {
        ans = table_answer(tb, p);
        if (!ans) {
            return not_stored(
                "probe",
                fmt::format("position {} is not stored in {} (not reachable on {} "
                            "{} {})",
                            format_position(b, p), printable(a.file), b.name(),
                            tb.opening().gap ? "from" : "under", opening_text(b, tb.opening())),
                b, p);
        }
    } catch (const NotStored& e) {
        return not_stored("probe", e.what(), b, p);
    }
    if (a.json) {
        std::printf("%s\n", dump(answer_json(b, *ans)).c_str());
    } else {
        print_answer(b, *ans,
                     fmt::format("table {}, {}", printable(a.file), opening_text(b, tb.opening())));
    }
    return kOk;
}

// --------------------------------------------------------------------------------------------
// analyse

struct AnalyseArgs : EngineArgs {
    std::string file;
    std::string record;
    std::string board;
    bool json = false;
};

int run_analyse(AnalyseArgs a) {
    // Without a table (one argument: the record): the engine's review on --board.
    if (a.record.empty() && !a.file.empty()) {
        a.record = a.file;
        a.file.clear();
    }
    if (a.file.empty()) {
        const Board b = Board::parse(a.board.empty() ? "8x8" : a.board);
        return run_engine_review(b, a.record, a, a.json);
    }
    if (!a.board.empty()) throw UsageError("--board goes with a review by the engine (no table)");
    a.record = read_record(a.record);
    const Tablebase tb = Tablebase::open(a.file);
    const Board& b = tb.board();
    Game game = parse_game(b, tb.rules(), a.record);
    if (const auto& gap = tb.opening().gap) {
        // A gap's table holds its game from the gap on: the record starts with the gap's two
        // removals, and the analysis with the first jump after them.
        const Position start = gap_start(b, *gap);
        if (game.positions.size() < 3 || !(game.positions[2] == start)) {
            std::string removals = gap_name(b, *gap);  // "c3,c4": Black's square first
            std::replace(removals.begin(), removals.end(), ',', ' ');
            throw UsageError(fmt::format(
                "{} holds the game from gap {}: the record must start with its two removals "
                "('{} ...')",
                printable(a.file), gap_name(b, *gap), removals));
        }
        game.positions.erase(game.positions.begin(), game.positions.begin() + 2);
        game.moves.erase(game.moves.begin(), game.moves.begin() + 2);
    }
    GameAnalysis an;
    try {
        an = analyse_game(tb, game);
    } catch (const GameNotStored& e) {
        return not_stored("analyse", e.what(), b, game.positions[e.index]);
    }
    const auto& plies = an.plies;
    const auto& values = an.values;
    const Position end = game.positions.back();
    const Value end_value = values.back();
    const bool over = an.over;
    if (a.json) {
        std::printf("%s\n", dump(analysis_json(b, tb.rules(), game, an)).c_str());
        return kOk;
    }
    std::printf(
        "game on %s (ruleset %s), %zu plies; at the start %s wins with perfect play "
        "(%s for %s)\n",
        b.name().c_str(), ruleset_name(tb.rules()), plies.size(),
        winner_name(game.positions.front(), values.front()), describe(values.front()).c_str(),
        color_name(game.positions.front().to_move));
    std::printf("'before': value for the mover; 'after': value for the opponent, now to move\n");
    std::printf("%4s %-6s %-8s %-16s %-16s %-8s %s\n", "ply", "mover", "move", "before", "after",
                "perfect", "");
    for (std::size_t i = 0; i < plies.size(); ++i) {
        const PlyAnalysis& p = plies[i];
        std::string note;
        if (p.mistake) {
            note = fmt::format("MISTAKE: threw the win away ({} was {})",
                               format_move(b, p.best.move), describe(p.best.value));
        } else if (p.inaccurate) {
            note = fmt::format("inaccurate: {} for the mover, perfect {}", describe(p.played.value),
                               describe(p.best.value));
        }
        std::printf("%4zu %-6s %-8s %-16s %-16s %-8s %s\n", i + 1, color_name(p.before.to_move),
                    format_move(b, p.played.move).c_str(), describe(p.value_before).c_str(),
                    describe(p.value_after).c_str(), format_move(b, p.best.move).c_str(),
                    note.c_str());
    }
    std::printf("turning points:");
    bool any = false;
    for (std::size_t i = 0; i < plies.size(); ++i) {
        const PlyAnalysis& p = plies[i];
        if (!p.mistake) continue;
        any = true;
        std::printf("\n  ply %zu, %s %s: %s now wins (%s won before)", i + 1,
                    color_name(p.before.to_move), format_move(b, p.played.move).c_str(),
                    winner_name(p.played.child, p.value_after),
                    winner_name(p.before, p.value_before));
    }
    std::printf("%s\n", any ? "" : " none (the winner at the start kept the win)");
    if (over) {
        std::printf("end: %s has no move; %s wins\n", color_name(end.to_move),
                    color_name(other(end.to_move)));
    } else {
        std::printf("end: %s to move, %s (%s wins with perfect play)\n", color_name(end.to_move),
                    describe(end_value).c_str(), winner_name(end, end_value));
    }
    return kOk;
}

// --------------------------------------------------------------------------------------------
// solve

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
        if (!budget.memory_binds) throw;
        throw SearchLimit(fmt::format("{}; {}", e.what(), budget.limit_reason("--memory", "")));
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

void add_probe_commands(CLI::App& app, Commands& out) {
    auto p = std::make_shared<ProbeArgs>();
    auto* probe = app.add_subcommand(
        "probe",
        "Value, depth and perfect move of a position from a table, then every move's value");
    probe->add_option("FILE", p->file, "Table file")->required()->check(non_empty());
    probe
        ->add_option("POSITION", p->position,
                     "Position, e.g. '..xo/oxox/xoxo/oxox b' (default: the full board)")
        ->check(non_empty());
    probe->add_option("--game", p->game,
                      "Game record from the full board, e.g. 'a4 b4 a2-a4' on 4x4");
    probe->add_flag("--json", p->json, "JSON output");
    probe->add_flag("--batch", p->batch,
                    "Positions from standard input, one per line; one JSON object per line "
                    "(position, stored, value, depth; error for a malformed line)");
    add_load_option(probe, p->load, "map, auto with --batch");
    help_footer(probe, {"konane probe konane-4x4-brainking.kbt '..xo/oxox/xoxo/oxox b'",
                        "konane probe konane-4x4-brainking.kbt            the full board",
                        "konane probe konane-4x4-brainking.kbt --game 'a4 b4 a2-a4' --json",
                        "printf '..xo/oxox/xoxo/oxox b\n' | konane probe t.kbt --batch"});
    out.push_back({probe, [p] { return run_probe(*p); }});

    auto an = std::make_shared<AnalyseArgs>();
    auto* analyse = app.add_subcommand(
        "analyse",
        "Each move of a game with the value before and after it; mistakes and turning points "
        "(from a table, or reviewed by the engine on any board)");
    analyse
        ->add_option("FILE", an->file,
                     "Table file (left out: the engine reviews the game on --board)")
        ->required()
        ->check(non_empty());
    analyse->add_option("RECORD", an->record,
                        "Game record from the full board, e.g. 'a4 b4 a2-a4' on 4x4 (BrainKing's "
                        "'D5 E5 F5-D5' read too)");
    analyse->add_option("--board", an->board, "Board of a review by the engine (default 8x8)")
        ->check(non_empty());
    add_engine_options(analyse, *an);
    analyse->add_flag("-q,--quiet", an->quiet, "No progress line on stderr");
    analyse->add_flag("--json", an->json, "JSON output");
    help_footer(analyse, {"konane analyse konane-4x4-brainking.kbt 'a4 b4 a2-a4'",
                          "konane analyse konane-5x5-brainking.kbt 'c3 c2 a3-c3' --json",
                          "konane analyse --board 8x8 'D5 E5 F5-D5 C5-E5' --time 0.5"});
    out.push_back({analyse, [an] { return run_analyse(*an); }});

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
                     "(default 1)")
        ->check(decimal(1, 1024));
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
