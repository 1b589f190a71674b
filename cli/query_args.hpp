// The command's arguments turned into the query layer's (query/): a table checked against the
// board and ruleset, a --memory budget turned into a position limit; errors as UsageError.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "core/board.hpp"
#include "probe/probe.hpp"
#include "query/budget.hpp"
#include "search/search.hpp"

namespace konane::cli {

/// The table FILE (none when empty) opened with --load LOAD for a query on board b: its board
/// must be b, and its ruleset the given `rules` when rules_given; `rules` then becomes the
/// table's (query/tables.hpp table_rules()). @throws UsageError naming both boards or both
/// rulesets; what Tablebase::open throws.
std::optional<Tablebase> open_table(const std::string& file, const std::string& load,
                                    const Board& b, bool rules_given, Ruleset& rules);

/// The positions a search or the valuer may keep under --memory TEXT (empty: the default
/// budget, solver::default_memory_budget()) at bytes_per_position, and at most `asked` (0: no
/// limit but the memory's): query/budget.hpp position_budget(). @throws UsageError for a
/// malformed TEXT or a budget too small for one position.
query::PositionBudget memory_budget(const std::string& memory, std::uint64_t asked,
                                    std::size_t bytes_per_position);

/// The SearchLimit a search under `budget` (memory_budget()) raises: e itself when the asked
/// limit bound, else e's message then "; the memory budget N MiB allows that many (--memory)".
SearchLimit search_limit(const SearchLimit& e, const query::PositionBudget& budget);

}  // namespace konane::cli
