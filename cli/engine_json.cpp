#include "cli/engine_json.hpp"

#include "core/notation.hpp"

namespace konane::cli {

json decision_json(const Board& b, Position p, const std::optional<engine::Decision>& d) {
    json j;
    j["position"] = format_position(b, p);
    if (!d) {
        j["move"] = nullptr;
        j["describe"] = "no legal move: the side to move has lost";
        return j;
    }
    j["move"] = format_move(b, d->move.move);
    j["child"] = format_position(b, d->move.child);
    j["source"] = engine::source_name(d->source);
    j["describe"] = d->describe();
    j["proven"] = d->proven_win ? json(*d->proven_win ? "win" : "loss") : json(nullptr);
    j["depth"] = d->depth;
    j["score"] = d->score;
    json pv = json::array();
    for (const Move& m : d->pv)
        pv.push_back(format_move(b, m));
    j["pv"] = pv;
    j["nodes"] = d->nodes;
    j["proof_nodes"] = d->proof_nodes;
    j["seconds"] = d->seconds;
    j["value"] = d->source == engine::Source::Value ? json(d->value) : json(nullptr);
    return j;
}

}  // namespace konane::cli
