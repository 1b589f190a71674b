#include "probe/answer.hpp"

namespace konane {

std::optional<Answer> table_answer(const Tablebase& tb, Position p) {
    const auto v = tb.value(p);
    if (!v) return std::nullopt;
    return Answer{p, *v, tb.moves(p), tb.perfect_line(p)};
}

}  // namespace konane
