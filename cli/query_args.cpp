#include "cli/query_args.hpp"

#include <stdexcept>

#include "cli/common.hpp"
#include "core/text.hpp"
#include "query/tables.hpp"
#include "solver/estimate.hpp"

namespace konane::cli {

std::optional<Tablebase> open_table(const std::string& file, const std::string& load,
                                    const Board& b, bool rules_given, Ruleset& rules) {
    if (file.empty()) return std::nullopt;
    Tablebase tb = Tablebase::open(file, {}, open_options(load, format::Load::automatic));
    try {
        rules = query::table_rules(tb, printable(file), b,
                                   rules_given ? std::optional(rules) : std::nullopt, "--rules ");
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    return tb;
}

query::PositionBudget memory_budget(const std::string& memory, std::uint64_t asked,
                                    std::size_t bytes_per_position) {
    const std::uint64_t bytes =
        memory.empty() ? solver::default_memory_budget() : parse_size(memory, "--memory");
    try {
        return query::position_budget(bytes, asked, bytes_per_position, "--memory");
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
}

SearchLimit search_limit(const SearchLimit& e, const query::PositionBudget& budget) {
    if (!budget.memory_binds) return e;
    return SearchLimit(std::string(e.what()) + "; " + budget.memory_note() + " (--memory)");
}

}  // namespace konane::cli
