// Which opening removal wins on a board, and by how much.
// Source: docs/rules.md ("Opening: two removals", "Values").
#pragma once

#include <optional>
#include <vector>

#include "probe/probe.hpp"

namespace konane {

/// One pair of opening removals and the value of the position after it (Black to move).
struct OpeningLine {
    Move black;  ///< Black's removal
    Move white;  ///< White's reply
    Color winner = Color::Black;
    int depth = 0;  ///< depth to end in plies counted from Black's first jump
};

/// Black's removal with White's best reply to it.
struct OpeningChoice {
    Move black;
    std::optional<Move> white;  ///< none when White has no reply (White then loses at once)
    Color winner = Color::Black;
    int depth = 0;  ///< from Black's first jump; 0 when White has no reply
};

/// The opening table of a board: every removal pair, White's best reply to each Black removal,
/// Black's best removal, and the board's verdict.
struct Openings {
    std::vector<OpeningLine> lines;      ///< Black's removals, then White's replies, by square
    std::vector<OpeningChoice> choices;  ///< per Black removal, with White's best reply
    std::optional<OpeningChoice> best;   ///< the perfect opening (none if Black has no removal)
    Color winner = Color::White;         ///< who wins from the full board with perfect play
};

/// Computes the opening table from a tablebase. Best replies and removals follow better()
/// (rules.md "Values"): the winner hurries, the loser delays, ties go to the earlier square.
/// A table built from one gap has that one opening (its line, choice and best).
/// Throws NotStored if an opening position is missing from the table.
Openings compute_openings(const Tablebase& tb);

/// The value of gap g's start position (Black to move) read from a table of its board: a
/// ruleset's table that holds it (the gap is one of its removal pairs, or the mirror image of
/// one) or the gap's own table (or a mirror image's). nullopt when the table does not hold it.
/// @throws format::FormatError on a damaged block.
std::optional<OpeningLine> gap_opening(const Tablebase& tb, Gap g);

}  // namespace konane
