// The JSON objects the `konane` command prints with --json and `konane serve` answers with:
// one builder per object, shared by both so that they cannot drift apart.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/board.hpp"
#include "core/notation.hpp"
#include "core/outcome.hpp"
#include "core/value.hpp"
#include "probe/analysis.hpp"
#include "probe/answer.hpp"
#include "probe/openings.hpp"
#include "probe/probe.hpp"
#include "query/proof.hpp"
#include "search/search.hpp"

namespace konane::cli {

/// Objects keep their keys in insertion order, so the output reads in a fixed order.
using json = nlohmann::ordered_json;

/// j as text that never throws for a string that is not UTF-8 (such bytes become U+FFFD;
/// strings from outside are passed through printable() first, so that none is lost): compact
/// by default, or pretty with `indent` spaces a level (indent >= 0). Every JSON object the
/// command and the server print goes through it: the one JSON writer (no other dump()).
std::string dump(const json& j, int indent = -1);

/// "win" or "loss".
const char* value_word(const Value& v);

/// {"value": "win"|"loss", "depth": plies}.
json value_json(const Value& v);

// The answer for one position (Answer, table_answer(), search_answer()) is the library's, the
// same for the command, the server and the Python module: probe/answer.hpp.

/// What `konane probe --json` prints: {"position", "to_move", "value", "depth", "best" (a move
/// or null), "moves": [{"move", "value", "depth", "child" (the position after the move)}],
/// "line": [moves]}; moves and positions in notation on b. BoardT: Board or BigBoard (with
/// their positions and move values).
template <class BoardT, class Pos, class MV>
json answer_json(const BoardT& b, const BasicAnswer<Pos, MV>& a) {
    json j;
    j["position"] = format_position(b, a.position);
    j["to_move"] = color_name(a.position.to_move);
    j["value"] = value_word(a.value);
    j["depth"] = a.value.depth;
    const auto best = pick_best(a.moves);
    j["best"] = best ? json(format_move(b, best->move)) : json(nullptr);
    j["moves"] = json::array();
    for (const auto& mv : a.moves) {
        j["moves"].push_back({{"move", format_move(b, mv.move)},
                              {"value", value_word(mv.value)},
                              {"depth", mv.value.depth},
                              {"child", format_position(b, mv.child)}});
    }
    j["line"] = json::array();
    for (const auto& mv : a.line)
        j["line"].push_back(format_move(b, mv.move));
    return j;
}

/// Which game p is played as under ruleset r (core/board.hpp stage_of, rules.md "Positions no
/// opening produces"): "jumps", "opening" (removals first), or "jumps only" (--jumps-only).
template <class BoardT, class Pos>
const char* game_kind(const BoardT& b, Ruleset r, bool jumps_only, const Pos& p) {
    if (jumps_only) return "jumps only";
    return in_opening(b, r, p) ? "opening" : "jumps";
}

/// What a search counted, for solve_json(): positions in its memo, values taken from a table
/// and values the table's check rejected.
struct SearchFigures {
    std::size_t positions = 0;
    std::uint64_t table_hits = 0;
    std::uint64_t table_rejections = 0;
};

/// What `konane solve --json` prints and `/api/solve` answers: answer_json(), then with `both`
/// (the values with Black and with White to move) "outcome", "black_starts", "white_starts",
/// then "board", "search" ({"positions", "table_hits", "table_rejections"}) and "game"
/// (game_kind() under `rules` and jumps_only). On every board type.
template <class BoardT, class Pos, class MV>
json solve_json(const BoardT& b, const BasicAnswer<Pos, MV>& a, const SearchFigures& figures,
                Ruleset rules, bool jumps_only,
                const std::optional<std::pair<Value, Value>>& both = std::nullopt) {
    json j = answer_json(b, a);
    if (both) {
        j["outcome"] = outcome_name(outcome_of(both->first, both->second));
        j["black_starts"] = value_json(both->first);
        j["white_starts"] = value_json(both->second);
    }
    j["board"] = b.name();
    j["search"] = {{"positions", figures.positions},
                   {"table_hits", figures.table_hits},
                   {"table_rejections", figures.table_rejections}};
    j["game"] = game_kind(b, rules, jumps_only, a.position);
    return j;
}

/// solve_json() of a Searcher's answer: its figures, ruleset and jumps_only.
json solve_json(const Board& b, const Answer& a, const Searcher& s,
                const std::optional<std::pair<Value, Value>>& both = std::nullopt);

/// "win", "loss" or "undecided": a proof search's verdict (query::ProofAnswer::win).
const char* verdict_word(const std::optional<bool>& win);

/// What `konane solve --wdl --json` prints and /api/wdl answers, before the search's figures:
/// {"position", "to_move", "value" (verdict_word()), "winning_move" (a move or null), "game"
/// (game_kind()), with both sides "outcome" (a name or null when undecided), "black_starts" and
/// "white_starts" ({"value", "game"} each), then "board" and "rules"}.
json proof_json(const Board& b, Ruleset rules, bool jumps_only, const query::ProofAnswer& a);

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
