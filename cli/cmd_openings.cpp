// `konane openings`: every opening's winner, from a table (with depths; one gap's with --gap) or
// by proof search (--search, win/loss only).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/gap_arg.hpp"
#include "cli/help.hpp"
#include "cli/json.hpp"
#include "cli/proof_run.hpp"
#include "cli/query_args.hpp"
#include "core/notation.hpp"
#include "core/text.hpp"
#include "probe/openings.hpp"
#include "probe/probe.hpp"
#include "search/proof.hpp"
#include "search/proof_certificate.hpp"

namespace konane::cli {

namespace {

/// The arguments of `konane openings`: from a table (FILE), or by search (--search).
struct OpeningsArgs {
    std::string file;
    std::string load;  ///< --load of the table FILE (add_load_option()); empty: map, auto with
                       ///< --search
    std::string board;
    std::string rules = "brainking";
    bool rules_given = false;
    bool search = false;
    bool json = false;
    bool plain = false;
    bool dfpn = false;  ///< --dfpn: proof-number search
    bool quiet = false;
    std::string memory;
    std::uint64_t max_nodes = 0;
    int table_max_pieces = 0;
    std::string gap;                 ///< --gap SQ,SQ: only that gap's start position
    std::string certificate;         ///< --certificate FILE: write the proof (with --search)
    std::string work;                ///< --work DIR: checkpoints of a long search (with --search)
    std::uint64_t checkpoint = 300;  ///< --checkpoint SECONDS between checkpoints
    int threads = 1;                 ///< -j: threads of the proof search
};

/// The arguments of `konane openings` from a table FILE (without --search).
struct TableOpeningsArgs {
    std::string file;
    std::string gap;   ///< openings --gap
    std::string load;  ///< openings --load (add_load_option()); empty: map
    bool json = false;
};

/// `konane openings FILE --gap SQ,SQ`, and `konane openings FILE` of a gap's table: the verdict
/// of that gap's start position, read from the table.
int run_gap_opening(const TableOpeningsArgs& a, const Tablebase& tb) {
    const Board& b = tb.board();
    const Gap g = a.gap.empty() ? *tb.opening().gap : gap_arg(b, a.gap, false, "");
    const auto line = gap_opening(tb, g);
    if (!line) {
        throw NotStored(fmt::format(
            "gap {} is not stored in {} (a table {} {} holds only {} and {} mirror images); "
            "`konane generate {} --gap {}` builds its table, `konane openings --search --board {} "
            "--gap {}` decides it",
            gap_name(b, g), printable(a.file), tb.opening().gap ? "built from" : "of",
            opening_text(b, tb.opening()), tb.opening().gap ? "that gap" : "its removal pairs",
            tb.opening().gap ? "its" : "their", b.name(), gap_name(b, g), b.name(),
            gap_name(b, g)));
    }
    const Position start = gap_start(b, g);
    if (a.json) {
        json j;
        j["board"] = b.name();
        j["gap"] = gap_name(b, g);
        j["position"] = format_position(b, start);
        j["winner"] = color_name(line->winner);
        j["depth"] = line->depth;
        j["table"] = printable(a.file);
        std::printf("%s\n", dump(j).c_str());
        return kOk;
    }
    std::printf("%s\n", gap_heading(b, g).c_str());
    std::printf(
        "verdict: %s wins with perfect play; depth %d plies from Black's first jump "
        "(table %s)\n",
        color_name(line->winner), line->depth, printable(a.file).c_str());
    return kOk;
}

int run_openings(const TableOpeningsArgs& a) {
    const Tablebase tb = Tablebase::open(a.file, {}, open_options(a.load, format::Load::map));
    const Board& b = tb.board();
    if (!a.gap.empty() || tb.opening().gap) return run_gap_opening(a, tb);
    Openings o;
    try {
        o = compute_openings(tb);
    } catch (const NotStored& e) {
        // A table of this board and ruleset holds every opening: it is damaged (exit 2).
        throw format::FormatError(std::string(e.what()) + ": the table is damaged or foreign");
    }
    if (a.json) {
        std::printf("%s\n", dump(openings_json(b, tb.rules(), o)).c_str());
        return kOk;
    }
    std::printf("%s %s: every opening (depth in plies from Black's first jump)\n", b.name().c_str(),
                ruleset_name(tb.rules()));
    std::printf("%-6s %-6s %-7s %5s\n", "black", "white", "winner", "depth");
    for (const auto& l : o.lines) {
        std::printf("%-6s %-6s %-7s %5d\n", format_move(b, l.black).c_str(),
                    format_move(b, l.white).c_str(), color_name(l.winner), l.depth);
    }
    std::printf("\nWhite's best reply to each removal:\n");
    for (const auto& c : o.choices) {
        if (c.white) {
            std::printf("  %-4s -> %-4s %s wins in %d\n", format_move(b, c.black).c_str(),
                        format_move(b, *c.white).c_str(), color_name(c.winner), c.depth);
        } else {
            std::printf("  %-4s -> White has no reply and loses\n",
                        format_move(b, c.black).c_str());
        }
    }
    if (o.best) {
        std::printf("\nBlack's best removal: %s", format_move(b, o.best->black).c_str());
        if (o.best->white)
            std::printf(" (White's best reply %s)", format_move(b, *o.best->white).c_str());
        std::printf(
            "\nverdict: %s wins with perfect play; perfect opening depth %d plies from "
            "Black's first jump\n",
            color_name(o.winner), o.best->depth);
    } else {
        std::printf("verdict: Black has no removal and loses\n");
    }
    return kOk;
}

/// The work of `konane openings --search --json`: "nodes", "seconds", "cpu_seconds",
/// "max_nodes" and "memory_bytes" (of s's transposition table).
void put_work(json& j, std::uint64_t nodes, double seconds, double cpu_seconds,
              std::uint64_t max_nodes, const ProofSearch& s) {
    j["nodes"] = nodes;
    j["seconds"] = seconds;
    j["cpu_seconds"] = cpu_seconds;
    j["max_nodes"] = max_nodes;
    j["threads"] = s.options().threads;
    j["memory_bytes"] = s.table_bytes();
}

std::string undecided_word(std::uint64_t max_nodes) {
    return max_nodes ? fmt::format("undecided within {} nodes", max_nodes) : "undecided";
}

int run_openings_search(const OpeningsArgs& a) {
    Ruleset rules = parse_ruleset(a.rules);
    std::optional<Tablebase> tb;
    std::optional<Board> board;
    if (!a.board.empty()) board = Board::parse(a.board);
    if (!a.file.empty()) {
        if (!board) board = Tablebase::open(a.file).board();
        tb = open_table(a.file, a.load, *board, a.rules_given, rules);
    }
    if (!board) throw UsageError("--search needs --board RxC (or a table FILE of the board)");
    if (a.table_max_pieces != 0 && !tb) {
        throw UsageError(
            "--table-max-pieces limits the look-ups in a table: give the table FILE too");
    }
    const Board& b = *board;
    std::optional<Gap> gap;
    if (!a.gap.empty()) {
        gap = gap_arg(b, a.gap, a.rules_given, a.rules);
    } else if (tb && tb->opening().gap) {
        gap = tb->opening().gap;  // a gap's table: its one opening
    }
    ProofOptions opt =
        proof_options(rules, false, a.memory, a.max_nodes, a.plain, a.dfpn, a.threads);
    if (!a.memory.empty()) warn_memory_over_physical(opt.memory_bytes, a.memory, a.quiet);
    opt.table_max_pieces = a.table_max_pieces;
    check_search_outputs(a.certificate, a.work);
    ProofSearch s(b, opt, tb);
    ProofProgressLine progress(b, !a.quiet, "");
    progress.attach(s);
    if (gap) {
        // One start position: the gap's, Black to move.
        progress.label(" gap " + gap_name(b, *gap));
        const Position start = gap_start(b, *gap);
        const ProofResult res = s.solve(start);
        progress.finish();
        std::optional<Color> winner;
        if (res.win) winner = *res.win ? Color::Black : Color::White;
        std::optional<WrittenCertificate> cert;
        CertificateFailure cert_failure;
        if (!a.certificate.empty() && winner) {
            cert = cert_failure.attempt([&] {
                return write_proof(s, {{start, *winner}}, CertificateKind::Openings,
                                   Opening::from_gap(*gap), a.certificate, a.quiet);
            });
        }
        if (a.json) {
            json j;
            j["board"] = b.name();
            j["gap"] = gap_name(b, *gap);
            j["position"] = format_position(b, start);
            j["search"] = algorithm_name(a.plain, a.dfpn);
            j["winner"] = winner ? json(color_name(*winner)) : json(nullptr);
            j["winning_move"] =
                res.winning_move ? json(format_move(b, res.winning_move->move)) : json(nullptr);
            put_work(j, res.nodes, res.seconds, res.cpu_seconds, a.max_nodes, s);
            if (cert) j["certificate"] = certificate_json(*cert);
            if (cert_failure.error) j["certificate_error"] = cert_failure.message();
            std::printf("%s\n", dump(j).c_str());
            cert_failure.rethrow();
            return winner ? kOk : kFailed;
        }
        std::printf("%s\n", gap_heading(b, *gap).c_str());
        if (winner) {
            std::printf(
                "verdict: %s wins with perfect play (proof search%s: win/loss only, no "
                "depth)\n",
                color_name(*winner), tb ? (", table " + printable(a.file)).c_str() : "");
            if (res.winning_move && *res.win) {
                std::printf("winning move: %s\n", format_move(b, res.winning_move->move).c_str());
            }
        } else {
            std::printf("verdict: %s\n", undecided_word(a.max_nodes).c_str());
        }
        std::printf("searched: %s; transposition table %.0f MiB\n",
                    rate_text(res.nodes, res.seconds, res.cpu_seconds).c_str(),
                    static_cast<double>(s.table_bytes()) / 1048576.0);
        if (cert) print_certificate(*cert);
        cert_failure.rethrow();
        if (!winner) {
            std::fprintf(stderr, "konane openings: %s (raise --max-nodes or --memory)\n",
                         undecided_word(a.max_nodes).c_str());
            return kFailed;
        }
        return kOk;
    }
    // Label the progress line with the opening being searched.
    std::vector<std::pair<Move, Move>> pairs;
    for (const auto& f : legal_moves(b, rules, b.start()))
        for (const auto& w : legal_moves(b, rules, f.child))
            pairs.emplace_back(f.move, w.move);
    SearchWork work(a.work, b, rules, algorithm_name(a.plain, a.dfpn), a.quiet);
    const std::vector<std::optional<SearchedOpening>> resumed = work.resume(s, pairs);
    std::vector<SearchedOpening> decided;
    if (work.enabled()) {
        s.on_checkpoint([&] { work.save_proven(s); }, static_cast<double>(a.checkpoint));
    }
    std::size_t done = 0;
    if (!pairs.empty()) {
        progress.label(
            fmt::format(" {} {}", format_move(b, pairs[0].first), format_move(b, pairs[0].second)));
    }
    const SearchedOpenings o = search_openings(
        s,
        [&](const SearchedOpening& l) {
            decided.push_back(l);
            if (l.winner) work.save(s, decided);
            progress.finish();
            if (!a.quiet) {
                std::fprintf(stderr, "opening %s %s: %s (%llu nodes, %.2f s, %.2f s CPU)\n",
                             format_move(b, l.black).c_str(), format_move(b, l.white).c_str(),
                             l.winner ? (std::string(color_name(*l.winner)) + " wins").c_str()
                                      : undecided_word(a.max_nodes).c_str(),
                             static_cast<unsigned long long>(l.nodes), l.seconds, l.cpu_seconds);
            }
            if (++done < pairs.size()) {
                progress.label(fmt::format(" {} {}", format_move(b, pairs[done].first),
                                           format_move(b, pairs[done].second)));
            }
        },
        resumed);
    progress.finish();
    const std::string undecided = undecided_word(a.max_nodes);
    auto winner_word = [](const std::optional<Color>& c) -> const char* {
        return c ? color_name(*c) : "undecided";
    };
    const bool complete = std::all_of(o.lines.begin(), o.lines.end(), [](const SearchedOpening& l) {
        return l.winner.has_value();
    });
    std::optional<WrittenCertificate> cert;
    CertificateFailure cert_failure;
    if (complete) s.on_checkpoint({}, 0);
    if (!a.certificate.empty() && complete) {
        const std::vector<Position> starts = start_positions(b, Opening(rules));
        std::vector<ProofRoot> roots;
        for (std::size_t i = 0; i < o.lines.size() && i < starts.size(); ++i)
            roots.push_back({starts[i], *o.lines[i].winner});
        cert = cert_failure.attempt([&] {
            return write_proof(s, roots, CertificateKind::Openings, Opening(rules), a.certificate,
                               a.quiet);
        });
    }
    // The work directory stays when the certificate failed: a rerun resumes from it.
    if (complete && !cert_failure.error) work.finish();
    if (a.json) {
        json j;
        j["board"] = b.name();
        j["rules"] = ruleset_name(rules);
        j["search"] = algorithm_name(a.plain, a.dfpn);
        j["winner"] = o.winner ? json(color_name(*o.winner)) : json(nullptr);
        j["openings"] = json::array();
        for (const auto& l : o.lines) {
            j["openings"].push_back(
                {{"black", format_move(b, l.black)},
                 {"white", format_move(b, l.white)},
                 {"winner", l.winner ? json(color_name(*l.winner)) : json(nullptr)},
                 {"nodes", l.nodes},
                 {"seconds", l.seconds},
                 {"cpu_seconds", l.cpu_seconds}});
        }
        j["removals"] = json::array();
        for (const auto& c : o.choices) {
            j["removals"].push_back(
                {{"black", format_move(b, c.black)},
                 {"winner", c.winner ? json(color_name(*c.winner)) : json(nullptr)},
                 {"white_wins_by",
                  c.white_wins_by ? json(format_move(b, *c.white_wins_by)) : json(nullptr)}});
        }
        put_work(j, o.nodes, o.seconds, o.cpu_seconds, a.max_nodes, s);
        if (cert) j["certificate"] = certificate_json(*cert);
        if (cert_failure.error) j["certificate_error"] = cert_failure.message();
        std::printf("%s\n", dump(j).c_str());
        cert_failure.rethrow();
        return complete ? kOk : kFailed;
    }
    std::printf("%s %s: every opening by proof search (win/loss only, no depth)%s\n",
                b.name().c_str(), ruleset_name(rules),
                tb ? (", table " + printable(a.file)).c_str() : "");
    std::printf("%-6s %-6s %-9s %14s %9s %9s\n", "black", "white", "winner", "nodes", "seconds",
                "cpu");
    for (const auto& l : o.lines) {
        std::printf("%-6s %-6s %-9s %14llu %9.2f %9.2f\n", format_move(b, l.black).c_str(),
                    format_move(b, l.white).c_str(), winner_word(l.winner),
                    static_cast<unsigned long long>(l.nodes), l.seconds, l.cpu_seconds);
    }
    std::printf("\nEach removal against White's best reply:\n");
    for (const auto& c : o.choices) {
        if (c.winner == Color::White) {
            std::printf("  %-4s -> %-4s white wins\n", format_move(b, c.black).c_str(),
                        format_move(b, *c.white_wins_by).c_str());
        } else if (c.winner == Color::Black) {
            std::printf("  %-4s    black wins against every reply\n",
                        format_move(b, c.black).c_str());
        } else {
            std::printf("  %-4s    %s\n", format_move(b, c.black).c_str(), undecided.c_str());
        }
    }
    if (o.winner) {
        std::printf("\nverdict: %s wins with perfect play\n", color_name(*o.winner));
    } else {
        std::printf("\nverdict: %s\n", undecided.c_str());
    }
    std::printf("searched: %s; transposition table %.0f MiB\n",
                rate_text(o.nodes, o.seconds, o.cpu_seconds).c_str(),
                static_cast<double>(s.table_bytes()) / 1048576.0);
    if (cert) print_certificate(*cert);
    cert_failure.rethrow();
    if (!complete) {
        std::fprintf(stderr, "konane openings: some openings %s (raise --max-nodes or --memory)\n",
                     undecided.c_str());
        return kFailed;
    }
    return kOk;
}

}  // namespace

void add_openings_command(CLI::App& app, Commands& out) {
    auto op = std::make_shared<OpeningsArgs>();
    auto* openings = app.add_subcommand(
        "openings",
        "Every opening removal pair with its winner and depth, and the verdict (from a table, "
        "or win/loss by proof search with --search)");
    openings
        ->add_option("FILE", op->file,
                     "Table file (with --search: a table to look up); or, with --search, a "
                     "board RxC")
        ->check(non_empty());
    openings->add_flag("--json", op->json, "JSON output");
    add_load_option(openings, op->load, "map, auto with --search");
    openings
        ->add_option("--gap", op->gap,
                     std::string(kGapHelp) +
                         ": the verdict of that one start position (from the table FILE, "
                         "or by --search)")
        ->check(non_empty());
    openings->add_flag("--search", op->search,
                       "Decide every opening by proof search (win/loss only) instead of reading "
                       "a table");
    openings->add_option("--board", op->board, "With --search: board size RxC (also as FILE)");
    auto* op_rules = openings->add_option("--rules", op->rules, "With --search: opening ruleset")
                         ->capture_default_str();
    openings
        ->add_option("--memory", op->memory,
                     "With --search: transposition table size (default 512M)")
        ->check(non_empty());
    openings
        ->add_option("--max-nodes", op->max_nodes,
                     "With --search: most nodes per opening (0: no limit)")
        ->check(decimal(0, kMaxNodes));
    openings->add_flag("--plain", op->plain,
                       "With --search: plain boolean alpha-beta (the baseline)");
    openings->add_flag("-q,--quiet", op->quiet, "With --search: no progress line on stderr");
    openings
        ->add_option("-j,--threads", op->threads,
                     "With --search: threads of the search, sharing one transposition table "
                     "(default 1; at most 256, each past the first taking about 2 MiB of "
                     "--memory)")
        ->check(decimal(1, 256));
    openings->add_flag("--dfpn", op->dfpn,
                       "With --search: depth-first proof-number search (df-pn) instead of "
                       "alpha-beta");
    openings
        ->add_option("--work", op->work,
                     "With --search: a directory for checkpoints (the openings decided and the "
                     "expensive proofs, every --checkpoint seconds): the same command continues "
                     "a killed run; removed when the search completes")
        ->check(non_empty());
    openings
        ->add_option("--checkpoint", op->checkpoint,
                     "With --work: seconds between checkpoints (default 300)")
        ->check(decimal(1, 1000000));
    openings
        ->add_option("--certificate", op->certificate,
                     "With --search: write the proof of every opening's winner to this file, for "
                     "`konane check-proof` (docs/certificate.md)")
        ->check(non_empty());
    openings
        ->add_option("--table-max-pieces", op->table_max_pieces,
                     "With --search and a table FILE: look up only positions of at most this "
                     "many pieces (endgame tables' effect; 0: all)")
        ->check(decimal(0, 64));
    help_footer(openings,
                {"konane openings konane-5x5-brainking.kbt         from a table, with depths",
                 "konane openings 6x6 --search                     by proof search, win/loss",
                 "konane openings --board 6x6 --search --json      the same as JSON",
                 "konane openings t.kbt --gap c3,c4                one gap's verdict"});
    out.push_back({openings, [op, op_rules] {
                       op->rules_given = op_rules->count() > 0;
                       // `openings 6x6 --search`: a board in FILE's place (unless such a file
                       // exists).
                       if (is_board_text(op->file) && !std::filesystem::exists(op->file)) {
                           merge_board(op->file, op->board);
                           if (!op->search) {
                               throw UsageError("a board (" + op->board +
                                                ") goes with --search: konane openings " +
                                                op->board + " --search");
                           }
                       }
                       if (op->search) return run_openings_search(*op);
                       if (op->file.empty()) throw UsageError("give a table FILE, or --search");
                       if (!op->board.empty() || op->rules_given || !op->memory.empty() ||
                           op->max_nodes || op->plain || op->dfpn || !op->certificate.empty() ||
                           !op->work.empty()) {
                           throw UsageError(
                               "--board, --rules, --memory, --max-nodes, --plain, "
                               "--certificate and --work go with --search");
                       }
                       TableOpeningsArgs f;
                       f.file = op->file;
                       f.gap = op->gap;
                       f.load = op->load;
                       f.json = op->json;
                       return run_openings(f);
                   }});
}

}  // namespace konane::cli
