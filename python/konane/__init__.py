# The package konane: the bindings compiled from python/bind_*.cpp (konane._konane) and the
# result types they return (konane._results), under the names of the package.
"""Konane tablebases from Python: exact values, perfect moves and perfect lines.

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
board). Rules and notation: docs/rules.md of the project; the API: docs/python.md."""
from konane._results import (GenerateReport, Layer, LayerReport, MoveValue, OpeningChoice,
                             OpeningLine, Openings, Outcome, ProofSolution, SearchedChoice,
                             SearchedOpening, SearchedOpenings, Solution, Value)
from konane._konane import (Engine, FormatError, IoError, NotStored, Position, ResourceError,
                            SearchLimit, Tablebase, _LayerIterator, __version__, generate,
                            openings, outcome, solve, value)
