// The proof manager: a proof search for runs longer than one machine or one day (issue: toward
// 8x8; docs/beyond.md "The proof manager"). A front end keeps the proof tree of the positions
// near the roots (tree.hpp) in a work directory, hands its most-proving open leaves to workers
// that solve each with a node budget (the proof search, search/proof.hpp), merges their results
// (a leaf decided, or expanded with what the worker learnt of its children) and saves the tree
// at checkpoints, so that a run killed at any point resumes from the last one, on this machine
// or, with the directory copied, another. Each leaf a worker decides leaves a certificate of its
// own (proofs/N.proof); the roots' certificate is assembled from the tree and those.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "cert/certificate.hpp"
#include "manager/tree.hpp"
#include "process/directory_lock.hpp"
#include "search/proof.hpp"

namespace konane {

/// What a worker found when it searched one leaf of the tree.
struct LeafResult {
    /// The leaf's value for its side to move; nullopt: not decided within the budget.
    std::optional<bool> win;
    /// Undecided: what the worker's transposition table knows of the leaf's children.
    LeafChildren children;
    std::uint64_t nodes = 0;  ///< nodes the search visited
    /// CPU seconds of the search where it ran elsewhere (a worker rank: RemoteWorkers), added
    /// to the run's; 0 for a worker thread, whose CPU is this process's.
    double cpu_seconds = 0;
    /// The certificate of the leaf (decided) or of its children known (undecided); nullopt
    /// when there is nothing proven to certify (or the search was stopped).
    std::optional<Certificate> proof;
};

/// Searches the position of `key` (ProofGame g) with search s, at most `budget` nodes: its value
/// and the certificate of it, or, undecided, the children's values s's table holds and their
/// certificate. `stopped` (also s's stop flag) tells it that the caller stopped the search, then
/// or while the certificate was built: the result is then nothing but the nodes. Without
/// `children_proof` an undecided leaf comes back without the children's certificate (a leaf
/// that will be searched again, ManagerOptions::leaf_retries: the next search proves them
/// again). Throws what ProofSearch::solve and CertificateBuilder throw.
LeafResult solve_leaf(ProofSearch& s, const ProofGame& g, ProofKey key, std::uint64_t budget,
                      const std::atomic<bool>& stopped, bool children_proof = true);

/// Workers in other processes (MPI ranks: mpi/prove_workers.hpp), driven by ProofManager::run()
/// from its calling thread only: it sends a leaf to an idle worker, polls for results, and asks a
/// busy worker to stop when the run stops.
class RemoteWorkers {
  public:
    virtual ~RemoteWorkers() = default;
    /// Number of workers (numbered 0 .. count()-1).
    virtual int count() const = 0;
    /// Sends worker w (idle) the leaf of `key` to search with at most `budget` nodes.
    virtual void send(int w, const ProofKey& key, std::uint64_t budget) = 0;
    /// A result that has arrived, without waiting: the worker's number and its LeafResult (a
    /// stopped search: no value, no proof). nullopt when none has.
    virtual std::optional<std::pair<int, LeafResult>> poll() = 0;
    /// Asks busy worker w to stop its search soon (its result still comes, by poll()).
    virtual void stop(int w) = 0;
};

/// The options of a search that only holds the table of proven values that `workers` searches
/// of options `o` share (ManagerOptions::shared_table): workers x the proven part of
/// o.memory_bytes (ProofSearch::proven_budget(); rounded down to a power of two), no df-pn
/// numbers of its own. Each sharing search is made with o itself (ProofSearch's sharing
/// constructor), its df-pn numbers as with a table of its own.
ProofOptions table_holder_options(const ProofOptions& o, int workers);

/// Options of a ProofManager::run().
struct ManagerOptions {
    /// Each worker's proof search (memory_bytes is each worker's table; max_nodes, max_seconds,
    /// stop and threads are set by the manager).
    ProofOptions search;
    /// Worker threads, each with its own search (at least 1 unless `remote` has workers).
    int workers = 1;
    /// The worker threads share one transposition table of proven values (ProofSearch's
    /// sharing constructor), workers x the proven part of search.memory_bytes (rounded down to
    /// a power of two), so that a position one proves the others find (a leaf searched again
    /// by another thread, the positions leaves have in common); each keeps its own df-pn
    /// numbers. The same memory in all as separate tables. Measured (docs/beyond.md "One table
    /// for the worker threads"): every 6x7 opening with two df-pn workers, 101 M and 118 M
    /// nodes against 215 M and 174 M with a table each.
    bool shared_table = true;
    /// Workers in other processes beside the threads (nullptr: none); run() hands them leaves
    /// as it does its threads, from its calling thread.
    RemoteWorkers* remote = nullptr;
    /// Node budget of one leaf's first search (at least 1).
    std::uint64_t leaf_nodes = 1'000'000;
    /// A leaf left undecided is searched again up to this many times before it is expanded,
    /// each time with kLeafGrowth times the last budget (a worker's table keeps what its last
    /// search found, so a retry goes on from it): leaf_nodes x kLeafGrowth^tries.
    /// One retry measured best (docs/beyond.md "Leaves searched again"): every 6x7 opening
    /// with df-pn leaves of 2*10^6 nodes, 104 M nodes against 236 M expanding at once.
    int leaf_retries = 1;
    static constexpr std::uint64_t kLeafGrowth = 4;
    /// Most nodes of this run, all workers together (0: no limit): no leaf is handed out past it,
    /// the leaves being searched are finished (so it is passed by up to workers x leaf_nodes).
    std::uint64_t max_nodes = 0;
    /// Most wall-clock seconds of this run (0: no limit): the searches stop at once, their
    /// leaves are given back unsearched.
    double max_seconds = 0;
    /// Seconds between two saves of the tree (the work since the last save is what a kill
    /// loses); the tree is saved again when the run ends.
    double checkpoint_seconds = 60;
    /// Set from another thread or a signal handler: the run stops as at max_seconds.
    const std::atomic<bool>* stop = nullptr;
    /// Seconds a remote worker asked to stop (the run stopping) has to answer; one that has not
    /// (a frozen or lost rank) is given up: its leaf is given back unsearched, the run ends
    /// without it (ManagerReport::lost_workers), and the tree is saved.
    double stop_grace_seconds = 10;
};

/// What the progress callback sees.
struct ManagerProgress {
    TreeStats tree;
    std::uint64_t nodes = 0;   ///< nodes searched in this run
    std::uint64_t leaves = 0;  ///< leaves searched in this run
    double seconds = 0;        ///< since this run began
    /// Proof and disproof numbers of the open root nearest to a verdict (0, 0 when none).
    std::uint64_t root_pn = 0, root_dn = 0;
};

/// What a run did.
struct ManagerReport {
    bool done = false;           ///< every root decided
    std::uint64_t nodes = 0;     ///< nodes searched in this run
    std::uint64_t decided = 0;   ///< leaves decided in this run
    std::uint64_t expanded = 0;  ///< leaves left undecided and expanded in this run
    std::uint64_t retried = 0;   ///< leaves left undecided and kept for a larger search
    std::uint64_t saves = 0;     ///< times the tree was saved
    double seconds = 0;          ///< wall time of this run
    /// CPU time of this process during the run and of the searches of its workers elsewhere
    /// (LeafResult::cpu_seconds: every rank's, under MPI).
    double cpu_seconds = 0;
    TreeStats tree;                 ///< the tree at the end
    std::uint64_t tree_bytes = 0;   ///< bytes of the saved tree
    std::uint64_t proof_bytes = 0;  ///< bytes of the proof files
    /// Remote workers that did not answer a stop within ManagerOptions::stop_grace_seconds
    /// (given up: the caller should end them, e.g. MPI_Abort once the tree is saved).
    int lost_workers = 0;
};

/// A proof manager over a work directory: `tree` (the saved ProofTree), `proofs/` (the
/// certificates of the leaves the workers decided, N.proof) and `lock` (an exclusive flock held
/// while a manager has the directory open: two runs at once would overwrite each other's
/// proofs). Not thread-safe itself (run() starts and joins its workers).
class ProofManager {
  public:
    /// Starts a new work directory with `tree` (created with its parents when missing; it must
    /// hold no tree and no proof yet: std::runtime_error naming it). Saves the tree at once.
    /// Throws std::runtime_error when another manager holds the directory.
    static ProofManager create(const std::filesystem::path& dir, ProofTree tree);
    /// Opens a work directory create() started (std::runtime_error naming what is missing or
    /// damaged, from ProofTree::load; a link at `lock`, `tree`, `proofs` or a proof file; or
    /// that another manager holds it). The positions whose proof file is missing are open again
    /// (reopened() counts them); every proof file present is checked (a certificate's first line
    /// and checksum): a damaged one is a std::runtime_error naming it and saying that removing
    /// it reopens its positions.
    static ProofManager open(const std::filesystem::path& dir);
    /// Positions open again because their proof file was missing when the directory was opened.
    std::uint64_t reopened() const { return reopened_; }
    /// Whether `dir` holds a proof tree.
    static bool exists(const std::filesystem::path& dir);

    const ProofTree& tree() const { return tree_; }
    const std::filesystem::path& directory() const { return dir_; }
    std::filesystem::path tree_path() const { return dir_ / "tree"; }
    std::filesystem::path proof_path(std::uint32_t file) const;

    /// Calls `f` about every `interval` seconds during run() (from the run's calling thread).
    void on_progress(std::function<void(const ManagerProgress&)> f, double interval) {
        progress_ = std::move(f);
        interval_ = interval;
    }

    /// Works on the tree until every root is decided or a limit of `o` is reached, then saves
    /// it. Throws std::invalid_argument for options out of range, and what a worker threw (the
    /// tree is saved first, without that worker's leaf).
    ManagerReport run(const ManagerOptions& o);

    /// The certificate of the decided roots (kind and roots as the tree's), assembled from the
    /// tree's won nodes and the proof files of the nodes workers decided. Throws
    /// std::logic_error when a root is open, CertificateError for a proof file missing or
    /// damaged.
    Certificate certificate(std::string generator) const;

  private:
    ProofManager(std::filesystem::path dir, ProofTree tree, process::DirectoryLock lock);

    std::filesystem::path dir_;
    ProofTree tree_;
    process::DirectoryLock lock_;
    std::uint64_t reopened_ = 0;
    std::function<void(const ManagerProgress&)> progress_;
    double interval_ = 1.0;
};

}  // namespace konane
