#include "query/proof.hpp"

namespace konane::query {

ProofAnswer prove(ProofSearch& s, Position p, bool both, const SideLabel& label) {
    ProofAnswer a;
    a.position = p;
    a.both = both;
    auto add = [&](const ProofResult& r) {
        a.nodes += r.nodes;
        a.table_hits += r.table_hits;
        a.seconds += r.seconds;
        a.cpu_seconds += r.cpu_seconds;
    };
    const ProofResult res = s.solve(p);
    add(res);
    a.win = res.win;
    if (res.winning_move) a.winning_move = res.winning_move->move;
    if (!both) return a;
    for (const Color side : {Color::Black, Color::White}) {
        std::optional<bool>& verdict = side == Color::Black ? a.black_starts : a.white_starts;
        if (side == p.to_move) {
            verdict = res.win;
            continue;
        }
        if (label) label(side == Color::Black ? " black starts" : " white starts");
        const ProofResult r = s.solve(Position{p.occ, side});
        add(r);
        verdict = r.win;
    }
    if (a.black_starts && a.white_starts) {
        a.outcome = outcome_of(Value{*a.black_starts, 0}, Value{*a.white_starts, 0});
    }
    return a;
}

}  // namespace konane::query
