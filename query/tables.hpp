// A table asked about a position: the check, in one place, that it is a table of the position's
// board, and the ruleset that then holds.
#pragma once

#include <optional>
#include <string_view>

#include "core/board.hpp"
#include "probe/probe.hpp"

namespace konane::query {

/// The ruleset a query on board b runs under with table tb: the table's. `name` is how the
/// front end names the table (its file), `rules_option` how it names its ruleset option with
/// its separator ("--rules ", "rules="), `asked` the ruleset the user gave, if any.
/// @throws std::invalid_argument "the position is for a RxC board, the table NAME is for a RxC
///         board", or "RULES_OPTIONR differs from the table's ruleset S".
Ruleset table_rules(const Tablebase& tb, std::string_view name, const Board& b,
                    std::optional<Ruleset> asked, std::string_view rules_option);

}  // namespace konane::query
