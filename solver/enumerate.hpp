// Forward enumeration of every position reachable after the opening removals, layer by layer.
// Source: docs/rules.md ("Opening: two removals", "End", "Equivalent positions") and
// README.md ("How it works").
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/board.hpp"
#include "core/gap.hpp"
#include "core/symmetry.hpp"
#include "solver/entry_packing.hpp"

namespace konane::solver {

/// One layer of the enumeration: every reachable class with `pieces` pieces on the board.
struct EnumeratedLayer {
    int pieces = 0;
    /// Canonical keys (key_of(SymmetryGroup::canonical(p))), sorted ascending, distinct.
    std::vector<std::uint64_t> keys;
    /// Number of classes (keys.size() until a LayerSink moves the keys away).
    std::uint64_t classes = 0;
    /// Distinct reachable raw positions (occupied squares, side to move) in these classes.
    std::uint64_t raw = 0;
    double seconds = 0;  ///< wall time spent expanding this layer's parents into it
};

/// Progress report: a phase name, the layer's piece count, positions done and the total for the
/// phase when known (0 otherwise).
using ProgressFn =
    std::function<void(const char* phase, int pieces, std::uint64_t done, std::uint64_t total)>;

/// The piece count that a position reached after both removals has: R*C - 2.
inline int first_layer_pieces(const Board& b) {
    return b.squares() - 2;
}

/// Options of enumerate_to().
struct EnumerateOptions {
    int threads = 0;  ///< OpenMP threads; <= 0: all
    /// Memory budget in bytes. 60% of it is the arena of children waiting to be sorted (16
    /// bytes per child: the entry and the radix sort's scratch); when it fills, the children
    /// are sorted, deduplicated and written to disk as sorted runs. The rest covers the
    /// threads' buffers, the chunk being expanded and the merge's readers (at most an eighth
    /// of the budget: more runs than that are first merged in groups).
    std::uint64_t memory_bytes = std::uint64_t{1} << 30;
    /// Most runs merged at once (0: from the budget, as above; at least 2).
    std::size_t max_merge_runs = 0;
    ProgressFn progress;  ///< optional progress reports ("enumerate", layer, done, total)
    /// Optional: called after each layer's step is recorded, with its piece count, classes and
    /// raw positions. It may throw to stop the enumeration there (verify stops at the first
    /// layer that differs from the table, before enumerating the rest of the board).
    std::function<void(int pieces, std::uint64_t classes, std::uint64_t raw)> layer_done;
};

/// Enumerates every position reachable after both removals of opening o (a ruleset's removal
/// pairs, or one gap: core/gap.hpp start_positions) into the work
/// directory `wd`, layer by layer in decreasing piece count, in bounded memory, resuming after
/// the last finished layer. Layer n is complete once every larger layer has been expanded
/// (children of a position with n pieces have n-1 .. n-k pieces, k = longest jump chain), so
/// each step (1) merges the sorted runs of layer n found so far into its distinct canonical
/// keys, OR-ing the sides to move each class was reached with, (2) writes them to
/// wd.layer_keys(n) while (3) expanding them in parallel (OpenMP) into the children of layers
/// n-1 .. n-k, sorted runs on disk when memory runs short, and (4) records the layer in the
/// manifest. Raw counts: a class reached with side s to move holds preserving_orbit_size(p)
/// raw positions with s to move; a child is reached with the other side, so each class carries
/// the set of sides it was reached with (on boards with a colour-swapping symmetry a class can
/// be reached with both). A gap's one start position reaches a set of raw positions that the
/// symmetries need not preserve: there each class carries instead the set of symmetries g for
/// which g(its canonical position) was reached (one bit per symmetry), the children's sets
/// follow through the group's composition, and a class counts the distinct positions of its set.
/// The keys files are the same, byte for byte, for any thread count and memory budget. Throws
/// std::invalid_argument for boards of more than kMaxGenerateSquares squares, std::runtime_error
/// (KeyFileError) for I/O failures or damaged work files. Returns the number of sorted runs written
/// to disk by this call (and so read back).
std::uint64_t enumerate_to(class WorkDir& wd, const Board& b, const Opening& o,
                           const EnumerateOptions& options);

/// Enumerates in a temporary work directory (removed at the end) and returns every non-empty
/// layer in memory, in decreasing piece count: for tests and small boards.
/// Throws as enumerate_to().
std::vector<EnumeratedLayer> enumerate(const Board& b, const Opening& o, int threads,
                                       const ProgressFn& progress = {});

}  // namespace konane::solver
