#include "engine/evaluation.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <stdexcept>

#include "core/bitboard.hpp"
#include "core/rules_generic.hpp"

namespace konane::engine {

namespace {

/// The pieces of `side` that have a jump, and the opponent pieces they can capture at once
/// (the squares jumped over by a first jump).
struct Threats {
    std::uint64_t movers = 0;
    std::uint64_t targets = 0;
};

Threats threats(const Board& b, std::uint64_t occ, Color side) {
    const std::uint64_t mine = occ & b.color[static_cast<int>(side)];
    const std::uint64_t opp = occ & b.color[static_cast<int>(other(side))];
    const std::uint64_t empty = b.all & ~occ;
    Threats t;
    for (int d = 0; d < 4; ++d) {
        if (!b.can_jump[d]) continue;
        const std::uint64_t from = mine & rules::jump_squares(b, opp, empty, d);
        t.movers |= from;
        const int s = b.step[d];
        t.targets |= shift_back(from, -s);  // the squares jumped over
    }
    return t;
}

/// The jumps of `side` that start from a piece in `from` (rules::count_jumps restricted to
/// those pieces: the same chains along each direction).
int count_jumps_from(const Board& b, std::uint64_t occ, Color side, std::uint64_t from) {
    const std::uint64_t mine = occ & b.color[static_cast<int>(side)] & from;
    const std::uint64_t opp = occ & b.color[static_cast<int>(other(side))];
    const std::uint64_t empty = b.all & ~occ;
    int n = 0;
    for (int d = 0; d < 4; ++d) {
        if (!b.can_jump[d]) continue;
        const int s = b.step[d];
        const std::uint64_t jumpable = rules::jump_squares(b, opp, empty, d);
        std::uint64_t at = mine & jumpable;
        while (at) {
            n += std::popcount(at);
            at = shift_back(at, -2 * s) & jumpable;
        }
    }
    return n;
}

}  // namespace

int evaluate(const Board& b, std::uint64_t occ, Color to_move, const Evaluation& e, int ply) {
    const int mine = rules::count_jumps(b, occ, to_move);
    if (mine == 0) return -(kWinScore - ply);
    const int theirs = rules::count_jumps(b, occ, other(to_move));
    int score = e.mobility * (mine - theirs);
    if (e.movable != 0 || e.safe != 0) {
        const Threats me = threats(b, occ, to_move), them = threats(b, occ, other(to_move));
        score += e.movable * (std::popcount(me.movers) - std::popcount(them.movers));
        if (e.safe != 0) {
            score += e.safe * (count_jumps_from(b, occ, to_move, ~them.targets) -
                               count_jumps_from(b, occ, other(to_move), ~me.targets));
        }
    }
    // Within the heuristic range, whatever the weights: never read as a win or loss.
    return std::clamp(score, -(kWinBound - 1), kWinBound - 1);
}

Evaluation parse_evaluation(std::string_view text) {
    Evaluation e;
    while (!text.empty()) {
        const std::size_t comma = text.find(',');
        const std::string_view item = text.substr(0, comma);
        text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
        const std::size_t eq = item.find('=');
        const std::string_view name = item.substr(0, eq);
        int* weight = name == "mobility"  ? &e.mobility
                      : name == "movable" ? &e.movable
                      : name == "safe"    ? &e.safe
                                          : nullptr;
        if (!weight) {
            throw std::invalid_argument("unknown evaluation term '" + std::string(name) +
                                        "' (mobility, movable, safe)");
        }
        const std::string_view value =
            eq == std::string_view::npos ? std::string_view{} : item.substr(eq + 1);
        int w = 0;
        const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), w);
        if (value.empty() || ec != std::errc{} || end != value.data() + value.size() ||
            w < -10000 || w > 10000) {
            throw std::invalid_argument("evaluation term " + std::string(name) +
                                        ": the weight must be a whole number from -10000 to "
                                        "10000, not '" +
                                        std::string(value) + "'");
        }
        *weight = w;
    }
    return e;
}

std::string evaluation_text(const Evaluation& e) {
    return "mobility=" + std::to_string(e.mobility) + ",movable=" + std::to_string(e.movable) +
           ",safe=" + std::to_string(e.safe);
}

}  // namespace konane::engine
