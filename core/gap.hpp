// Openings from one chosen gap, as in the literature's solved games, and the one description of
// what a table or a game starts from: a ruleset's removals, or a gap.
// Source: docs/rules.md ("Opening: two removals"), docs/gap.md.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/board.hpp"

namespace konane {

/// A gap: two orthogonally adjacent squares, Black's and White's, empty at the start, as if
/// Black had removed the piece on `black` and White the piece on `white`. Play starts there with
/// Black to move (docs/gap.md).
struct Gap {
    int black = 0;  ///< Black's square (the square Black emptied)
    int white = 0;  ///< White's square, orthogonally adjacent to `black`
    friend bool operator==(const Gap&, const Gap&) = default;
};

/// Parses "SQUARE,SQUARE" (e.g. "c3,c4"; either square first) on board b. Throws
/// std::invalid_argument with a message naming the text and what is wrong: not two squares
/// separated by one comma, a malformed square or one off the board, the same square twice, two
/// squares of one colour, squares that are not orthogonally adjacent.
Gap parse_gap(const Board& b, std::string_view text);

/// "c3,c4": Black's square, then White's (the order of the removals in a game record).
std::string gap_name(const Board& b, Gap g);

/// The start position of gap g: the full board less its two squares, Black to move.
Position gap_start(const Board& b, Gap g);

/// What a table or a game starts from: the opening removals of a ruleset, or one gap. A gap
/// game is the game of ruleset Any in which Black removed `gap->black` and White `gap->white`
/// (every gap is a removal pair of Any), so `rules` is Any for a gap.
struct Opening {
    Ruleset rules = Ruleset::Brainking;
    std::optional<Gap> gap;

    Opening() = default;
    /// The removals of ruleset r (implicit: every function taking an Opening takes a Ruleset).
    Opening(Ruleset r) : rules(r) {}  // NOLINT(google-explicit-constructor)
    /// One gap (rules Any).
    static Opening from_gap(Gap g) {
        Opening o(Ruleset::Any);
        o.gap = g;
        return o;
    }
    friend bool operator==(const Opening&, const Opening&) = default;
};

/// The positions a game of opening o starts from once both removals are made (Black to move):
/// every removal pair of the ruleset, in the order Black's removal, then White's reply (both by
/// increasing square), or the gap's one start position.
std::vector<Position> start_positions(const Board& b, const Opening& o);

/// The opening's name in a table header and a work directory's manifest: the ruleset's name
/// ("brainking"), or "gap-" and the two squares, Black's first ("gap-c3-c4"; format/FORMAT.md §3).
std::string opening_tag(const Board& b, const Opening& o);

/// Inverse of opening_tag. Throws std::invalid_argument for an unknown ruleset or a malformed
/// gap (as parse_gap).
Opening parse_opening_tag(const Board& b, std::string_view tag);

/// For people: "ruleset brainking" or "gap c3,c4".
std::string opening_text(const Board& b, const Opening& o);

/// Why gap g does not go with ruleset r, for a command given both --gap and --rules: "" when
/// g is one of r's removal pairs (the ruleset then adds nothing), else a sentence saying that
/// r does not let Black empty g's square and that a gap needs no ruleset.
std::string gap_rules_conflict(const Board& b, Gap g, Ruleset r);

}  // namespace konane
