// The work directory of a resumable generation: the finished steps (a checksummed manifest),
// the layers' keys, the sorted runs waiting to be merged, and the solved layers.
// Source: README.md ("How it works"; "Status and limits" for memory and failure).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/board.hpp"
#include "core/gap.hpp"
#include "process/directory_lock.hpp"

namespace konane::solver {

/// What the manifest records of one layer.
struct LayerRecord {
    bool enumerated = false;  ///< keys file written and the layer expanded into its children
    std::uint64_t classes = 0, raw = 0;
    double enumerate_seconds = 0;
    bool solved = false;  ///< solved file written
    /// The solved layer's depths are stored by rank (the keys' sorted order) with no perfect
    /// hash: it was solved by sort-merge joins (solver/retrograde_join.hpp).
    bool by_rank = false;
    int max_depth = 0;
    double hash_seconds = 0, solve_seconds = 0;
    /// Peak resident memory of the process that finished the step, as of its end, and the
    /// bytes in the work directory then (0 when the manifest predates these fields).
    std::uint64_t enumerate_rss = 0, enumerate_disk = 0, solve_rss = 0, solve_disk = 0;
};

/// A work directory for one board and opening (a ruleset, or one gap). Files:
///  - `manifest`: text lines "konane-work 1", "board RxC", "rules R" (R the opening's tag,
///    core/gap.hpp opening_tag: "brainking", or "gap-c3-c4" for a gap), one "enumerated N C R S
///    rss B disk B" and "solved N D H S rss B disk B [ranked]" line per finished step (classes,
///    raw, max depth, seconds, bytes; `ranked`: the depths stored by rank), and "xxh3 HEX" of
///    everything before it;
///    replaced atomically (process/atomic_file.hpp) at every step;
///  - `layer-N.keys`: the sorted canonical keys of layer N (KeyFileWriter layout);
///  - `run-T-from-S-I.keys`: the I-th sorted run of packed entries of layer T found while
///    expanding layer S;
///  - `solved-N.mphf`, `solved-N.depth`: the perfect hash and the depths by slot of layer N;
///    for a layer recorded `ranked`, only `solved-N.depth`, its depths by rank.
///  A file being written is `NAME.tmp.<16 hex digits>` (process/atomic_file.hpp), removed when the
///  work resumes.
/// The numbers of ranks of the MPI generations whose rank folders (`rank-R-of-N`,
/// solver/distributed.hpp) `dir` holds, in increasing order; empty when none or no `dir`.
std::vector<int> mpi_rank_counts(const std::filesystem::path& dir);

/// What to do with a work directory that holds the rank folders of an MPI generation of
/// `ranks` ranks: "resume it with mpirun -np N (and the same --work), or remove its rank-*-of-N
/// folders".
std::string mpi_resume_advice(const std::filesystem::path& dir, int ranks);

/// A lock (flock on `lock`) keeps two processes from using one directory. Not thread-safe.
class WorkDir {
  public:
    /// Opens DIR, creating it (and parents) if missing. An existing DIR must be empty or hold a
    /// manifest, which must name the same board and opening (ruleset or gap); files of unfinished
    /// steps (temporaries, runs from a layer whose step did not complete, layers not recorded) are
    /// removed. Throws std::runtime_error naming the directory: not creatable or writable, not
    /// empty and not a work directory, locked by another process, a manifest for another board
    /// or opening, a damaged manifest, or a finished step's file missing.
    WorkDir(std::filesystem::path dir, const Board& b, const Opening& o);
    ~WorkDir();  ///< releases the lock; the files stay for a later run
    WorkDir(const WorkDir&) = delete;
    WorkDir& operator=(const WorkDir&) = delete;

    /// The directory.
    const std::filesystem::path& path() const { return dir_; }
    /// True when the manifest existed already (a resumed run).
    bool resumed() const { return resumed_; }

    /// The sorted keys of layer `pieces`.
    std::filesystem::path layer_keys(int pieces) const;
    /// The `index`-th sorted run of packed entries of layer `target` from expanding `from`.
    std::filesystem::path run(int target, int from, int index) const;
    /// The perfect hash (words) and the depths (bytes: by slot, or by rank for a layer recorded
    /// with by_rank) of a solved layer.
    std::filesystem::path solved_mphf(int pieces) const;
    std::filesystem::path solved_depth(int pieces) const;
    /// Every run file of layer `target`, in a fixed order.
    std::vector<std::filesystem::path> runs_of(int target) const;

    /// The record of a layer (a default one when nothing is recorded).
    const LayerRecord& layer(int pieces) const;
    /// The enumerated layers that hold at least one position, in ascending piece count.
    std::vector<int> layers_with_positions() const;
    /// The lowest layer whose enumeration step finished; INT32_MAX when none.
    int lowest_enumerated() const;
    /// Whether the enumeration of every layer finished.
    bool enumeration_complete() const { return complete_; }

    /// Record a finished step (a layer enumerated; every layer enumerated; a layer solved) and
    /// rewrite the manifest atomically, after an fsync of the directory so that the step's
    /// files are durable first. Throw std::runtime_error on an I/O failure.
    void record_enumerated(int pieces, std::uint64_t classes, std::uint64_t raw, double seconds);
    void record_enumeration_complete();
    void record_solved(int pieces, int max_depth, double hash_seconds, double solve_seconds,
                       bool by_rank = false);

    /// The largest peak resident memory and work-directory size recorded by any step, of any
    /// run that worked in this directory.
    std::uint64_t recorded_peak_rss() const;
    std::uint64_t recorded_peak_disk() const;

    /// Bytes of all files in the directory now.
    std::uint64_t bytes_on_disk() const;
    /// Removes the files a generation writes (manifest, lock, layers, runs, solved layers,
    /// temporaries), then the directory if nothing else is left in it, then the directories
    /// above it that this object created (`--work a/b/w` with no `a`), each only if empty.
    void remove_all();

  private:
    void load();
    void save();
    void sync_directory() const;
    static bool is_own_file(const std::string& name);
    void clean_unfinished();
    std::filesystem::path dir_;
    std::vector<std::filesystem::path> created_parents_;  // deepest first
    std::string board_, rules_;
    std::map<int, LayerRecord> layers_;
    bool complete_ = false;
    bool resumed_ = false;
    std::optional<process::DirectoryLock> lock_;
};

/// Bytes of the regular files directly in `dir` (0 when it cannot be read).
std::uint64_t directory_bytes(const std::filesystem::path& dir);

/// The nearest existing path at or above `p` ("." when none); it may be a file. Throws nothing.
std::filesystem::path existing_parent(std::filesystem::path p);

}  // namespace konane::solver
