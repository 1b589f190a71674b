// What the bindings of the package konane (python/bind_*.cpp, bound in order by module.cpp's
// konane._konane) share: the C++ objects behind konane.Position and konane.Tablebase, the
// arguments every area reads (a board, a position, a memory size), the results every area
// returns (the result types of konane/_results.py, looked up at import), and the bind_ function
// of each area.
#pragma once

// Every file of the module sees the same type casters (std::optional, std::variant, paths,
// callables): they must not differ between files.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "core/board.hpp"
#include "core/notation.hpp"
#include "core/value.hpp"
#include "format/table.hpp"
#include "probe/probe.hpp"

namespace konane::python {

namespace py = pybind11;

/// The result types of konane/_results.py, looked up once at import (module.cpp): each holds a
/// reference it never releases, so that the types outlive every call even if the package's
/// attributes are reassigned.
struct Types {
    py::handle value, move_value, opening_line, opening_choice, openings, solution, layer_report,
        generate_report, outcome, layer, proof_solution, searched_opening, searched_choice,
        searched_openings;
};
extern Types g_types;

/// Text from the C++ library (a file name, or a message naming one) as a Python str, decoded as
/// Python decodes file names (os.fsdecode: UTF-8, undecodable bytes as surrogates), so that a
/// name that is not UTF-8 survives and os.fsencode() gives its bytes back.
py::str fs_str(const std::string& text);

/// A position together with its board and opening ruleset: what Python's konane.Position holds.
/// The ruleset decides the opening-stage moves (Black's removals on the full board).
///
/// Its storage is made by operator new below, which leaves a valid object there (an empty 1x1
/// board, Black to move, a lost position): pybind11 hands that storage to methods called on an
/// object made by Position.__new__(Position) without __init__, which thus see a valid position.
/// The type is trivially destructible, so constructing over it is allowed ([basic.life]).
struct PyPosition {
    Board board;
    Ruleset rules = Ruleset::Brainking;
    Position pos;

    static void* operator new(std::size_t size) {
        void* p = ::operator new(size);
        ::new (p) PyPosition{Board::make(1, 1), Ruleset::Brainking, Position{0, Color::Black}};
        return p;
    }
    static void operator delete(void* p) { ::operator delete(p); }
};
static_assert(std::is_trivially_destructible_v<PyPosition>);

/// A board argument: "RxC" (e.g. "5x5") or (rows, cols).
using BoardArg = std::variant<std::string, std::pair<int, int>>;
/// A position argument: a konane.Position, or a string in the project's notation.
using PositionArg = std::variant<PyPosition, std::string>;

/// The board a BoardArg names. @throws ValueError (std::invalid_argument) when malformed or
/// out of range.
Board board_arg(const BoardArg& a);

/// A position argument on board `b`, with ruleset r: a string is parsed on b; a Position of
/// another board is a ValueError naming both sizes (`where` names what has board b).
PyPosition position_arg(const PositionArg& a, const Board& b, Ruleset r, const std::string& where);

/// A konane.Value.
py::object make_value(const Value& v);
/// A konane.MoveValue of a move from `at`.
py::object make_move_value(const PyPosition& at, const MoveValue& mv);
/// A list of konane.MoveValue, each a move from `at`.
py::list make_move_values(const PyPosition& at, const std::vector<MoveValue>& mvs);
/// The moves of a line, each made from the position the previous one led to.
py::list make_line(PyPosition at, const std::vector<MoveValue>& line);

/// konane.Tablebase: a table opened for probing; close() (or leaving a `with` block) releases the
/// mapping. Every probe copies the handle (a shared pointer) while holding the GIL and releases
/// the GIL for the look-up, so a close() in another thread never pulls the table from under it.
///
/// As for PyPosition, operator new leaves a valid object in the storage (never opened, not
/// closed): an object made by Tablebase.__new__(Tablebase) without __init__ then raises
/// ValueError "never opened" from every method instead of reading uninitialised memory.
/// Constructing over it is allowed: nothing depends on the skipped destructor (an empty
/// string and an empty optional own nothing).
class PyTablebase {
  public:
    PyTablebase() = default;
    PyTablebase(const std::filesystem::path& path, const std::optional<BoardArg>& board,
                const std::optional<std::string>& rules, const std::string& load)
        : path_(path.string()), opened_(true) {
        const konane::format::OpenOptions options{konane::format::parse_load(load)};
        konane::format::Expect expect;
        if (board) {
            const Board b = board_arg(*board);
            expect.rows = static_cast<unsigned>(b.rows);
            expect.cols = static_cast<unsigned>(b.cols);
        }
        if (rules) expect.ruleset = konane::ruleset_name(konane::parse_ruleset(*rules));
        py::gil_scoped_release release;
        tb_ = konane::Tablebase::open(path, expect, options);
    }

    static void* operator new(std::size_t size) {
        void* p = ::operator new(size);
        ::new (p) PyTablebase();
        return p;
    }
    static void operator delete(void* p) { ::operator delete(p); }

    konane::Tablebase handle() const {
        if (!opened_) throw py::value_error(kNeverOpened);
        if (!tb_) throw py::value_error("the tablebase " + path_ + " is closed");
        return *tb_;
    }
    void close() {
        if (!opened_) throw py::value_error(kNeverOpened);
        tb_.reset();
        layers_ = py::object();
    }
    bool closed() const {
        if (!opened_) throw py::value_error(kNeverOpened);
        return !tb_.has_value();
    }
    /// The file name as given (bytes; fs_str() makes it a Python str).
    const std::string& path() const {
        if (!opened_) throw py::value_error(kNeverOpened);
        return path_;
    }
    bool opened() const { return opened_; }
    /// The list of konane.Layer objects, made once (their win/loss counts are cached in them).
    py::object& layers_cache() { return layers_; }

    PyPosition arg(const PositionArg& a) const {
        const konane::Tablebase tb = handle();
        return position_arg(a, tb.board(), tb.rules(), "the table " + path_);
    }

    static constexpr const char* kNeverOpened =
        "this konane.Tablebase was never opened (made by Tablebase.__new__ without __init__): "
        "open a table with konane.Tablebase(path)";

  private:
    std::string path_;
    bool opened_ = false;
    std::optional<konane::Tablebase> tb_;
    py::object layers_;  // null until tb.layers is first read
};

/// Bytes of a size text: decimal digits, then at most one unit letter K, M, G or T (powers of
/// 1024, either case), e.g. "512M". The one reading of every `memory` argument of the module.
/// @throws ValueError "memory: expected bytes (an int) or a size such as ..." for anything else.
std::uint64_t size_text_bytes(const std::string& text);

/// Memory for the proof search: a number of bytes, or a size such as "512M"
/// (size_text_bytes()). @throws ValueError for anything else, or under 64 bytes or over 1 TiB.
using MemoryArg = std::variant<std::uint64_t, std::string>;
std::size_t memory_arg(const MemoryArg& m);

/// Thrown out of a search's or a generation's progress report to stop it when a Python
/// callback raised or a signal (Ctrl-C) is pending; the caller then raises the Python error.
struct Interrupted : std::exception {
    const char* what() const noexcept override { return "interrupted"; }
};

/// The bindings of each area, in the order module.cpp calls them (a function's signature names
/// the classes bound before it): the exceptions and their translation (bind_errors.cpp),
/// konane.Position (bind_position.cpp), konane.Tablebase (bind_table.cpp), generate()
/// (bind_generate.cpp), solve(), outcome() and openings() (bind_search.cpp), value() and
/// Position.value() (bind_value.cpp) and konane.Engine (bind_engine.cpp).
void bind_errors(py::module_& m);
void bind_position(py::module_& m);
void bind_table(py::module_& m);
void bind_generate(py::module_& m);
void bind_search(py::module_& m);
void bind_value(py::module_& m);
void bind_engine(py::module_& m);

}  // namespace konane::python
