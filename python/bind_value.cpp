// Combinatorial game values (cgt/): konane.value(position) and Position.value(): the canonical
// form, the outcome, the mean and temperature and the regions of a position's pieces.
#include <pybind11/pybind11.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "cgt/konane.hpp"
#include "core/board.hpp"
#include "core/notation.hpp"
#include "python/module.hpp"
#include "python/stoppable.hpp"
#include "query/budget.hpp"
#include "query/value.hpp"
#include "solver/estimate.hpp"

using namespace pybind11::literals;

namespace konane::python {

void bind_value(py::module_& m) {
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const konane::cgt::ValueLimit& e) {
            py::object limit = py::module_::import("konane").attr("SearchLimit");
            PyErr_SetString(limit.ptr(), e.what());
        }
    });
    const char* value_doc = R"(The combinatorial game value of the position's pieces, for the game
played by jumps alone (no opening stage) with Black as Left and White as Right; the side to
move is ignored. Returns a dict: 'value' (the canonical form in CGSuite's notation: '0', '1/2',
'*', '*2', '↑', '↑*', '{1|-1}', ...; with ascii=True '^' and 'v' for the arrows), 'outcome'
('L', 'R', 'N' or 'P'), 'outcome_name' ('black', 'white', 'first', 'second', as outcome()),
'number' (bool), 'mean' and 'temperature' (fractions.Fraction, from the thermograph; a number's
temperature is negative), 'regions' (list of (rows, value): the independent regions whose
values sum to the value). The limits are `konane value`'s: max_positions (0 to 2**40) is the
most positions (regions up to symmetry) to value, 0 meaning no limit but the memory budget
(--max-nodes); memory (bytes or a size such as '2G'; None: the CLI's default, 60% of the
machine's memory, at most 16G) allows memory // 512 positions and four times as many games
(--memory). Runs without the GIL on a worker thread; Ctrl-C stops it (KeyboardInterrupt).
Raises SearchLimit when over either limit, ValueError for bad input.)";
    auto value_of = [](const Board& b, Position p, bool ascii, std::int64_t max_positions,
                       const std::optional<MemoryArg>& memory) {
        // The limits of `konane value` (cli/cmd_value.cpp): memory // kValueBytesPerPosition
        // positions, max_positions if fewer (0: the memory's), 4 games a position.
        if (max_positions < 0 || max_positions > (std::int64_t{1} << 40)) {
            throw py::value_error("max_positions: expected 0 (no limit but memory) to 2**40, got " +
                                  std::to_string(max_positions));
        }
        const std::uint64_t bytes =
            memory ? memory_arg(*memory) : konane::solver::default_memory_budget();
        const konane::query::PositionBudget budget = [&] {
            try {
                return konane::query::position_budget(
                    bytes, static_cast<std::uint64_t>(max_positions),
                    konane::cgt::kValueBytesPerPosition, "memory");
            } catch (const std::invalid_argument& e) {
                throw py::value_error(e.what());
            }
        }();
        konane::cgt::GameStore store;
        konane::cgt::ValueOptions opt = konane::query::value_options(budget);
        std::optional<konane::query::ValueAnswer> a;
        run_stoppable([&](const std::atomic<bool>& stop) {
            opt.should_stop = [&stop] { return stop ? std::string("interrupted") : ""; };
            konane::cgt::Valuer v(b, store, opt);
            a = konane::query::value_answer(v, p.occ, budget, "memory=", "max_positions=");
        });
        const py::object fraction = py::module_::import("fractions").attr("Fraction");
        auto rows = [&](std::uint64_t occ) {
            const std::string t = konane::format_position(b, Position{occ, Color::Black});
            return t.substr(0, t.find(' '));
        };
        py::dict d;
        d["value"] = store.format(a->value, {ascii});
        d["outcome"] = konane::cgt::outcome_letter(a->outcome);
        d["outcome_name"] = konane::outcome_name(konane::cgt::konane_outcome(a->outcome));
        d["number"] = a->number;
        d["mean"] = fraction(a->thermal.mean.num(), a->thermal.mean.den());
        d["temperature"] = fraction(a->thermal.temperature.num(), a->thermal.temperature.den());
        py::list regions;
        for (const auto& [r, rv] : a->regions)
            regions.append(py::make_tuple(rows(r), store.format(rv, {ascii})));
        d["regions"] = regions;
        return d;
    };
    m.def(
        "value",
        [value_of](const std::variant<PyPosition, std::string>& position, bool ascii,
                   std::int64_t max_positions, const std::optional<MemoryArg>& memory) {
            if (const auto* text = std::get_if<std::string>(&position)) {
                // The side to move does not enter a value: it may be left out.
                const auto parsed = konane::parse_position(konane::with_side(*text));
                return value_of(parsed.board, parsed.position, ascii, max_positions, memory);
            }
            const auto& p = std::get<PyPosition>(position);
            return value_of(p.board, p.pos, ascii, max_positions, memory);
        },
        "position"_a, py::kw_only(), "ascii"_a = false, "max_positions"_a = 2'000'000,
        "memory"_a = py::none(), value_doc);
    {
        py::object cls = m.attr("Position");
        cls.attr("value") = py::cpp_function(
            [value_of](const PyPosition& p, bool ascii, std::int64_t max_positions,
                       const std::optional<MemoryArg>& memory) {
                return value_of(p.board, p.pos, ascii, max_positions, memory);
            },
            py::name("value"), py::is_method(cls),
            py::sibling(py::getattr(cls, "value", py::none())), py::kw_only(), "ascii"_a = false,
            "max_positions"_a = 2'000'000, "memory"_a = py::none(),
            "konane.value(self): the combinatorial game value of this position's pieces.");
    }
}

}  // namespace konane::python
