// The retrograde step by sort-merge joins: the depth of every position of a layer computed from
// its children's depths in the layers below, each child found by a merge of the children,
// sorted by canonical key, against the lower layer's sorted keys, instead of by a perfect-hash
// look-up. Source: docs/rules.md ("Values") for the rule; the sort-merge join of relational
// databases (e.g. Graefe, "Query evaluation techniques for large databases", ACM Computing
// Surveys 25(2), 1993, section 5) for the look-up.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "core/board.hpp"
#include "solver/enumerate.hpp"
#include "solver/solved.hpp"

namespace konane::solver {

/// A solved layer as the join reads it: its sorted, distinct canonical keys and the depth to
/// end (plies) of keys[i] at depth[i] (by rank, not by perfect-hash slot). Not owned.
struct RankedLayer {
    int pieces = 0;
    std::span<const std::uint64_t> keys;
    std::span<const Depth> depth;
};

/// The chunk size the join uses for a request of 2^chunk_bits parents on board b (at most 48
/// squares): chunk_bits clamped to 1 .. 63 - squares, so that a record (the child's key of
/// squares + 1 bits above the parent's index) fits 64 bits.
inline int join_chunk_bits(const Board& b, int chunk_bits) {
    return std::clamp(chunk_bits, 1, 63 - b.squares());
}

/// Computes the depth to end of every position keys[i] (the sorted canonical keys of layer
/// `pieces` of board b) into by_rank[i] (resized to keys.size()), from `below`: the solved
/// layers its jumps reach (pieces - 1 .. pieces - max_capture(b); a layer no jump reaches may be
/// absent). The result equals recompute_layer()'s over the same layers.
///
/// The parents go in chunks of 2^join_chunk_bits(b, chunk_bits); per chunk and per child layer, one
/// 64-bit record per child: bits [chunk_bits, chunk_bits + squares + 1) its canonical key (the
/// occupied squares, then the side to move), bits [0, chunk_bits) its parent's index in the chunk.
/// The records are sorted by key (LSD radix passes of at most 11 bits), merged against the child
/// layer's keys (a linear walk, galloping over gaps), and each child's depth combined into its
/// parent's accumulator (3 bytes a parent: 6 MiB, the size of a last-level cache, for a chunk of
/// 2^21). Memory per thread, kept from chunk to chunk: the records of the largest chunk seen (8
/// bytes a child, up to twice that while a buffer grows), the sort's second buffer (8 bytes a child
/// of the largest child layer of a chunk) and 3 bytes a parent of a chunk. Where the layers outgrow
/// the cache this reads memory in order instead of at random: see docs/results.md ("A solve by
/// sort-merge joins"). Chunks are shared between `threads` OpenMP threads (one thread when the
/// layer is a single chunk); progress(phase, pieces, done, total) is reported after every chunk by
/// the thread that finished it, one call at a time.
///
/// Throws std::invalid_argument for a board of more than 48 squares (fewer than 15 bits left
/// for the chunk), a layer of `below` whose depths and keys differ in number, or a layer given
/// twice; std::runtime_error naming the layer for damaged input (a key of another piece count,
/// a child missing from its layer, no layer given where a child lands) or a depth over 255
/// plies; whatever `progress` throws. The first error of any thread is rethrown after every
/// thread has stopped; by_rank is then partly written.
void solve_layer_by_join(const Board& b, std::span<const std::uint64_t> keys, int pieces,
                         std::span<const RankedLayer> below, std::vector<Depth>& by_rank,
                         int threads, const ProgressFn& progress = {}, int chunk_bits = 21,
                         const char* phase = "solve");

}  // namespace konane::solver
