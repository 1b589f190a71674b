// `konane prove`: the proof manager (manager/manager.hpp) from the command line: a proof of
// every opening of a board, or of positions, kept in a work directory across runs, machines and
// kills, its leaves solved by worker threads; the certificate when every root is decided.
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cert/certificate.hpp"
#include "cert/check.hpp"
#include "cli/common.hpp"
#include "cli/help.hpp"
#include "cli/json.hpp"
#include "cli/proof_run.hpp"
#include "core/gap.hpp"
#include "core/movegen.hpp"
#include "core/notation.hpp"
#include "core/text.hpp"
#include "manager/manager.hpp"
#include "process/cleanup.hpp"
#include "process/self.hpp"

#ifdef KONANE_HAVE_MPI
#include "mpi/mpi_exchange.hpp"
#include "mpi/prove_workers.hpp"
#endif

namespace konane::cli {

namespace {

namespace fs = std::filesystem;

struct ProveArgs {
    std::vector<std::string> positions;
    std::string board;
    std::string rules = "brainking";
    bool jumps_only = false;
    std::string work;
    std::uint64_t leaf_nodes = 1'000'000;
    int workers = 1;
    bool shared_table = true;
    int rank_threads = 1;  ///< under mpirun: leaf searches of each worker rank
    std::string memory;
    std::uint64_t max_nodes = 0;
    std::uint64_t seconds = 0;
    std::uint64_t checkpoint = 60;
    std::uint64_t stop_grace = 10;  ///< under mpirun: seconds a rank has to answer a stop
    bool dfpn = false;
    std::uint64_t leaf_retries = 1;
    bool leaf_nodes_given = false;    ///< --leaf-nodes given (else a resumed tree's own)
    bool leaf_retries_given = false;  ///< --leaf-retries given (else a resumed tree's own)
    bool search_given = false;        ///< --dfpn or --alpha-beta given (else a resumed tree's own)
    std::string certificate;
    bool no_check = false;
    bool json = false;
    bool quiet = false;
};

/// The tree a new run starts: the positions given, or every opening of --board.
ProofTree new_tree(const ProveArgs& a) {
    const Ruleset r = parse_ruleset(a.rules);
    if (a.positions.empty()) {
        if (a.board.empty())
            throw UsageError("give positions, or --board RxC for every opening of a board");
        const Board b = Board::parse(a.board);
        if (a.jumps_only)
            throw UsageError("--jumps-only needs positions: a board's openings are removals");
        return ProofTree(b, Opening(r), false, CertificateKind::Openings,
                         start_positions(b, Opening(r)));
    }
    std::optional<Board> board;
    if (!a.board.empty()) board = Board::parse(a.board);
    std::vector<Position> roots;
    for (const std::string& text : a.positions) {
        const ParsedPosition pp = parse_position(with_side(text), board ? &*board : nullptr);
        if (!board) board = pp.board;
        if (pp.board.squares() > 64)
            throw UsageError("prove takes boards of up to 64 squares (" + pp.board.name() + ")");
        roots.push_back(pp.position);
    }
    return ProofTree(*board, Opening(r), a.jumps_only, CertificateKind::Positions, roots);
}

/// The board's winner from the verdicts of every opening (the certificate checker's minimax):
/// Black wins when some removal wins against every reply.
std::optional<Color> board_winner(const ProofTree& t) {
    const Board& b = t.game().board();
    const Opening& o = t.game().opening();
    const Position full = b.start();
    bool black = false;
    for (const MoveChild& removal : legal_moves(b, o.rules, full)) {
        bool all = true;
        for (const MoveChild& reply : legal_moves(b, o.rules, removal.child)) {
            std::optional<bool> v;
            for (std::size_t r = 0; r < t.root_count(); ++r)
                if (t.root_positions()[r] == reply.child) v = t.root_value(r);
            if (!v) return std::nullopt;
            if (!*v) all = false;  // Black to move loses this pair
        }
        if (all) black = true;
    }
    return black ? Color::Black : Color::White;
}

/// Set by SIGINT, SIGTERM or SIGHUP during a run: the manager stops its searches, saves the tree
/// and the command ends (a second signal ends the process at once, as before the run).
std::atomic<bool> g_stop{false};
std::atomic<int> g_stop_signal{0};
struct sigaction g_previous[3];
constexpr int kStopSignals[3] = {SIGINT, SIGTERM, SIGHUP};

std::atomic<std::int64_t> g_stop_at_ms{0};
/// Remote workers the last run gave up (ManagerReport::lost_workers): under mpirun, the job is
/// then ended with MPI_Abort once the tree is saved and the output written.
int g_lost_workers = 0;

std::int64_t monotonic_ms() {  // clock_gettime is async-signal-safe (POSIX)
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

extern "C" void on_stop_signal(int sig) {
    if (g_stop.exchange(true)) {
        // A second signal within a second is the same request (`timeout` signals the command
        // and then its whole process group; a launcher may forward a signal it also sent).
        if (monotonic_ms() - g_stop_at_ms.load() < 1000) return;
        // Later: the handler the process had (the cleanup of temporary files, which re-raises
        // the signal) takes it.
        for (int i = 0; i < 3; ++i)
            if (kStopSignals[i] == sig) ::sigaction(sig, &g_previous[i], nullptr);
        ::raise(sig);
        return;
    }
    g_stop_at_ms = monotonic_ms();
    g_stop_signal = sig;
    const char msg[] =
        "\nkonane prove: stopping (the searches end, the tree is saved; another "
        "signal a second later ends it at once)\n";
    [[maybe_unused]] const auto n = ::write(STDERR_FILENO, msg, sizeof msg - 1);
}

/// The signals that stop a run gracefully, for the life of the guard.
struct StopOnSignals {
    StopOnSignals() {
        g_stop = false;
        g_stop_signal = 0;
        struct sigaction sa {};
        sa.sa_handler = on_stop_signal;
        sigemptyset(&sa.sa_mask);
        for (int i = 0; i < 3; ++i)
            ::sigaction(kStopSignals[i], &sa, &g_previous[i]);
    }
    ~StopOnSignals() {
        for (int i = 0; i < 3; ++i)
            ::sigaction(kStopSignals[i], &g_previous[i], nullptr);
    }
    StopOnSignals(const StopOnSignals&) = delete;
    StopOnSignals& operator=(const StopOnSignals&) = delete;
};

/// Makes the workers of other processes once the tree's game and the search's options are known
/// (under mpirun: the other ranks); empty: threads only.
using RemoteFactory =
    std::function<std::unique_ptr<RemoteWorkers>(const ProofGame&, const ProofOptions&)>;

int run_prove(const ProveArgs& a, bool positions_given, bool board_given, bool rules_given,
              bool workers_given, const RemoteFactory& make_remote) {
    if (a.work.empty()) throw UsageError("--work DIR is required: the proof tree lives there");
    const fs::path dir(a.work);
    const std::string work = printable(a.work);  // as printed: control characters escaped
    // The options are checked before the work directory is made: a mistyped --memory or a
    // --certificate that cannot be written must not leave a new tree behind, nor be found out
    // only after the proof.
    (void)proof_options(Ruleset::Brainking, false, a.memory, 0, false, a.dfpn, 1);
    check_search_outputs(a.certificate, "");
    const bool resumed = ProofManager::exists(dir);
    std::optional<ProofManager> m;
    if (resumed) {
        if (positions_given || board_given || rules_given || a.jumps_only) {
            throw UsageError(work +
                             " holds a proof tree already: resume it with --work alone (its "
                             "board and roots are in the tree), or give another directory");
        }
        m.emplace(ProofManager::open(dir));
    } else {
        // The leaf search recorded from the start, so that a run killed before its first
        // checkpoint resumes with it.
        ProofTree fresh = new_tree(a);
        fresh.set_leaf_search({a.leaf_nodes, a.dfpn, static_cast<int>(a.leaf_retries)});
        m.emplace(ProofManager::create(dir, std::move(fresh)));
    }
    // A new tree whose run fails before any leaf is merged (its table cannot be mapped, a
    // worker cannot start) is removed, so that the corrected command can make it again.
    bool keep = resumed;
    struct RemoveNewTree {
        std::optional<ProofManager>& m;
        const fs::path& dir;
        const bool& keep;
        ~RemoveNewTree() {
            if (keep || !m || m->tree().total_nodes() != 0) return;
            m.reset();  // its lock released
            std::error_code ec;
            fs::remove(dir / "tree", ec);
            fs::remove_all(dir / "proofs", ec);
            fs::remove(dir / "lock", ec);
            fs::remove(dir, ec);  // only when empty: a directory the user made keeps the rest
        }
    } remove_new_tree{m, dir, keep};
    const ProofTree& t = m->tree();
    const Board& b = t.game().board();
    // A resumed tree goes on with its last run's leaf search unless told otherwise.
    std::uint64_t leaf_nodes = a.leaf_nodes;
    bool dfpn = a.dfpn;
    int leaf_retries = static_cast<int>(a.leaf_retries);
    if (const auto& was = t.leaf_search(); resumed && was) {
        if (!a.leaf_nodes_given) leaf_nodes = was->leaf_nodes;
        if (!a.search_given) dfpn = was->dfpn;
        if (!a.leaf_retries_given) leaf_retries = was->retries;
        // Changed by the command: said, even with -q (the tree records the new search).
        if (leaf_nodes != was->leaf_nodes || dfpn != was->dfpn || leaf_retries != was->retries) {
            std::fprintf(stderr,
                         "konane prove: note: %s was searched with leaves of %llu nodes by %s, "
                         "%d retries; this run (as the command says) takes leaves of %llu nodes "
                         "by %s, %d retries, and the tree records that\n",
                         work.c_str(), static_cast<unsigned long long>(was->leaf_nodes),
                         algorithm_name(false, was->dfpn), was->retries,
                         static_cast<unsigned long long>(leaf_nodes), algorithm_name(false, dfpn),
                         leaf_retries);
        }
    } else if (resumed && (t.total_nodes() > 0 || t.size() > t.root_count()) &&
               !a.leaf_nodes_given) {
        // A tree grown by an older konane, which did not record its leaf search: the default
        // budget may be far from the one it was grown with.
        throw UsageError(work +
                         ": the tree records no leaf search (saved by an older konane) and has "
                         "grown past its roots: give --leaf-nodes (and --dfpn or --alpha-beta) "
                         "as it was grown, or as this run should search");
    }
    ManagerOptions o;
    o.search =
        proof_options(t.game().opening().rules, t.game().jumps_only(), a.memory, 0, false, dfpn, 1);
    std::unique_ptr<RemoteWorkers> remote;
    if (make_remote) remote = make_remote(t.game(), o.search);
    if (a.rank_threads != 1 && !(remote && remote->count() > 0)) {
        std::fprintf(stderr,
                     "konane prove: warning: --rank-threads is for worker ranks under mpirun; "
                     "here -j %d worker thread%s search\n",
                     a.workers, a.workers == 1 ? "" : "s");
    }
    // With workers elsewhere, this process only manages unless -j asks for threads too.
    const int threads = remote && remote->count() > 0 && !workers_given ? 0 : a.workers;
    o.remote = remote.get();
    o.workers = threads;
    o.shared_table = a.shared_table;
    o.search.memory_bytes = std::max<std::size_t>(o.search.memory_bytes / std::max(threads, 1), 64);
    o.leaf_nodes = leaf_nodes;
    o.leaf_retries = leaf_retries;
    o.max_nodes = a.max_nodes;
    o.max_seconds = static_cast<double>(a.seconds);
    o.checkpoint_seconds = static_cast<double>(a.checkpoint);
    o.stop_grace_seconds = static_cast<double>(a.stop_grace);
    if (threads > 0) {
        warn_memory_over_physical(o.search.memory_bytes * static_cast<std::uint64_t>(threads),
                                  a.memory.empty() ? kDefaultProofMemory : a.memory, a.quiet);
    }
    const std::string label = b.name() + " " + opening_tag(b, t.game().opening()) +
                              (t.game().jumps_only() ? " jumps-only" : "");
    if (!a.quiet) {
        std::fprintf(stderr,
                     "konane prove %s: %s work directory %s (%zu positions in the tree, %llu nodes "
                     "searched before); %d worker thread%s%s; leaves of %llu nodes by %s\n",
                     label.c_str(), resumed ? "resuming" : "new", work.c_str(), t.size(),
                     static_cast<unsigned long long>(t.total_nodes()), threads,
                     threads == 1 ? "" : "s",
                     remote ? fmt::format(", {} worker ranks of {} search thread{}",
                                          remote->count() / a.rank_threads, a.rank_threads,
                                          a.rank_threads == 1 ? "" : "s")
                                  .c_str()
                            : "",
                     static_cast<unsigned long long>(leaf_nodes), algorithm_name(false, dfpn));
    }
    if (m->reopened() > 0 && !a.quiet) {
        std::fprintf(stderr,
                     "konane prove: %llu positions are open again: their proof files are missing "
                     "from %s/proofs\n",
                     static_cast<unsigned long long>(m->reopened()), work.c_str());
    }
    process::set_interrupt_message(fmt::format(
        "\nkonane prove: interrupted; the tree of the last checkpoint is kept in {}: run "
        "`konane prove --work {}` to resume",
        work, work));
    const bool tty = isatty(STDERR_FILENO) != 0;
    bool dirty = false;
    if (!a.quiet) {
        m->on_progress(
            [&](const ManagerProgress& p) {
                std::fprintf(stderr,
                             "%s[prove] %.2f M nodes, %.2f M/s, %.0f s, %llu leaves; tree %llu "
                             "positions, %llu open leaves, %llu won, %llu lost; root pn %llu dn "
                             "%llu; memory %.0f MiB%s",
                             tty ? "\r" : "", static_cast<double>(p.nodes) / 1e6,
                             p.seconds > 0 ? static_cast<double>(p.nodes) / p.seconds / 1e6 : 0.0,
                             p.seconds, static_cast<unsigned long long>(p.leaves),
                             static_cast<unsigned long long>(p.tree.nodes),
                             static_cast<unsigned long long>(p.tree.open_leaves),
                             static_cast<unsigned long long>(p.tree.won),
                             static_cast<unsigned long long>(p.tree.lost),
                             static_cast<unsigned long long>(p.root_pn),
                             static_cast<unsigned long long>(p.root_dn),
                             static_cast<double>(process::resident_bytes()) / 1048576.0,
                             tty ? "\x1b[K" : "\n");
                std::fflush(stderr);
                dirty = tty;
            },
            tty ? 0.25 : 5.0);
    }
    std::optional<StopOnSignals> signals;
    signals.emplace();
    o.stop = &g_stop;
    const ManagerReport rep = m->run(o);
    keep = true;
    signals.reset();
    const int stopped_by = g_stop_signal.load();
    const int ranks = remote ? remote->count() / a.rank_threads : 0;
    g_lost_workers = rep.lost_workers;
    if (rep.lost_workers > 0) {
        // A rank that did not answer may not answer the end either: the caller ends the job
        // (MPI_Abort) once the output is written; the tree is saved already.
        static_cast<void>(remote.release());
        std::fprintf(stderr,
                     "konane prove: %d worker search%s did not answer the stop within %llu s "
                     "(--stop-grace): %s leaves are given back and the tree is saved; the job "
                     "is ended\n",
                     rep.lost_workers, rep.lost_workers == 1 ? "" : "es",
                     static_cast<unsigned long long>(a.stop_grace),
                     rep.lost_workers == 1 ? "its" : "their");
    }
    remote.reset();  // the worker ranks end
    o.remote = nullptr;
    if (dirty) std::fputc('\n', stderr);
    process::set_interrupt_message("");

    std::optional<Color> winner;
    if (rep.done && t.kind() == CertificateKind::Openings) winner = board_winner(t);
    std::uint64_t cert_entries = 0, cert_bytes = 0;
    if (rep.done && !a.certificate.empty()) {
        const Certificate c = m->certificate(
            fmt::format("konane prove ({}, a tree of {} positions, leaves of at most {} nodes)",
                        algorithm_name(false, dfpn), t.size(), leaf_nodes));
        // The assembled proof is checked before it is written (the checker shares nothing
        // with the searches); a certificate that fails is an error, never a file.
        if (!a.no_check) check_certificate(c);
        write_certificate(a.certificate, c);
        cert_entries = c.entries.size();
        std::error_code ec;
        cert_bytes = fs::file_size(a.certificate, ec);
    }
    // The verdict is checked only by the certificate's check (the tree and the proof files are
    // the run's own word until then: a damaged or forged tree gives any verdict).
    const bool checked = rep.done && !a.certificate.empty() && !a.no_check;
    const char* unchecked_why =
        a.certificate.empty() ? "no certificate built" : "the certificate was written unchecked";
    if (a.json) {
        json j;
        j["board"] = b.name();
        j["opening"] = opening_tag(b, t.game().opening());
        j["jumps_only"] = t.game().jumps_only();
        j["kind"] = certificate_kind_name(t.kind());
        j["work"] = work;
        j["resumed"] = resumed;
        j["done"] = rep.done;
        j["checked"] = checked;  // the verdict checked by the certificate's check
        if (stopped_by != 0)
            j["stopped_by"] = stopped_by == SIGINT    ? "SIGINT"
                              : stopped_by == SIGTERM ? "SIGTERM"
                                                      : "SIGHUP";
        if (m->reopened() > 0) j["reopened"] = m->reopened();
        json roots = json::array();
        for (std::size_t r = 0; r < t.root_count(); ++r) {
            const Position p = t.root_positions()[r];
            const std::optional<bool> v = t.root_value(r);
            json e;
            e["position"] = format_position(b, p);
            e["winner"] = v ? json(color_name(*v ? p.to_move : other(p.to_move))) : json(nullptr);
            roots.push_back(e);
        }
        j["roots"] = roots;
        if (t.kind() == CertificateKind::Openings)
            j["board_winner"] = winner ? json(color_name(*winner)) : json(nullptr);
        j["run"] = {
            {"nodes", rep.nodes},
            {"seconds", rep.seconds},
            {"cpu_seconds", rep.cpu_seconds},
            {"leaves_decided", rep.decided},
            {"leaves_expanded", rep.expanded},
            {"workers", threads},
            {"shared_table", a.shared_table && (threads > 1 || (ranks > 0 && a.rank_threads > 1))},
            {"worker_ranks", ranks},
            {"rank_threads", ranks > 0 ? a.rank_threads : 0},
            {"leaf_nodes", leaf_nodes},
            {"leaf_retries", leaf_retries},
            {"leaves_retried", rep.retried},
            {"lost_workers", rep.lost_workers},
            {"search", algorithm_name(false, dfpn)}};
        j["tree"] = {{"positions", rep.tree.nodes},    {"open_leaves", rep.tree.open_leaves},
                     {"expanded", rep.tree.expanded},  {"won", rep.tree.won},
                     {"lost", rep.tree.lost},          {"bytes", rep.tree_bytes},
                     {"proof_bytes", rep.proof_bytes}, {"nodes_searched", t.total_nodes()},
                     {"seconds", t.total_seconds()}};
        if (!a.certificate.empty() && rep.done)
            j["certificate"] = {{"path", printable(a.certificate)},
                                {"entries", cert_entries},
                                {"bytes", cert_bytes},
                                {"checked", !a.no_check}};
        std::printf("%s\n", dump(j, 2).c_str());
        return stopped_by != 0 ? 128 + stopped_by : kOk;
    }
    std::printf("%s: %s\n", label.c_str(),
                !rep.done ? "not decided yet (resume with --work alone)"
                : checked
                    ? "every root decided (checked: the certificate's check passed)"
                    : fmt::format("every root decided (unchecked: {})", unchecked_why).c_str());
    for (std::size_t r = 0; r < t.root_count(); ++r) {
        const Position p = t.root_positions()[r];
        const std::optional<bool> v = t.root_value(r);
        std::printf(
            "  %s  %s\n", format_position(b, p).c_str(),
            v ? fmt::format("{} wins", color_name(*v ? p.to_move : other(p.to_move))).c_str()
              : "open");
    }
    if (winner)
        std::printf("board: %s wins%s\n", color_name(*winner),
                    checked ? "" : fmt::format(" (unchecked: {})", unchecked_why).c_str());
    std::printf("searched: %s\n", rate_text(rep.nodes, rep.seconds, rep.cpu_seconds).c_str());
    std::printf(
        "tree: %llu positions (%llu open leaves, %llu won, %llu lost), %llu bytes; proofs "
        "%llu bytes; %llu nodes in every run\n",
        static_cast<unsigned long long>(rep.tree.nodes),
        static_cast<unsigned long long>(rep.tree.open_leaves),
        static_cast<unsigned long long>(rep.tree.won),
        static_cast<unsigned long long>(rep.tree.lost),
        static_cast<unsigned long long>(rep.tree_bytes),
        static_cast<unsigned long long>(rep.proof_bytes),
        static_cast<unsigned long long>(t.total_nodes()));
    if (!a.certificate.empty() && rep.done)
        std::printf("certificate: %s (%llu entries, %llu bytes%s)\n",
                    printable(a.certificate).c_str(), static_cast<unsigned long long>(cert_entries),
                    static_cast<unsigned long long>(cert_bytes),
                    a.no_check ? ", not checked" : ", checked");
    if (stopped_by != 0) {
        std::printf("stopped by a signal; the tree is saved: resume with konane prove --work %s\n",
                    work.c_str());
        return 128 + stopped_by;
    }
    return kOk;
}

#ifdef KONANE_HAVE_MPI
/// Under mpirun: rank 0 runs the manager with the other ranks as its workers; they search the
/// leaves it sends. A failure on any rank ends the job with its message (MPI_Abort).
int run_prove_mpi(const ProveArgs& a, bool positions_given, bool board_given, bool rules_given,
                  bool workers_given) {
    mpi::MpiExchange ex;
    try {
        if (ex.rank() != 0) {
            // A signal mpirun passes on (SIGINT, SIGTERM) is for rank 0, which stops the run
            // and then tells every worker to end.
            StopOnSignals signals;
            mpi::run_prove_worker();
            return kOk;
        }
        RemoteFactory make;
        if (ex.size() > 1) {
            make = [&a](const ProofGame& g,
                        const ProofOptions& so) -> std::unique_ptr<RemoteWorkers> {
                if (g.opening().gap) {
                    throw UsageError(
                        "a tree of a gap opening runs with threads only, not under "
                        "mpirun");
                }
                mpi::ProveSetup setup;
                setup.rows = g.board().rows;
                setup.cols = g.board().cols;
                setup.rules = so.rules;
                setup.jumps_only = so.jumps_only;
                setup.algorithm = so.algorithm;
                setup.memory_bytes = so.memory_bytes;
                setup.threads = a.rank_threads;
                setup.shared_table = a.shared_table;
                return std::make_unique<mpi::MpiLeafWorkers>(setup);
            };
        }
        const int code =
            run_prove(a, positions_given, board_given, rules_given, workers_given, make);
        if (g_lost_workers > 0) {
            std::fflush(stdout);
            ex.abort(fmt::format("{} worker search{} did not answer a stop within {} s: the tree "
                                 "is saved; the job is ended (MPI_Abort)",
                                 g_lost_workers, g_lost_workers == 1 ? "" : "es", a.stop_grace),
                     code != 0 ? code : 1, "konane prove");
        }
        return code;
    } catch (...) {
        const Failure f = failure_of(std::current_exception());
        ex.abort(f.message, f.code, "konane prove");
    }
}
#endif

}  // namespace

void add_prove_command(CLI::App& app, Commands& out) {
    auto a = std::make_shared<ProveArgs>();
    auto* prove = app.add_subcommand(
        "prove",
        "Proof search for runs longer than one machine or one day: a proof tree kept in a work "
        "directory, its leaves solved by worker threads with a node budget (the proof manager)");
    auto* positions =
        prove->add_option("POSITION", a->positions,
                          "Positions to prove (up to 64 squares); none: every opening of --board");
    auto* board =
        prove
            ->add_option(
                "--board", a->board,
                "Board RxC: every opening of it (alone), or the board the positions must have")
            ->check(non_empty());
    auto* rules = prove->add_option("--rules", a->rules, "Opening ruleset")
                      ->capture_default_str()
                      ->check(non_empty());
    prove->add_flag("--jumps-only", a->jumps_only,
                    "No opening removals: full and one-hole boards are played with jumps too");
    prove
        ->add_option("--work", a->work,
                     "Work directory of the proof tree (required): created on the first run; "
                     "given alone, the run resumes the tree it holds (also copied to another "
                     "machine)")
        ->check(non_empty());
    auto* leaf_nodes =
        prove
            ->add_option("--leaf-nodes", a->leaf_nodes,
                         "Node budget of one leaf's search; a leaf not decided within it is "
                         "expanded (a resumed tree: its last run's unless given)")
            ->capture_default_str()
            ->check(decimal(1, kMaxNodes));
    auto* leaf_retries =
        prove
            ->add_option("--leaf-retries", a->leaf_retries,
                         "Times a leaf not decided is searched again, each time with 4 times the "
                         "budget, before it is expanded (a resumed tree: its last run's unless "
                         "given)")
            ->capture_default_str()
            ->check(decimal(0, 16));
    auto* workers = prove->add_option(
        "-j,--workers", a->workers,
        "Worker threads, each with its own search (under mpirun, rank 0 runs none unless -j is "
        "given: the other ranks are the workers)");
    workers->capture_default_str()->check(decimal(1, 1024));
    prove
        ->add_option("--rank-threads", a->rank_threads,
                     "Under mpirun: leaf searches of each worker rank at once, one thread each, "
                     "sharing the rank's table (--memory) as -j's threads do")
        ->capture_default_str()
        ->check(decimal(1, 1024));
    prove->add_flag("--shared-table,!--separate-tables", a->shared_table,
                    "With -j 2 or more: the worker threads share one table of proven values, the "
                    "default (--separate-tables: one each; the same memory in all)");
    prove
        ->add_option("--memory", a->memory,
                     "Transposition tables of this process's worker threads together, e.g. 4G "
                     "(default 512M); under mpirun, each worker rank's table")
        ->check(non_empty());
    prove
        ->add_option("--max-nodes", a->max_nodes,
                     "Stop this run after about this many nodes (0: no limit); resume later")
        ->check(decimal(0, kMaxNodes));
    prove
        ->add_option("--time", a->seconds,
                     "Stop this run after this many seconds (0: no limit); resume later")
        ->check(decimal(0, 100'000'000));
    prove
        ->add_option("--checkpoint", a->checkpoint,
                     "Seconds between saves of the tree (what a kill loses; 0: after every "
                     "leaf)")
        ->capture_default_str()
        ->check(decimal(0, 1'000'000));
    prove
        ->add_option("--stop-grace", a->stop_grace,
                     "Under mpirun: seconds a worker rank has to answer when the run stops; one "
                     "that has not (frozen, lost) is given up, its leaf given back, the tree "
                     "saved and the job ended")
        ->capture_default_str()
        ->check(decimal(0, 1'000'000));
    auto* search = prove->add_flag("--dfpn,!--alpha-beta", a->dfpn,
                                   "Workers search with df-pn (--alpha-beta: with the enhanced "
                                   "alpha-beta, the default; a resumed tree: its last run's "
                                   "unless given)");
    prove
        ->add_option("--certificate", a->certificate,
                     "When every root is decided, write their proof to this file, for `konane "
                     "check-proof` (docs/certificate.md)")
        ->check(non_empty());
    prove->add_flag("--no-check", a->no_check,
                    "Write the certificate without checking it first (by default it is checked "
                    "as `konane check-proof` would)");
    prove->add_flag("--json", a->json, "JSON output");
    prove->add_flag("-q,--quiet", a->quiet, "No progress on stderr");
    help_footer(
        prove, {"konane prove --board 5x5 --work 5x5.tree --certificate 5x5.proof",
                "konane prove --board 6x8 --work 6x8.tree -j 2 --memory 8G --time 3600",
                "konane prove --work 6x8.tree --time 3600      resume (here or on another machine)",
                "konane prove 'xoxoxo/oxoxox/xo.oxo/ox.xox/xoxoxo/oxoxox b' --work c3c4.tree"});
    out.push_back({prove, [a, positions, board, rules, workers, leaf_nodes, leaf_retries, search] {
                       a->leaf_nodes_given = leaf_nodes->count() > 0;
                       a->leaf_retries_given = leaf_retries->count() > 0;
                       a->search_given = search->count() > 0;
#ifdef KONANE_HAVE_MPI
                       if (mpi::launched_by_mpi()) {
                           return run_prove_mpi(*a, positions->count() > 0, board->count() > 0,
                                                rules->count() > 0, workers->count() > 0);
                       }
#endif
                       return run_prove(*a, positions->count() > 0, board->count() > 0,
                                        rules->count() > 0, workers->count() > 0, {});
                   }});
}

}  // namespace konane::cli
