// The combinatorial game value of a position (cgt/), as a plain answer: assembled here once for
// the command (`konane value`), `konane serve` (/api/value) and the Python module (value()).
#pragma once

#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

#include "cgt/game.hpp"
#include "cgt/konane.hpp"
#include "core/wide.hpp"
#include "query/budget.hpp"

namespace konane::query {

/// The value of the pieces `occ` (Black as Left; the side to move does not enter), its games
/// in the valuer's GameStore (which renders them: GameStore::format, thermograph, tree).
template <class Bits>
struct BasicValueAnswer {
    Bits occ{};
    cgt::GameId value{};
    cgt::OutcomeClass outcome{};
    bool number = false;   ///< the value is a number
    cgt::Thermal thermal;  ///< mean and temperature (a number's temperature is negative)
    cgt::Rational left_stop, right_stop;
    /// The independent regions (cgt/konane.hpp regions()) with their values, summing to value;
    /// empty when nobody can ever move.
    std::vector<std::pair<Bits, cgt::GameId>> regions;
    std::size_t positions = 0;  ///< positions (regions up to symmetry) the valuer holds
    std::size_t games = 0;      ///< games its store holds
};

/// Boards of up to 64 squares, and wide boards (core/wide.hpp).
using ValueAnswer = BasicValueAnswer<std::uint64_t>;
using WideValueAnswer = BasicValueAnswer<BigBits>;

/// The valuer's limits under a budget made with kValueBytesPerPosition: budget.positions
/// positions, and four games a position (at least 1,024).
cgt::ValueOptions value_options(const PositionBudget& budget);

/// The value answer for occ from v. A cgt::ValueLimit is raised again with the budget's
/// reason appended ("value not computed within N positions (the memory budget M MiB allows
/// that many; MEMORY_OPTION)", or POSITIONS_OPTION when the asked limit binds). Throws
/// cgt::ValueStopped when the valuer's should_stop says so.
template <class BoardT>
BasicValueAnswer<typename cgt::BasicValuer<BoardT>::Bits> value_answer(
    cgt::BasicValuer<BoardT>& v, const typename cgt::BasicValuer<BoardT>::Bits& occ,
    const PositionBudget& budget, std::string_view memory_option,
    std::string_view positions_option);

}  // namespace konane::query
