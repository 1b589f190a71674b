// The running of a proof search, shared by `konane solve --wdl` and `konane openings --search`:
// its options, progress line, work directory (--work) and certificate (--certificate).
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <xxhash.h>

#include "cli/common.hpp"
#include "cli/json.hpp"
#include "core/notation.hpp"
#include "core/text.hpp"
#include "process/read_file.hpp"
#include "process/replace_file.hpp"
#include "process/self.hpp"
#include "search/proof.hpp"
#include "search/proof_certificate.hpp"

namespace konane::cli {

/// Transposition table of the proof search when --memory is not given.
inline constexpr const char* kDefaultProofMemory = "512M";

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

/// The options of a proof search from the command line's: the ruleset, --jumps-only, --memory
/// (the transposition table's size; kDefaultProofMemory when empty), --max-nodes, --plain,
/// --dfpn and -j. Throws UsageError for a choice that does not go together.
ProofOptions proof_options(Ruleset rules, bool jumps_only, const std::string& memory,
                           std::uint64_t max_nodes, bool plain, bool dfpn, int threads);

/// "N nodes in S s (C s CPU, R M nodes per CPU second)": the `searched:` line's figures.
std::string rate_text(std::uint64_t nodes, double seconds, double cpu);

/// The "search" of the JSON output: "plain alpha-beta" (--plain), "df-pn" (--dfpn) or "proof
/// alpha-beta".
const char* algorithm_name(bool plain, bool dfpn = false);

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
                               const std::string& path, bool quiet);

/// The "certificate" of the JSON output: what --certificate wrote.
json certificate_json(const WrittenCertificate& w);

/// The `certificate:` line of the text output: what --certificate wrote.
void print_certificate(const WrittenCertificate& w);

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

    /// `search`: the search this run makes (algorithm_name()), recorded in the state so that a
    /// run resumed by another search says so.
    SearchWork(std::string dir, const Board& b, Ruleset r, std::string search, bool quiet)
        : dir_(std::move(dir)), board_(b), rules_(r), search_(std::move(search)), quiet_(quiet) {}
    bool enabled() const { return !dir_.empty(); }

    /// Loads a previous run's state into s; returns the decided openings by line number (empty
    /// when there is none). `pairs`: the board's removal pairs, to check the state against.
    std::vector<std::optional<SearchedOpening>> resume(
        ProofSearch& s, const std::vector<std::pair<Move, Move>>& pairs) {
        searched_by_.clear();
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
        if (!searched_by_.empty() && searched_by_ != search_) {
            // Sound (a proven value is proven whichever search proved it), but likely a flag
            // forgotten: said even with -q.
            std::fprintf(stderr,
                         "konane: warning: %s was searched by %s so far; this run goes on by %s "
                         "(the openings decided stay decided)\n",
                         dir_.c_str(), searched_by_.c_str(), search_.c_str());
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
                           ruleset_name(rules_) + "\nsearch " + search_ + "\n";
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
        const std::vector<std::pair<Move, Move>>& pairs) {
        // A line per opening, some 60 bytes each: a link to a device, a pipe or a directory
        // is refused before reading (process::read_regular_file()).
        const std::string text = process::read_regular_file(
            lines_path(), kMaxLinesBytes, "not konane's (remove the work directory)",
            process::Links::Refuse);
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
            if (line.rfind("search ", 0) == 0) {  // absent from the states of older versions
                searched_by_ = line.substr(7);
                continue;
            }
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
    std::string search_;
    std::string searched_by_;  ///< the search of the state resumed (empty: not recorded)
    bool quiet_;
};

/// The checks of --certificate and --work before any search (solver::check_output_file(),
/// solver::check_work_dir()): a location that cannot take them is refused at once, not after
/// the search.
void check_search_outputs(const std::string& certificate, const std::string& work);

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

}  // namespace konane::cli
