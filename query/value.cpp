#include "query/value.hpp"

#include <algorithm>
#include <string>

#include "core/wide.hpp"

namespace konane::query {

cgt::ValueOptions value_options(const PositionBudget& budget) {
    cgt::ValueOptions o;
    o.max_positions = budget.positions;
    // Games of the store: a few per position at most in practice; bound them by the memory too.
    o.max_games = static_cast<std::size_t>(std::max<std::uint64_t>(budget.by_memory * 4, 1024));
    return o;
}

template <class BoardT>
BasicValueAnswer<typename cgt::BasicValuer<BoardT>::Bits> value_answer(
    cgt::BasicValuer<BoardT>& v, const typename cgt::BasicValuer<BoardT>::Bits& occ,
    const PositionBudget& budget, std::string_view memory_option,
    std::string_view positions_option) {
    BasicValueAnswer<typename cgt::BasicValuer<BoardT>::Bits> a;
    a.occ = occ;
    cgt::GameStore& s = v.store();
    try {
        a.value = v.value(occ);
        for (const auto& r : v.regions_of(occ))
            a.regions.emplace_back(r, v.value(r));
    } catch (const cgt::ValueLimit& e) {
        throw cgt::ValueLimit("value " + std::string(e.what()) + " (" +
                              budget.limit_reason(memory_option, positions_option) + ")");
    }
    a.outcome = s.outcome(a.value);
    a.number = s.as_number(a.value).has_value();
    a.thermal = s.thermal(a.value);
    a.left_stop = s.left_stop(a.value);
    a.right_stop = s.right_stop(a.value);
    a.positions = v.positions();
    a.games = s.size();
    return a;
}

template ValueAnswer value_answer(cgt::Valuer&, const std::uint64_t&, const PositionBudget&,
                                  std::string_view, std::string_view);
template WideValueAnswer value_answer(cgt::WideValuer&, const BigBits&, const PositionBudget&,
                                      std::string_view, std::string_view);

}  // namespace konane::query
