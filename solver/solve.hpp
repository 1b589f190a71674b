// The one-process generator: enumerate, hash, solve and write a tablebase file for one board and
// opening, run_pipeline() (pipeline.hpp) over the whole layers of this process (the solve step
// itself is retrograde.hpp, the solved layers solved.hpp).
// Source: docs/rules.md ("Values"), README.md ("How it works").
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/board.hpp"
#include "core/depth.hpp"
#include "core/gap.hpp"
#include "core/symmetry.hpp"
#include "format/table.hpp"
#include "solver/enumerate.hpp"
#include "solver/estimate.hpp"
#include "solver/solved.hpp"
#include "solver/workdir.hpp"

namespace konane::solver {

/// How generate() finds the depths of a layer's children in the layers below (the retrograde
/// step, docs/results.md "A solve by sort-merge joins").
enum class SolveMethod {
    /// Sort-merge joins for every layer from the first of at least
    /// GenerateOptions::join_from_positions (default kJoinFromPositions) positions up, if the
    /// memory budget holds each of their joins (join_memory_bytes());
    /// perfect-hash look-ups below, and for every layer if it does not.
    automatic,
    hash,  ///< perfect-hash look-ups for every layer (recompute_layer(), retrograde.hpp)
    /// sort-merge joins for every layer (solve_layer_by_join(), retrograde_join.hpp); refused
    /// (konane::ResourceError) where the budget cannot hold one.
    join,
};

/// The smallest layer (positions) SolveMethod::automatic solves by sort-merge joins: about where
/// the join's time meets the perfect hash's on two threads of the 2-core EPYC VM (5x7 layer 10,
/// 21 M positions: 0.98x; layer 11, 43 M: 1.11x; docs/results.md). Smaller layers' look-ups stay
/// in the cache.
inline constexpr std::uint64_t kJoinFromPositions = std::uint64_t{1} << 24;

/// Options of generate().
struct GenerateOptions {
    Board board = Board::make(4, 4);
    Ruleset rules = Ruleset::Brainking;
    /// When set, the table holds the positions reachable from this one gap (Black to move;
    /// core/gap.hpp) instead of the ruleset's removals, and its header says so ("gap-c3-c4").
    std::optional<Gap> gap;
    int threads = 0;               ///< OpenMP threads; <= 0: all
    std::filesystem::path output;  ///< table file to write; empty: write none
    /// Keep every SolvedLayer (with keys) in the result (for tests; the run's checks are the
    /// same as without it).
    bool keep_layers = false;
    /// Memory budget in bytes (0: default_memory_budget()). The enumeration sorts and spills
    /// children to disk to stay within it; a layer whose keys and perfect hash's build do not
    /// fit together (solve_memory_bytes()) gets its hash built from its key file; the solve
    /// refuses (konane::ResourceError, before solving) when a layer's working set does not fit
    /// even so (solve_memory_bytes_streamed()).
    std::uint64_t memory_bytes = 0;
    /// How the children's depths are found (SolveMethod). keep_layers implies
    /// SolveMethod::hash (a SolvedLayer holds a perfect hash).
    SolveMethod solve_by = SolveMethod::automatic;
    /// Under SolveMethod::automatic, the first layer (ascending pieces) of at least this many
    /// positions and every layer above it are solved by joins if the budget holds them all.
    std::uint64_t join_from_positions = kJoinFromPositions;
    /// Memory the process holds already, before the run, that memory_bytes must also cover
    /// (the command line gives its resident size, about 10 MiB, so that `--memory` bounds the
    /// whole process): taken off the enumeration's share. The run is refused
    /// (konane::ResourceError naming the least budget) when memory_bytes cannot cover it and the
    /// enumeration's least working set (kEnumerateLeastBytes). 0: none counted.
    std::uint64_t process_bytes = 0;
    /// Work directory holding the state of the run (layers, sorted runs, solved layers and a
    /// manifest of the finished steps); a rerun with the same directory resumes after the last
    /// finished step. Empty: OUTPUT.work beside the output, or a temporary directory when there
    /// is no output. Removed when the table is complete.
    std::filesystem::path work_dir;
    /// Keep the work directory once the table is written (its layers and solved values then
    /// let a later run rewrite the table, e.g. in a newer format, without solving again).
    bool keep_work = false;
    ProgressFn progress;  ///< optional progress reports
    /// Optional whole-run progress once the enumeration is complete: positions whose layers
    /// are solved and written (or read back from the work directory), and all positions.
    /// Called before the first layer (done 0) and after each one.
    std::function<void(std::uint64_t done, std::uint64_t total)> run_progress;
};

/// Figures of one phase of a generation (rchar and wchar of /proc/self/io, ru_maxrss).
struct PhaseReport {
    double seconds = 0;
    std::uint64_t bytes_read = 0, bytes_written = 0;  ///< through read/write system calls
    std::uint64_t peak_rss_bytes = 0;  ///< the process's peak resident memory at the phase's end
};

/// Figures of one layer of a generation.
struct LayerReport {
    int pieces = 0;
    std::uint64_t classes = 0, raw = 0;
    double enumerate_seconds = 0, hash_seconds = 0, solve_seconds = 0;
    /// Bytes of the layer's perfect hash, 0 for a layer solved by joins (even where the look-ups
    /// of a layer above indexed it by one; those seconds are in GenerateReport::hash_seconds)
    std::uint64_t mphf_bytes = 0;
    int max_depth = 0;     ///< greatest depth to end stored in the layer (plies)
    bool by_join = false;  ///< solved (now or in an earlier run) by sort-merge joins
};

/// What generate() did: per-layer figures (ascending pieces), phase times, memory, file size.
struct GenerateReport {
    std::vector<LayerReport> layers;
    std::uint64_t classes = 0, raw = 0;
    double enumerate_seconds = 0, hash_seconds = 0, solve_seconds = 0, write_seconds = 0;
    double total_seconds = 0;
    std::uint64_t peak_rss_bytes = 0;          ///< peak resident memory of the process (VmHWM)
    std::uint64_t peak_work_bytes = 0;         ///< most bytes held in the work directory at once
    std::uint64_t memory_bytes = 0;            ///< the memory budget the run had
    PhaseReport enumerate_phase, solve_phase;  ///< solve_phase: hash, solve and write
    bool resumed = false;                      ///< the run continued an earlier one
    std::uint64_t runs_written = 0;  ///< sorted runs of children written by the enumeration
    /// Layers whose perfect hash was built from their key file (Mphf::build_streamed), the
    /// budget too small to hold their keys beside the build (solve_memory_bytes_streamed())
    int streamed_layers = 0;
    /// Layers solved by sort-merge joins (GenerateOptions::solve_by), read back ones included
    int join_layers = 0;
    std::uint64_t file_bytes = 0;  ///< size of the written table (0 if none)
    std::uint64_t mphf_bytes = 0;  ///< the layers' perfect-hash blobs (LayerReport::mphf_bytes)
    int threads = 0;
    std::vector<SolvedLayer> solved;  ///< every layer, when GenerateOptions::keep_layers
};

/// The opening of a generation: options.gap when set, else options.rules.
inline Opening opening_of(const GenerateOptions& options) {
    return options.gap ? Opening::from_gap(*options.gap) : Opening(options.rules);
}

/// Checks first what preflight_generate() (preflight.hpp) checks, then enumerates, indexes and
/// solves every position reachable after the removals of the chosen
/// board and ruleset (or from the chosen gap), and writes the table to options.output (temporary
/// name, renamed when complete), in bounded memory (options.memory_bytes) and resumably
/// (options.work_dir). Deterministic: the same board and ruleset give the same file for any thread
/// count, memory budget, and any number of interruptions and resumptions. Throws
/// std::invalid_argument for a board that is too large, konane::ResourceError
/// (process/resource_error.hpp) for a budget that cannot hold a layer or a file system without
/// the free space the estimate needs,
/// konane::format::FormatError for I/O failures of the table (no file is left under the final name)
/// and std::runtime_error for the work directory's.
GenerateReport generate(const GenerateOptions& options);

/// The threads generate() runs with for GenerateOptions::threads = `requested`: `requested`
/// if positive, else OpenMP's default (omp_get_max_threads(): OMP_NUM_THREADS, or the cores).
int generate_threads(int requested);

/// The default work directory of a generation writing `output`: OUTPUT.work beside it.
std::filesystem::path default_work_dir(const std::filesystem::path& output);

/// The header of the table of board b and opening o: its rows and columns, the opening's tag
/// (opening_tag(), core/gap.hpp) and the generator "konane <version>" (kGenerator, the project
/// version of CMakeLists.txt), with the writer's default parameters. generate() and
/// generate_parts() (distributed.hpp) both write it.
format::TableMeta table_meta(const Board& b, const Opening& o);

/// Default table file name for a board and opening: "konane-RxC-RULES.kbt", or
/// "konane-RxC-gap-c3-c4.kbt" for a gap.
std::string default_table_name(const Board& b, const Opening& o);

}  // namespace konane::solver
