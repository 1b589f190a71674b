// `konane solve --wdl` and `konane openings --search`: win/loss by proof search.
#include <algorithm>
#include <bit>
#include <cstdio>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/gap_arg.hpp"
#include "cli/json.hpp"
#include "cli/progress.hpp"
#include "cli/proof_cmd.hpp"
#include "cli/proof_run.hpp"
#include "cli/query_args.hpp"
#include "core/notation.hpp"
#include "core/text.hpp"
#include "probe/proof.hpp"
#include "probe/proof_certificate.hpp"
#include "probe/search.hpp"
#include "query/proof.hpp"

namespace konane::cli {

namespace {

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

}  // namespace

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

int run_solve_wdl(const SolveArgs& a) {
    std::optional<Board> want;
    if (!a.board.empty()) want = Board::parse(a.board);
    const ParsedPosition parsed = parse_position(a.position, want ? &*want : nullptr);
    const Board& b = parsed.board;
    Ruleset rules = parse_ruleset(a.rules);
    std::optional<Tablebase> tb = open_table(a.table, a.load, b, a.rules_given, rules);
    const ProofOptions opt =
        proof_options(rules, a.jumps_only, a.memory, a.max_nodes, a.plain, a.dfpn, a.threads);
    check_search_outputs(a.certificate, a.work);
    ProofSearch s(b, opt, tb);
    ProofProgressLine progress(b, !a.quiet, "");
    progress.attach(s);
    SearchWork work(a.work, b, rules, a.quiet);
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
    const Board& b = *board;
    std::optional<Gap> gap;
    if (!a.gap.empty()) {
        gap = gap_arg(b, a.gap, a.rules_given, a.rules);
    } else if (tb && tb->opening().gap) {
        gap = tb->opening().gap;  // a gap's table: its one opening
    }
    ProofOptions opt =
        proof_options(rules, false, a.memory, a.max_nodes, a.plain, a.dfpn, a.threads);
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
    SearchWork work(a.work, b, rules, a.quiet);
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

}  // namespace konane::cli
