// `konane solve --wdl` and `konane openings --search`: win/loss by proof search.
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <xxhash.h>
#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/gap_arg.hpp"
#include "cli/json.hpp"
#include "cli/progress.hpp"
#include "cli/proof_cmd.hpp"
#include "cli/query_args.hpp"
#include "core/notation.hpp"
#include "core/text.hpp"
#include "probe/proof.hpp"
#include "probe/proof_certificate.hpp"
#include "probe/search.hpp"
#include "process/read_file.hpp"
#include "process/replace_file.hpp"
#include "query/proof.hpp"
#include "solver/preflight.hpp"

namespace konane::cli {

namespace {

/// The progress line of a proof search on stderr: nodes, rate, memory, the current line of the
/// root's moves. On a terminal rewritten in place four times a second; elsewhere one line every
/// five seconds.
class ProofProgressLine {
  public:
    ProofProgressLine(const Board& b, bool enabled, std::string label)
        : board_(b),
          enabled_(enabled),
          tty_(isatty(STDERR_FILENO) != 0),
          label_(std::move(label)) {}
    ~ProofProgressLine() { finish(); }
    void attach(ProofSearch& s) {
        if (!enabled_) return;
        s.on_progress([this](const ProofProgress& p) { print(p); }, tty_ ? 0.25 : 5.0);
    }
    void label(std::string l) { label_ = std::move(l); }
    void finish() {
        if (dirty_) std::fputc('\n', stderr);
        dirty_ = false;
    }

  private:
    void print(const ProofProgress& p) {
        std::string line;
        const std::size_t shown = std::min<std::size_t>(p.line.size(), 8);
        for (std::size_t i = 0; i < shown; ++i) {
            line += fmt::format(" {} {}/{}", format_move(board_, p.line[i]), p.line_index[i],
                                p.line_count[i]);
        }
        if (p.line.size() > shown) line += " ...";
        const double rate = p.seconds > 0 ? static_cast<double>(p.nodes) / p.seconds : 0;
        std::fprintf(
            stderr,
            "%s[proof%s] %.2f M nodes, %.2f M/s, %.0f s, memory %.0f MiB (table %.0f "
            "MiB, %.0f%% used); line:%s%s",
            tty_ ? "\r" : "", label_.c_str(), static_cast<double>(p.nodes) / 1e6, rate / 1e6,
            p.seconds, static_cast<double>(process::resident_bytes()) / 1048576.0,
            static_cast<double>(p.table_bytes) / 1048576.0,
            100.0 * static_cast<double>(p.stored) * 16.0 / static_cast<double>(p.table_bytes),
            line.c_str(), tty_ ? "\x1b[K" : "\n");
        std::fflush(stderr);
        dirty_ = tty_;
    }
    const Board& board_;
    bool enabled_;
    bool tty_;
    std::string label_;
    bool dirty_ = false;
};

ProofOptions proof_options(Ruleset rules, bool jumps_only, const std::string& memory,
                           std::uint64_t max_nodes, bool plain, bool dfpn, int threads) {
    if (plain && dfpn) throw UsageError("--plain and --dfpn: choose one search");
    if (threads < 1) throw UsageError("-j THREADS must be 1 or more");
    if (plain && threads > 1) throw UsageError("--plain searches with one thread: drop -j");
    ProofOptions o;
    o.rules = rules;
    o.jumps_only = jumps_only;
    o.memory_bytes = parse_size(memory.empty() ? kDefaultProofMemory : memory, "--memory");
    if (o.memory_bytes < 64) throw UsageError("--memory " + memory + ": at least 64 bytes");
    o.max_nodes = max_nodes;
    o.threads = threads;
    o.algorithm = plain  ? ProofAlgorithm::Plain
                  : dfpn ? ProofAlgorithm::DfPn
                         : ProofAlgorithm::Enhanced;
    return o;
}

std::string rate_text(std::uint64_t nodes, double seconds, double cpu) {
    return fmt::format("{} nodes in {:.2f} s ({:.2f} s CPU, {:.2f} M nodes per CPU second)", nodes,
                       seconds, cpu, cpu > 0 ? static_cast<double>(nodes) / cpu / 1e6 : 0.0);
}

/// The "search" of the JSON output: "plain alpha-beta" (--plain), "df-pn" (--dfpn) or "proof
/// alpha-beta".
const char* algorithm_name(bool plain, bool dfpn = false) {
    return plain ? "plain alpha-beta" : dfpn ? "df-pn" : "proof alpha-beta";
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

/// What --certificate wrote: the file, its size and the proof's counts.
struct WrittenCertificate {
    std::string path;
    std::uint64_t bytes = 0;
    CertificateStats stats;
    std::uint64_t entries = 0;
    double seconds = 0;
};

/// Builds the certificate of the decided `roots` from s's transposition table (searching again
/// what it lost) and writes it to `path` (`--certificate`), with a progress line on stderr.
WrittenCertificate write_proof(ProofSearch& s, const std::vector<ProofRoot>& roots,
                               CertificateKind kind, const Opening& opening,
                               const std::string& path, bool quiet) {
    const auto start = std::chrono::steady_clock::now();
    CertificateBuilder builder(s);
    const bool tty = isatty(STDERR_FILENO) != 0;
    auto last = start;
    if (!quiet) {
        builder.on_progress([&](const CertificateStats& st) {
            const auto now = std::chrono::steady_clock::now();
            if (std::chrono::duration<double>(now - last).count() < (tty ? 0.25 : 5.0)) return;
            last = now;
            std::fprintf(stderr,
                         "%s[certificate] %llu won, %llu lost positions (%.0f MiB), %llu "
                         "searched again (%llu nodes), %.0f s%s",
                         tty ? "\r" : "", static_cast<unsigned long long>(st.won),
                         static_cast<unsigned long long>(st.lost),
                         static_cast<double>(st.bytes) / (1 << 20),
                         static_cast<unsigned long long>(st.searched),
                         static_cast<unsigned long long>(st.nodes),
                         std::chrono::duration<double>(now - start).count(), tty ? "\x1b[K" : "\n");
        });
    }
    for (const ProofRoot& r : roots)
        builder.add_root(r.position, r.winner);
    const Certificate c = builder.finish(
        kind, opening,
        fmt::format("konane ({}, {} MiB transposition table)",
                    s.options().algorithm == ProofAlgorithm::Plain  ? "plain alpha-beta"
                    : s.options().algorithm == ProofAlgorithm::DfPn ? "df-pn"
                                                                    : "proof alpha-beta",
                    s.table_bytes() >> 20));
    write_certificate(path, c);
    if (!quiet && tty) std::fprintf(stderr, "\r\x1b[K");
    WrittenCertificate w;
    w.path = path;
    std::error_code ec;
    w.bytes = std::filesystem::file_size(path, ec);
    w.stats = builder.stats();
    w.entries = c.entries.size();
    w.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return w;
}

json certificate_json(const WrittenCertificate& w) {
    return {{"file", printable(w.path)},
            {"bytes", w.bytes},
            {"entries", w.entries},
            {"lost_positions", w.stats.lost},
            {"builder_bytes", w.stats.peak_bytes},
            {"transpositions", w.stats.transpositions},
            {"searched_again", w.stats.searched},
            {"nodes_again", w.stats.nodes},
            {"seconds", w.seconds}};
}

void print_certificate(const WrittenCertificate& w) {
    std::printf(
        "certificate: %s, %llu bytes: %llu positions with a winning move, %llu lost positions "
        "(%llu transpositions; %llu positions searched again, %llu nodes), %.2f s\n",
        printable(w.path).c_str(), static_cast<unsigned long long>(w.bytes),
        static_cast<unsigned long long>(w.entries), static_cast<unsigned long long>(w.stats.lost),
        static_cast<unsigned long long>(w.stats.transpositions),
        static_cast<unsigned long long>(w.stats.searched),
        static_cast<unsigned long long>(w.stats.nodes), w.seconds);
}

/// The work directory of a long proof search (--work DIR), so that a killed run continues where
/// it was: DIR/openings.txt holds the openings decided so far (with their nodes and times) and
/// DIR/proven.bin the positions whose proof took at least kKeepNodes nodes
/// (ProofSearch::save_proven), both rewritten through temporary files every --checkpoint seconds
/// and after each opening, each with an XXH64 checksum. Removed when the search completes.
class SearchWork {
  public:
    static constexpr std::uint64_t kKeepNodes = 1024;
    /// The most bytes openings.txt is read with.
    static constexpr std::uint64_t kMaxLinesBytes = std::uint64_t{1} << 20;

    SearchWork(std::string dir, const Board& b, Ruleset r, bool quiet)
        : dir_(std::move(dir)), board_(b), rules_(r), quiet_(quiet) {}
    bool enabled() const { return !dir_.empty(); }

    /// Loads a previous run's state into s; returns the decided openings by line number (empty
    /// when there is none). `pairs`: the board's removal pairs, to check the state against.
    std::vector<std::optional<SearchedOpening>> resume(
        ProofSearch& s, const std::vector<std::pair<Move, Move>>& pairs) {
        std::vector<std::optional<SearchedOpening>> done;
        if (!enabled()) return done;
        std::error_code ec;
        if (std::filesystem::exists(dir_, ec) && !std::filesystem::is_directory(dir_, ec)) {
            throw UsageError("--work " + dir_ + ": not a directory");
        }
        std::filesystem::create_directories(dir_, ec);
        if (ec) throw std::runtime_error("--work " + dir_ + ": " + ec.message());
        std::uint64_t loaded = 0;
        if (std::filesystem::exists(proven_path(), ec)) loaded = s.load_proven(proven_path());
        std::size_t decided = 0;
        if (std::filesystem::exists(lines_path(), ec)) {
            done = read_lines(pairs);
            for (const auto& d : done)
                decided += d.has_value();
        }
        if (!quiet_ && (loaded || decided)) {
            std::fprintf(stderr,
                         "resuming from %s: %zu openings decided, %llu proven positions loaded\n",
                         dir_.c_str(), decided, static_cast<unsigned long long>(loaded));
        }
        return done;
    }

    /// Saves the expensive proven positions of s.
    void save_proven(const ProofSearch& s) {
        if (enabled()) s.save_proven(proven_path(), kKeepNodes);
    }

    /// Saves the decided openings (and the proven positions).
    void save(const ProofSearch& s, const std::vector<SearchedOpening>& lines) {
        if (!enabled()) return;
        save_proven(s);
        std::string text = "konane search state 1\nboard " + board_.name() + "\nrules " +
                           ruleset_name(rules_) + "\n";
        for (const SearchedOpening& l : lines) {
            if (!l.winner) continue;
            text += fmt::format("line {} {} {} {} {:.3f} {:.3f}\n", format_move(board_, l.black),
                                format_move(board_, l.white), color_name(*l.winner), l.nodes,
                                l.seconds, l.cpu_seconds);
        }
        text += fmt::format("xxh64 {:016x}\n", XXH64(text.data(), text.size(), 0));
        process::replace_file(lines_path(), {text});
    }

    /// Removes the work directory (the search is complete).
    void finish() {
        if (!enabled()) return;
        std::error_code ec;
        std::filesystem::remove(lines_path(), ec);
        std::filesystem::remove(proven_path(), ec);
        std::filesystem::remove(dir_, ec);
    }

  private:
    std::string lines_path() const { return dir_ + "/openings.txt"; }
    std::string proven_path() const { return dir_ + "/proven.bin"; }

    std::vector<std::optional<SearchedOpening>> read_lines(
        const std::vector<std::pair<Move, Move>>& pairs) const {
        // A line per opening, some 60 bytes each: a link to a device, a pipe or a directory
        // is refused before reading (process::read_regular_file()).
        const std::string text = process::read_regular_file(
            lines_path(), kMaxLinesBytes, "not konane's (remove the work directory)");
        const std::size_t sum_at = text.rfind("xxh64 ");
        if (sum_at == std::string::npos ||
            text.substr(sum_at) != fmt::format("xxh64 {:016x}\n", XXH64(text.data(), sum_at, 0))) {
            throw std::runtime_error(lines_path() +
                                     ": checksum mismatch: the state is damaged "
                                     "(remove the work directory to start again)");
        }
        std::istringstream in(text.substr(0, sum_at));
        std::string line;
        std::getline(in, line);
        std::string board, rules;
        std::getline(in, board);
        std::getline(in, rules);
        if (board != "board " + board_.name() ||
            rules != std::string("rules ") + ruleset_name(rules_)) {
            throw UsageError(dir_ + " holds the state of another search (" + board + ", " + rules +
                             "): give another --work directory");
        }
        std::vector<std::optional<SearchedOpening>> done(pairs.size());
        while (std::getline(in, line)) {
            std::istringstream w(line);
            std::string tag, black, white, winner;
            SearchedOpening l;
            w >> tag >> black >> white >> winner >> l.nodes >> l.seconds >> l.cpu_seconds;
            bool placed = false;
            for (std::size_t i = 0; i < pairs.size() && !placed; ++i) {
                if (format_move(board_, pairs[i].first) == black &&
                    format_move(board_, pairs[i].second) == white) {
                    l.black = pairs[i].first;
                    l.white = pairs[i].second;
                    l.winner = winner == "black" ? Color::Black : Color::White;
                    done[i] = l;
                    placed = true;
                }
            }
            if (!w || !placed || (winner != "black" && winner != "white")) {
                throw std::runtime_error(lines_path() + ": a line that is no opening of " +
                                         board_.name() + ": " + line);
            }
        }
        return done;
    }

    std::string dir_;
    Board board_;
    Ruleset rules_;
    bool quiet_;
};

std::string undecided_word(std::uint64_t max_nodes) {
    return max_nodes ? fmt::format("undecided within {} nodes", max_nodes) : "undecided";
}

/// The checks of --certificate and --work before any search (solver::check_output_file(),
/// solver::check_work_dir()): a location that cannot take them is refused at once, not after
/// the search.
void check_search_outputs(const std::string& certificate, const std::string& work) {
    if (!certificate.empty()) {
        solver::check_output_file(certificate, "--certificate " + certificate);
    }
    if (!work.empty()) solver::check_work_dir(work);
}

/// A certificate that could not be written after the search (a full disk, say): the search's
/// result is printed all the same, then the error ends the command (its message and exit code).
struct CertificateFailure {
    std::exception_ptr error;
    /// Runs write(); keeps its exception instead of letting it end the command.
    template <class F>
    std::optional<WrittenCertificate> attempt(F&& write) {
        try {
            return write();
        } catch (...) {
            error = std::current_exception();
            return std::nullopt;
        }
    }
    /// The error's message, for --json's "certificate_error".
    std::string message() const {
        try {
            std::rethrow_exception(error);
        } catch (const std::exception& e) {
            return printable(e.what());
        } catch (...) {
            return "unknown error";
        }
    }
    /// Ends the command with the error, when there is one.
    void rethrow() const {
        if (error) std::rethrow_exception(error);
    }
};

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
