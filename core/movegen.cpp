#include "core/movegen.hpp"

namespace konane {

// The rules are written once, over the bitboard type, in core/rules_generic.hpp.

bool has_jump(const Board& b, Position p) {
    return rules::has_jump(b, p.occ, p.to_move);
}

std::vector<MoveChild> legal_moves(const Board& b, Ruleset r, Position p) {
    return rules::legal_moves(b, r, p, false);
}

std::vector<MoveChild> legal_moves(const Board& b, Ruleset r, Position p, bool jumps_only) {
    return rules::legal_moves(b, r, p, jumps_only);
}

std::uint64_t perft(const Board& b, Ruleset r, Position p, int depth,
                    const std::atomic<bool>* stop) {
    return rules::perft(b, r, p, depth, stop);
}

}  // namespace konane
