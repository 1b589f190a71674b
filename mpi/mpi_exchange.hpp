// The Exchange of the staged generator (solver/exchange.hpp) over MPI (Open MPI): one rank per
// process of an `mpirun -np N` (or `srun`) job. Source: the MPI 3.1 standard (MPI_Alltoallv,
// MPI_Allreduce, MPI_Abort); docs/distributed.md.
#pragma once

#include <string>

#include "solver/exchange.hpp"

namespace konane::mpi {

/// True when this process was started by an MPI launcher (mpirun, mpiexec, srun with PMIx or
/// PMI): one of OMPI_COMM_WORLD_SIZE, PMIX_RANK, PMI_RANK is set.
bool launched_by_mpi();

/// MPI_COMM_WORLD as an Exchange. The constructor initialises MPI (MPI_Init_thread,
/// MPI_THREAD_FUNNELED: only the thread that built it calls MPI), the destructor finalises it.
/// One per process. Every failure of MPI itself ends the job (MPI_ERRORS_ARE_FATAL).
class MpiExchange final : public solver::Exchange {
  public:
    MpiExchange();
    ~MpiExchange() override;
    MpiExchange(const MpiExchange&) = delete;
    MpiExchange& operator=(const MpiExchange&) = delete;

    int rank() const override { return rank_; }
    int size() const override { return size_; }
    /// The ranks of the job on this rank's node, itself included: they share its memory. The
    /// launcher's OMPI_COMM_WORLD_LOCAL_SIZE or MPI_LOCALNRANKS where set, otherwise those
    /// ranks whose MPI_Get_processor_name is this rank's (collective then).
    int ranks_on_node();
    std::uint64_t sum(std::uint64_t v) override;
    std::uint64_t max(std::uint64_t v) override;
    std::uint64_t min(std::uint64_t v) override;
    std::vector<std::uint64_t> all(std::uint64_t v) override;

    /// Prints "COMMAND: rank R of N: MESSAGE" on standard error and ends every rank of the job
    /// with exit status `code` (MPI_Abort): a failed rank never leaves the others waiting.
    [[noreturn]] void abort(const std::string& message, int code,
                            const char* command = "konane generate");

  protected:
    void alltoall_bytes(const std::uint8_t* send, const std::vector<std::uint64_t>& send_counts,
                        std::size_t size, const Receive& receive,
                        std::vector<std::uint64_t>& recv_counts) override;
    std::vector<std::vector<std::uint8_t>> gather_bytes(
        std::span<const std::uint8_t> mine) override;

  private:
    int rank_ = 0, size_ = 1;
};

}  // namespace konane::mpi
