// The Python module `konane` (pybind11): positions and legal moves (core/), tables
// (probe/probe.hpp, probe/openings.hpp), the searches for positions no table holds
// (probe/search.hpp: values with depth; probe/proof.hpp: win/loss by proof search), the
// generator (solver/solve.hpp: generate()), combinatorial game values (cgt/) and the engine
// (engine/), one file per area (python/bind_*.cpp). docs/python.md is its reference. This file
// binds the areas in order and defines what they share (module.hpp), with the named tuples.
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

#include <pybind11/eval.h>

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

namespace {

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

}  // namespace konane::python

PYBIND11_MODULE(konane, m) {
    using namespace konane::python;
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

    bind_errors(m);
    py::exec(kTypes, m.attr("__dict__"));
    auto keep = [&](const char* name) { return py::object(m.attr(name)).release(); };
    g_types = Types{keep("Value"),          keep("MoveValue"),       keep("OpeningLine"),
                    keep("OpeningChoice"),  keep("Openings"),        keep("Solution"),
                    keep("LayerReport"),    keep("GenerateReport"),  keep("Outcome"),
                    keep("Layer"),          keep("ProofSolution"),   keep("SearchedOpening"),
                    keep("SearchedChoice"), keep("SearchedOpenings")};
    bind_position(m);
    bind_table(m);
    bind_generate(m);
    bind_search(m);
    bind_value(m);
    bind_engine(m);
    m.attr("__version__") = konane::kVersion;  // project(VERSION), konane_version.hpp
}
