#include "core/movegen.hpp"

namespace konane {

bool has_jump(const Board& b, Position p) {
    const std::uint64_t mine = mover_pieces(b, p);
    const std::uint64_t opp = opponent_pieces(b, p);
    const std::uint64_t empty = b.all & ~p.occ;
    for (int d = 0; d < 4; ++d) {
        if (!b.can_jump[d]) continue;  // no jump this way; keeps the shifts below 64 bits
        const int s = b.step[d];
        const std::uint64_t jumpable = b.can_jump[d] & (s > 0 ? (opp >> s) & (empty >> (2 * s))
                                                              : (opp << -s) & (empty << (-2 * s)));
        if (mine & jumpable) return true;
    }
    return false;
}

std::vector<MoveChild> legal_moves(const Board& b, Ruleset r, Position p) {
    const Stage stage = stage_of(b, r, p);
    if (stage == Stage::Play) return legal_moves(b, r, p, true);
    std::vector<MoveChild> out;
    std::uint64_t removable = 0;
    if (stage == Stage::FullBoard) {
        removable = b.black_removals(r);
    } else {
        const int hole = std::countr_zero(b.all & ~p.occ);
        removable = b.neighbours(hole) & b.color[static_cast<int>(Color::White)];
    }
    removable &= p.occ;
    while (removable) {
        const int s = std::countr_zero(removable);
        removable &= removable - 1;
        const auto sq = static_cast<std::uint8_t>(s);
        out.push_back({Move{sq, sq}, Position{p.occ & ~(std::uint64_t{1} << s), other(p.to_move)}});
    }
    return out;
}

std::vector<MoveChild> legal_moves(const Board& b, Ruleset r, Position p, bool jumps_only) {
    if (!jumps_only) return legal_moves(b, r, p);
    std::vector<MoveChild> out;
    for_each_jump(b, p, [&](Move m, Position c) { out.push_back({m, c}); });
    return out;
}

namespace {
std::uint64_t perft_play(const Board& b, Position p, int depth) {
    if (depth == 0) return 1;
    std::uint64_t n = 0;
    if (depth == 1) {
        for_each_jump(b, p, [&](Move, Position) { ++n; });
        return n;
    }
    for_each_jump(b, p, [&](Move, Position c) { n += perft_play(b, c, depth - 1); });
    return n;
}
}  // namespace

std::uint64_t perft(const Board& b, Ruleset r, Position p, int depth) {
    if (depth == 0) return 1;
    if (stage_of(b, r, p) == Stage::Play) return perft_play(b, p, depth);
    std::uint64_t n = 0;
    for (const auto& mc : legal_moves(b, r, p))
        n += perft(b, r, mc.child, depth - 1);
    return n;
}

}  // namespace konane
