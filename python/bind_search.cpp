// The searches for positions no table holds: konane.solve() (value, moves and perfect line by
// memoised negamax, search/search.hpp; win or loss by proof search with wdl=True,
// search/proof.hpp), konane.outcome() (the outcome class) and konane.openings() (every opening of
// a board by proof search).
#include <pybind11/pybind11.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/board.hpp"
#include "core/notation.hpp"
#include "probe/answer.hpp"
#include "probe/openings.hpp"
#include "probe/probe.hpp"
#include "python/module.hpp"
#include "python/stoppable.hpp"
#include "query/proof.hpp"
#include "query/tables.hpp"
#include "search/proof.hpp"
#include "search/search.hpp"

using namespace pybind11::literals;

namespace konane::python {

namespace {

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

/// The position, options and table of a search, read from its arguments by search_setup().
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
    if (rules) s.at.rules = konane::parse_ruleset(*rules);
    if (tb) {
        try {
            s.at.rules = konane::query::table_rules(
                *tb, table_path, s.at.board, rules ? std::optional(s.at.rules) : std::nullopt,
                "rules=");
        } catch (const std::invalid_argument& e) {
            throw py::value_error(e.what());
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
// Proof search (search/proof.hpp): win or loss without depth

/// The message of a proof search stopped at its node limit.
std::string undecided(std::uint64_t max_nodes) {
    return "not decided within max_nodes=" + std::to_string(max_nodes) +
           " nodes (raise max_nodes, or memory)";
}

/// The proof answer of s.at (query/proof.hpp prove(), with both sides when `both`), searched
/// without the GIL; Ctrl-C stops it (KeyboardInterrupt). Raises SearchLimit when undecided
/// within max_nodes.
konane::query::ProofAnswer prove(const SearchSetup& s, std::size_t memory, std::uint64_t max_nodes,
                                 bool both) {
    konane::ProofOptions o;
    o.rules = s.at.rules;
    o.jumps_only = s.options.jumps_only;
    o.memory_bytes = memory;
    o.max_nodes = max_nodes;
    ProofSignals signals;
    std::optional<konane::query::ProofAnswer> a;
    try {
        py::gil_scoped_release release;
        konane::ProofSearch search(s.at.board, o, s.table);
        signals.attach(search);
        a = konane::query::prove(search, s.at.pos, both);
    } catch (const Interrupted&) {
        signals.raise();
    }
    if (!a->decided()) throw konane::SearchLimit(undecided(max_nodes));
    return *a;
}

/// outcome(wdl=True): the outcome class by two proof searches (Black to move, White to move)
/// sharing one transposition table. Raises SearchLimit when either is undecided.
py::object outcome_wdl(const SearchSetup& s, std::size_t memory, std::uint64_t max_nodes) {
    return g_types.outcome(konane::outcome_name(*prove(s, memory, max_nodes, true).outcome));
}

/// solve(wdl=True): win or loss of s.at by proof search. Raises SearchLimit when undecided
/// within max_nodes.
py::object solve_wdl(const SearchSetup& s, std::size_t memory, std::uint64_t max_nodes) {
    const konane::query::ProofAnswer a = prove(s, memory, max_nodes, false);
    py::object move = py::none();
    if (a.winning_move) move = py::str(konane::format_move(s.at.board, *a.winning_move));
    return g_types.proof_solution(*a.win, move, a.nodes, a.seconds, a.cpu_seconds, a.table_hits);
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
        try {
            konane::query::table_rules(*tb, table->path(), b, o.rules, "rules=");
        } catch (const std::invalid_argument& e) {
            throw py::value_error(e.what());
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

}  // namespace

void bind_search(py::module_& m) {
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
(search/proof.hpp: alpha-beta with a bounded transposition table), which decides positions the
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
}

}  // namespace konane::python
