// `konane generate` over layer parts: under an MPI launcher (mpirun, srun) with an MPI build,
// or with --staged in one process. The command line's checks are cmd_generate.cpp's.
#pragma once

#include "solver/solve.hpp"

namespace konane::cli {

/// True when this build has the MPI generator (KONANE_MPI) and the process was started by an
/// MPI launcher: `konane generate` then runs generate_parts over MPI_COMM_WORLD.
bool under_mpi();

/// This process's rank in the MPI job that started it (from the launcher's environment, before
/// MPI is initialised), 0 outside one.
int launcher_rank();

/// Runs solver::generate_parts() over MPI_COMM_WORLD (under_mpi()) or over one local rank, and
/// prints rank 0's report (text, or JSON with `json`). A failure on any rank after MPI started
/// prints "konane generate: rank R of N: MESSAGE" and ends the whole job with the failure's
/// exit code (MPI_Abort). Returns the exit code.
int run_generate_parts(const solver::GenerateOptions& o, bool json, bool quiet);

}  // namespace konane::cli
