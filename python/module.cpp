// The compiled half of the Python package konane, konane._konane (pybind11): positions and legal
// moves (core/), tables (probe/probe.hpp, probe/openings.hpp), the searches for positions no
// table holds (search/search.hpp: values with depth; search/proof.hpp: win/loss by proof search),
// the generator (solver/solve.hpp: generate()), combinatorial game values (cgt/) and the engine
// (engine/), one file per area (python/bind_*.cpp); the package (python/konane/) re-exports it
// with the result types of konane/_results.py. docs/python.md is its reference. This file binds
// the areas in order and defines what they share (module.hpp).
//
// Values follow docs/rules.md ("Values"): WIN or LOSS for the side to move and the depth
// to the end in plies (the winner hurries, the loser delays). Moves and positions are strings in
// the project's notation (rules.md "Notation"). Errors: konane.NotStored (a LookupError),
// konane.FormatError (a damaged, foreign or missing table; konane.IoError, also an OSError, for
// a failed write), konane.SearchLimit and konane.ResourceError (RuntimeErrors: a search over
// its limit; a memory budget or free disk too small for the run), ValueError for bad input
// (malformed notation, a board out of range, an illegal move, a position of another board), each
// with the C++ library's message (file names in it decoded as Python decodes them,
// surrogateescape). Probes, searches and generation run with the GIL released. No call may crash or
// hang the interpreter: objects made by __new__ alone are valid (Position) or report that they were
// never opened (Tablebase), pickling a Tablebase is a TypeError, generate() refuses to run
// inside a progress callback.
#include "python/module.hpp"

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "core/board.hpp"
#include "core/notation.hpp"
#include "konane_version.hpp"

namespace konane::python {

Types g_types;

py::str fs_str(const std::string& text) {
    PyObject* o =
        PyUnicode_DecodeFSDefaultAndSize(text.data(), static_cast<Py_ssize_t>(text.size()));
    if (o == nullptr) throw py::error_already_set();
    return py::reinterpret_steal<py::str>(o);
}

Board board_arg(const BoardArg& a) {
    if (const auto* text = std::get_if<std::string>(&a)) return Board::parse(*text);
    const auto [rows, cols] = std::get<std::pair<int, int>>(a);
    return Board::make(rows, cols);
}

PyPosition position_arg(const PositionArg& a, const Board& b, Ruleset r, const std::string& where) {
    if (const auto* text = std::get_if<std::string>(&a)) {
        return PyPosition{b, r, konane::parse_position(*text, &b).position};
    }
    PyPosition p = std::get<PyPosition>(a);
    if (!(p.board == b)) {
        throw py::value_error("the position is for a " + p.board.name() + " board, " + where +
                              " for a " + b.name() + " board");
    }
    p.rules = r;
    return p;
}

py::object make_value(const konane::Value& v) {
    return g_types.value(v.win, v.depth);
}

py::object make_move_value(const PyPosition& at, const konane::MoveValue& mv) {
    return g_types.move_value(konane::format_move(at.board, mv.move), make_value(mv.value),
                              PyPosition{at.board, at.rules, mv.child});
}

py::list make_move_values(const PyPosition& at, const std::vector<konane::MoveValue>& mvs) {
    py::list out;
    for (const auto& mv : mvs)
        out.append(make_move_value(at, mv));
    return out;
}

py::list make_line(PyPosition at, const std::vector<konane::MoveValue>& line) {
    py::list out;
    for (const auto& mv : line) {
        out.append(make_move_value(at, mv));
        at.pos = mv.child;
    }
    return out;
}

std::uint64_t size_text_bytes(const std::string& t) {
    std::uint64_t bytes = 0;
    std::size_t i = 0;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9' && i < 15)
        bytes = bytes * 10 + static_cast<std::uint64_t>(t[i++] - '0');
    std::uint64_t unit = 1;
    if (i < t.size()) {
        const char u = static_cast<char>(t[i] | 0x20);
        unit = u == 'k'   ? 1ULL << 10
               : u == 'm' ? 1ULL << 20
               : u == 'g' ? 1ULL << 30
               : u == 't' ? 1ULL << 40
                          : 0;
        ++i;
    }
    if (i == 0 || unit == 0 || i != t.size()) {
        throw py::value_error(
            "memory: expected bytes (an int) or a size such as '512M' or "
            "'2G', got '" +
            t + "'");
    }
    // 15 digits and a unit can pass 2^64 ('999999999999999T'): past what any caller takes.
    if (bytes > UINT64_MAX / unit)
        throw py::value_error("memory: expected 64 bytes to 1 TiB, got '" + t + "'");
    return bytes * unit;
}

std::size_t memory_arg(const MemoryArg& m) {
    const auto* n = std::get_if<std::uint64_t>(&m);
    const std::uint64_t bytes = n ? *n : size_text_bytes(std::get<std::string>(m));
    if (bytes < 64 || bytes > (1ULL << 40)) {
        throw py::value_error("memory: expected 64 bytes to 1 TiB, got " + std::to_string(bytes));
    }
    return static_cast<std::size_t>(bytes);
}

namespace {

/// Looks up the result types in konane._results (the package's module, imported here while the
/// package konane is itself being imported) into g_types.
void load_types() {
    const py::module_ results = py::module_::import("konane._results");
    auto keep = [&](const char* name) { return py::object(results.attr(name)).release(); };
    g_types = Types{keep("Value"),          keep("MoveValue"),       keep("OpeningLine"),
                    keep("OpeningChoice"),  keep("Openings"),        keep("Solution"),
                    keep("LayerReport"),    keep("GenerateReport"),  keep("Outcome"),
                    keep("Layer"),          keep("ProofSolution"),   keep("SearchedOpening"),
                    keep("SearchedChoice"), keep("SearchedOpenings")};
}

}  // namespace

}  // namespace konane::python

PYBIND11_MODULE(_konane, m) {
    using namespace konane::python;
    m.doc() = "The compiled half of the package konane: import konane, which re-exports it.";
    // What is bound here is konane's (the package re-exports it): while the module is named
    // "konane", the classes' __module__, the exceptions' names and the types in the docstrings'
    // signatures say konane.Position, konane.NotStored, not konane._konane.Position.
    const py::object name = m.attr("__name__");
    m.attr("__name__") = "konane";
    load_types();
    bind_errors(m);
    bind_position(m);
    bind_table(m);
    bind_generate(m);
    bind_search(m);
    bind_value(m);
    bind_engine(m);
    m.attr("__version__") = konane::kVersion;  // project(VERSION), konane_version.hpp
    m.attr("__name__") = name;
}
