// The solved layers of a generation or a verify: per layer, the minimal perfect hash of its
// canonical keys and the depth to end of each slot, and the look-up of a child's depth in them.
// Source: docs/rules.md ("Values").
#pragma once

#include <bit>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/board.hpp"
#include "core/depth.hpp"
#include "core/symmetry.hpp"
#include "index/mphf.hpp"

namespace konane::solver {

/// A depth-to-end byte: the number of plies to the end under perfect play (the winner hurries,
/// the loser delays). Even = LOSS for the side to move, odd = WIN; 0 = no move (rules.md).
using Depth = std::uint8_t;

/// The rule combining children's depths: konane::DepthAccumulator (core/depth.hpp).
using konane::DepthAccumulator;

/// One solved layer: the perfect hash of its keys and the depth of each slot.
struct SolvedLayer {
    int pieces = 0;
    std::uint64_t raw = 0;
    Mphf mphf;
    std::vector<Depth> depth;         ///< by slot: depth[mphf(key)]
    std::vector<std::uint64_t> keys;  ///< sorted canonical keys (kept only when asked)
    double hash_seconds = 0, solve_seconds = 0;
};

/// Depth look-up of positions in already solved layers, by canonical key: per piece count a
/// perfect hash and the depths by slot (not owned).
class SolvedLookup {
  public:
    explicit SolvedLookup(const Board& b) : group_(b), layers_(b.squares() + 1) {}
    /// Makes a layer's values available; `depth` must outlive the lookup or be removed first.
    void add(int pieces, MphfView mphf, const Depth* depth) { layers_[pieces] = {mphf, depth}; }
    void add(const SolvedLayer& l) { add(l.pieces, l.mphf.view(), l.depth.data()); }
    void remove(int pieces) { layers_[pieces] = {}; }
    const SymmetryGroup& group() const { return group_; }
    /// A child being looked up in two steps, so that a batch can overlap its cache misses:
    /// start() canonicalises and prefetches the perfect hash's pilot, finish() computes the slot
    /// and prefetches the depth.
    struct Pending {
        MphfView::Query query;
        int pieces;
    };
    Pending start(Position p) const {
        const int pieces = std::popcount(p.occ);
        return {layers_[pieces].mphf.start(group_.canonical_key(p)), pieces};
    }
    const Depth* finish(const Pending& q) const {
        const Entry& e = layers_[q.pieces];
        const Depth* d = e.depth + e.mphf.finish(q.query);
        __builtin_prefetch(d);
        return d;
    }

    /// Where the depth of position p is held; p must be stored in an added layer (not checked).
    const Depth* locate(Position p) const {
        const std::uint64_t k = group_.canonical_key(p);
        const Entry& e = layers_[std::popcount(p.occ)];
        return e.depth + e.mphf(k);
    }
    /// Depth of position p, which must be stored in an added layer (not checked).
    Depth depth_of(Position p) const { return *locate(p); }

  private:
    struct Entry {
        MphfView mphf;
        const Depth* depth = nullptr;
    };
    SymmetryGroup group_;
    std::vector<Entry> layers_;
};

/// Drops the layers a jump from a layer above `pieces` can no longer reach: every layer of at
/// most `pieces` - `most_captured` pieces (most_captured = max_capture(b): the children of a
/// position of n pieces have n-1 .. n-max_capture(b)) is removed from `lookup` and freed (its
/// entry in `layers` left null). Called after layer `pieces` is solved (or verified), by the
/// solve and by verify alike.
inline void drop_unreachable_layers(SolvedLookup& lookup,
                                    std::vector<std::unique_ptr<SolvedLayer>>& layers, int pieces,
                                    int most_captured) {
    for (auto& l : layers) {
        if (l && l->pieces <= pieces - most_captured) {
            lookup.remove(l->pieces);
            l.reset();
        }
    }
}

}  // namespace konane::solver
