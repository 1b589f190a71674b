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

}  // namespace konane::cli
