// The proof manager's workers over MPI (`mpirun -np N konane prove ...`, docs/beyond.md "The
// proof manager"): rank 0 keeps the tree and runs the manager; every other rank is a worker with
// its own proof searches (--rank-threads of them, sharing a table), each sent one leaf at a time
// (point-to-point messages: the leaf's key, budget and search thread; back, the thread, and the
// value or the children's values and the proof's entries). Source: the MPI 3.1
// standard (MPI_Bcast, MPI_Send, MPI_Iprobe, MPI_Recv).
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "manager/manager.hpp"
#include "search/proof.hpp"

namespace konane::mpi {

/// What every worker rank needs to start: the game and its search's options.
struct ProveSetup {
    int rows = 0, cols = 0;
    Ruleset rules = Ruleset::Brainking;
    bool jumps_only = false;
    ProofAlgorithm algorithm = ProofAlgorithm::Enhanced;
    std::uint64_t memory_bytes = 0;  ///< each worker rank's transposition tables together
    /// Leaf searches of each worker rank at once, each on its own thread (at least 1): rank 0
    /// sees (ranks - 1) x threads workers. They share one table of proven values when
    /// shared_table (ManagerOptions::shared_table), else each has memory_bytes / threads.
    int threads = 1;
    bool shared_table = true;
};

/// Rank 0's side: ranks 1 .. size-1 of MPI_COMM_WORLD as RemoteWorkers (worker w is rank
/// w / threads + 1, its search thread w % threads).
/// MPI must be initialised (mpi_exchange.hpp MpiExchange), and every call made from the thread
/// that initialised it. The constructor sends the setup to every worker rank (MPI_Bcast: each
/// worker rank calls run_prove_worker()); the destructor tells them to end.
class MpiLeafWorkers final : public RemoteWorkers {
  public:
    explicit MpiLeafWorkers(const ProveSetup& setup);
    ~MpiLeafWorkers() override;
    MpiLeafWorkers(const MpiLeafWorkers&) = delete;
    MpiLeafWorkers& operator=(const MpiLeafWorkers&) = delete;

    int count() const override { return (size_ - 1) * setup_.threads; }
    void send(int w, const ProofKey& key, std::uint64_t budget) override;
    std::optional<std::pair<int, LeafResult>> poll() override;
    void stop(int w) override;

  private:
    ProveSetup setup_;
    ProofGame game_;
    int size_ = 1;
};

/// A worker rank (rank >= 1): receives the setup (the MPI_Bcast of MpiLeafWorkers), then solves
/// the leaves rank 0 sends, on ProveSetup::threads search threads, until it is told to end; the
/// calling thread (the one that initialised MPI: MPI_THREAD_FUNNELED) makes every MPI call,
/// handing leaves, stops and results to and from the search threads. Returns normally then;
/// throws what a search throws (the caller ends the job with MPI_Abort).
void run_prove_worker();

}  // namespace konane::mpi
