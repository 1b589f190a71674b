// The region rule and the valuer (cgt/konane.hpp) written once over the board type: the 64-bit
// Board (cgt/konane.cpp) and the wide board (cgt/wide.cpp) instantiate the same code.
// The rule and its proof: docs/cgt.md "Regions".
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

#include "cgt/konane.hpp"
#include "core/rules_generic.hpp"

namespace konane::cgt::generic {

template <class B>
using HashOf =
    std::conditional_t<std::is_same_v<B, std::uint64_t>, std::hash<std::uint64_t>, WideBitsHash>;

/// x shifted one step in direction with index step s (bit i of the result is bit i - s of x).
template <class B>
B forth(const B& x, int s) {
    return shift_back(x, -s);
}

/// cgt/konane.hpp reach() on any board type.
template <class BoardT>
rules::BitsOf<BoardT> reach(const BoardT& b, const rules::BitsOf<BoardT>& occ) {
    using B = rules::BitsOf<BoardT>;
    B p = occ & b.all;
    if constexpr (std::is_same_v<B, std::uint64_t>) {
        for (;;) {
            B next = p;
            for (int d = 0; d < 4; ++d) {
                if (!b.can_jump[d]) continue;
                const int s = b.step[d];
                // s in P, s + d in P, s + 2d on the board: s + 2d joins P.
                const B from = p & shift_back(p, s) & b.can_jump[d];
                next |= forth(from, 2 * s);
            }
            if (next == p) return p;
            p = next;
        }
    } else {
        // Past 64 squares the rounds above add one square of a line a round: up to 447 rounds
        // of seven-word shifts on a 1x448 row, most of the region split's time. But a square
        // s + 2d that joins P makes s + d, s + 2d a pair in P, so s + 3d joins next, and so on
        // to the edge: the whole ray from s + 2d along d is in the closure. Adding the rays at
        // once (a Kogge-Stone fill: log2 of the line's length shifts) reaches the same least
        // fixed point in a few rounds.
        // Lines of up to this many squares are crossed round by round (measured on 9x13: the
        // fill cost more there than the rounds it saves).
        constexpr int kRoundsPerLine = 16;
        for (;;) {
            B next = p;
            for (int d = 0; d < 4; ++d) {
                if (!b.can_jump[d]) continue;
                const int s = b.step[d];
                B ray = forth(B(p & shift_back(p, s) & b.can_jump[d]), 2 * s);
                const int length = s == 1 || s == -1 ? b.cols : b.rows;
                if (!ray || length <= kRoundsPerLine) {
                    next |= ray;  // short lines: the rounds cost less than the fill
                    continue;
                }
                // The squares one step along d from a square of the same line: a square steps
                // one iff it can jump two or is one past such a square (a line with a jump has
                // at least three squares).
                B e = forth(B(b.can_jump[d] | forth(b.can_jump[d], s)), s);
                for (int k = 1; k < length; k *= 2) {
                    ray |= e & forth(ray, k * s);
                    e &= forth(e, k * s);
                }
                next |= ray;
            }
            if (next == p) return p;
            p = next;
        }
    }
}

/// cgt/konane.hpp dilate() on any board type, given the masks of the first and last files.
template <class BoardT>
rules::BitsOf<BoardT> dilate(const BoardT& b, const rules::BitsOf<BoardT>& x,
                             const rules::BitsOf<BoardT>& first_file,
                             const rules::BitsOf<BoardT>& last_file) {
    using B = rules::BitsOf<BoardT>;
    B y = x;
    if (b.rows > 1) y |= forth(x, b.cols) | shift_back(x, b.cols);
    y |= forth(B(x & ~last_file), 1) | shift_back(B(x & ~first_file), 1);
    return y & b.all;
}

/// cgt/konane.hpp exact_reach() on any board type.
template <class BoardT>
std::optional<rules::BitsOf<BoardT>> exact_reach(const BoardT& b, const rules::BitsOf<BoardT>& occ,
                                                 std::size_t budget) {
    using B = rules::BitsOf<BoardT>;
    std::unordered_set<B, HashOf<B>> seen{occ};
    std::vector<B> stack{occ};
    B all = occ;
    while (!stack.empty()) {
        const B p = stack.back();
        stack.pop_back();
        for (Color c : {Color::Black, Color::White}) {
            rules::jumps(b, p, c, [&](int, int, const B& child) {
                if (seen.insert(child).second) {
                    all |= child;
                    stack.push_back(child);
                }
            });
        }
        if (seen.size() > budget) return std::nullopt;
    }
    return all;
}

/// cgt/konane.hpp regions() on any board type; dil(x) is dilate() on the board.
template <class BoardT, class Dilate>
std::vector<rules::BitsOf<BoardT>> regions(const BoardT& b, const rules::BitsOf<BoardT>& occ,
                                           std::size_t exact_budget, Dilate&& dil) {
    using B = rules::BitsOf<BoardT>;
    using Ops = BitOps<B>;
    // Start from the pieces' orthogonally connected groups (adjacent pieces interact at once),
    // then merge any two groups whose reach sets overlap or touch, until none do (each merge
    // leaves one group fewer); two groups left apart never interact (docs/cgt.md "Regions").
    std::vector<B> groups;
    B rest = occ & b.all;
    while (rest) {
        B g = Ops::one(Ops::lowest(rest));
        for (;;) {
            const B grown = dil(g) & occ;
            if (grown == g) break;
            g = grown;
        }
        groups.push_back(g);
        rest &= ~g;
    }
    // One group: nothing to split (a group without moves is valued 0 at once anyway).
    if (groups.size() <= 1) return groups;
    struct Group {
        B pieces, coarse;
        std::optional<B> exact;
        bool tried = false;
    };
    std::vector<Group> gs;
    for (const B& g : groups)
        gs.push_back(Group{g, reach(b, g), std::nullopt, false});
    auto exact_of = [&](Group& g) -> const std::optional<B>& {
        if (!g.tried && exact_budget > 0) g.exact = exact_reach(b, g.pieces, exact_budget);
        g.tried = true;
        return g.exact;
    };
    // Two groups interact unless one of their reach sets (the exact one when affordable, which
    // is smaller) keeps them apart by at least one square.
    auto touch = [&](Group& x, Group& y) {
        if (!(dil(x.coarse) & y.coarse)) return false;
        if (exact_budget == 0) return true;
        const auto& ex = exact_of(x);
        const auto& ey = exact_of(y);
        return !ex || !ey || static_cast<bool>(dil(*ex) & *ey);
    };
    for (bool merged = gs.size() > 1; merged;) {
        merged = false;
        for (std::size_t i = 0; i < gs.size() && !merged; ++i) {
            for (std::size_t j = i + 1; j < gs.size(); ++j) {
                if (touch(gs[i], gs[j])) {
                    // A group over the budget makes the merged one (more pieces, more
                    // positions) not worth trying again.
                    const bool hopeless =
                        (gs[i].tried && !gs[i].exact) || (gs[j].tried && !gs[j].exact);
                    const B both = gs[i].pieces | gs[j].pieces;
                    gs[i] = Group{both, reach(b, both), std::nullopt, hopeless};
                    gs.erase(gs.begin() + static_cast<std::ptrdiff_t>(j));
                    merged = true;
                    break;
                }
            }
        }
    }
    // A group whose pieces can never jump (no two squares of its reach adjacent) has value 0.
    std::vector<B> out;
    for (Group& g : gs) {
        const B p = g.exact ? *g.exact : g.coarse;
        bool live = false;
        for (int d = 0; d < 4 && !live; ++d)
            live = b.can_jump[d] && (p & shift_back(p, b.step[d]) & b.can_jump[d]);
        if (live) out.push_back(g.pieces);
    }
    std::sort(out.begin(), out.end(),
              [](const B& x, const B& y) { return Ops::lowest(x) < Ops::lowest(y); });
    return out;
}

}  // namespace konane::cgt::generic

namespace konane::cgt {

template <class BoardT>
BasicValuer<BoardT>::BasicValuer(const BoardT& b, GameStore& store, const ValueOptions& options)
    : board_(b), group_(b), store_(store), options_(options) {}

template <class BoardT>
auto BasicValuer<BoardT>::regions_of(const Bits& occ) const -> std::vector<Bits> {
    if (!options_.decompose) return occ ? std::vector<Bits>{occ} : std::vector<Bits>{};
    return regions(board(), occ, options_.exact_reach_budget);
}

template <class BoardT>
GameId BasicValuer<BoardT>::value(const Bits& occ) {
    return value_split(occ, options_.exact_reach_budget);
}

template <class BoardT>
GameId BasicValuer<BoardT>::value_split(const Bits& occ, std::size_t exact_budget) {
    if (!options_.decompose) return value_region(occ);
    // Positions met again (transpositions) skip the split; the memo is of the exact occupancy.
    if (auto it = split_memo_.find(occ); it != split_memo_.end()) return it->second;
    poll_stop();
    const std::vector<Bits> parts = regions(board(), occ, exact_budget);
    GameId sum = store_.zero();
    for (const Bits& r : parts)
        sum = store_.add(sum, value_region(r));
    split_memo_.emplace(occ, sum);
    return sum;
}

template <class BoardT>
void BasicValuer<BoardT>::poll_stop() {
    if (!options_.should_stop || ++work_ % kValueStopPoll != 0) return;
    std::string why = options_.should_stop();
    if (!why.empty()) throw ValueStopped(why);
}

template <class BoardT>
auto BasicValuer<BoardT>::least_image(const Bits& occ) const -> std::pair<Bits, bool> {
    Bits key = occ;
    bool negate = false;
    if constexpr (std::is_same_v<BoardT, Board>) {
        // On boards of at most 63 squares canonical_key() finds the least image by bit
        // operations: with Black to move, the least through a colour-preserving symmetry (bit
        // 63 clear); with White to move, bit 63 is clear exactly for the images through a
        // colour swap.
        if (board().squares() <= kMaxKeySquares) {
            constexpr std::uint64_t kSide = std::uint64_t{1} << 63;
            key = group_.canonical_key(Position{occ, Color::Black});
            const std::uint64_t swapped = group_.canonical_key(Position{occ, Color::White});
            if (!(swapped & kSide) && swapped < key) {
                key = swapped;
                negate = true;
            }
            return {key, negate};
        }
    }
    for (int g = 1; g < group_.size(); ++g) {
        const Bits img = group_.apply(g, occ);
        if (img < key) {
            key = img;
            negate = group_.swaps_colour(g);
        }
    }
    return {key, negate};
}

template <class BoardT>
GameId BasicValuer<BoardT>::value_region(const Bits& occ) {
    // The least image under the board's symmetries; an image through a colour-swapping symmetry
    // is the same position with Black and White exchanged: the negative game.
    const auto [key, negate] = least_image(occ);
    if (auto it = memo_.find(key); it != memo_.end())
        return negate ? store_.neg(it->second) : it->second;
    if (options_.max_positions && memo_.size() >= options_.max_positions)
        throw ValueLimit("not computed within " + std::to_string(options_.max_positions) +
                         " positions");
    if (options_.max_games && store_.size() >= options_.max_games)
        throw ValueLimit("not computed within " + std::to_string(options_.max_games) + " games");
    poll_stop();
    // The options of the canonical image `key` (Left = Black's jumps, Right = White's).
    const BoardT& b = board();
    std::vector<GameId> left, right;
    rules::jumps(b, key, Color::Black,
                 [&](int, int, const Bits& child) { left.push_back(value_split(child, 0)); });
    rules::jumps(b, key, Color::White,
                 [&](int, int, const Bits& child) { right.push_back(value_split(child, 0)); });
    const GameId v = store_.make(std::move(left), std::move(right));
    memo_.emplace(key, v);
    if (options_.progress && (memo_.size() & 0xFFFF) == 0)
        options_.progress(memo_.size(), store_.size());
    return negate ? store_.neg(v) : v;
}

}  // namespace konane::cgt
