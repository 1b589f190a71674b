#include "query/tables.hpp"

#include <stdexcept>
#include <string>

namespace konane::query {

Ruleset table_rules(const Tablebase& tb, std::string_view name, const Board& b,
                    std::optional<Ruleset> asked, std::string_view rules_option) {
    if (!(tb.board() == b)) {
        throw std::invalid_argument("the position is for a " + b.name() + " board, the table " +
                                    std::string(name) + " is for a " + tb.board().name() +
                                    " board");
    }
    if (asked && *asked != tb.rules()) {
        throw std::invalid_argument(std::string(rules_option) + ruleset_name(*asked) +
                                    " differs from the table's ruleset " +
                                    ruleset_name(tb.rules()));
    }
    return tb.rules();
}

}  // namespace konane::query
