// What a generation will need before it starts: memory for its largest solve step and disk
// for its work directory and table, from the sizes measured on the published tables; the
// memory a layer's solve takes, and the default memory budget.
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
    /// The least budget of the run: solve_memory_bytes_streamed(largest_layer, window)
    std::uint64_t memory_bytes = 0;
    /// The budget past which no layer's perfect hash is built from its key file (a faster
    /// solve): solve_memory_bytes(largest_layer, window)
    std::uint64_t whole_memory_bytes = 0;
    std::uint64_t work_bytes = 0;   ///< peak bytes in the work directory
    std::uint64_t table_bytes = 0;  ///< bytes of the finished table file
    bool upper_bound = false;       ///< measured on a ruleset with more openings
    std::string source;             ///< where the figures come from, for messages
};

/// The estimate of a generation of board `b` under `rules`, from the counts measured when
/// the `brainking` tables were built (docs/solved.md: classes per layer, peak work directory,
/// file size). `center` openings are a subset of `brainking`'s, so its figures are an upper
/// bound there. A board whose transpose (C x R) was measured gets the transpose's figures: a
/// quarter turn maps the positions and the openings of one onto the other. Returns nothing
/// where neither was measured (other boards, ruleset `any`). Throws nothing.
std::optional<ResourceEstimate> estimate_resources(const Board& b, Ruleset rules);

/// The default memory budget of one process: 60% of the machine's memory
/// (process::machine_memory_bytes(), process/self.hpp) shared by `sharing` processes (the MPI
/// ranks of one node), at most 16 GiB, at least 256 MiB.
std::uint64_t default_memory_budget(unsigned sharing = 1);

/// Bytes the solve of a layer of `classes` positions needs, with `window` positions in the
/// lower layers its jumps reach: keys (8 bytes), the perfect hash's build (8), depths (1) and
/// the table writer's buffers (2) per position, 1.5 bytes per window position, 8 MiB more.
std::uint64_t solve_memory_bytes(std::uint64_t classes, std::uint64_t window);

/// Bytes the solve of a layer of `classes` positions by sort-merge joins
/// (solve_layer_by_join(), retrograde_join.hpp) needs, with `window` positions in the lower
/// layers its jumps reach and `threads` threads: the layer's keys (8 bytes), depths by rank (1)
/// and the table writer's buffers (2) per position; the window's keys and depths by rank (9
/// bytes per window position); per thread, the records of a chunk of min(classes, 2^21)
/// parents, counted at 8 children a parent and 24 bytes a child (the records, their growth and
/// the sort's second buffer) and 3 bytes a parent; 8 MiB more. No perfect hash is built.
std::uint64_t join_memory_bytes(std::uint64_t classes, std::uint64_t window, int threads);

/// Bytes the same solve needs when the perfect hash is built from the layer's key file
/// (Mphf::build_streamed) before its keys are read: the build's 8 bytes per position are then
/// not held beside the keys, so the peak is the solve's and the write's, keys (8), depths by
/// slot and by rank (2), the perfect hash (0.5) and the writer's buffers (2) per position,
/// 1.5 bytes per window position, 8 MiB more (13 bytes per position, rounded up). The least
/// budget a layer's solve runs in; generate() builds from the key file only for a layer whose
/// solve_memory_bytes() the budget cannot hold, since it reads the key file twice more.
std::uint64_t solve_memory_bytes_streamed(std::uint64_t classes, std::uint64_t window);

/// The least memory the enumeration takes of its own, whatever its budget (enumerate.cpp: an
/// arena of at least 2^16 slots of 16 bytes, a merge of at least 8 runs of about 1 MiB each,
/// the chunk being expanded and the threads' buffers).
inline constexpr std::uint64_t kEnumerateLeastBytes = std::uint64_t{12} << 20;

}  // namespace konane::solver
