// The running of a proof search (cli/proof_run.hpp): options, certificates, output checks.
#include "cli/proof_run.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "cli/common.hpp"
#include "cli/json.hpp"
#include "core/text.hpp"
#include "search/proof.hpp"
#include "search/proof_certificate.hpp"
#include "solver/preflight.hpp"

namespace konane::cli {

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
    // Each thread past the first holds its own history and frames (ProofSearch::helper_bytes)
    // beside the shared tables: taken out of --memory, and at most half of it goes to them.
    const std::size_t each = ProofSearch::helper_bytes(kMaxSquares);
    const std::size_t fit = 1 + o.memory_bytes / 2 / each;
    if (static_cast<std::size_t>(threads) > fit) {
        warn_threads_within(threads, each, memory.empty() ? kDefaultProofMemory : memory, fit);
        threads = static_cast<int>(fit);
    }
    o.memory_bytes -= static_cast<std::size_t>(threads - 1) * each;
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

const char* algorithm_name(bool plain, bool dfpn) {
    return plain ? "plain alpha-beta" : dfpn ? "df-pn" : "proof alpha-beta";
}

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

void check_search_outputs(const std::string& certificate, const std::string& work) {
    if (!certificate.empty()) {
        solver::check_output_file(certificate, "--certificate " + certificate);
    }
    if (!work.empty()) solver::check_work_dir(work);
}

}  // namespace konane::cli
