// `konane value --json` and `GET /api/value` (cli/value_json.hpp).
#include "cli/value_json.hpp"

#include <string>
#include <vector>

#include "core/notation.hpp"
#include "core/wide.hpp"

namespace konane::cli {

std::string rows_text(const Board& b, std::uint64_t occ) {
    const std::string s = format_position(b, Position{occ, Color::Black});
    return s.substr(0, s.find(' '));
}

std::string rows_text(const BigBoard& b, const BigBits& occ) {
    const std::string s = format_position(b, BigPosition{occ, Color::Black});
    return s.substr(0, s.find(' '));
}

namespace {

json tree(cgt::GameStore& s, cgt::GameId g, std::size_t& budget, bool& truncated) {
    json t;
    t["form"] = s.format(g);
    const bool leaf =
        s.as_number(g) || s.as_nimber(g) || s.format(g).find('{') == std::string::npos;
    if (leaf) return t;
    if (budget == 0) {
        truncated = true;
        return t;
    }
    --budget;
    t["left"] = json::array();
    for (cgt::GameId x : s.left(g))
        t["left"].push_back(tree(s, x, budget, truncated));
    t["right"] = json::array();
    for (cgt::GameId x : s.right(g))
        t["right"].push_back(tree(s, x, budget, truncated));
    return t;
}

template <class BoardT, class Bits>
json value_json_of(const BoardT& b, const query::BasicValueAnswer<Bits>& a, cgt::GameStore& s,
                   std::size_t max_tree) {
    json j;
    j["position"] = rows_text(b, a.occ);
    j["board"] = b.name();
    j["value"] = s.format(a.value);
    j["ascii"] = s.format(a.value, {true});
    j["outcome"] = cgt::outcome_letter(a.outcome);
    j["outcome_name"] = outcome_name(cgt::konane_outcome(a.outcome));
    j["number"] = a.number;
    if (!a.number) {
        j["mean"] = a.thermal.mean.str();
        j["temperature"] = a.thermal.temperature.str();
        j["left_stop"] = a.left_stop.str();
        j["right_stop"] = a.right_stop.str();
    }
    j["regions"] = json::array();
    for (const auto& [r, rv] : a.regions) {
        j["regions"].push_back({{"position", rows_text(b, r)},
                                {"value", s.format(rv)},
                                {"ascii", s.format(rv, {true})}});
    }
    bool truncated = false;
    j["tree"] = tree(s, a.value, max_tree, truncated);
    if (truncated) j["tree_truncated"] = true;
    j["positions"] = a.positions;
    j["games"] = a.games;
    return j;
}

}  // namespace

json value_json(const Board& b, const query::ValueAnswer& a, cgt::GameStore& s,
                std::size_t max_tree) {
    return value_json_of(b, a, s, max_tree);
}

json value_json(const BigBoard& b, const query::WideValueAnswer& a, cgt::GameStore& s,
                std::size_t max_tree) {
    return value_json_of(b, a, s, max_tree);
}

}  // namespace konane::cli
