// Win/loss statistics of a table: per layer, the classes won and lost by the side to move and how
// many classes lie at each depth to end. The statistics chess tablebases publish per material set,
// read here from the stored depths (docs/rules.md "Values": an odd depth is a WIN, an even one a
// LOSS for the side to move).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "format/table.hpp"

namespace konane::format {

/// The statistics of one layer (all stored positions with the same number of pieces). Counts are
/// of classes, the positions the table stores (one per symmetry class, docs/rules.md
/// "Equivalent positions"); `raw` is the layer's raw count as the layer table gives it, not split
/// by value.
struct LayerStats {
    std::uint32_t pieces = 0;   ///< pieces on the board
    std::uint64_t classes = 0;  ///< classes stored: wins + losses
    std::uint64_t raw = 0;      ///< raw positions of the layer (LayerInfo::raw)
    std::uint64_t wins = 0;     ///< classes won by the side to move (odd depth)
    std::uint64_t losses = 0;   ///< classes lost by the side to move (even depth)
    /// depth_counts[d]: classes whose depth to end is d plies; its size is the greatest depth
    /// of the layer + 1 (empty for an empty layer). Sums to `classes`.
    std::vector<std::uint64_t> depth_counts;
    /// The greatest depth of the layer, or -1 for an empty layer.
    int max_depth() const { return static_cast<int>(depth_counts.size()) - 1; }
};

/// The statistics of layer `layer` (an index into t.layers()), from every stored value: decodes
/// the whole layer (Table::read_values, in parallel; one byte per class of memory while it runs)
/// and checks its blocks as it goes.
/// @throws FormatError on a damaged block; std::out_of_range for a bad layer index
LayerStats layer_stats(const Table& t, std::size_t layer);

/// layer_stats() of every layer of t, in t.layers() order (ascending piece count). Memory: one
/// byte per class of the largest layer. @throws FormatError on a damaged block
std::vector<LayerStats> table_stats(const Table& t);

}  // namespace konane::format
