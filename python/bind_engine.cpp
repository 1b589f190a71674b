// konane.Engine: the engine of engine/engine.hpp (docs/engine.md) from Python: the move to play in
// any position of a board of up to 64 squares (the table's perfect move, a proven win, else the
// heuristic search's best), a move checked and played, a game compared move by move with the
// engine's choices. docs/python.md ("The engine") is its reference.
//
// Every search runs without the GIL, on a worker thread, while the calling thread checks for
// pending signals every 100 ms: Ctrl-C stops the search (MoveLimits::stop) and raises
// KeyboardInterrupt once the worker has returned.
#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include "core/board.hpp"
#include "core/movegen.hpp"
#include "core/notation.hpp"
#include "engine/engine.hpp"
#include "probe/probe.hpp"
#include "python/module.hpp"
#include "python/stoppable.hpp"
#include "query/tables.hpp"

using namespace pybind11::literals;

namespace konane::python {

namespace {

/// The longest time a move may be given: a week (as `konane bestmove --time`).
constexpr double kMaxSeconds = 7 * 24 * 3600.0;

/// Bytes of `memory`: an int, or a size such as "256M" (python/module.hpp size_text_bytes()).
/// @throws std::invalid_argument (ValueError) for anything else, or under 1 MiB or over 1 TiB.
std::size_t memory_bytes(const std::variant<std::int64_t, std::string>& memory) {
    const auto* n = std::get_if<std::int64_t>(&memory);
    const std::int64_t bytes =
        n ? *n : static_cast<std::int64_t>(size_text_bytes(std::get<std::string>(memory)));
    if (bytes < (1LL << 20) || bytes > (1LL << 40))
        throw std::invalid_argument(
            "memory: expected 1M to 1T (the searches' tables need 1M), "
            "got " +
            std::to_string(bytes) + " bytes");
    return static_cast<std::size_t>(bytes);
}

/// A move's budget: time (seconds), nodes and depth as given; time 1 s when none is given.
/// @throws std::invalid_argument (ValueError) naming the argument out of range.
engine::MoveLimits move_limits(std::optional<double> time, std::optional<std::int64_t> nodes,
                               std::optional<std::int64_t> depth) {
    engine::MoveLimits l;
    if (time) {
        if (!std::isfinite(*time) || *time < 0.001 || *time > kMaxSeconds)
            throw std::invalid_argument(
                "time: expected seconds from 0.001 to 604800 (a week), "
                "got " +
                py::str(py::float_(*time)).cast<std::string>());
        l.seconds = *time;
    }
    if (nodes) {
        if (*nodes < 1)
            throw std::invalid_argument("nodes: expected 1 or more, got " + std::to_string(*nodes));
        l.nodes = static_cast<std::uint64_t>(*nodes);
    }
    if (depth) {
        if (*depth < 1 || *depth > 128)
            throw std::invalid_argument("depth: expected 1 to 128 plies, got " +
                                        std::to_string(*depth));
        l.depth = static_cast<int>(*depth);
    }
    if (!time && !nodes && !depth) l.seconds = 1.0;
    return l;
}

/// The table behind a konane.Tablebase object, or nullopt when `object` is not one (raises
/// ValueError for a closed one).
std::optional<Tablebase> table_of(py::handle object) {
    if (!py::isinstance<PyTablebase>(object)) return std::nullopt;
    return object.cast<const PyTablebase&>().handle();
}

/// The Python object behind konane.Engine.
///
/// As for konane.Position and konane.Tablebase (module.hpp), operator new leaves a valid
/// object in the storage (never initialised: no engine): an object made by
/// Engine.__new__(Engine) without __init__ then raises ValueError from every method instead of
/// reading uninitialised memory. Constructing over it is allowed: nothing depends on the skipped
/// destructor (a null pointer owns nothing, nor does an unlocked mutex).
class PyEngine {
  public:
    static void* operator new(std::size_t size) {
        void* p = ::operator new(size);
        ::new (p) PyEngine();
        return p;
    }
    static void operator delete(void* p) { ::operator delete(p); }

    PyEngine(const std::variant<std::string, std::pair<int, int>>& board,
             std::optional<double> time, std::optional<std::int64_t> nodes,
             std::optional<std::int64_t> depth, const py::object& table,
             const std::optional<std::string>& rules,
             const std::variant<std::int64_t, std::string>& memory, bool baseline, int threads,
             bool values)
        : board_(std::holds_alternative<std::string>(board)
                     ? Board::parse(std::get<std::string>(board))
                     : Board::make(std::get<std::pair<int, int>>(board).first,
                                   std::get<std::pair<int, int>>(board).second)),
          limits_(move_limits(time, nodes, depth)) {
        engine::EngineOptions o;
        o.baseline = baseline;
        o.values = values;
        o.memory_bytes = memory_bytes(memory);
        if (threads < 1 || threads > 1024)
            throw std::invalid_argument("threads: expected 1 to 1024, got " +
                                        std::to_string(threads));
        o.threads = threads;
        if (!table.is_none()) {
            std::optional<Tablebase> tb = table_of(table);
            if (!tb) {
                if (!py::isinstance<py::str>(table) && !py::hasattr(table, "__fspath__"))
                    throw py::type_error("table: expected a konane.Tablebase, a file name or None");
                const std::string path = py::str(py::module_::import("os").attr("fsdecode")(table));
                py::gil_scoped_release release;
                tb = Tablebase::open(path);
            }
            o.table = std::move(tb);
        }
        o.rules = rules ? parse_ruleset(*rules) : Ruleset::Brainking;
        if (o.table) {
            o.rules = query::table_rules(*o.table, o.table->table().path().string(), board_,
                                         rules ? std::optional(o.rules) : std::nullopt, "rules=");
        }
        rules_ = o.rules;
        py::gil_scoped_release release;
        engine_ = std::make_unique<engine::Engine>(board_, std::move(o));
    }

    const Board& board() const {
        require();
        return board_;
    }
    Ruleset rules() const {
        require();
        return rules_;
    }
    const engine::MoveLimits& limits() const {
        require();
        return limits_;
    }

    /// A position argument (konane.Position or text; the side to move may be left out: Black)
    /// on the engine's board. @throws ValueError for a malformed one or one of another board.
    Position position(const py::handle& p) const {
        require();
        std::string text;
        if (py::isinstance<PyPosition>(p) || py::isinstance<py::str>(p)) {
            text = py::str(p);
        } else {
            throw py::type_error("position: expected a konane.Position or a str, got " +
                                 std::string(py::str(py::type::handle_of(p).attr("__name__"))));
        }
        text = with_side(std::move(text));
        return parse_position(text, &board_).position;
    }

    /// The limits of one call: the engine's, or those given (any of the three given replaces
    /// all three).
    engine::MoveLimits call_limits(std::optional<double> time, std::optional<std::int64_t> nodes,
                                   std::optional<std::int64_t> depth) const {
        if (!time && !nodes && !depth) return limits();
        return move_limits(time, nodes, depth);
    }

    /// The engine's decision in p, searched without the GIL on a worker thread; Ctrl-C stops
    /// it and raises KeyboardInterrupt.
    std::optional<engine::Decision> decide(Position p, engine::MoveLimits l) {
        require();
        std::optional<engine::Decision> result;
        run_stoppable([&](const std::atomic<bool>& stop) {
            const std::lock_guard lock(mutex_);  // one search at a time per engine
            l.stop = &stop;
            result = engine_->decide(p, l);
        });
        return result;
    }

    /// The fields of `konane bestmove --json` for decision d in p.
    py::dict decision(Position p, const engine::Decision& d) const {
        py::list pv;
        for (const Move& m : d.pv)
            pv.append(format_move(board_, m));
        py::object proven = py::none();
        if (d.proven_win) proven = py::str(*d.proven_win ? "win" : "loss");
        py::object value = py::none();
        if (d.source == engine::Source::Value) value = py::str(d.value);
        return py::dict("position"_a = format_position(board_, p),
                        "move"_a = format_move(board_, d.move.move),
                        "child"_a = format_position(board_, d.move.child),
                        "source"_a = engine::source_name(d.source), "describe"_a = d.describe(),
                        "proven"_a = proven, "depth"_a = d.depth, "score"_a = d.score, "pv"_a = pv,
                        "nodes"_a = d.nodes, "proof_nodes"_a = d.proof_nodes,
                        "seconds"_a = d.seconds, "value"_a = value);
    }

    void clear() {
        require();
        py::gil_scoped_release release;
        const std::lock_guard lock(mutex_);
        engine_->clear();
    }

  private:
    PyEngine() : board_(Board::make(1, 1)) {}
    /// @throws ValueError for an object made by __new__ alone.
    void require() const {
        if (!engine_)
            throw py::value_error(
                "this konane.Engine was never initialised (made by Engine.__new__ without "
                "__init__): make one with konane.Engine(board)");
    }

    Board board_;
    Ruleset rules_ = Ruleset::Brainking;
    engine::MoveLimits limits_;
    std::mutex mutex_;
    std::unique_ptr<engine::Engine> engine_;
};

std::string limits_text(const engine::MoveLimits& l) {
    std::string s;
    auto add = [&](const std::string& part) { s += (s.empty() ? "" : ", ") + part; };
    if (l.seconds > 0) add("time=" + py::str(py::float_(l.seconds)).cast<std::string>());
    if (l.nodes) add("nodes=" + std::to_string(l.nodes));
    if (l.depth) add("depth=" + std::to_string(l.depth));
    return s;
}

}  // namespace

void bind_engine(py::module_& m) {
    py::class_<PyEngine>(m, "Engine",
                         R"(The engine (docs/engine.md): the move to play in any position
of a board of up to 64 squares. The table's perfect move where a table of the board is given,
a winning move where the proof search proves one within its share of the budget, else the
strongest move the heuristic search finds. Keeps what its searches learnt between moves (clear()
forgets it). Searches run without the GIL; Ctrl-C stops one (KeyboardInterrupt). One search at a
time per Engine: a call from another thread waits for the one under way.

    eng = konane.Engine('6x6', nodes=100_000)
    eng.bestmove('6x6')['move']

Engine(board, *, time=None, nodes=None, depth=None, table=None, rules=None, memory='256M',
baseline=False, threads=1, values=True): board 'RxC' or (rows, cols); a move's budget: time
(seconds, wall clock), nodes (of both searches together; reproducible) and depth (the heuristic
search's deepest iteration, 1 to 128; reproducible), any of them, 1 second when none is given;
table: a konane.Tablebase or a file name, of the same board; rules: 'brainking', 'center' or
'any' (default the table's, else 'brainking'); memory: bytes or a size such as '256M' for the
searches' tables (at least 1M); baseline: the baseline player instead (alpha-beta to depth 4 on
mobility); threads: of the proof and heuristic searches; values: the CGT value as a source (a
position split into regions decided by the sum of their values; docs/engine.md). Raises
ValueError for an argument out of range, a table of another board or ruleset; FormatError for a
missing or damaged table file.)")
        .def(py::init([](const std::variant<std::string, std::pair<int, int>>& board,
                         std::optional<double> time, std::optional<std::int64_t> nodes,
                         std::optional<std::int64_t> depth, const py::object& table,
                         const std::optional<std::string>& rules,
                         const std::variant<std::int64_t, std::string>& memory, bool baseline,
                         int threads, bool values) {
                 return std::make_unique<PyEngine>(board, time, nodes, depth, table, rules, memory,
                                                   baseline, threads, values);
             }),
             "board"_a, py::kw_only(), "time"_a = py::none(), "nodes"_a = py::none(),
             "depth"_a = py::none(), "table"_a = py::none(), "rules"_a = py::none(),
             "memory"_a = "256M", "baseline"_a = false, "threads"_a = 1, "values"_a = true)
        .def(
            "bestmove",
            [](PyEngine& e, const py::object& position, std::optional<double> time,
               std::optional<std::int64_t> nodes, std::optional<std::int64_t> depth) -> py::object {
                const Position p = e.position(position);
                const auto d = e.decide(p, e.call_limits(time, nodes, depth));
                if (!d) return py::none();
                return e.decision(p, *d);
            },
            "position"_a, py::kw_only(), "time"_a = py::none(), "nodes"_a = py::none(),
            "depth"_a = py::none(),
            R"(The engine's move in `position` (a konane.Position or its text; the side to move may be
left out: Black; 'RxC' alone is not a position: use konane.Position.start), as a dict with the
fields of `konane bestmove --json`: position, move, child (the position after it), source
('table', 'proof', 'search' or 'only move'), describe ('search depth 9, score 300', ...),
proven ('win', 'loss' or None), depth, score (hundredths of a move for the side to move), pv
(the expected line, the move first), nodes, proof_nodes, seconds. None when the side to move
has no legal move (it has lost). time, nodes, depth replace the engine's budget for this call.
Raises ValueError for a malformed position or one of another board.)")
        .def(
            "play",
            [](const PyEngine& e, const py::object& position, const std::string& move) {
                const Position p = e.position(position);
                if (move.find_first_of(" \t\n") != std::string::npos)
                    throw std::invalid_argument("move: expected one move, got '" + move + "'");
                return format_position(e.board(), parse_move(e.board(), e.rules(), p, move).child);
            },
            "position"_a, "move"_a,
            R"(The text of the position after `move` ('c5-c3', or 'c3' for a removal) in `position`,
under the engine's ruleset. Raises ValueError naming an illegal or malformed move.)")
        .def(
            "analyse",
            [](PyEngine& e, const std::string& record, std::optional<double> time,
               std::optional<std::int64_t> nodes, std::optional<std::int64_t> depth,
               const std::optional<py::object>& start) {
                const auto limits = e.call_limits(time, nodes, depth);
                std::optional<Position> from;
                if (start && !start->is_none()) from = e.position(*start);
                const Game g = parse_game(e.board(), e.rules(), record, from);
                py::list plies;
                for (std::size_t i = 0; i < g.moves.size(); ++i) {
                    const Position p = g.positions[i];
                    const auto d = e.decide(p, limits);  // a legal move was played: never null
                    const std::string played = format_move(e.board(), g.moves[i].move);
                    py::dict ply("ply"_a = i + 1, "position"_a = format_position(e.board(), p),
                                 "played"_a = played,
                                 "engine"_a = format_move(e.board(), d->move.move),
                                 "agrees"_a = d->move.move == g.moves[i].move,
                                 "source"_a = engine::source_name(d->source),
                                 "describe"_a = d->describe(), "score"_a = d->score);
                    plies.append(ply);
                }
                return plies;
            },
            "record"_a, py::kw_only(), "time"_a = py::none(), "nodes"_a = py::none(),
            "depth"_a = py::none(), "start"_a = py::none(),
            R"(Each move of a game compared with the engine's choice: a list with a dict per ply
{ply (from 1), position (before the move), played, engine (the engine's move there), agrees
(played == engine), source, describe, score (the engine's, for the side to move)}. record: the
moves separated by spaces ('d5 d4 d3-d5 ...') from the full board, or from `start` (a
position). time, nodes, depth: each move's budget (default the engine's). Raises ValueError
naming a malformed or illegal move.)")
        .def("clear", &PyEngine::clear, "Forgets what the searches learnt (a new game).")
        .def_property_readonly(
            "board", [](const PyEngine& e) { return e.board().name(); }, "The board, 'RxC'.")
        .def_property_readonly(
            "rules", [](const PyEngine& e) { return ruleset_name(e.rules()); },
            "The opening ruleset: 'brainking', 'center' or 'any'.")
        .def("__repr__", [](const PyEngine& e) {
            return "konane.Engine('" + e.board().name() + "', " + limits_text(e.limits()) +
                   ", rules='" + ruleset_name(e.rules()) + "')";
        });
}

}  // namespace konane::python
