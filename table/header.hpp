// What the generator and the probe library both need to know of a table file beyond its
// format: the board and opening its header names, and cheap checks that the table's contents
// fit them, before any work that trusts them (probing, or verify's re-enumeration of the whole
// board). Below solver/ and probe/, above core/ and format/.
#pragma once

#include <string>

#include "core/board.hpp"
#include "core/gap.hpp"
#include "format/table.hpp"

namespace konane {

/// The game a table holds: its board and its opening (a ruleset, or one gap).
struct TableGame {
    Board board;
    Opening opening;
};

/// The board (rows x cols) and opening (the ruleset field: a ruleset name such as "brainking",
/// or a gap's tag such as "gap-c3-c4", core/gap.hpp parse_opening_tag) of table metadata `m`
/// read from `file` (for messages only). Nothing is read from the file.
/// @throws format::FormatError "<file>: header: <what>" for a board that cannot be made or has
///         more than kMaxKeySquares squares (no key can hold it), or a ruleset field that names
///         no ruleset and no gap of that board
TableGame decode_header(const format::TableMeta& m, const std::string& file);

/// What is wrong with the table's layers for board `b` and opening `o` (a ruleset, or a gap;
/// "" when nothing): its largest layer must be the positions right after both opening removals
/// (a gap's one start position), R*C - 2 pieces, and hold exactly their classes (read from the
/// file: a few keys, microseconds). A header naming another board or ruleset than the body was
/// written for fails here (the reader has already checked every count against the file's length and
/// C(R*C, pieces)). The message reads "<file>: layer table: <what>".
/// @throws format::FormatError when the keys of the largest layer cannot be read (damaged)
std::string table_shape_problem(const format::Table& table, const Board& b, const Opening& o);

/// decode_header() of the table's metadata, then table_shape_problem(): the game of a table
/// whose header describes its body.
/// @throws format::FormatError for either problem (its message as there)
TableGame checked_game(const format::Table& table);

}  // namespace konane
