// The generate pipeline, written once: enumerate every layer, then, from the fewest pieces up,
// hash and solve each layer, encode it and write it, over a LayerStore that says where the layer
// parts and the lower layers' values live. Two stores implement it: the whole layers of one
// process (generate(), solver/solve.cpp) and one rank's parts of every layer, the other parts
// over an Exchange (generate_parts(), solver/distributed.cpp).
// Source: docs/architecture.md ("The generate pipeline", "The layer part").
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <vector>

#include "core/board.hpp"
#include "core/gap.hpp"
#include "solver/solve.hpp"

namespace konane::format {
class TableWriter;
}  // namespace konane::format

namespace konane::solver {

/// One layer of a generation as the enumeration counted it: the whole layer's classes (all
/// parts together) and raw positions, and the seconds its enumeration took (read back from the
/// work directory when an earlier run did it).
struct LayerCount {
    int pieces = 0;
    std::uint64_t classes = 0, raw = 0;
    double enumerate_seconds = 0;
};

/// Where the layer parts of a generation and the lower layers' values live, and how each
/// stage runs over them. run_pipeline() calls, in this order: enumerate() once,
/// prepare_solve() once, then solve(), write() and done() for each layer with positions,
/// ascending pieces. A store of MPI ranks makes collective calls in each: every rank calls
/// run_pipeline() with its own store. Errors: whatever the stage throws (konane::ResourceError
/// for a budget or a disk too small, format::FormatError for the table, std::runtime_error for
/// the work directory), which run_pipeline() lets through.
class LayerStore {
  public:
    virtual ~LayerStore() = default;
    /// Stage 1: enumerates this store's parts of every layer (or reads back the enumeration a
    /// killed run finished); returns the layers with positions, ascending pieces.
    virtual std::vector<LayerCount> enumerate() = 0;
    /// Before any layer is solved: refuses (konane::ResourceError) a budget that cannot hold
    /// the solve of some layer, naming what the largest needs, and finds the layers an earlier
    /// run solved.
    virtual void prepare_solve(const std::vector<LayerCount>& layers) = 0;
    /// Stages 2 and 3: the minimal perfect hash of the layer's part(s) and its positions' depths
    /// to end from their children's (or both read back from the work directory); fills lr's
    /// hash_seconds, solve_seconds, max_depth (plies) and mphf_bytes.
    virtual void solve(const LayerCount& layer, LayerReport& lr) = 0;
    /// Stages 4 and 5: encodes the layer and appends it to the table; `writer` is the table's
    /// (rank 0's), null on the other ranks and when no table is written.
    virtual void write(const LayerCount& layer, format::TableWriter* writer) = 0;
    /// After the layer is written: frees what no later layer needs.
    virtual void done(const LayerCount& layer) = 0;
};

/// What run_pipeline() did.
struct PipelineReport {
    std::vector<LayerReport> layers;             ///< ascending pieces
    std::uint64_t classes = 0, raw = 0;          ///< whole table
    double hash_seconds = 0, solve_seconds = 0;  ///< sums of the layers' (read back included)
    double write_seconds = 0;                    ///< in write() and the table's commit, this run
    std::uint64_t file_bytes = 0;                ///< size of the written table (0 if none)
};

/// Options of run_pipeline().
struct PipelineOptions {
    Board board = Board::make(4, 4);
    Opening opening;
    std::filesystem::path output;  ///< the table; empty: none written
    bool writes = true;            ///< this process writes the table (rank 0)
    int threads = 1;               ///< the writer's threads
    /// Called before the first layer is solved (done 0) and after each one: positions whose
    /// layers are solved and written, of `total`.
    std::function<void(std::uint64_t done, std::uint64_t total)> run_progress;
};

/// The options of run_pipeline() for a generation of `o` whose writer and stores use `threads`
/// threads; `writes`: this process writes the table (rank 0, or the one process).
PipelineOptions pipeline_options(const GenerateOptions& o, int threads, bool writes = true);

/// Runs the stages over `store`: enumerate; with an output, refuses a board without a position
/// (std::invalid_argument); prepare_solve; opens the table's writer (format::TableWriter at
/// output, table_meta() of board and opening) when `writes`; per layer, ascending pieces,
/// solve, write, done and the progress; commits the table (written to a temporary name and
/// renamed when complete). The file is the same bytes for every store.
PipelineReport run_pipeline(LayerStore& store, const PipelineOptions& options);

}  // namespace konane::solver
