// Forward enumeration of every position reachable after the opening removals, layer by layer.
// Source: shared/docs/rules.md ("Opening: two removals", "End", "Equivalent positions") and
// shared/docs/design.md ("Layers").
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/board.hpp"
#include "core/symmetry.hpp"

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

/// Called with each finished layer, in decreasing piece count; it may move the keys away
/// (e.g. to disk) so that only a few layers are held in memory.
using LayerSink = std::function<void(EnumeratedLayer&)>;

/// The largest board the generator handles, in squares: keys are packed with two flag bits
/// during enumeration (bits 0..1 flags, 2..61 occupancy, 63 side), and 6x6 is the goal.
inline constexpr int kMaxGenerateSquares = 36;

/// The piece count that a position reached after both removals has: R*C - 2.
inline int first_layer_pieces(const Board& b) {
    return b.squares() - 2;
}

/// The positions after both removals under ruleset r (Black to move), as raw positions,
/// in the order Black's removal, then White's reply (both by increasing square).
std::vector<Position> opening_positions(const Board& b, Ruleset r);

/// Enumerates every position reachable after both removals of ruleset r, deduplicated by
/// canonical key, in parallel (OpenMP, `threads` <= 0: all). Returns the non-empty layers in
/// decreasing piece count. Children of a position with n pieces have n-1 .. n-k pieces
/// (k = longest possible jump chain), so layer n is complete once every larger layer has been
/// expanded. Raw counts: a class reached with side s to move holds
/// preserving_orbit_size(p) raw positions with s to move; a child is reached with the other
/// side, so each class carries the set of sides it was reached with (on boards with a
/// colour-swapping symmetry a class can be reached with both).
/// Throws std::invalid_argument for boards of more than kMaxGenerateSquares squares.
std::vector<EnumeratedLayer> enumerate(const Board& b, Ruleset r, int threads,
                                       const ProgressFn& progress = {}, const LayerSink& sink = {});

}  // namespace konane::solver
