// The staged generator over layer parts: enumerate, hash, solve, encode and write, each layer
// split into parts by a hash of the canonical key (solver/exchange.hpp part_of), each rank
// owning one part of every layer. With one rank (LocalExchange) it is the whole generation in
// one process; with N MPI ranks (mpi/mpi_exchange.hpp) it writes the same file byte for byte.
// Source: docs/distributed.md, README.md ("How it works").
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "solver/exchange.hpp"
#include "solver/solve.hpp"
#include "solver/solved.hpp"

namespace konane::format {
class TableWriter;
struct LayerInfo;
struct TableMeta;
}  // namespace konane::format

namespace konane::solver {

/// The most squares the staged generator accepts (6x7 and 7x6): an enumeration entry then
/// takes 42 + 8 + 1 bits and a key 42 + 1, within 64.
inline constexpr int kMaxDistributedSquares = 42;

/// What one rank did, as rank 0 reports it for every rank.
struct RankReport {
    std::uint64_t peak_rss_bytes = 0;  ///< VmHWM of the rank's process
    std::uint64_t bytes_sent = 0;      ///< bytes sent to other ranks
    std::uint64_t classes = 0;         ///< positions of the rank's parts, all layers
    double exchange_seconds = 0;       ///< time inside collective exchanges (waiting included)
    std::uint64_t enumerate_runs = 0;  ///< sorted runs its enumeration spilled to its folder
    std::uint64_t enumerate_peak_rss_bytes = 0;  ///< VmHWM at the end of its enumeration
    double write_seconds = 0;  ///< time in the encode and write of the layers (waiting included)
    /// CPU seconds of the rank's process in the encode and write (an MPI that polls while it
    /// waits adds its polling)
    double write_cpu_seconds = 0;
};

/// What generate_parts() did. Rank 0's report is complete; the others' hold their own figures.
struct PartsReport {
    int ranks = 1;
    std::vector<LayerReport> layers;  ///< ascending pieces, layers with positions
    std::uint64_t classes = 0, raw = 0;
    double enumerate_seconds = 0, solve_seconds = 0, write_seconds = 0, total_seconds = 0;
    std::uint64_t file_bytes = 0;
    bool resumed = false;            ///< the enumeration was read back from the work directory
    int layers_resumed = 0;          ///< solved layers read back from the work directory
    std::uint64_t write_rounds = 0;  ///< rounds of batches rank 0 asked for to write the layers
    /// Sorted runs of waiting children this rank's enumeration spilled to its work folder (its
    /// share of the memory budget full), merged back when their layer was expanded.
    std::uint64_t enumerate_runs = 0;
    std::vector<RankReport> by_rank;  ///< rank 0 only: one per rank
};

/// Generates the table of options.board and opening over the ranks of `ex`, each rank owning
/// the part part_of(key, ex.size()) == ex.rank() of every layer:
///  - enumerate (descending pieces): each rank expands its part of layer n and sends each child
///    (canonical key and its flags, as enumerate_to() packs them) to the child's owner, in
///    bounded batches; the owner sorts and merges them (flags OR-ed) into its part of the lower
///    layers; classes and raw counts are summed over the ranks;
///  - hash: each rank builds a minimal perfect hash of its part of each solved layer;
///  - solve (ascending pieces): each rank asks the owners of its positions' children for their
///    depths (a request and answer exchange per batch) and combines them (DepthAccumulator);
///  - encode and write: the ranks exchange their keys and depths by ranges of blocks, in
///    batches bounded by options.memory_bytes, each encodes the blocks of its range
///    (format::LayerEncoder, spilled to its work folder), and rank 0 copies every rank's
///    directory entries and blocks, checked, into the table (write_layer_parts), so that no
///    rank holds a whole layer; the file is the bytes generate() writes.
/// State is kept per rank under options.work_dir/rank-R-of-N (the parts' keys and solved
/// depths), so that a rerun of the same command after a kill resumes after the last layer
/// every rank solved (an enumeration cut short is done again). options.memory_bytes bounds
/// the batches and the enumeration: a rank's children waiting for the layers below are
/// spilled as sorted runs to its folder when they pass its share of the budget, and a layer's
/// part is expanded from its runs merged in chunks (rounds ended by a collective "more"), so
/// the enumeration holds no layer whole; the solve refuses (konane::ResourceError) a budget
/// that cannot hold a rank's part of a layer and the parts its jumps reach. Throws as generate()
/// does; a failure on one rank must end the whole job (the caller aborts it), since the others then
/// wait in a collective.
PartsReport generate_parts(const GenerateOptions& options, Exchange& ex);

/// The batches in which the ranks exchange the parts of a layer to encode and write it
/// (write_layer_parts).
struct WriteBatches {
    std::uint64_t per_rank = 256;  ///< positions (key and depth, 9 bytes) a rank sends another
                                   ///< per round
    /// Bytes of encoded blocks a rank holds before it spills them, and of a chunk of encoded
    /// bytes sent to rank 0
    std::size_t spill_chunk = std::size_t{1} << 16;
    /// From a memory budget in bytes: batches of a sixty-fourth of it over the ranks (256 to
    /// 2^20 positions), a spill chunk of a sixty-fourth (64 KiB to 8 MiB).
    static WriteBatches of(std::uint64_t budget, int ranks);
    /// Bytes a rank holds at most to encode its range of a layer from `ranks` parts: a buffer
    /// of up to two batches per sender, the merged batch, the spill tails of its blocks and
    /// directory, its pending chunk and a group of blocks, the chunks in flight, and 1 MiB.
    /// Rank 0 holds no more than another rank (it copies the others' chunks one at a time).
    std::uint64_t root_bytes(int ranks) const;
};

/// Encodes and writes one layer from its parts, collectively: every rank holds its part's keys,
/// ascending and distinct, and their depths; rank 0 alone has the writer (the others pass
/// null). Every rank learns the layer's code and geometry (format::LayerEncoder: the depths'
/// histogram summed over the ranks, the greatest key); the layer's blocks are cut into one range
/// of consecutive blocks per rank with about equal positions (counted per slice of blocks on
/// every rank); the ranks exchange their keys and depths by range in rounds of at most
/// wb.per_rank positions from a rank to another, each merges what it receives in key order and
/// encodes its range (its blocks spilled to spill_dir in chunks of wb.spill_chunk); from the
/// ranges' totals every rank computes the layer's entry and its blocks' checks, and sends rank
/// 0 its directory entries, then its blocks, in chunks of wb.spill_chunk bytes, which rank 0
/// copies into the table (TableWriter::begin_encoded_layer). No rank holds the layer:
/// wb.root_bytes() each. The bytes are those add_layer() of the whole layer writes, for any
/// number of ranks. Returns the rounds of exchanges (the same on every rank). Throws as the
/// encoder and writer do and std::logic_error when the parts do not hold info.classes keys.
std::uint64_t write_layer_parts(Exchange& ex, format::TableWriter* writer,
                                const format::TableMeta& meta, const format::LayerInfo& info,
                                std::span<const std::uint64_t> keys, std::span<const Depth> depth,
                                const WriteBatches& wb, const std::filesystem::path& spill_dir,
                                int threads = 1);

/// What a generation over `ranks` ranks needs, before it starts.
struct PartsEstimate {
    std::uint64_t classes = 0;        ///< positions in the table
    std::uint64_t largest_layer = 0;  ///< classes of the largest layer
    std::uint64_t window = 0;         ///< classes of the layers its jumps reach
    bool measured = false;  ///< counted on a table built here (else: the model, see source)
    std::string source;     ///< where the counts come from, for messages
    std::uint64_t memory_per_rank = 0;  ///< bytes each rank holds at its peak
    std::uint64_t root_extra = 0;     ///< bytes each rank holds more to write (its range's batches)
    std::uint64_t root_spill = 0;     ///< disk each rank needs more: its share of the largest
                                      ///< layer's encoding
    std::uint64_t disk_per_rank = 0;  ///< bytes of each rank's work directory
    std::uint64_t table_bytes = 0;    ///< bytes of the table file
    std::uint64_t bytes_exchanged = 0;  ///< bytes sent between ranks in all
    double seconds = 0;                 ///< wall time, from the rate measured here
};

/// The estimate of a generation of board b (the brainking ruleset's counts: the other
/// rulesets' tables are parts of it) over `ranks` ranks: counted figures for the boards of
/// solver/estimate.cpp, a model for 6x7 and 7x6 (6x6's counts times the growth per added
/// column measured from 6x5 to 6x6, times 2 for the halved symmetry group), nothing for other
/// boards. Formulas and the rates they use: docs/distributed.md ("Estimates").
std::optional<PartsEstimate> estimate_parts(const Board& b, int ranks);

/// One line naming the estimate of board b (estimate_parts), for messages; "no estimate" when
/// there is none.
std::string estimate_text(const Board& b);

}  // namespace konane::solver
