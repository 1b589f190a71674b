// Cheap checks that a table's contents fit the board and ruleset its header names, before any
// work that trusts them (probing, or verify's re-enumeration of the whole board).
#pragma once

#include <string>

#include "core/board.hpp"
#include "core/gap.hpp"
#include "format/table.hpp"

namespace konane {

/// What is wrong with the table's layers for board `b` and opening `o` (a ruleset, or a gap;
/// "" when nothing): its largest layer must be the positions right after both opening removals
/// (a gap's one start position), R*C - 2 pieces, and hold exactly their classes (read from the
/// file: a few keys, microseconds). A header naming another board or ruleset than the body was
/// written for fails here (the reader has already checked every count against the file's length and
/// C(R*C, pieces)). The message reads "<file>: layer table: <what>".
/// @throws format::FormatError when the keys of the largest layer cannot be read (damaged)
std::string table_shape_problem(const format::Table& table, const Board& b, const Opening& o);

}  // namespace konane
