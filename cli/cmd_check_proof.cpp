// `konane check-proof FILE`: verifies a proof certificate (cert/check.hpp) with the rules engine
// alone, and prints the verdict it proves.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cert/certificate.hpp"
#include "cert/check.hpp"
#include "cli/common.hpp"
#include "cli/json.hpp"
#include "core/notation.hpp"
#include "core/text.hpp"

namespace konane::cli {

namespace {

struct CheckProofArgs {
    std::string file;
    bool json = false;
    bool quiet = false;
    bool by_pieces = false;  ///< --by-pieces: the proven positions by number of pieces
    int threads = 0;         ///< -j: threads of the check (0: every core)
};

int run_check_proof(const CheckProofArgs& a) {
    Certificate c;
    try {
        c = read_certificate(a.file);
    } catch (const CertificateError& e) {
        throw UsageError(std::string("refused: ") + e.what());
    }
    const Board& b = c.board;
    const bool tty = isatty(STDERR_FILENO) != 0;
    const auto start = std::chrono::steady_clock::now();
    auto last = start;
    CheckProgress progress;
    if (!a.quiet) {
        progress = [&](std::uint64_t won, std::uint64_t lost) {
            const auto now = std::chrono::steady_clock::now();
            if (std::chrono::duration<double>(now - last).count() < (tty ? 0.25 : 5.0)) return;
            last = now;
            std::fprintf(
                stderr, "%s[check-proof] %llu positions proven (%llu won, %llu lost), %.0f s%s",
                tty ? "\r" : "", static_cast<unsigned long long>(won + lost),
                static_cast<unsigned long long>(won), static_cast<unsigned long long>(lost),
                std::chrono::duration<double>(now - start).count(), tty ? "\x1b[K" : "\n");
        };
    }
    CertificateCheck r;
    try {
        const int threads =
            a.threads > 0 ? a.threads
                          : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
        r = check_certificate(c, progress, threads);
    } catch (const CertificateError& e) {
        if (!a.quiet && tty) std::fprintf(stderr, "\r\x1b[K");
        std::fprintf(stderr, "konane check-proof: refused: %s: %s\n", printable(a.file).c_str(),
                     safe_message(e.what()).c_str());
        return kFailed;
    }
    if (!a.quiet && tty) std::fprintf(stderr, "\r\x1b[K");
    // The removal pairs of an openings certificate, for the table (the checker has matched the
    // roots against them).
    std::vector<std::pair<Move, Move>> pairs;
    if (c.kind == CertificateKind::Openings && !c.opening.gap) {
        for (const auto& f : legal_moves(b, c.opening.rules, b.start()))
            for (const auto& w : legal_moves(b, c.opening.rules, f.child))
                pairs.emplace_back(f.move, w.move);
    }
    const std::string game = c.jumps_only ? "jumps only" : opening_text(b, c.opening);
    if (a.json) {
        json j;
        // Free text from the command line and the file: printable() (escaped, valid UTF-8).
        j["file"] = printable(a.file);
        j["valid"] = true;
        j["board"] = b.name();
        j["opening"] = opening_tag(b, c.opening);
        j["jumps_only"] = c.jumps_only;
        j["kind"] = certificate_kind_name(c.kind);
        j["generator"] = printable(c.generator);
        j["roots"] = json::array();
        for (std::size_t i = 0; i < c.roots.size(); ++i) {
            json root = {{"position", format_position(b, c.roots[i].position)},
                         {"winner", color_name(r.winners[i])}};
            if (i < pairs.size()) {
                root["black"] = format_move(b, pairs[i].first);
                root["white"] = format_move(b, pairs[i].second);
            }
            j["roots"].push_back(root);
        }
        if (r.board_winner) j["winner"] = color_name(*r.board_winner);
        j["entries"] = c.entries.size();
        j["won"] = r.won;
        j["lost"] = r.lost;
        j["unused"] = r.unused;
        // The proven positions by number of pieces (only the piece counts that occur).
        j["by_pieces"] = json::array();
        for (std::size_t n = 0; n < r.won_by_pieces.size(); ++n) {
            if (r.won_by_pieces[n] + r.lost_by_pieces[n] == 0) continue;
            j["by_pieces"].push_back(
                {{"pieces", n}, {"won", r.won_by_pieces[n]}, {"lost", r.lost_by_pieces[n]}});
        }
        j["seconds"] = r.seconds;
        std::printf("%s\n", dump(j).c_str());
        return kOk;
    }
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(a.file, ec);
    std::printf("certificate: %s (%llu bytes): %s, %s, %s, %zu roots, %zu entries\n",
                printable(a.file).c_str(), static_cast<unsigned long long>(bytes), b.name().c_str(),
                game.c_str(), certificate_kind_name(c.kind), c.roots.size(), c.entries.size());
    // The generator line is the file's free text: escaped, so that no terminal sequence in it
    // can hide or rewrite the verdict printed after it.
    std::printf("written by: %s\n", printable(c.generator).c_str());
    if (!pairs.empty()) {
        std::printf("%-6s %-6s %s\n", "black", "white", "winner (proven)");
        for (std::size_t i = 0; i < pairs.size(); ++i) {
            std::printf("%-6s %-6s %s\n", format_move(b, pairs[i].first).c_str(),
                        format_move(b, pairs[i].second).c_str(), color_name(r.winners[i]));
        }
        std::printf("\nEach removal against White's best reply:\n");
        for (const auto& [m, w] : r.removals) {
            std::printf("  %-4s %s\n", format_move(b, m).c_str(),
                        w == Color::Black ? "black wins against every reply" : "white wins");
        }
    } else {
        for (std::size_t i = 0; i < c.roots.size(); ++i) {
            std::printf("root: %s: %s wins (proven)\n",
                        format_position(b, c.roots[i].position).c_str(), color_name(r.winners[i]));
        }
    }
    if (r.board_winner) {
        std::printf("\nverdict: %s wins with perfect play (proven)\n", color_name(*r.board_winner));
    }
    std::printf(
        "checked: %llu positions (%llu won with the recorded move, %llu lost against every "
        "reply) in %.2f s; %llu entries unused\n",
        static_cast<unsigned long long>(r.won + r.lost), static_cast<unsigned long long>(r.won),
        static_cast<unsigned long long>(r.lost), r.seconds,
        static_cast<unsigned long long>(r.unused));
    // How deep the proof goes: the fewest pieces of a proven position (a table of at most K
    // pieces can replace only the proof's positions of at most K pieces).
    std::size_t fewest = 0, most = 0;
    for (std::size_t n = r.won_by_pieces.size(); n-- > 0;)
        if (r.won_by_pieces[n] + r.lost_by_pieces[n] > 0) fewest = n;
    for (std::size_t n = 0; n < r.won_by_pieces.size(); ++n)
        if (r.won_by_pieces[n] + r.lost_by_pieces[n] > 0) most = n;
    if (r.won + r.lost > 0) {
        std::printf("pieces in the proven positions: %zu to %zu%s\n", fewest, most,
                    a.by_pieces ? "" : " (--by-pieces: how many of each)");
    }
    if (a.by_pieces) {
        std::printf("%6s %14s %14s\n", "pieces", "won", "lost");
        for (std::size_t n = most + 1; n-- > fewest;) {
            std::printf("%6zu %14llu %14llu\n", n,
                        static_cast<unsigned long long>(r.won_by_pieces[n]),
                        static_cast<unsigned long long>(r.lost_by_pieces[n]));
        }
    }
    return kOk;
}

}  // namespace

void add_check_proof_command(CLI::App& app, Commands& out) {
    auto a = std::make_shared<CheckProofArgs>();
    auto* cmd = app.add_subcommand(
        "check-proof",
        "Verify a proof certificate (from solve --wdl or openings --search with --certificate) "
        "with the rules alone, and print the verdict it proves");
    cmd->add_option("FILE", a->file, "Certificate file")->required()->check(non_empty());
    cmd->add_flag("--json", a->json, "JSON output");
    cmd->add_option("-j,--threads", a->threads,
                    "Threads, 1..1024 (default 0: all cores); the verdict, the counts and a "
                    "refusal's message are the same whatever the threads")
        ->check(decimal(0, 1024));
    cmd->add_flag("-q,--quiet", a->quiet, "No progress line on stderr");
    cmd->add_flag("--by-pieces", a->by_pieces,
                  "Also print the proven positions by number of pieces (--json always has them)");
    cmd->footer(
        "Exit status: 0 when the certificate proves its claims, 1 when it does not (the message "
        "names the root, the line of moves and the position), 2 when the file is not a readable "
        "certificate (damaged, foreign, truncated).\n\nExample:\n  konane openings --search "
        "--board 5x5 --certificate 5x5.proof\n  konane check-proof 5x5.proof");
    out.push_back({cmd, [a] { return run_check_proof(*a); }});
}

}  // namespace konane::cli
