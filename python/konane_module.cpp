// The Python module `konane` (pybind11): positions and legal moves (core/), tables
// (probe/probe.hpp, probe/openings.hpp), the searches for positions no table holds
// (probe/search.hpp: values with depth; probe/proof.hpp: win/loss by proof search) and the
// generator (solver/solve.hpp: generate()). docs/python.md is its reference.
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
#include <pybind11/eval.h>
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <variant>
#include <vector>

#include "cgt/konane.hpp"
#include "core/board.hpp"
#include "core/gap.hpp"
#include "core/movegen.hpp"
#include "core/notation.hpp"
#include "core/symmetry.hpp"
#include "format/table.hpp"
#include "konane_version.hpp"
#include "probe/answer.hpp"
#include "probe/openings.hpp"
#include "probe/probe.hpp"
#include "probe/proof.hpp"
#include "probe/search.hpp"
#include "process/resource_error.hpp"
#include "python/engine_bindings.hpp"
#include "python/stoppable.hpp"
#include "solver/estimate.hpp"
#include "solver/keyfile.hpp"
#include "solver/solve.hpp"

namespace py = pybind11;
using namespace pybind11::literals;

namespace {

using konane::Board;
using konane::Color;
using konane::Position;
using konane::Ruleset;
using konane::python::run_stoppable;

/// The named-tuple types defined in Python at import (kTypes), looked up once: each holds a
/// reference it never releases, so that the types outlive every call even if the module's
/// attributes are reassigned.
struct Types {
    py::handle value, move_value, opening_line, opening_choice, openings, solution, layer_report,
        generate_report, outcome, layer, proof_solution, searched_opening, searched_choice,
        searched_openings;
};
Types g_types;
/// konane.IoError (a FormatError and an OSError), created at import and never released.
PyObject* g_io_error = nullptr;

/// Text from the C++ library (a file name, or a message naming one) as a Python str, decoded as
/// Python decodes file names (os.fsdecode: UTF-8, undecodable bytes as surrogates), so that a
/// name that is not UTF-8 survives and os.fsencode() gives its bytes back.
py::str fs_str(const std::string& text) {
    PyObject* o =
        PyUnicode_DecodeFSDefaultAndSize(text.data(), static_cast<Py_ssize_t>(text.size()));
    if (o == nullptr) throw py::error_already_set();
    return py::reinterpret_steal<py::str>(o);
}

/// Sets the Python error `type` with `message` decoded by fs_str() (never an empty message
/// because of bytes that are not UTF-8).
void set_error(PyObject* type, const char* message) {
    PyObject* text = PyUnicode_DecodeFSDefault(message);
    if (text == nullptr) {
        PyErr_Clear();
        PyErr_SetString(type, "(message not decodable)");
        return;
    }
    PyErr_SetObject(type, text);
    Py_DECREF(text);
}

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

[[noreturn]] void throw_not_stored(const PyTablebase& t, const konane::Tablebase& tb,
                                   const PyPosition& p) {
    throw konane::NotStored("position " + konane::format_position(p.board, p.pos) +
                            " is not stored in " + t.path() + " (not reachable on " +
                            p.board.name() + (tb.opening().gap ? " from " : " under ") +
                            konane::opening_text(tb.board(), tb.opening()) + ")");
}

/// The symmetry group of board b, made once per board size (under the GIL) and kept.
const konane::SymmetryGroup& group_of(const Board& b) {
    static std::map<std::pair<int, int>, std::unique_ptr<konane::SymmetryGroup>> groups;
    auto& g = groups[{b.rows, b.cols}];
    if (!g) g = std::make_unique<konane::SymmetryGroup>(b);
    return *g;
}

/// The squares of p's pieces of colour c (a piece's colour is its square's: rules.md "Board
/// and colours"), in square order a1, b1, ..., as names.
std::vector<std::string> squares_of(const PyPosition& p, Color c) {
    std::vector<std::string> out;
    for (int s = 0; s < p.board.squares(); ++s) {
        if ((p.pos.occ >> s) & 1 && p.board.color_of(s) == c)
            out.push_back(konane::square_name(p.board, s));
    }
    return out;
}

/// Position.from_squares(): the squares named in `black` and `white`, each on its colour's
/// square. @throws ValueError naming a malformed or doubled square, or a piece on a square of
/// the other colour.
PyPosition from_squares(const BoardArg& board, const std::vector<std::string>& black,
                        const std::vector<std::string>& white, const std::string& to_move,
                        const std::string& rules) {
    const Board b = board_arg(board);
    Color mover = Color::Black;
    if (to_move == "white" || to_move == "w") {
        mover = Color::White;
    } else if (to_move != "black" && to_move != "b") {
        throw py::value_error("to_move: expected 'black' or 'white' ('b' or 'w'), got '" + to_move +
                              "'");
    }
    std::uint64_t occ = 0;
    for (const auto* list : {&black, &white}) {
        const Color c = list == &black ? Color::Black : Color::White;
        for (const auto& name : *list) {
            const int s = konane::parse_square(b, name);
            if (b.color_of(s) != c) {
                throw py::value_error(std::string(c == Color::Black ? "black" : "white") + ": " +
                                      name + " is a " + konane::color_name(other(c)) +
                                      " square (rules.md \"Board and colours\": a piece stands "
                                      "on its own colour's squares)");
            }
            if ((occ >> s) & 1) throw py::value_error(name + " is given twice");
            occ |= std::uint64_t{1} << s;
        }
    }
    return PyPosition{b, konane::parse_ruleset(rules), Position{occ, mover}};
}

/// An SVG drawing of p: the board's squares, Black's pieces dark, White's light, files and
/// ranks named, the side to move under the board.
std::string svg_of(const PyPosition& p) {
    const int cell = 36, margin = 20, w = p.board.cols * cell + 2 * margin,
              h = p.board.rows * cell + 2 * margin + 16;
    std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(w) +
                      "\" height=\"" + std::to_string(h) + "\" viewBox=\"0 0 " + std::to_string(w) +
                      " " + std::to_string(h) + "\" font-family=\"sans-serif\" font-size=\"12\">";
    out += "<title>" + konane::format_position(p.board, p.pos) + "</title>";
    for (int s = 0; s < p.board.squares(); ++s) {
        const int f = p.board.file_of(s), row = p.board.rows - p.board.rank_of(s);
        const int x = margin + f * cell, y = margin + row * cell;
        out += "<rect x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(y) + "\" width=\"" +
               std::to_string(cell) + "\" height=\"" + std::to_string(cell) + "\" fill=\"" +
               (p.board.color_of(s) == Color::Black ? "#b58863" : "#f0d9b5") + "\"/>";
        if ((p.pos.occ >> s) & 1) {
            const bool black = p.board.color_of(s) == Color::Black;
            out += "<circle cx=\"" + std::to_string(x + cell / 2) + "\" cy=\"" +
                   std::to_string(y + cell / 2) + "\" r=\"" + std::to_string(cell * 2 / 5) +
                   "\" fill=\"" + (black ? "#111" : "#fafafa") + "\" stroke=\"#333\"/>";
        }
    }
    for (int f = 0; f < p.board.cols; ++f) {
        out += "<text x=\"" + std::to_string(margin + f * cell + cell / 2) + "\" y=\"" +
               std::to_string(margin + p.board.rows * cell + 14) + "\" text-anchor=\"middle\">" +
               konane::file_name(f) + "</text>";
    }
    for (int r = 0; r < p.board.rows; ++r) {
        out += "<text x=\"" + std::to_string(margin / 2) + "\" y=\"" +
               std::to_string(margin + r * cell + cell / 2 + 4) + "\" text-anchor=\"middle\">" +
               std::to_string(p.board.rows - r) + "</text>";
    }
    out += "<text x=\"" + std::to_string(margin) + "\" y=\"" + std::to_string(h - 4) + "\">" +
           konane::color_name(p.pos.to_move) + " to move</text></svg>";
    return out;
}

/// Memory for the proof search: a number of bytes, or a size such as "512M" (K, M, G or T:
/// powers of 1024). @throws ValueError for anything else, or under 64 bytes or over 1 TiB.
using MemoryArg = std::variant<std::uint64_t, std::string>;
std::size_t memory_arg(const MemoryArg& m) {
    std::uint64_t bytes = 0;
    if (const auto* n = std::get_if<std::uint64_t>(&m)) {
        bytes = *n;
    } else {
        const std::string& t = std::get<std::string>(m);
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
        bytes *= unit;
    }
    if (bytes < 64 || bytes > (1ULL << 40)) {
        throw py::value_error("memory: expected 64 bytes to 1 TiB, got " + std::to_string(bytes));
    }
    return static_cast<std::size_t>(bytes);
}

/// Thrown out of a search's or a generation's progress report to stop it when a Python
/// callback raised or a signal (Ctrl-C) is pending; the caller then raises the Python error.
struct Interrupted : std::exception {
    const char* what() const noexcept override { return "interrupted"; }
};

/// Checks for a pending signal (Ctrl-C) from a proof search's progress report: takes the GIL,
/// keeps the Python error and stops the search by throwing Interrupted.
struct ProofSignals {
    std::optional<py::error_already_set> error;
    void attach(konane::ProofSearch& s) {
        s.on_progress(
            [this](const konane::ProofProgress&) {
                py::gil_scoped_acquire gil;
                if (PyErr_CheckSignals() != 0) {
                    error.emplace();
                    throw Interrupted();
                }
            },
            0.1);
    }
    /// Raises the kept Python error (with the GIL held).
    [[noreturn]] void raise() {
        error->restore();
        error.reset();
        throw py::error_already_set();
    }
};

// ----------------------------------------------------------------------------------------------
// generate

/// The progress function given to generate(): calls the Python callback (if any) under the GIL,
/// from whichever thread reports, and checks for pending signals on the calling thread. A
/// Python error is kept, and raised by throwing Interrupted at the next report made on the
/// calling thread outside any parallel region, active or not (omp_get_level() == 0: an
/// exception must not cross an OpenMP region, even one that runs on one thread).
///
/// While the callback runs, its thread is marked (in_progress_callback): generate() called from
/// there is refused, since the generation that called back cannot go on until it returns.
thread_local bool in_progress_callback = false;

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
                    if (!callback.is_none()) {
                        in_progress_callback = true;
                        try {
                            callback(phase, pieces, done, total);
                        } catch (...) {
                            in_progress_callback = false;
                            throw;
                        }
                        in_progress_callback = false;
                    }
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
    if (in_progress_callback) {
        throw std::runtime_error(
            "generate() called from a progress callback of another generate(): refused (that "
            "generation waits for the callback to return); start the next one after it");
    }
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
    } catch (const konane::solver::KeyFileError& e) {
        throw konane::format::IoError(e.what());  // a work file that cannot be written or read
    } catch (const std::runtime_error& e) {
        // The solver's plain runtime_errors name a work directory or file that failed (removed
        // during the run, say): file-system failures, IoError as the documentation says.
        if (typeid(e) != typeid(std::runtime_error)) throw;
        throw konane::format::IoError(e.what());
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
    return g_types.generate_report(fs_str(o.output.string()), o.board.name(),
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
/// keyword-only rules, table, jumps_only, max_positions, wdl, memory and max_nodes, read by
/// search_setup(). Without wdl: work(searcher, position) on a Searcher of that setup without
/// the GIL, and finish(position, work's result) with it, whose result is returned. With wdl:
/// proof(setup, memory bytes, max_nodes), which releases the GIL itself.
template <class Work, class Finish, class Proof>
void def_search(py::module_& m, const char* name, Work work, Finish finish, Proof proof,
                const char* doc) {
    m.def(
        name,
        [work, finish, proof](const PositionArg& position, const std::optional<std::string>& rules,
                              const PyTablebase* table, bool jumps_only, std::size_t max_positions,
                              bool wdl, const MemoryArg& memory,
                              std::uint64_t max_nodes) -> py::object {
            SearchSetup s = search_setup(position, rules, table, jumps_only, max_positions);
            if (wdl) return proof(s, memory_arg(memory), max_nodes);
            std::optional<std::invoke_result_t<Work, konane::Searcher&, Position>> r;
            // Ctrl-C stops the search at its next progress report (every 65,536 positions).
            run_stoppable([&](const std::atomic<bool>& stop) {
                s.options.progress = [&stop](std::size_t) {
                    if (stop) throw Interrupted();
                };
                konane::Searcher searcher(s.at.board, s.options, s.table);
                r = work(searcher, s.at.pos);
            });
            return finish(s.at, *r);
        },
        "position"_a, py::kw_only(), "rules"_a = py::none(), "table"_a = py::none(),
        "jumps_only"_a = false, "max_positions"_a = 50'000'000, "wdl"_a = false,
        "memory"_a = "256M", "max_nodes"_a = 0, doc);
}

// ----------------------------------------------------------------------------------------------
// Proof search (probe/proof.hpp): win or loss without depth

/// The message of a proof search stopped at its node limit.
std::string undecided(std::uint64_t max_nodes) {
    return "not decided within max_nodes=" + std::to_string(max_nodes) +
           " nodes (raise max_nodes, or memory)";
}

/// outcome(wdl=True): the outcome class by two proof searches (Black to move, White to move)
/// sharing one transposition table. Raises SearchLimit when either is undecided.
py::object outcome_wdl(const SearchSetup& s, std::size_t memory, std::uint64_t max_nodes) {
    konane::ProofOptions o;
    o.rules = s.at.rules;
    o.jumps_only = s.options.jumps_only;
    o.memory_bytes = memory;
    o.max_nodes = max_nodes;
    ProofSignals signals;
    std::optional<bool> black, white;
    try {
        py::gil_scoped_release release;
        konane::ProofSearch search(s.at.board, o, s.table);
        signals.attach(search);
        black = search.solve(Position{s.at.pos.occ, Color::Black}).win;
        if (black) white = search.solve(Position{s.at.pos.occ, Color::White}).win;
    } catch (const Interrupted&) {
        signals.raise();
    }
    if (!black || !white) throw konane::SearchLimit(undecided(max_nodes));
    return g_types.outcome(konane::outcome_name(
        konane::outcome_of(konane::Value{*black, 0}, konane::Value{*white, 0})));
}

/// solve(wdl=True): win or loss of s.at by proof search. Raises SearchLimit when undecided
/// within max_nodes.
py::object solve_wdl(const SearchSetup& s, std::size_t memory, std::uint64_t max_nodes) {
    konane::ProofOptions o;
    o.rules = s.at.rules;
    o.jumps_only = s.options.jumps_only;
    o.memory_bytes = memory;
    o.max_nodes = max_nodes;
    ProofSignals signals;
    std::optional<konane::ProofResult> r;
    try {
        py::gil_scoped_release release;
        konane::ProofSearch search(s.at.board, o, s.table);
        signals.attach(search);
        r = search.solve(s.at.pos);
    } catch (const Interrupted&) {
        signals.raise();
    }
    if (!r->win) throw konane::SearchLimit(undecided(max_nodes));
    py::object move = py::none();
    if (r->winning_move) move = py::str(konane::format_move(s.at.board, r->winning_move->move));
    return g_types.proof_solution(*r->win, move, r->nodes, r->seconds, r->cpu_seconds,
                                  r->table_hits);
}

/// openings(board, search=True): every opening of the board decided by proof search.
py::object openings_search(const BoardArg& board, bool search,
                           const std::optional<std::string>& rules, const PyTablebase* table,
                           const MemoryArg& memory, std::uint64_t max_nodes, int threads) {
    if (!search) {
        throw py::value_error(
            "openings(search=False): the openings of a table, with depths, "
            "are Tablebase.openings(); konane.openings() is the proof search");
    }
    const Board b = board_arg(board);
    konane::ProofOptions o;
    o.rules = konane::parse_ruleset(
        rules ? *rules
              : (table ? std::string(konane::ruleset_name(table->handle().rules()))
                       : std::string("brainking")));
    o.memory_bytes = memory_arg(memory);
    o.max_nodes = max_nodes;
    if (threads < 1 || threads > 1024) {
        throw py::value_error("threads=" + std::to_string(threads) + ": from 1 to 1024");
    }
    o.threads = threads;
    std::optional<konane::Tablebase> tb;
    if (table) {
        tb = table->handle();
        if (!(tb->board() == b)) {
            throw py::value_error("the board is " + b.name() + ", the table " + table->path() +
                                  " is for a " + tb->board().name() + " board");
        }
        if (tb->rules() != o.rules) {
            throw py::value_error("rules='" + *rules + "' differs from the table's ruleset " +
                                  konane::ruleset_name(tb->rules()));
        }
    }
    ProofSignals signals;
    std::optional<konane::SearchedOpenings> r;
    try {
        py::gil_scoped_release release;
        konane::ProofSearch search(b, o, tb);
        signals.attach(search);
        r = konane::search_openings(search);
    } catch (const Interrupted&) {
        signals.raise();
    }
    auto winner = [](const std::optional<Color>& c) -> py::object {
        return c ? py::object(py::str(konane::color_name(*c))) : py::object(py::none());
    };
    py::list lines, choices;
    for (const auto& l : r->lines) {
        lines.append(g_types.searched_opening(konane::format_move(b, l.black),
                                              konane::format_move(b, l.white), winner(l.winner),
                                              l.nodes, l.seconds));
    }
    for (const auto& c : r->choices) {
        choices.append(g_types.searched_choice(
            konane::format_move(b, c.black), winner(c.winner),
            c.white_wins_by ? py::object(py::str(konane::format_move(b, *c.white_wins_by)))
                            : py::object(py::none())));
    }
    return g_types.searched_openings(lines, choices, winner(r->winner), r->nodes, r->seconds);
}

// ----------------------------------------------------------------------------------------------
// Whole tables: layers, their positions and values

/// The index into the table's layers of the layer of `pieces` pieces. @throws ValueError naming
/// the piece counts the table has.
std::size_t layer_of(const konane::Tablebase& tb, int pieces) {
    const int i = pieces < 0 ? -1 : tb.table().layer_index(static_cast<std::uint32_t>(pieces));
    if (i < 0) {
        std::string have;
        for (const auto& l : tb.table().layers())
            have += (have.empty() ? "" : ", ") + std::to_string(l.pieces);
        throw py::value_error("pieces=" + std::to_string(pieces) + ": the table has no layer of " +
                              std::to_string(pieces) + " pieces (its layers: " + have + ")");
    }
    return static_cast<std::size_t>(i);
}

/// The positions of the table's layers in file order (ascending canonical key: the side to
/// move, then the occupied squares), each with its value: what Tablebase.positions() returns.
/// Decodes one layer at a time without the GIL (its keys and values: 9 bytes per class).
/// Storage made by operator new holds an exhausted iterator (see PyPosition).
class LayerIterator {
  public:
    LayerIterator() = default;
    LayerIterator(konane::Tablebase tb, std::vector<std::size_t> layers)
        : tb_(std::move(tb)), layers_(std::move(layers)) {}

    static void* operator new(std::size_t size) {
        void* p = ::operator new(size);
        ::new (p) LayerIterator();
        return p;
    }
    static void operator delete(void* p) { ::operator delete(p); }

    py::object next() {
        while (at_ == keys_.size()) {
            if (next_layer_ == layers_.size()) throw py::stop_iteration();
            const std::size_t layer = layers_[next_layer_++];
            py::gil_scoped_release release;
            tb_->table().read_keys(layer, keys_);
            tb_->table().read_values(layer, values_);
            at_ = 0;
        }
        const std::size_t i = at_++;
        return py::make_tuple(
            PyPosition{tb_->board(), tb_->rules(), konane::position_of_key(keys_[i])},
            make_value(konane::Value::from_depth(values_[i])));
    }

  private:
    std::optional<konane::Tablebase> tb_;
    std::vector<std::size_t> layers_;
    std::size_t next_layer_ = 0, at_ = 0;
    std::vector<std::uint64_t> keys_;
    std::vector<std::uint8_t> values_;
};

/// Wins and losses (for the side to move) among a layer's classes, read from its values
/// without the GIL.
std::pair<std::uint64_t, std::uint64_t> layer_counts(const konane::Tablebase& tb,
                                                     std::size_t layer) {
    py::gil_scoped_release release;
    std::vector<std::uint8_t> values;
    tb.table().read_values(layer, values);
    const auto wins = static_cast<std::uint64_t>(
        std::count_if(values.begin(), values.end(), [](std::uint8_t d) { return d & 1; }));
    return {wins, values.size() - wins};
}

/// Tablebase.layer_arrays(): a layer's keys (uint64) and depths (uint8) as NumPy arrays.
py::tuple layer_arrays(const konane::Tablebase& tb, int pieces) {
    const std::size_t layer = layer_of(tb, pieces);
    try {
        py::module_::import("numpy");
    } catch (py::error_already_set& e) {
        if (!e.matches(PyExc_ImportError)) throw;
        PyErr_SetString(PyExc_ImportError,
                        "Tablebase.layer_arrays() needs NumPy (Debian: python3-numpy; pip: "
                        "numpy); Tablebase.positions() needs nothing");
        throw py::error_already_set();
    }
    const auto n = static_cast<py::ssize_t>(tb.table().layers()[layer].classes);
    py::array_t<std::uint64_t> keys(n);
    py::array_t<std::uint8_t> depths(n);
    std::uint64_t* key_data = keys.mutable_data();
    std::uint8_t* depth_data = depths.mutable_data();
    {
        py::gil_scoped_release release;
        std::vector<std::uint64_t> k;
        std::vector<std::uint8_t> v;
        tb.table().read_keys(layer, k);
        tb.table().read_values(layer, v);
        std::copy(k.begin(), k.end(), key_data);
        std::copy(v.begin(), v.end(), depth_data);
    }
    return py::make_tuple(keys, depths);
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

class Outcome(str):
    """An outcome class (combinatorial game theory): a str, one of "black" (Black wins whoever
    starts), "white" (White wins whoever starts), "first" (the player to move wins) or "second"
    (the player to move loses), compared and hashed as that word.

    letter: CGT's letter for it, Black being Left and White Right: "L", "R", "N" or "P".
    """
    __slots__ = ()
    LETTERS = {"black": "L", "white": "R", "first": "N", "second": "P"}

    @property
    def letter(self):
        """CGT's letter: L (Left = Black wins), R (Right = White wins), N (next player, the
        one to move, wins), P (previous player wins: the one to move loses)."""
        return Outcome.LETTERS[str(self)]

class Layer:
    """One layer of a table (Tablebase.layers): the stored positions with `pieces` pieces.

    pieces: pieces on the board; classes: positions stored (up to symmetry); raw: the positions
        they stand for (rules.md "Equivalent positions");
    wins, losses: classes that are a WIN / a LOSS for the side to move (wins + losses ==
        classes), counted when first read by decoding the layer's values, then kept.
    """
    __slots__ = ("pieces", "classes", "raw", "_count", "_counts")

    def __init__(self, pieces, classes, raw, count):
        self.pieces, self.classes, self.raw = pieces, classes, raw
        self._count, self._counts = count, None

    def _get(self):
        if self._counts is None:
            self._counts = tuple(self._count())
        return self._counts

    @property
    def wins(self):
        """Classes won by the side to move."""
        return self._get()[0]

    @property
    def losses(self):
        """Classes lost by the side to move."""
        return self._get()[1]

    def __repr__(self):
        counts = "" if self._counts is None else ", wins=%d, losses=%d" % self._counts
        return "Layer(pieces=%d, classes=%d, raw=%d%s)" % (self.pieces, self.classes,
                                                            self.raw, counts)

class ProofSolution(_typing.NamedTuple):
    """What konane.solve(..., wdl=True) found by proof search (win or loss, no depth).

    win: True when the side to move wins; winning_move: a winning move ("c5-c3"), None when it
    loses or has no move; nodes: positions visited; seconds: wall time; cpu_seconds: CPU
    time of the search's thread; table_hits: values taken from the table given.
    """
    win: bool
    winning_move: _typing.Optional[str]
    nodes: int
    seconds: float
    cpu_seconds: float
    table_hits: int

class SearchedOpening(_typing.NamedTuple):
    """One opening decided by proof search (konane.openings()).

    black, white: Black's removal and White's reply; winner: "black" or "white" with perfect
    play from there, None when not decided within max_nodes; nodes, seconds: its search.
    """
    black: str
    white: str
    winner: _typing.Optional[str]
    nodes: int
    seconds: float

class SearchedChoice(_typing.NamedTuple):
    """Black's removal against White's best reply (konane.openings()).

    black: the removal; winner: "white" when some reply wins for White, "black" when every
    reply loses for White, None when undecided; white_wins_by: White's first winning reply.
    """
    black: str
    winner: _typing.Optional[str]
    white_wins_by: _typing.Optional[str]

class SearchedOpenings(_typing.NamedTuple):
    """Every opening of a board decided by proof search (konane.openings()).

    lines: a SearchedOpening per (removal, reply), by Black's removal then White's reply;
    choices: a SearchedChoice per Black removal; winner: "black" or "white" from the full board
    with perfect play, None when undecided lines leave it open; nodes, seconds: all lines.
    """
    lines: _typing.List[SearchedOpening]
    choices: _typing.List[SearchedChoice]
    winner: _typing.Optional[str]
    nodes: int
    seconds: float

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
    Engine         the engine: the move to play in any position (table, proof search, search)
    outcome()      the outcome class of a position ('black', 'white', 'first', 'second')

Errors: NotStored (the table does not hold the position), FormatError (a missing, damaged or
foreign table file; IoError for a failed write), SearchLimit (a search over its memory limit),
ResourceError (a memory budget or free disk too small for a generation),
ValueError (malformed notation, a board out of range, an illegal move, a position of another
board). Rules and notation: docs/rules.md of the project; the API: docs/python.md.)";

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
    auto& search_limit =
        py::register_exception<konane::SearchLimit>(m, "SearchLimit", PyExc_RuntimeError);
    search_limit.attr("__doc__") =
        "A search would keep more positions than its max_positions allows, or a proof search "
        "(wdl=True) did not decide within max_nodes (a RuntimeError).";
    auto& resource_error =
        py::register_exception<konane::ResourceError>(m, "ResourceError", PyExc_RuntimeError);
    resource_error.attr("__doc__") =
        "A run that lacks memory or disk: a memory budget that cannot hold it, or a file system "
        "without the free space it needs (a RuntimeError); the message says how much is needed.";
    // Registered last, so tried first: every error of the library with its message decoded as
    // file names are (a message naming a file that is not UTF-8 keeps its text), IoError before
    // the FormatError it derives from, and a file-system error (a work directory removed during
    // generate(), say) as IoError.
    static PyObject* const not_stored_type = not_stored.ptr();
    static PyObject* const format_error_type = format_error.ptr();
    static PyObject* const search_limit_type = search_limit.ptr();
    static PyObject* const resource_error_type = resource_error.ptr();
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const konane::format::IoError& e) {
            set_error(g_io_error, e.what());
        } catch (const konane::format::FormatError& e) {
            set_error(format_error_type, e.what());
        } catch (const std::filesystem::filesystem_error& e) {
            set_error(g_io_error, e.what());
        } catch (const konane::NotStored& e) {
            set_error(not_stored_type, e.what());
        } catch (const konane::SearchLimit& e) {
            set_error(search_limit_type, e.what());
        } catch (const konane::ResourceError& e) {
            set_error(resource_error_type, e.what());
        } catch (const py::value_error& e) {
            set_error(PyExc_ValueError, e.what());
        } catch (const std::invalid_argument& e) {
            set_error(PyExc_ValueError, e.what());
        }
    });

    py::exec(kTypes, m.attr("__dict__"));
    auto keep = [&](const char* name) { return py::object(m.attr(name)).release(); };
    g_types = Types{keep("Value"),          keep("MoveValue"),       keep("OpeningLine"),
                    keep("OpeningChoice"),  keep("Openings"),        keep("Solution"),
                    keep("LayerReport"),    keep("GenerateReport"),  keep("Outcome"),
                    keep("Layer"),          keep("ProofSolution"),   keep("SearchedOpening"),
                    keep("SearchedChoice"), keep("SearchedOpenings")};

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
        .def(
            "__reduce__",
            [](const PyPosition& p) {
                // konane.Position(text, rules): works at every pickle protocol (0 to 5).
                return py::make_tuple(py::module_::import("konane").attr("Position"),
                                      py::make_tuple(konane::format_position(p.board, p.pos),
                                                     konane::ruleset_name(p.rules)));
            },
            "Pickles as konane.Position(text, rules) (any protocol).")
        .def_static(
            "from_squares", &from_squares, "board"_a, py::kw_only(),
            "black"_a = std::vector<std::string>{}, "white"_a = std::vector<std::string>{},
            "to_move"_a = "black", "rules"_a = "brainking",
            R"(The position with Black's pieces on the squares `black` and White's on `white`
(square names such as 'c3'; every other square empty) and `to_move` ('black' or 'white') to
move. board: 'RxC' or (rows, cols). A piece must stand on its own colour's square (rules.md
"Board and colours": Black's squares are those of the colour of a{R}). Raises ValueError for a
malformed square, one off the board, one given twice or on the other colour's square.)")
        .def_property_readonly(
            "black", [](const PyPosition& p) { return squares_of(p, Color::Black); },
            "The squares of Black's pieces ('x'), in square order a1, b1, ..., a2, ...")
        .def_property_readonly(
            "white", [](const PyPosition& p) { return squares_of(p, Color::White); },
            "The squares of White's pieces ('o'), in square order.")
        .def(
            "swap_colors",
            [](const PyPosition& p) {
                const auto& g = group_of(p.board);
                for (int i = 0; i < g.size(); ++i) {
                    if (g.swaps_colour(i))
                        return PyPosition{p.board, p.rules,
                                          Position{g.apply(i, p.pos.occ), p.pos.to_move}};
                }
                throw py::value_error(
                    "swap_colors: no symmetry of the " + p.board.name() +
                    " board exchanges the square colours (both sides odd), so Black's and "
                    "White's pieces cannot trade places on it");
            },
            R"(The position with Black's and White's pieces exchanged and the same colour to move:
combinatorial game theory's negative -G (Black's wins become White's). A piece's colour is its
square's, so the exchange is made by a mirror that maps Black's squares onto White's (left-right
when the board has an even number of files, else top-bottom). Raises ValueError on a board with
both sides odd (5x5, 3x7), where no mirror does.)")
        .def(
            "canonical",
            [](const PyPosition& p) {
                return PyPosition{p.board, p.rules, group_of(p.board).canonical(p.pos)};
            },
            R"(The representative of the position's class: the least image under the board's
symmetries (rules.md "Equivalent positions"; a symmetry that exchanges the square colours also
exchanges the side to move). Equivalent positions have equal canonical() forms; the table
stores positions in this form (Tablebase.positions()).)")
        .def(
            "equivalent",
            [](const PyPosition& a, const PyPosition& b) {
                return a.board == b.board && a.rules == b.rules &&
                       group_of(a.board).canonical(a.pos) == group_of(b.board).canonical(b.pos);
            },
            "other"_a,
            R"(True when `other` is the same game up to a symmetry of the board (equality up to
symmetry; == compares squares exactly): same board and ruleset, and a rotation or mirror maps
one onto the other with the mover's pieces on the mover's pieces.)")
        .def("_repr_svg_", &svg_of,
             "An SVG drawing of the board (shown by Jupyter notebooks): Black's pieces dark, "
             "White's light, files and ranks named, the side to move below.")
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

    py::class_<LayerIterator>(
        m, "_LayerIterator", "The iterator Tablebase.positions() returns: (Position, Value) pairs.")
        .def("__iter__", [](py::object self) { return self; })
        .def("__next__", &LayerIterator::next);

    // ------------------------------------------------------------------------------------------
    py::class_<PyTablebase>(m, "Tablebase", R"(A table file opened for probing (memory-mapped,
validated). Every method is thread-safe and runs without the GIL; positions may be given as
konane.Position (of the table's board) or as strings, which are parsed on the table's board;
moves and the positions returned follow the table's ruleset. The table answers the
positions reachable under its ruleset after the two removals, and the opening-stage positions
(the full board, and a one-hole board whose hole Black may empty) from their children.

    with konane.Tablebase('konane-5x5-brainking.kbt') as tb:
        print(tb.value(tb.start))

Tablebase(path, board=None, rules=None, load='auto'): board ('RxC' or (rows, cols)) and rules,
when given, must match the table's. load says where the table is read from: 'map' (the file
mapped: opens at once, shares the page cache), 'memory' (the whole file read into this
process's memory on 2 MiB huge pages: faster probes of a large table, costs the file's size in
memory, see the memory property) or 'auto' (memory when the kernel gives anonymous memory huge
pages and the file takes at most a quarter of the available memory, else map). Raises
FormatError for a missing, damaged or foreign file or a mismatch, ValueError for another load.)")
        .def(py::init<const std::filesystem::path&, const std::optional<BoardArg>&,
                      const std::optional<std::string>&, const std::string&>(),
             "path"_a, "board"_a = py::none(), "rules"_a = py::none(), "load"_a = "auto")
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
        .def_property_readonly(
            "path", [](const PyTablebase& t) { return fs_str(t.path()); },
            "The file name given to open it, as a str (a name that is not UTF-8 is decoded as "
            "os.fsdecode() does: os.fsencode(tb.path) gives its bytes back).")
        .def_property_readonly(
            "board", [](const PyTablebase& t) { return t.handle().board().name(); },
            "The table's board size, 'RxC'.")
        .def_property_readonly(
            "rules", [](const PyTablebase& t) { return konane::ruleset_name(t.handle().rules()); },
            "The table's opening ruleset ('any' for a gap's table).")
        .def_property_readonly(
            "memory",
            [](const PyTablebase& t) {
                const auto m = t.handle().table().memory_use();
                py::dict d;
                d["load"] = konane::format::load_name(m.load);
                d["bytes"] = m.bytes;
                d["huge_page_bytes"] = m.huge;
                return d;
            },
            "What the table holds in memory of its own: {'load': 'map' or 'memory', 'bytes': "
            "the anonymous memory holding the file (0 when mapped), 'huge_page_bytes': how much "
            "of it is in transparent huge pages (-1 when unknown)}.")
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
             [](const PyTablebase& t) -> py::str {
                 if (!t.opened()) return py::str("<konane.Tablebase (never opened)>");
                 const py::str path = py::repr(fs_str(t.path()));
                 if (t.closed()) return py::str("<konane.Tablebase {} (closed)>").format(path);
                 const auto tb = t.handle();
                 return py::str("<konane.Tablebase {}: {} {}>")
                     .format(path, tb.board().name(),
                             konane::opening_tag(tb.board(), tb.opening()));
             })
        .def(
            "__reduce_ex__",
            [](const PyTablebase&, const py::object&) -> py::object {
                throw py::type_error(
                    "cannot pickle a konane.Tablebase (an open file mapping): pickle its path "
                    "and open it again with konane.Tablebase(path)");
            },
            "protocol"_a, "Refuses: a Tablebase cannot be pickled or copied (TypeError).")
        .def(
            "__len__",
            [](const PyTablebase& t) {
                std::uint64_t n = 0;
                for (const auto& l : t.handle().table().layers())
                    n += l.classes;
                return n;
            },
            "The number of positions stored (classes: positions up to symmetry).")
        .def_property_readonly(
            "layers",
            [](PyTablebase& t) -> py::object {
                const auto tb = t.handle();
                if (!t.layers_cache()) {
                    py::list out;
                    const auto& layers = tb.table().layers();
                    for (std::size_t i = 0; i < layers.size(); ++i) {
                        py::cpp_function count([tb, i] {
                            const auto [wins, losses] = layer_counts(tb, i);
                            return py::make_tuple(wins, losses);
                        });
                        out.append(g_types.layer(layers[i].pieces, layers[i].classes, layers[i].raw,
                                                 count));
                    }
                    t.layers_cache() = out;
                }
                return t.layers_cache();
            },
            R"(The table's layers, by ascending piece count: a list of konane.Layer(pieces, classes,
raw, wins, losses). wins and losses (classes won or lost by the side to move) are counted when
first read, by decoding the layer's values (a fraction of a second per million classes).)")
        .def(
            "positions",
            [](const PyTablebase& t, std::optional<int> pieces) {
                const auto tb = t.handle();
                std::vector<std::size_t> layers;
                if (pieces) {
                    layers.push_back(layer_of(tb, *pieces));
                } else {
                    for (std::size_t i = 0; i < tb.table().layers().size(); ++i)
                        layers.push_back(i);
                }
                return LayerIterator(tb, std::move(layers));
            },
            "pieces"_a = py::none(),
            R"(An iterator over the stored positions and their values: (Position, Value) pairs, the
layer of `pieces` pieces (None: every layer, ascending) in file order (ascending canonical key:
side to move, then occupied squares). Each position is its class's canonical() form, once per
class. Decodes one layer at a time (9 bytes per class of the layer). Raises ValueError for a
piece count the table has no layer of.)")
        .def(
            "layer_arrays",
            [](const PyTablebase& t, int pieces) { return layer_arrays(t.handle(), pieces); },
            "pieces"_a,
            R"(The layer of `pieces` pieces as two NumPy arrays in file order: keys (uint64: bit s
set when square s = (rank - 1) * cols + file is occupied, bit 63 set when White is to move;
canonical forms) and depths (uint8: the depth to the end in plies, odd for a WIN of the side to
move, even for a LOSS). Needs NumPy (ImportError naming it otherwise). Raises ValueError for a
piece count the table has no layer of.)")
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
            konane::Answer a = konane::search_answer(searcher, p);
            SolveResult r;
            r.value = a.value;
            r.moves = std::move(a.moves);
            r.line = std::move(a.line);
            r.visited = searcher.positions();
            return r;
        },
        [](const PyPosition& at, const SolveResult& r) {
            const auto best = konane::pick_best(r.moves);
            return g_types.solution(
                make_value(r.value), best ? make_move_value(at, *best) : py::object(py::none()),
                make_move_values(at, r.moves), make_line(at, r.line), r.visited);
        },
        &solve_wdl,
        R"(The value, every move's value, the perfect move and the perfect line of any position on
a board of up to 64 squares (1x64 .. 8x8 .. 64x1), by memoised negamax (for positions no table
holds: single rows, positions from combinatorial game theory, boards too large for a table).
Returns a Solution. With wdl=True: win or loss only (no depth, no line), by proof search
(probe/proof.hpp: alpha-beta with a bounded transposition table), which decides positions the
negamax cannot hold, such as the 6x6 openings, in seconds; returns a ProofSolution.

position: a konane.Position or a string (parsed on table's board when a table is given).
rules: the opening ruleset (default: the position's, or the table's). table: a
konane.Tablebase of the same board whose stored values the search uses once checked against
their children. jumps_only: treat the full board and one-hole boards as jump positions, as in
combinatorial game theory (the default False follows the opening: see outcome()).
max_positions: most positions the negamax may remember (0: no limit). wdl: proof search.
memory: with wdl, bytes of its transposition table (an int, or a size such as '512M').
max_nodes: with wdl, most nodes it may visit (0: no limit). Same values and tie-breaks as
Tablebase. Runs without the GIL; Ctrl-C stops either search. Raises SearchLimit when over
max_positions or, with wdl, not decided within max_nodes; ValueError for bad input.)");

    def_search(
        m, "outcome",
        [](konane::Searcher& searcher, Position p) {
            const auto black = searcher.value(Position{p.occ, Color::Black});
            const auto white = searcher.value(Position{p.occ, Color::White});
            return konane::outcome_of(black, white);
        },
        [](const PyPosition&, konane::Outcome o) -> py::object {
            return g_types.outcome(konane::outcome_name(o));
        },
        &outcome_wdl,
        R"(The outcome class of the position's pieces (combinatorial game theory), by search with
Black to move and with White to move: a konane.Outcome, a str 'black' (Black wins whoever
starts), 'white', 'first' (the player to move wins) or 'second' (the player to move loses),
whose .letter is CGT's L, R, N or P (Black is Left, White is Right). The side to move of
`position` is ignored.

Note for game theorists: by default (jumps_only=False) a full board or a one-hole board is
played as the opening (removals first), as in a real game; CGT's outcome of such a position as
a jumps-only game needs jumps_only=True. Other positions are jump positions either way.
Arguments (wdl, memory, max_nodes included) and errors as solve().)");

    m.def("openings", &openings_search, "board"_a, py::kw_only(), "search"_a = true,
          "rules"_a = py::none(), "table"_a = py::none(), "memory"_a = "256M", "max_nodes"_a = 0,
          "threads"_a = 1,
          R"(Every opening of a board (Black's removal, White's reply) decided by proof search:
win or loss, no depth (Tablebase.openings() gives depths from a table). Returns
SearchedOpenings(lines, choices, winner, nodes, seconds). Every line is searched, one after
another with one transposition table, even once the board's verdict is known.

board: 'RxC' or (rows, cols), up to 64 squares. search: must be True (the proof search; a
table's own openings are Tablebase.openings()). rules: the opening ruleset. table: a
konane.Tablebase of the board and ruleset whose stored values the search uses. memory: bytes of
the transposition table (an int or a size such as '512M'). rules: default the table's, or
'brainking'. max_nodes: most nodes per line (0:
no limit); a line not decided within it has winner None. threads: threads of each line's search,
sharing the transposition table (1 to 1024; nodes and seconds then count every thread's). Runs without the GIL; Ctrl-C stops it.
Raises ValueError for bad input.)");

    // ------------------------------------------------------------------------------------------
    // Combinatorial game values (cgt/): konane.value(position) and Position.value().
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
        const std::uint64_t budget =
            memory ? memory_arg(*memory) : konane::solver::default_memory_budget();
        const std::uint64_t by_memory = budget / konane::cgt::kValueBytesPerPosition;
        if (by_memory == 0) {
            throw py::value_error("memory: " + std::to_string(budget) + " bytes is too small (" +
                                  std::to_string(konane::cgt::kValueBytesPerPosition) +
                                  " bytes a position)");
        }
        const auto asked = static_cast<std::uint64_t>(max_positions);
        const bool memory_binds = asked == 0 || by_memory < asked;
        konane::cgt::GameStore store;
        konane::cgt::ValueOptions opt;
        opt.max_positions = static_cast<std::size_t>(memory_binds ? by_memory : asked);
        opt.max_games = static_cast<std::size_t>(std::max<std::uint64_t>(by_memory * 4, 1024));
        konane::cgt::GameId g;
        std::vector<std::pair<std::uint64_t, konane::cgt::GameId>> parts;
        konane::cgt::Thermal th;
        try {
            run_stoppable([&](const std::atomic<bool>& stop) {
                opt.should_stop = [&stop] { return stop ? std::string("interrupted") : ""; };
                konane::cgt::Valuer v(b, store, opt);
                g = v.value(p.occ);
                for (std::uint64_t r : v.regions_of(p.occ))
                    parts.emplace_back(r, v.value(r));
                th = store.thermal(g);
            });
        } catch (const konane::cgt::ValueLimit& e) {
            throw konane::cgt::ValueLimit(std::string("value ") + e.what() + " (" +
                                          (memory_binds ? "the memory budget " +
                                                              std::to_string(budget >> 20) +
                                                              " MiB allows that many; memory="
                                                        : std::string("max_positions=")) +
                                          ")");
        }
        const py::object fraction = py::module_::import("fractions").attr("Fraction");
        auto rows = [&](std::uint64_t occ) {
            const std::string t = konane::format_position(b, Position{occ, Color::Black});
            return t.substr(0, t.find(' '));
        };
        py::dict d;
        d["value"] = store.format(g, {ascii});
        const auto o = store.outcome(g);
        d["outcome"] = konane::cgt::outcome_letter(o);
        d["outcome_name"] = konane::outcome_name(konane::cgt::konane_outcome(o));
        d["number"] = store.as_number(g).has_value();
        d["mean"] = fraction(th.mean.num(), th.mean.den());
        d["temperature"] = fraction(th.temperature.num(), th.temperature.den());
        py::list regions;
        for (const auto& [r, rv] : parts)
            regions.append(py::make_tuple(rows(r), store.format(rv, {ascii})));
        d["regions"] = regions;
        return d;
    };
    m.def(
        "value",
        [value_of](const std::variant<PyPosition, std::string>& position, bool ascii,
                   std::int64_t max_positions, const std::optional<MemoryArg>& memory) {
            if (const auto* text = std::get_if<std::string>(&position)) {
                std::string t = *text;
                if (t.find(' ') == std::string::npos) t += " b";  // the side does not matter
                const auto parsed = konane::parse_position(t);
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

    // konane.Engine (python/engine_bindings.cpp): a konane.Tablebase is passed by its handle.
    konane::python::def_engine(
        m,
        [](py::handle object) -> std::optional<konane::Tablebase> {
            if (!py::isinstance<PyTablebase>(object)) return std::nullopt;
            return object.cast<const PyTablebase&>().handle();
        },
        m.attr("Position"));

    m.attr("__version__") = konane::kVersion;  // project(VERSION), konane_version.hpp
}
