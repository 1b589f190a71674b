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
json value_json_of(const BoardT& b, const Bits& occ, cgt::BasicValuer<BoardT>& v,
                   std::size_t max_tree) {
    cgt::GameStore& s = v.store();
    const cgt::GameId g = v.value(occ);
    json j;
    j["position"] = rows_text(b, occ);
    j["board"] = b.name();
    j["value"] = s.format(g);
    j["ascii"] = s.format(g, {true});
    const cgt::OutcomeClass o = s.outcome(g);
    j["outcome"] = cgt::outcome_letter(o);
    j["outcome_name"] = outcome_name(cgt::konane_outcome(o));
    j["number"] = s.as_number(g).has_value();
    if (!s.as_number(g)) {
        const cgt::Thermal th = s.thermal(g);
        j["mean"] = th.mean.str();
        j["temperature"] = th.temperature.str();
        j["left_stop"] = s.left_stop(g).str();
        j["right_stop"] = s.right_stop(g).str();
    }
    j["regions"] = json::array();
    for (const Bits& r : v.regions_of(occ)) {
        const cgt::GameId rv = v.value(r);
        j["regions"].push_back({{"position", rows_text(b, r)},
                                {"value", s.format(rv)},
                                {"ascii", s.format(rv, {true})}});
    }
    bool truncated = false;
    j["tree"] = tree(s, g, max_tree, truncated);
    if (truncated) j["tree_truncated"] = true;
    j["positions"] = v.positions();
    j["games"] = s.size();
    return j;
}

}  // namespace

json value_json(const Board& b, std::uint64_t occ, cgt::Valuer& v, std::size_t max_tree) {
    return value_json_of(b, occ, v, max_tree);
}

json value_json(const BigBoard& b, const BigBits& occ, cgt::WideValuer& v, std::size_t max_tree) {
    return value_json_of(b, occ, v, max_tree);
}

}  // namespace konane::cli
