#include "query/move.hpp"

#include <utility>

#include "query/tables.hpp"

namespace konane::query {

std::optional<engine::Decision> best_move(
    MoveRequest r, const std::function<void(const engine::SearchInfo&)>& progress) {
    if (r.options.table) {
        r.options.rules =
            table_rules(*r.options.table, r.table_name, r.board, r.asked_rules, r.rules_option);
    } else if (r.asked_rules) {
        r.options.rules = *r.asked_rules;
    }
    // One move: tables no larger than it can fill, made before the clock starts.
    r.options.memory_bytes =
        engine::one_move_memory(r.options.memory_bytes, r.limits, r.options.threads);
    engine::Engine eng(r.board, std::move(r.options));
    eng.prepare();
    return eng.decide(r.position, r.limits, progress);
}

}  // namespace konane::query
