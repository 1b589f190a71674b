#include "engine/review.hpp"

#include <algorithm>

namespace konane::engine {

std::vector<PlyReview> review_game(Engine& e, const Game& game, const MoveLimits& limits,
                                   const std::function<void(const PlyReview&)>& each) {
    std::vector<PlyReview> out;
    for (std::size_t i = 0; i < game.moves.size(); ++i) {
        PlyReview r;
        r.before = game.positions[i];
        r.played = game.moves[i];
        const auto d = e.decide(r.before, limits);
        if (!d) break;  // no legal move: parse_game() gives none, but stay safe
        r.choice = *d;
        r.agrees = d->move.move == r.played.move;
        r.before_won = d->proven_win;
        if (!r.before_won && d->source != Source::Only) r.before_won = e.prove(r.before, limits);
        if (r.agrees) {
            // A proven move (table, proof, value): its child's value is the converse of before's.
            if (d->source == Source::Table || d->source == Source::Proof ||
                d->source == Source::Value)
                r.after_won = !d->proven_win.value_or(false);
        } else {
            r.after_won = e.prove(r.played.child, limits);
            r.proven_mistake = r.before_won && *r.before_won && r.after_won && *r.after_won;
            if (!r.after_won && !(r.before_won && !*r.before_won)) {
                // Unproven: the heuristic search's judgement of both moves.
                const SearchResult mine = e.judge(d->move.child, limits);
                const SearchResult played = e.judge(r.played.child, limits);
                r.choice_score = -mine.info.score;
                r.played_score = -played.info.score;
            }
        }
        out.push_back(r);
        if (each) each(out.back());
    }
    return out;
}

}  // namespace konane::engine
