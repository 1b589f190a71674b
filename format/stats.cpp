// Win/loss statistics of a table (format/stats.hpp).
#include "format/stats.hpp"

#include <algorithm>

namespace konane::format {

LayerStats layer_stats(const Table& t, std::size_t layer) {
    std::vector<std::uint8_t> depths;
    t.read_values(layer, depths);  // checks the layer index and every block of the layer
    const LayerInfo& info = t.layers()[layer];
    LayerStats s;
    s.pieces = info.pieces;
    s.classes = depths.size();
    s.raw = info.raw;
    std::vector<std::uint64_t> counts(256, 0);
    for (const std::uint8_t d : depths)
        ++counts[d];
    for (std::size_t d = 0; d < counts.size(); ++d) {
        if (counts[d] == 0) continue;
        ((d & 1) != 0 ? s.wins : s.losses) += counts[d];
        s.depth_counts.resize(std::max(s.depth_counts.size(), d + 1), 0);
        s.depth_counts[d] = counts[d];
    }
    return s;
}

std::vector<LayerStats> table_stats(const Table& t) {
    std::vector<LayerStats> out;
    out.reserve(t.layers().size());
    for (std::size_t i = 0; i < t.layers().size(); ++i)
        out.push_back(layer_stats(t, i));
    return out;
}

}  // namespace konane::format
