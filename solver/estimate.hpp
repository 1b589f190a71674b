// What a generation will need before it starts: memory for its largest solve step and disk
// for its work directory and table, from the sizes measured on the published tables.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/board.hpp"

namespace konane::solver {

/// The resources a generation of one board and ruleset needs (an estimate).
struct ResourceEstimate {
    std::uint64_t classes = 0;        ///< positions (symmetry classes) in the table
    std::uint64_t largest_layer = 0;  ///< classes of the layer whose solve needs the most
    std::uint64_t window = 0;         ///< classes of the layers that layer's jumps reach
    std::uint64_t memory_bytes = 0;   ///< solve_memory_bytes(largest_layer, window)
    std::uint64_t work_bytes = 0;     ///< peak bytes in the work directory
    std::uint64_t table_bytes = 0;    ///< bytes of the finished table file
    bool upper_bound = false;         ///< measured on a ruleset with more openings
    std::string source;               ///< where the figures come from, for messages
};

/// The estimate of a generation of board `b` under `rules`, from the counts measured when
/// the `brainking` tables were built (docs/solved.md: classes per layer, peak work directory,
/// file size). `center` openings are a subset of `brainking`'s, so its figures are an upper
/// bound there. Returns nothing where no table was measured (other boards, ruleset `any`).
/// Throws nothing.
std::optional<ResourceEstimate> estimate_resources(const Board& b, Ruleset rules);

}  // namespace konane::solver
