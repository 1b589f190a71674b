// The JSON objects of `konane ... --json` and `konane serve` (cli/json.hpp).
#include "cli/json.hpp"

#include "core/notation.hpp"
#include "core/text.hpp"

namespace konane::cli {

std::string dump(const json& j) {
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

const char* value_word(const Value& v) {
    return v.win ? "win" : "loss";
}

json value_json(const Value& v) {
    return json{{"value", value_word(v)}, {"depth", v.depth}};
}

std::optional<Answer> table_answer(const Tablebase& tb, Position p) {
    const auto v = tb.value(p);
    if (!v) return std::nullopt;
    return Answer{p, *v, tb.moves(p), tb.perfect_line(p)};
}

Answer search_answer(Searcher& s, Position p) {
    return Answer{p, s.value(p), s.moves(p), s.perfect_line(p)};
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

json answer_json(const Board& b, const Answer& a) {
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
                              {"depth", mv.value.depth}});
    }
    j["line"] = json::array();
    for (const auto& mv : a.line)
        j["line"].push_back(format_move(b, mv.move));
    return j;
}

json solve_json(const Board& b, const Answer& a, const Searcher& s,
                const std::optional<std::pair<Value, Value>>& both) {
    json j = answer_json(b, a);
    if (both) {
        j["outcome"] = outcome_name(outcome_of(both->first, both->second));
        j["black_starts"] = value_json(both->first);
        j["white_starts"] = value_json(both->second);
    }
    j["board"] = b.name();
    j["search"] = {{"positions", s.positions()},
                   {"table_hits", s.table_hits()},
                   {"table_rejections", s.table_rejections()}};
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
