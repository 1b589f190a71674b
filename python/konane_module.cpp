// The Python module `konane` (pybind11): positions and legal moves (core/), tables
// (probe/probe.hpp, probe/openings.hpp), the search for positions no table holds
// (probe/search.hpp) and the generator (solver/solve.hpp: generate()).
//
// Values follow docs/rules.md ("Values"): WIN or LOSS for the side to move and the depth
// to the end in plies (the winner hurries, the loser delays). Moves and positions are strings in
// the project's notation (rules.md "Notation"). Errors: konane.NotStored (a LookupError),
// konane.FormatError (a damaged, foreign or missing table; konane.IoError, also an OSError, for
// a failed write), konane.SearchLimit (a RuntimeError), ValueError for bad input (malformed
// notation, a board out of range, an illegal move, a position of another board), each with the
// C++ library's message. Probes, searches and generation run with the GIL released.
#include <pybind11/eval.h>
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <omp.h>

#include <cstdint>
#include <exception>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "core/board.hpp"
#include "core/gap.hpp"
#include "core/movegen.hpp"
#include "core/notation.hpp"
#include "format/table.hpp"
#include "probe/openings.hpp"
#include "probe/probe.hpp"
#include "probe/search.hpp"
#include "solver/solve.hpp"

namespace py = pybind11;
using namespace pybind11::literals;

namespace {

using konane::Board;
using konane::Color;
using konane::Position;
using konane::Ruleset;

/// The named-tuple types defined in Python at import (kTypes), looked up once: each holds a
/// reference it never releases, so that the types outlive every call even if the module's
/// attributes are reassigned.
struct Types {
    py::handle value, move_value, opening_line, opening_choice, openings, solution, layer_report,
        generate_report;
};
Types g_types;
/// konane.IoError (a FormatError and an OSError), created at import and never released.
PyObject* g_io_error = nullptr;

/// A position together with its board and opening ruleset: what Python's konane.Position holds.
/// The ruleset decides the opening-stage moves (Black's removals on the full board).
struct PyPosition {
    Board board;
    Ruleset rules = Ruleset::Brainking;
    Position pos;
};

const char* stage_name(konane::Stage s) {
    switch (s) {
        case konane::Stage::FullBoard:
            return "full_board";
        case konane::Stage::OneHole:
            return "one_hole";
        case konane::Stage::Play:
            break;
    }
    return "play";
}

/// A board argument: "RxC" (e.g. "5x5") or (rows, cols).
using BoardArg = std::variant<std::string, std::pair<int, int>>;
/// A position argument: a konane.Position, or a string in the project's notation.
using PositionArg = std::variant<PyPosition, std::string>;

/// The board a BoardArg names. @throws ValueError (std::invalid_argument) when malformed or
/// out of range.
Board board_arg(const BoardArg& a) {
    if (const auto* text = std::get_if<std::string>(&a)) return Board::parse(*text);
    const auto [rows, cols] = std::get<std::pair<int, int>>(a);
    return Board::make(rows, cols);
}

/// A position argument on board `b`, with ruleset r: a string is parsed on b; a Position of
/// another board is a ValueError naming both sizes (`where` names what has board b).
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

/// The moves of a line, each made from the position the previous one led to.
py::list make_line(PyPosition at, const std::vector<konane::MoveValue>& line) {
    py::list out;
    for (const auto& mv : line) {
        out.append(make_move_value(at, mv));
        at.pos = mv.child;
    }
    return out;
}

// ----------------------------------------------------------------------------------------------
// Tablebase

/// konane.Tablebase: a table opened for probing; close() (or leaving a `with` block) releases the
/// mapping. Every probe copies the handle (a shared pointer) while holding the GIL and releases
/// the GIL for the look-up, so a close() in another thread never pulls the table from under it.
class PyTablebase {
  public:
    PyTablebase(const std::filesystem::path& path, const std::optional<BoardArg>& board,
                const std::optional<std::string>& rules)
        : path_(path.string()) {
        konane::format::Expect expect;
        if (board) {
            const Board b = board_arg(*board);
            expect.rows = static_cast<unsigned>(b.rows);
            expect.cols = static_cast<unsigned>(b.cols);
        }
        if (rules) expect.ruleset = konane::ruleset_name(konane::parse_ruleset(*rules));
        py::gil_scoped_release release;
        tb_ = konane::Tablebase::open(path, expect);
    }

    konane::Tablebase handle() const {
        if (!tb_) throw py::value_error("the tablebase " + path_ + " is closed");
        return *tb_;
    }
    void close() { tb_.reset(); }
    bool closed() const { return !tb_.has_value(); }
    const std::string& path() const { return path_; }

    PyPosition arg(const PositionArg& a) const {
        const konane::Tablebase tb = handle();
        return position_arg(a, tb.board(), tb.rules(), "the table " + path_);
    }

  private:
    std::string path_;
    std::optional<konane::Tablebase> tb_;
};

[[noreturn]] void throw_not_stored(const PyTablebase& t, const konane::Tablebase& tb,
                                   const PyPosition& p) {
    throw konane::NotStored("position " + konane::format_position(p.board, p.pos) +
                            " is not stored in " + t.path() + " (not reachable on " +
                            p.board.name() + (tb.opening().gap ? " from " : " under ") +
                            konane::opening_text(tb.board(), tb.opening()) + ")");
}

// ----------------------------------------------------------------------------------------------
// generate

/// Thrown out of a progress report to stop a generation when the Python callback raised or a
/// signal (Ctrl-C) is pending; generate() then unwinds, removing its temporary files.
struct Interrupted : std::exception {
    const char* what() const noexcept override { return "generation interrupted"; }
};

/// The progress function given to generate(): calls the Python callback (if any) under the GIL,
/// from whichever thread reports, and checks for pending signals on the calling thread. A
/// Python error is kept, and raised by throwing Interrupted at the next report made on the
/// calling thread outside any parallel region, active or not (omp_get_level() == 0: an
/// exception must not cross an OpenMP region, even one that runs on one thread).
struct ProgressBridge {
    py::object callback;  // None or a callable (phase, pieces, done, total)
    std::thread::id caller = std::this_thread::get_id();
    std::optional<py::error_already_set> error;  // guarded by the GIL

    void operator()(const char* phase, int pieces, std::uint64_t done, std::uint64_t total) {
        const bool can_throw = std::this_thread::get_id() == caller && omp_get_level() == 0;
        {
            py::gil_scoped_acquire gil;
            if (!error) {
                try {
                    if (!callback.is_none()) callback(phase, pieces, done, total);
                    if (can_throw && PyErr_CheckSignals() != 0) throw py::error_already_set();
                } catch (py::error_already_set& e) {
                    error = std::move(e);
                }
            }
        }
        if (error && can_throw) throw Interrupted();
    }
};

py::object generate(const BoardArg& board, const std::string& rules, int threads,
                    const std::optional<std::filesystem::path>& output, const py::object& progress,
                    const std::optional<std::string>& gap) {
    if (!progress.is_none() && !PyCallable_Check(progress.ptr())) {
        throw py::type_error("progress: expected a callable (phase, pieces, done, total) or None");
    }
    konane::solver::GenerateOptions o;
    o.board = board_arg(board);
    o.rules = konane::parse_ruleset(rules);
    if (gap) {
        // A gap replaces the removals; a ruleset other than the default must allow it.
        o.gap = konane::parse_gap(o.board, *gap);
        if (rules != "brainking") {
            if (const auto why = konane::gap_rules_conflict(o.board, *o.gap, o.rules); !why.empty())
                throw py::value_error(why);
        }
    }
    if (threads < 0 || threads > 1024) {
        throw py::value_error("threads: expected 0 (every core) to 1024, got " +
                              std::to_string(threads));
    }
    o.threads = threads;
    o.output = output ? *output
                      : std::filesystem::path(konane::solver::default_table_name(
                            o.board, konane::solver::opening_of(o)));
    if (o.output.empty()) throw py::value_error("output: expected a file name, got ''");
    // Shared with the progress function, which generate() copies.
    auto bridge = std::make_shared<ProgressBridge>();
    bridge->callback = progress;
    o.progress = [bridge](const char* phase, int pieces, std::uint64_t done, std::uint64_t total) {
        (*bridge)(phase, pieces, done, total);
    };
    konane::solver::GenerateReport rep;
    try {
        py::gil_scoped_release release;
        rep = konane::solver::generate(o);
    } catch (const Interrupted&) {
        bridge->error->restore();
        throw py::error_already_set();
    }
    if (bridge->error) {  // raised in a worker thread's report, after the last check
        bridge->error->restore();
        throw py::error_already_set();
    }
    py::list layers;
    for (const auto& l : rep.layers) {
        layers.append(g_types.layer_report(l.pieces, l.classes, l.raw, l.max_depth));
    }
    // rules: the ruleset's name, or the gap's tag ("gap-c3-c4") as the table's header has it.
    return g_types.generate_report(o.output.string(), o.board.name(),
                                   konane::opening_tag(o.board, konane::solver::opening_of(o)),
                                   rep.classes, rep.raw, layers, rep.total_seconds,
                                   rep.peak_rss_bytes, rep.file_bytes, rep.threads);
}

// ----------------------------------------------------------------------------------------------
// solve

struct SearchSetup {
    PyPosition at;
    konane::SearchOptions options;
    std::optional<konane::Tablebase> table;
};

SearchSetup search_setup(const PositionArg& position, const std::optional<std::string>& rules,
                         const PyTablebase* table, bool jumps_only, std::size_t max_positions) {
    SearchSetup s;
    std::optional<konane::Tablebase> tb;
    std::string table_path;
    if (table) {
        tb = table->handle();
        table_path = table->path();
    }
    if (const auto* text = std::get_if<std::string>(&position)) {
        const auto parsed = konane::parse_position(*text, tb ? &tb->board() : nullptr);
        s.at = PyPosition{parsed.board, tb ? tb->rules() : Ruleset::Brainking, parsed.position};
    } else {
        s.at = std::get<PyPosition>(position);
    }
    if (tb && !(tb->board() == s.at.board)) {
        throw py::value_error("the position is for a " + s.at.board.name() + " board, the table " +
                              table_path + " for a " + tb->board().name() + " board");
    }
    if (rules) {
        s.at.rules = konane::parse_ruleset(*rules);
        if (tb && tb->rules() != s.at.rules) {
            throw py::value_error("rules='" + *rules + "' differs from the table's ruleset " +
                                  konane::ruleset_name(tb->rules()));
        }
    }
    s.options.rules = s.at.rules;
    s.options.jumps_only = jumps_only;
    s.options.max_positions = max_positions;
    s.table = std::move(tb);
    return s;
}

/// What solve() finds, computed without the GIL and turned into Python objects after.
struct SolveResult {
    konane::Value value;
    std::vector<konane::MoveValue> moves, line;
    std::size_t visited = 0;
};

/// Defines the search function `name` (solve(), outcome()): the arguments position, and
/// keyword-only rules, table, jumps_only and max_positions, read by search_setup(); then
/// work(searcher, position) on a Searcher of that setup without the GIL, and finish(position,
/// work's result) with it, whose result is returned.
template <class Work, class Finish>
void def_search(py::module_& m, const char* name, Work work, Finish finish, const char* doc) {
    m.def(
        name,
        [work, finish](const PositionArg& position, const std::optional<std::string>& rules,
                       const PyTablebase* table, bool jumps_only, std::size_t max_positions) {
            SearchSetup s = search_setup(position, rules, table, jumps_only, max_positions);
            std::optional<std::invoke_result_t<Work, konane::Searcher&, Position>> r;
            {
                py::gil_scoped_release release;
                konane::Searcher searcher(s.at.board, s.options, s.table);
                r = work(searcher, s.at.pos);
            }
            return finish(s.at, *r);
        },
        "position"_a, py::kw_only(), "rules"_a = py::none(), "table"_a = py::none(),
        "jumps_only"_a = false, "max_positions"_a = 50'000'000, doc);
}

// ----------------------------------------------------------------------------------------------
// The named tuples, defined in Python so that they are plain typing.NamedTuple classes.

constexpr const char* kTypes = R"PY(
import typing as _typing

class Value(_typing.NamedTuple):
    """The value of a position for the side to move (rules.md "Values").

    win: True for a WIN, False for a LOSS under perfect play.
    depth: plies to the end of the game when the winner hurries and the loser delays; odd for a
        WIN, even for a LOSS; 0 when the side to move has no move (a LOSS).
    str() gives "win in 13 plies" or "loss in 6 plies".
    """
    win: bool
    depth: int

    def __str__(self):
        return "%s in %d pl%s" % ("win" if self.win else "loss", self.depth,
                                  "y" if self.depth == 1 else "ies")

class MoveValue(_typing.NamedTuple):
    """A legal move with its value for the player who makes it.

    move: the move in the project's notation ("c5-c3" a jump, "c3" a removal).
    value: a Value for the mover: a WIN when the position it leads to is a LOSS for the
        opponent; depth counted from before the move (1 + the depth of the position after it),
        so the perfect move's depth equals the position's.
    position: the konane.Position after the move.
    """
    move: str
    value: Value
    position: object

class OpeningLine(_typing.NamedTuple):
    """One pair of opening removals and the value after it.

    black, white: Black's removal and White's reply (squares, e.g. "c3", "c2").
    winner: "black" or "white", with perfect play from there.
    depth: plies to the end counted from Black's first jump.
    """
    black: str
    white: str
    winner: str
    depth: int

class OpeningChoice(_typing.NamedTuple):
    """Black's removal with White's best reply to it.

    black: Black's removal; white: White's best reply, or None when White has no reply (White
        then loses at once); winner: "black" or "white"; depth: plies from Black's first jump
        (0 without a reply).
    """
    black: str
    white: _typing.Optional[str]
    winner: str
    depth: int

class Openings(_typing.NamedTuple):
    """The opening table of a board (Tablebase.openings()).

    lines: every OpeningLine, by Black's removal then White's reply (by square).
    choices: an OpeningChoice per Black removal, with White's best reply.
    best: Black's perfect removal (an OpeningChoice), None if Black has no removal.
    winner: "black" or "white": who wins from the full board with perfect play.
    """
    lines: _typing.List[OpeningLine]
    choices: _typing.List[OpeningChoice]
    best: _typing.Optional[OpeningChoice]
    winner: str

class Solution(_typing.NamedTuple):
    """What konane.solve() found by search.

    value: the Value of the position for the side to move.
    best_move: the perfect MoveValue, None when the side to move has no move.
    moves: every legal move as a MoveValue (value for the mover, depth from before the move).
    perfect_line: perfect MoveValues, one per ply, until the side to move has none; its length
        is value.depth.
    positions: positions (up to symmetry) the search visited.
    """
    value: Value
    best_move: _typing.Optional[MoveValue]
    moves: _typing.List[MoveValue]
    perfect_line: _typing.List[MoveValue]
    positions: int

class LayerReport(_typing.NamedTuple):
    """One layer of a generated table: pieces on the board, classes (positions up to
    symmetry), raw positions, and the greatest depth to the end stored in it (plies)."""
    pieces: int
    classes: int
    raw: int
    max_depth: int

class GenerateReport(_typing.NamedTuple):
    """What konane.generate() did.

    path: the table file written; board: "RxC"; rules: the ruleset name;
    classes, raw: positions stored (up to symmetry) and raw positions they stand for;
    layers: a LayerReport per piece count, ascending; seconds: wall time of the whole
    generation; peak_memory_bytes: peak resident memory of this process (0 if unknown);
    file_bytes: size of the table file; threads: threads used.
    """
    path: str
    board: str
    rules: str
    classes: int
    raw: int
    layers: _typing.List[LayerReport]
    seconds: float
    peak_memory_bytes: int
    file_bytes: int
    threads: int

del _typing
)PY";

}  // namespace

PYBIND11_MODULE(konane, m) {
    m.doc() = R"(Konane tablebases from Python: exact values, perfect moves and perfect lines.

Positions and moves are in the project's notation (rows from the top rank down, 'x' Black,
'o' White, '.' empty, then 'b' or 'w' for the side to move; moves 'c3' (a removal) and
'c5-c3' (a jump)). Values are for the side to move: WIN or LOSS under perfect play, and the
depth to the end in plies (the winner hurries, the loser delays).

    Position       a position with its board and opening ruleset; its legal moves
    Tablebase      a table file: value, moves, best_move, perfect_line, openings
    generate()     enumerate, solve and write the table of a board
    solve()        the value and perfect play of any position (boards up to 64 squares), by search
    outcome()      the outcome class of a position ('black', 'white', 'first', 'second')

Errors: NotStored (the table does not hold the position), FormatError (a missing, damaged or
foreign table file; IoError for a failed write), SearchLimit (a search over its memory limit),
ValueError (malformed notation, a board out of range, an illegal move, a position of another
board). Rules: docs/rules.md of the project.)";

    // Exceptions. pybind11 tries translators in reverse order of registration: the derived
    // IoError is registered after FormatError so that it is matched first.
    auto& not_stored = py::register_exception<konane::NotStored>(m, "NotStored", PyExc_LookupError);
    not_stored.attr("__doc__") =
        "The table does not hold the position (not reachable under the table's ruleset). A "
        "LookupError; the message names the position and the file.";
    auto& format_error =
        py::register_exception<konane::format::FormatError>(m, "FormatError", PyExc_Exception);
    format_error.attr("__doc__") =
        "A missing, damaged or foreign table file, or a table not matching what was asked; the "
        "message reads '<file>: <section>: <what is wrong>'.";
    const py::tuple io_bases = py::make_tuple(format_error, py::handle(PyExc_OSError));
    // Kept for the life of the process, as pybind11 keeps its registered exception types.
    g_io_error = PyErr_NewExceptionWithDoc(
        "konane.IoError",
        "A file-system failure while writing a table (no space, no permission, a missing "
        "directory): an OSError as well as a FormatError.",
        io_bases.ptr(), nullptr);
    if (g_io_error == nullptr) throw py::error_already_set();
    m.attr("IoError") = py::handle(g_io_error);
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const konane::format::IoError& e) {
            PyErr_SetString(g_io_error, e.what());
        }
    });
    auto& search_limit =
        py::register_exception<konane::SearchLimit>(m, "SearchLimit", PyExc_RuntimeError);
    search_limit.attr("__doc__") =
        "A search would keep more positions than its max_positions allows (a RuntimeError).";

    py::exec(kTypes, m.attr("__dict__"));
    auto keep = [&](const char* name) { return py::object(m.attr(name)).release(); };
    g_types =
        Types{keep("Value"),    keep("MoveValue"), keep("OpeningLine"), keep("OpeningChoice"),
              keep("Openings"), keep("Solution"),  keep("LayerReport"), keep("GenerateReport")};

    // ------------------------------------------------------------------------------------------
    py::class_<PyPosition>(m, "Position", R"(A Konane position: the occupied squares, the side to
move, the board (R x C, at most 64 squares: 8x8, 3x12, 1x64, ...) and the opening ruleset that
decides Black's first removal ('brainking', 'center' or 'any'). Immutable and hashable; play()
returns a new one.

Position(text, rules='brainking') is Position.parse(text, rules).)")
        .def(py::init([](const std::string& text, const std::string& rules) {
                 const auto parsed = konane::parse_position(text);
                 return PyPosition{parsed.board, konane::parse_ruleset(rules), parsed.position};
             }),
             "text"_a, "rules"_a = "brainking")
        .def_static(
            "parse",
            [](const std::string& text, const std::string& rules) {
                const auto parsed = konane::parse_position(text);
                return PyPosition{parsed.board, konane::parse_ruleset(rules), parsed.position};
            },
            "text"_a, "rules"_a = "brainking",
            R"(Parses a position, e.g. '..xo/oxox/xoxo/oxox b' (4x4 after a4 and b4): the rows from
the top rank down separated by '/', 'x' Black, 'o' White, '.' empty, a space, 'b' or 'w' for
the side to move. The board size is read off the text. Raises ValueError naming the rank,
file and character of a malformed text, or an unknown ruleset.)")
        .def_static(
            "start",
            [](const BoardArg& board, const std::string& rules) {
                const Board b = board_arg(board);
                return PyPosition{b, konane::parse_ruleset(rules), b.start()};
            },
            "board"_a, "rules"_a = "brainking",
            R"(The full board with Black to move (before the two opening removals). board: 'RxC'
(e.g. '5x5') or (rows, cols), at most 64 squares. Raises ValueError for a board out of range.)")
        .def("__str__", [](const PyPosition& p) { return konane::format_position(p.board, p.pos); })
        .def("__repr__",
             [](const PyPosition& p) {
                 std::string r = "Position('" + konane::format_position(p.board, p.pos) + "'";
                 if (p.rules != Ruleset::Brainking) {
                     r += std::string(", rules='") + konane::ruleset_name(p.rules) + "'";
                 }
                 return r + ")";
             })
        .def("__eq__",
             [](const PyPosition& a, const py::object& other) {
                 if (!py::isinstance<PyPosition>(other)) return false;
                 const auto& b = other.cast<const PyPosition&>();
                 return a.board == b.board && a.rules == b.rules && a.pos == b.pos;
             })
        .def("__hash__",
             [](const PyPosition& p) {
                 return py::hash(py::make_tuple(p.board.rows, p.board.cols,
                                                static_cast<int>(p.rules), p.pos.occ,
                                                static_cast<int>(p.pos.to_move)));
             })
        .def(py::pickle(
            [](const PyPosition& p) {
                return py::make_tuple(konane::format_position(p.board, p.pos),
                                      konane::ruleset_name(p.rules));
            },
            [](const py::tuple& t) {
                const auto parsed = konane::parse_position(t[0].cast<std::string>());
                return PyPosition{parsed.board, konane::parse_ruleset(t[1].cast<std::string>()),
                                  parsed.position};
            }))
        .def_property_readonly(
            "board", [](const PyPosition& p) { return p.board.name(); },
            "The board size, 'RxC' (rows x columns).")
        .def_property_readonly(
            "rows", [](const PyPosition& p) { return p.board.rows; }, "Number of rows (ranks).")
        .def_property_readonly(
            "cols", [](const PyPosition& p) { return p.board.cols; }, "Number of columns (files).")
        .def_property_readonly(
            "rules", [](const PyPosition& p) { return konane::ruleset_name(p.rules); },
            "The opening ruleset: 'brainking', 'center' or 'any'.")
        .def_property_readonly(
            "to_move", [](const PyPosition& p) { return konane::color_name(p.pos.to_move); },
            "The side to move: 'black' or 'white'.")
        .def_property_readonly(
            "stage",
            [](const PyPosition& p) {
                return stage_name(konane::stage_of(p.board, p.rules, p.pos));
            },
            R"(The stage of the game: 'full_board' (no empty square, Black to move: Black removes a
piece), 'one_hole' (one empty square that Black may empty under the ruleset, White to move:
White removes a piece next to it) or 'play' (jumps; also every position no opening produces).)")
        .def_property_readonly(
            "pieces", [](const PyPosition& p) { return konane::piece_count(p.pos); },
            "Number of pieces on the board.")
        .def_property_readonly(
            "game_over",
            [](const PyPosition& p) {
                return konane::legal_moves(p.board, p.rules, p.pos).empty();
            },
            "True when the side to move has no legal move (and so has lost).")
        .def(
            "moves",
            [](const PyPosition& p) {
                std::vector<std::string> out;
                for (const auto& mc : konane::legal_moves(p.board, p.rules, p.pos)) {
                    out.push_back(konane::format_move(p.board, mc.move));
                }
                return out;
            },
            R"(The legal moves, as strings: Black's removals on the full board, White's removals next
to the hole on a one-hole board, jumps otherwise ('c5-c3'; a multi-jump is written from start
to end). Order: jumps up, down, right, left; by start square a1, b1, ...; shorter first.)")
        .def(
            "play",
            [](const PyPosition& p, const std::string& moves) {
                const auto game = konane::parse_game(p.board, p.rules, moves, p.pos);
                return PyPosition{p.board, p.rules, game.positions.back()};
            },
            "moves"_a,
            R"(The position after one move ('c5-c3', or 'c3' for a removal), or after several
separated by spaces ('c3 c2 c5-c3'). Raises ValueError naming the move that is malformed or
illegal (the message lists the legal moves).)")
        .def(
            "perft",
            [](const PyPosition& p, int depth) {
                if (depth < 0) {
                    throw py::value_error("depth: expected 0 or more, got " +
                                          std::to_string(depth));
                }
                py::gil_scoped_release release;
                return konane::perft(p.board, p.rules, p.pos, depth);
            },
            "depth"_a,
            R"(The number of move sequences of `depth` plies from this position (removals count as
plies); perft(0) is 1. Runs without the GIL.)");

    // ------------------------------------------------------------------------------------------
    py::class_<PyTablebase>(m, "Tablebase", R"(A table file opened for probing (memory-mapped,
validated). Every method is thread-safe and runs without the GIL; positions may be given as
konane.Position (of the table's board) or as strings, which are parsed on the table's board;
moves and the positions returned follow the table's ruleset. The table answers the
positions reachable under its ruleset after the two removals, and the opening-stage positions
(the full board, and a one-hole board whose hole Black may empty) from their children.

    with konane.Tablebase('konane-5x5-brainking.kbt') as tb:
        print(tb.value(tb.start))

Tablebase(path, board=None, rules=None): board ('RxC' or (rows, cols)) and rules, when given,
must match the table's. Raises FormatError for a missing, damaged or foreign file or a
mismatch.)")
        .def(py::init<const std::filesystem::path&, const std::optional<BoardArg>&,
                      const std::optional<std::string>&>(),
             "path"_a, "board"_a = py::none(), "rules"_a = py::none())
        .def("__enter__", [](py::object self) { return self; })
        .def(
            "__exit__",
            [](PyTablebase& t, const py::object&, const py::object&, const py::object&) {
                t.close();
                return false;
            },
            "Closes the table (see close()).")
        .def("close", &PyTablebase::close,
             "Releases the table's mapping; later calls raise ValueError. Idempotent.")
        .def_property_readonly("closed", &PyTablebase::closed, "True after close().")
        .def_property_readonly("path", &PyTablebase::path, "The file name given to open it.")
        .def_property_readonly(
            "board", [](const PyTablebase& t) { return t.handle().board().name(); },
            "The table's board size, 'RxC'.")
        .def_property_readonly(
            "rules", [](const PyTablebase& t) { return konane::ruleset_name(t.handle().rules()); },
            "The table's opening ruleset ('any' for a gap's table).")
        .def_property_readonly(
            "gap",
            [](const PyTablebase& t) -> std::optional<std::string> {
                const auto tb = t.handle();
                if (!tb.opening().gap) return std::nullopt;
                return konane::gap_name(tb.board(), *tb.opening().gap);
            },
            "The gap the table was built from ('c3,c4', Black's square first), or None.")
        .def_property_readonly(
            "start",
            [](const PyTablebase& t) {
                const auto tb = t.handle();
                if (const auto& g = tb.opening().gap)
                    return PyPosition{tb.board(), tb.rules(), konane::gap_start(tb.board(), *g)};
                return PyPosition{tb.board(), tb.rules(), tb.board().start()};
            },
            "The full board of the table's size and ruleset, Black to move (a gap's table: the "
            "gap's start position).")
        .def("__repr__",
             [](const PyTablebase& t) {
                 if (t.closed()) return "<konane.Tablebase " + t.path() + " (closed)>";
                 const auto tb = t.handle();
                 return "<konane.Tablebase " + t.path() + ": " + tb.board().name() + " " +
                        konane::opening_tag(tb.board(), tb.opening()) + ">";
             })
        .def(
            "__contains__",
            [](const PyTablebase& t, const PositionArg& position) {
                const PyPosition p = t.arg(position);
                const auto tb = t.handle();
                py::gil_scoped_release release;
                return tb.value(p.pos).has_value();
            },
            "position"_a, "True when the table answers the position (value() would not raise).")
        .def(
            "value",
            [](const PyTablebase& t, const PositionArg& position) {
                const PyPosition p = t.arg(position);
                const auto tb = t.handle();
                std::optional<konane::Value> v;
                {
                    py::gil_scoped_release release;
                    v = tb.value(p.pos);
                }
                if (!v) throw_not_stored(t, tb, p);
                return make_value(*v);
            },
            "position"_a,
            R"(The Value (win, depth) of the position for the side to move. Raises NotStored when the
table does not hold it, FormatError on a damaged block, ValueError for bad input.)")
        .def(
            "moves",
            [](const PyTablebase& t, const PositionArg& position) {
                const PyPosition p = t.arg(position);
                const auto tb = t.handle();
                std::vector<konane::MoveValue> mvs;
                {
                    py::gil_scoped_release release;
                    mvs = tb.moves(p.pos);
                }
                return make_move_values(p, mvs);
            },
            "position"_a,
            R"(Every legal move (Position.moves() order) as a MoveValue(move, value, position): the
value for the mover, its depth counted from before the move. Empty when the side to move has
no move. Raises NotStored when the table does not hold the position or a child.)")
        .def(
            "best_move",
            [](const PyTablebase& t, const PositionArg& position) -> py::object {
                const PyPosition p = t.arg(position);
                const auto tb = t.handle();
                std::optional<konane::MoveValue> mv;
                {
                    py::gil_scoped_release release;
                    mv = tb.best_move(p.pos);
                }
                if (!mv) return py::none();
                return make_move_value(p, *mv);
            },
            "position"_a,
            R"(The perfect move as a MoveValue: from a WIN the move to the LOSS of least depth, from a
LOSS the move to the child of greatest depth; ties to the earliest move. Its value equals
value(position). None when the side to move has no move. Raises NotStored.)")
        .def(
            "perfect_line",
            [](const PyTablebase& t, const PositionArg& position) {
                const PyPosition p = t.arg(position);
                const auto tb = t.handle();
                std::vector<konane::MoveValue> line;
                {
                    py::gil_scoped_release release;
                    line = tb.perfect_line(p.pos);
                }
                return make_line(p, line);
            },
            "position"_a,
            R"(Perfect moves, one per ply, until the side to move has none, as MoveValues (each the
value for its mover). Its length equals value(position).depth. Raises NotStored.)")
        .def(
            "openings",
            [](const PyTablebase& t) {
                const auto tb = t.handle();
                std::optional<konane::Openings> o;
                {
                    py::gil_scoped_release release;
                    o = konane::compute_openings(tb);
                }
                const Board& b = tb.board();
                auto choice = [&](const konane::OpeningChoice& c) {
                    return g_types.opening_choice(
                        konane::format_move(b, c.black),
                        c.white ? py::object(py::str(konane::format_move(b, *c.white)))
                                : py::object(py::none()),
                        konane::color_name(c.winner), c.depth);
                };
                py::list lines, choices;
                for (const auto& l : o->lines) {
                    lines.append(g_types.opening_line(konane::format_move(b, l.black),
                                                      konane::format_move(b, l.white),
                                                      konane::color_name(l.winner), l.depth));
                }
                for (const auto& c : o->choices)
                    choices.append(choice(c));
                return g_types.openings(lines, choices,
                                        o->best ? choice(*o->best) : py::object(py::none()),
                                        konane::color_name(o->winner));
            },
            R"(The opening table as an Openings(lines, choices, best, winner): every removal pair with
its winner and depth (plies from Black's first jump), White's best reply to each Black removal,
Black's best removal and who wins the board. The winner hurries, the loser delays; ties go to
the earlier square. Raises NotStored if an opening position is missing.)");

    // ------------------------------------------------------------------------------------------
    m.def("generate", &generate, "board"_a, py::kw_only(), "rules"_a = "brainking", "threads"_a = 0,
          "output"_a = py::none(), "progress"_a = py::none(), "gap"_a = py::none(),
          R"(Enumerates every position reachable after the removals of a board and ruleset, solves
them all by retrograde analysis and writes the table file; returns a GenerateReport.

board: 'RxC' or (rows, cols), at most 36 squares. rules: 'brainking', 'center' or 'any'.
gap: None, or two adjacent squares such as 'c3,c4': the table then holds the positions reachable
from that gap alone (Black to move; default output 'konane-RxC-gap-c3-c4.kbt'; the report's
rules is then 'gap-c3-c4'); a rules other than the default must allow the gap.
threads: 0 for every core. output: the file to write (default 'konane-RxC-RULES.kbt' in the
current directory); written under a temporary name and renamed when complete, so a failure or
an interruption leaves no file under that name; the finished steps stay in OUTPUT.work, and
calling generate() again with the same output resumes from them (the directory is removed
once the table is complete). progress: None or a callable
progress(phase, pieces, done, total) called from time to time (phase 'enumerate', 'hash',
'solve' or 'write'; pieces the layer's piece count; done and total positions, total 0 when unknown),
possibly from a worker thread. An exception raised by progress, or Ctrl-C, stops the
generation at the next layer and is raised. Same board and ruleset give the same file for any
thread count. Runs without the GIL. Raises ValueError for a board that is too large or bad
arguments, FormatError / IoError when the file cannot be written.)");

    def_search(
        m, "solve",
        [](konane::Searcher& searcher, Position p) {
            SolveResult r;
            r.value = searcher.value(p);
            r.moves = searcher.moves(p);
            r.line = searcher.perfect_line(p);
            r.visited = searcher.positions();
            return r;
        },
        [](const PyPosition& at, const SolveResult& r) {
            const auto best = konane::pick_best(r.moves);
            return g_types.solution(
                make_value(r.value), best ? make_move_value(at, *best) : py::object(py::none()),
                make_move_values(at, r.moves), make_line(at, r.line), r.visited);
        },
        R"(The value, every move's value, the perfect move and the perfect line of any position on
a board of up to 64 squares (1x64 .. 8x8 .. 64x1), by memoised negamax (for positions no table
holds: single rows, positions from combinatorial game theory, boards too large for a table). Returns a Solution.

position: a konane.Position or a string (parsed on table's board when a table is given).
rules: the opening ruleset (default: the position's, or the table's). table: a
konane.Tablebase of the same board whose stored values the search uses once checked against
their children. jumps_only: treat the full board and one-hole boards as jump positions, as in
combinatorial game theory. max_positions: most positions the search may remember (0: no
limit). Same values and tie-breaks as Tablebase. Runs without the GIL. Raises SearchLimit
when over max_positions, ValueError for bad input.)");

    def_search(
        m, "outcome",
        [](konane::Searcher& searcher, Position p) {
            const auto black = searcher.value(Position{p.occ, Color::Black});
            const auto white = searcher.value(Position{p.occ, Color::White});
            return konane::outcome_of(black, white);
        },
        [](const PyPosition&, konane::Outcome o) { return std::string(konane::outcome_name(o)); },
        R"(The outcome class of the position's pieces (combinatorial game theory), by search with
Black to move and with White to move: 'black' (Black wins whoever starts), 'white', 'first'
(the player to move wins) or 'second' (the player to move loses). The side to move of
`position` is ignored. Arguments and errors as solve().)");

    m.attr("__version__") = "0.1.0";
}
