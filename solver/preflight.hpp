// The checks a generation makes before any work, so that a run that cannot finish is refused at
// once with a message naming the problem, from the command and the Python module alike.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "solver/estimate.hpp"
#include "solver/solve.hpp"

namespace konane::solver {

/// The least free disk a generation starts with, on its work directory's file system (64 MiB).
inline constexpr std::uint64_t kMinGenerateDisk = std::uint64_t{64} << 20;

/// What preflight_generate() found.
struct Preflight {
    /// Temporary tables of the output left by a killed run ("<name>.tmp.<16 hex>", unlocked),
    /// removed (process/cleanup.hpp remove_stale_temporaries()).
    std::vector<std::filesystem::path> removed_temporaries;
    /// Free bytes on the work directory's file system; UINT64_MAX when unknown.
    std::uint64_t work_free_bytes = UINT64_MAX;
};

/// The one check of an output file (process::check_output_path()), before any work: the table
/// of a generation, a proof certificate, an upgraded table. `what` starts the messages (the
/// option and the path, or the path alone).
/// @throws std::invalid_argument when something other than a regular file is at `output` (a
///         directory, a symbolic link, a named pipe, a device), format::IoError when its
///         directory is missing or does not take new files
void check_output_file(const std::filesystem::path& output, const std::string& what);

/// Throws unless `work` can serve as a work directory (of a generation or a verify):
/// std::invalid_argument when it exists and is not a directory, or the nearest existing path
/// above it is not one; format::IoError when it (or, when missing, the directory it would be
/// created in) does not take new files (tried for real; nothing is left).
void check_work_dir(const std::filesystem::path& work);

/// Starts and joins `threads` - 1 threads (threads <= 0: one per core), so that a machine that
/// cannot give them (`ulimit -u`, address space) is refused before any work with a message,
/// instead of the OpenMP runtime ending the process later.
/// @throws std::system_error "cannot start N threads"
void check_threads(int threads);

/// The least memory budget any run takes, in bytes: `process_bytes` (what the process holds
/// before the run) plus kEnumerateLeastBytes, the least working set of an enumeration.
/// check_memory_budget() refuses a budget under it, and the estimate's refusal advises at
/// least it.
inline std::uint64_t least_memory_budget(std::uint64_t process_bytes) {
    return process_bytes + kEnumerateLeastBytes;
}

/// Throws konane::ResourceError ("memory budget of N bytes ... is less than any run takes ...
/// give at least M") unless `budget` bytes hold `process_bytes` (what the process holds before
/// the run: its resident size and the threads' stacks) and kEnumerateLeastBytes more, the least
/// working set of an enumeration (of a generation, or of a verify's re-enumeration). generate()
/// calls it (when options.process_bytes is given) after the estimate's check of the budget,
/// whose message says more.
void check_memory_budget(std::uint64_t budget, std::uint64_t process_bytes);

/// The checks of generate() before any work, in this order: the board's size
/// (require_generatable(), or at most `max_squares` squares when that is larger: the generator
/// of layer parts, solver/distributed.hpp, takes up to kMaxDistributedSquares; a board only that
/// generator takes is refused with its estimate and the advice to run it under MPI); with an
/// output: the
/// output is not an existing non-regular file (a directory, or a link that the table would
/// replace), its directory exists and takes new files (tried for real, so permissions, a read-only
/// file system and root's rights all count); the work directory (options.work_dir, else
/// default_work_dir(output)) is a directory or can be created in an existing one that takes new
/// files; `options.threads` threads can be started
/// (`ulimit -u`, address space); the output's stale temporaries are removed; the work
/// directory's file system has kMinGenerateDisk free. generate() calls it; the command calls
/// it first to report the removed temporaries. Creates and leaves nothing.
/// @throws std::invalid_argument for a board over the limit or a path of the wrong kind,
///         format::IoError for a missing or unwritable directory, std::system_error when the
///         threads cannot be started, konane::ResourceError for too small a memory budget or
///         too little free disk
Preflight preflight_generate(const GenerateOptions& options, int max_squares = kMaxGenerateSquares);

}  // namespace konane::solver
