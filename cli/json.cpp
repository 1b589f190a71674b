// The JSON objects of `konane ... --json` and `konane serve` (cli/json.hpp).
#include "cli/json.hpp"

#include "core/notation.hpp"
#include "core/text.hpp"

namespace konane::cli {

std::string dump(const json& j, int indent) {
    return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

const char* value_word(const Value& v) {
    return v.win ? "win" : "loss";
}

json value_json(const Value& v) {
    return json{{"value", value_word(v)}, {"depth", v.depth}};
}

std::string batch_line(const Tablebase& tb, std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const Board& b = tb.board();
    json j;
    try {
        const Position p = parse_position(line, &b).position;
        j["position"] = format_position(b, p);
        const auto v = tb.value(p);
        j["stored"] = v.has_value();
        if (v) {
            j["value"] = value_word(*v);
            j["depth"] = v->depth;
        }
    } catch (const std::invalid_argument& e) {
        // The line, and the error quoting it, may be any bytes: escaped, never an exception
        // that would end the batch.
        // A long line is quoted as a short excerpt, as in every other message.
        j = json{{"position", excerpt(line, 200)}, {"error", printable(e.what())}};
    }
    return dump(j);
}

json solve_json(const Board& b, const Answer& a, const Searcher& s,
                const std::optional<std::pair<Value, Value>>& both) {
    return solve_json(b, a, SearchFigures{s.positions(), s.table_hits(), s.table_rejections()},
                      s.options().rules, s.options().jumps_only, both);
}

const char* verdict_word(const std::optional<bool>& win) {
    return win ? (*win ? "win" : "loss") : "undecided";
}

json proof_json(const Board& b, Ruleset rules, bool jumps_only, const query::ProofAnswer& a) {
    const Position p = a.position;
    json j;
    j["position"] = format_position(b, p);
    j["to_move"] = color_name(p.to_move);
    j["value"] = verdict_word(a.win);
    j["winning_move"] = a.winning_move ? json(format_move(b, *a.winning_move)) : json(nullptr);
    j["game"] = game_kind(b, rules, jumps_only, p);
    if (a.both) {
        j["outcome"] = a.outcome ? json(outcome_name(*a.outcome)) : json(nullptr);
        const Position pb{p.occ, Color::Black}, pw{p.occ, Color::White};
        j["black_starts"] = {{"value", verdict_word(a.black_starts)},
                             {"game", game_kind(b, rules, jumps_only, pb)}};
        j["white_starts"] = {{"value", verdict_word(a.white_starts)},
                             {"game", game_kind(b, rules, jumps_only, pw)}};
    }
    j["board"] = b.name();
    j["rules"] = ruleset_name(rules);
    return j;
}

const char* winner_name(Position p, const Value& v) {
    return color_name(v.win ? p.to_move : other(p.to_move));
}

json analysis_json(const Board& b, Ruleset rules, const Game& game, const GameAnalysis& an) {
    json j;
    j["board"] = b.name();
    j["rules"] = ruleset_name(rules);
    j["start"] = format_position(b, game.positions.front());
    j["start_value"] = value_json(an.values.front());
    j["winner_at_start"] = winner_name(game.positions.front(), an.values.front());
    j["moves"] = json::array();
    json mistakes = json::array(), turning = json::array();
    for (std::size_t i = 0; i < an.plies.size(); ++i) {
        const PlyAnalysis& p = an.plies[i];
        j["moves"].push_back({{"ply", i + 1},
                              {"mover", color_name(p.before.to_move)},
                              {"move", format_move(b, p.played.move)},
                              {"position", format_position(b, p.before)},
                              {"before", value_json(p.value_before)},
                              {"after", value_json(p.value_after)},
                              {"move_value", value_json(p.played.value)},
                              {"best", format_move(b, p.best.move)},
                              {"best_value", value_json(p.best.value)},
                              {"mistake", p.mistake},
                              {"inaccurate", p.inaccurate}});
        if (p.mistake) {
            mistakes.push_back(i + 1);
            turning.push_back({{"ply", i + 1},
                               {"move", format_move(b, p.played.move)},
                               {"winner_before", winner_name(p.before, p.value_before)},
                               {"winner_after", winner_name(p.played.child, p.value_after)}});
        }
    }
    j["mistakes"] = mistakes;
    j["turning_points"] = turning;
    const Position end = game.positions.back();
    const Value end_value = an.values.back();
    j["final"] = {{"position", format_position(b, end)},
                  {"to_move", color_name(end.to_move)},
                  {"value", value_word(end_value)},
                  {"depth", end_value.depth},
                  {"game_over", an.over},
                  {"winner", winner_name(end, end_value)}};
    return j;
}

json openings_json(const Board& b, Ruleset rules, const Openings& o) {
    json j;
    j["board"] = b.name();
    j["rules"] = ruleset_name(rules);
    j["winner"] = color_name(o.winner);
    if (o.best) {
        j["best"] = {{"black", format_move(b, o.best->black)},
                     {"white", o.best->white ? format_move(b, *o.best->white) : ""},
                     {"winner", color_name(o.best->winner)},
                     {"depth", o.best->depth}};
    }
    j["openings"] = json::array();
    for (const auto& l : o.lines) {
        j["openings"].push_back({{"black", format_move(b, l.black)},
                                 {"white", format_move(b, l.white)},
                                 {"winner", color_name(l.winner)},
                                 {"depth", l.depth}});
    }
    j["best_replies"] = json::array();
    for (const auto& c : o.choices) {
        j["best_replies"].push_back({{"black", format_move(b, c.black)},
                                     {"white", c.white ? format_move(b, *c.white) : ""},
                                     {"winner", color_name(c.winner)},
                                     {"depth", c.depth}});
    }
    return j;
}

}  // namespace konane::cli
