"""The result types of the package konane: the named tuples (typing.NamedTuple) and the classes
Outcome and Layer that its functions return. The compiled half (konane._konane) looks them up
here at import and makes its results with them; konane re-exports them, and they are named
konane.Value etc. (their __module__), as pickle and repr() find them there."""

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

for _cls in (Value, MoveValue, OpeningLine, OpeningChoice, Openings, Solution, LayerReport,
             GenerateReport, Outcome, Layer, ProofSolution, SearchedOpening, SearchedChoice,
             SearchedOpenings):
    _cls.__module__ = "konane"
del _cls, _typing
