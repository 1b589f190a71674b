// The JSON objects the `konane` command prints with --json and `konane serve` answers with:
// one builder per object, shared by both so that they cannot drift apart.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/board.hpp"
#include "core/notation.hpp"
#include "probe/analysis.hpp"
#include "probe/openings.hpp"
#include "probe/probe.hpp"
#include "probe/search.hpp"

namespace konane::cli {

/// Objects keep their keys in insertion order, so the output reads in a fixed order.
using json = nlohmann::ordered_json;

/// j as compact text that never throws for a string that is not UTF-8 (such bytes become
/// U+FFFD; strings from outside are passed through printable() first, so that none is lost).
/// Every JSON object the command and the server print goes through it.
std::string dump(const json& j);

/// "win" or "loss".
const char* value_word(const Value& v);

/// {"value": "win"|"loss", "depth": plies}.
json value_json(const Value& v);

/// The answer for one position: its value for the side to move, every legal move with its value
/// for the mover (depth from before the move), and the perfect line.
struct Answer {
    Position position;
    Value value;
    std::vector<MoveValue> moves;
    std::vector<MoveValue> line;
};

/// The answer of a table for p, or nullopt when the table does not hold p.
/// @throws NotStored when it holds p but not one of its children; format::FormatError on a
///         damaged block.
std::optional<Answer> table_answer(const Tablebase& tb, Position p);

/// The answer of a search for p. @throws SearchLimit past the searcher's limit.
Answer search_answer(Searcher& s, Position p);

/// What `konane probe --json` prints: {"position", "to_move", "value", "depth", "best" (a move
/// or null), "moves": [{"move", "value", "depth", "child" (the position after the move)}],
/// "line": [moves]}; moves and positions in notation on b.
json answer_json(const Board& b, const Answer& a);

/// Which game p is played as under ruleset r (core/board.hpp stage_of, rules.md "Positions no
/// opening produces"): "jumps", "opening" (removals first), or "jumps only" (--jumps-only).
const char* game_kind(const Board& b, Ruleset r, bool jumps_only, Position p);

/// What `konane solve --json` prints and `/api/solve` answers: answer_json(), then with `both`
/// (the values with Black and with White to move) "outcome", "black_starts", "white_starts",
/// then "board", "search" ({"positions", "table_hits", "table_rejections"} of s) and "game"
/// (game_kind() under s's ruleset and jumps_only).
json solve_json(const Board& b, const Answer& a, const Searcher& s,
                const std::optional<std::pair<Value, Value>>& both = std::nullopt);

/// What `konane probe FILE --batch` prints for one line of its input (without the newline): the
/// object {"position", "stored", and "value", "depth" when stored}, or {"position" (the line
/// as given), "error"} when the line is no position of tb's board. A '\r' ending the line is
/// ignored. Never throws for any input line (format::FormatError on a damaged table).
std::string batch_line(const Tablebase& tb, std::string_view line);

/// The name of the colour that wins p (value v for the side to move) with perfect play.
const char* winner_name(Position p, const Value& v);

/// What `konane analyse --json` prints and /api/analyse answers for `game` on b under `rules`
/// judged as `an` (analyse_game()): {"board", "rules", "start", "start_value", "winner_at_start",
/// "moves": [{"ply", "mover", "move", "position" (before the move), "before", "after",
/// "move_value", "best", "best_value", "mistake", "inaccurate"}], "mistakes": [plies],
/// "turning_points": [{"ply", "move", "winner_before", "winner_after"}], "final": {"position",
/// "to_move", "value", "depth", "game_over", "winner"}}; values as value_json().
json analysis_json(const Board& b, Ruleset rules, const Game& game, const GameAnalysis& an);

/// What `konane openings --json` prints: {"board", "rules", "winner", "best" (when Black has a
/// removal), "openings": [{"black", "white", "winner", "depth"}], "best_replies": [...]};
/// depths in plies from Black's first jump, a missing reply as "".
json openings_json(const Board& b, Ruleset rules, const Openings& o);

}  // namespace konane::cli
