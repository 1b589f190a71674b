// A memory budget turned into the number of positions a search or the valuer may keep: one rule
// for the command, the server and the Python module.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace konane::query {

/// The positions a search or a valuer may keep under a memory budget and an asked limit.
struct PositionBudget {
    std::uint64_t memory_bytes = 0;  ///< the memory budget, in bytes
    std::uint64_t by_memory = 0;  ///< positions the memory allows: memory_bytes / bytes a position
    std::size_t positions = 0;    ///< the limit that holds: the smaller of by_memory and the asked
    bool memory_binds = false;    ///< true when by_memory is that limit (or none was asked)

    /// "the memory budget N MiB allows that many" (N: memory_bytes in MiB, rounded down).
    std::string memory_note() const;

    /// What to raise when the valuer's limit is reached, after its own message: memory_note()
    /// then "; MEMORY_OPTION" when the memory binds, else `positions_option` (the front end's
    /// names of its two options: "--memory", "memory=").
    std::string limit_reason(std::string_view memory_option,
                             std::string_view positions_option) const;
};

/// The budget of `memory_bytes` at `bytes_per_position` (search/search.hpp
/// kSearchBytesPerPosition, search/wide_search.hpp kWideSearchBytesPerPosition, cgt/konane.hpp
/// kValueBytesPerPosition), with `asked` positions at most (0: no limit but the memory's).
/// @throws std::invalid_argument naming `memory_option` when the budget allows no position.
PositionBudget position_budget(std::uint64_t memory_bytes, std::uint64_t asked,
                               std::size_t bytes_per_position, std::string_view memory_option);

}  // namespace konane::query
