// Notation: positions, squares, moves and game records as text.
// Source: docs/rules.md, "Notation".
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/board.hpp"
#include "core/movegen.hpp"

namespace konane {

/// Malformed notation. The message names the place (rank and file, character, move number)
/// and what was expected.
struct NotationError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

/// Formats a position: the rows from rank R down to rank 1 separated by '/', each row from file
/// `a` (`x` Black, `o` White, `.` empty), a space, then `b` or `w` for the side to move.
/// Example (4x4, after a4 and b4): "..xo/oxox/xoxo/oxox b".
std::string format_position(const Board& b, Position p);

/// A diagram of the position for a terminal: the ranks from the top, each with its number and a
/// square a cell (`x` Black, `o` White, `.` empty), the files' letters below, then "black to
/// move" or "white to move". No trailing newline.
std::string board_diagram(const Board& b, Position p);

/// A parsed position together with the board its text describes.
struct ParsedPosition {
    Board board;
    Position position;
};

/// Parses a position in the notation of format_position. The board size is read off the text
/// (number of rows, length of the first row); when `expected` is given, a different size is an
/// error naming both. Throws NotationError naming the rank, file and character for an unknown
/// character, a piece on the other colour's square, a row of the wrong length, a missing or
/// unknown side to move.
ParsedPosition parse_position(std::string_view text, const Board* expected = nullptr);

/// The position text with Black to move appended when the side to move is left out (no space in
/// it: the rows alone, as "..xo/oxox/xoxo/oxox"); otherwise the text unchanged. The one rule of
/// every reader that takes a position whose side may be left out (the engine, the value, the
/// server, GTP's konane-position, Python); parse_position itself requires the side.
std::string with_side(std::string text);

/// The name of the 0-based file f: `a`..`z` for the first 26 files, then two letters as in a
/// spreadsheet's columns: `aa`..`az`, `ba`..`bl` (file 63, the last of a 1x64 board), ...
/// (bijective base 26: f + 1 written with the digits a = 1 .. z = 26). f >= 0.
std::string file_name(int f);

/// Square name: the file's letters (file_name) then the rank as a decimal number without
/// leading zeros, e.g. "c4", "aa12" (the 27th file, rank 12), "a64".
std::string square_name(const Board& b, int s);

/// Parses a square name on board b: lower-case file letters then a decimal rank (no sign, no
/// leading zero; rank 0 is off the board). Throws NotationError when malformed, or off the
/// board (the message names the board's files and ranks).
int parse_square(const Board& b, std::string_view text);

/// Formats a move: a removal as its square ("a4"), a jump as "c2-c4".
std::string format_move(const Board& b, Move m);

/// Parses a move in position p and returns the legal move it names. Throws NotationError when
/// the text is malformed, or names no legal move in p (the message lists the legal moves).
MoveChild parse_move(const Board& b, Ruleset r, Position p, std::string_view text);

/// A game: the start position, the moves, and the position after each move
/// (positions.size() == moves.size() + 1).
struct Game {
    std::vector<MoveChild> moves;
    std::vector<Position> positions;
};

/// Parses a game record ("a4 b4 c4-a4 ...": moves separated by white space) from `start`
/// (by default the full board); a record in BrainKing's notation too (move numbers "1." and
/// "1..." skipped, upper-case squares: "1. D5 D4 2. D7-D5 B4-D4"; rules.md). Throws
/// NotationError naming the move number (1-based), the text and why it is refused.
Game parse_game(const Board& b, Ruleset r, std::string_view record,
                std::optional<Position> start = std::nullopt);

}  // namespace konane
