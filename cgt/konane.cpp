// Kōnane positions as combinatorial games (konane.hpp; the region rule: docs/cgt.md).
#include "cgt/konane.hpp"

#include <algorithm>
#include <bit>
#include <string>
#include <unordered_set>

#include "core/movegen.hpp"

namespace konane::cgt {

namespace {

// Squares x such that x + step(d) is in `set` (and x + step(d) is on the board's line, which
// the can_jump masks of the callers guarantee).
std::uint64_t back(std::uint64_t set, int s) {
    return s > 0 ? set >> s : set << -s;
}
std::uint64_t forth(std::uint64_t set, int s) {
    return s > 0 ? set << s : set >> -s;
}

}  // namespace

std::uint64_t reach(const Board& b, std::uint64_t occ) {
    std::uint64_t p = occ & b.all;
    for (;;) {
        std::uint64_t next = p;
        for (int d = 0; d < 4; ++d) {
            if (!b.can_jump[d]) continue;
            const int s = b.step[d];
            // s in P, s + d in P, s + 2d on the board: s + 2d joins P.
            const std::uint64_t from = p & back(p, s) & b.can_jump[d];
            next |= forth(from, 2 * s);
        }
        if (next == p) return p;
        p = next;
    }
}

std::uint64_t dilate(const Board& b, std::uint64_t x) {
    // The first and last files' masks, kept for the last board seen (one per thread).
    thread_local int rows = 0, cols = 0;
    thread_local std::uint64_t first_file = 0, last_file = 0;
    if (rows != b.rows || cols != b.cols) {
        rows = b.rows;
        cols = b.cols;
        first_file = last_file = 0;
        for (int r = 1; r <= b.rows; ++r) {
            first_file |= std::uint64_t{1} << b.square(0, r);
            last_file |= std::uint64_t{1} << b.square(b.cols - 1, r);
        }
    }
    std::uint64_t y = x;
    if (b.rows > 1) {
        y |= b.cols < 64 ? (x << b.cols) | (x >> b.cols) : 0;
    }
    y |= ((x & ~last_file) << 1) | ((x & ~first_file) >> 1);
    return y & b.all;
}

std::optional<std::uint64_t> exact_reach(const Board& b, std::uint64_t occ, std::size_t budget) {
    std::unordered_set<std::uint64_t> seen{occ};
    std::vector<std::uint64_t> stack{occ};
    std::uint64_t all = occ;
    while (!stack.empty()) {
        const std::uint64_t p = stack.back();
        stack.pop_back();
        for (Color c : {Color::Black, Color::White}) {
            for_each_jump(b, Position{p, c}, [&](Move, Position child) {
                if (seen.insert(child.occ).second) {
                    all |= child.occ;
                    stack.push_back(child.occ);
                }
            });
        }
        if (seen.size() > budget) return std::nullopt;
    }
    return all;
}

std::vector<std::uint64_t> regions(const Board& b, std::uint64_t occ, std::size_t exact_budget) {
    // Start from the pieces' orthogonally connected groups (adjacent pieces interact at once),
    // then merge any two groups whose reach sets overlap or touch, until none do (each merge
    // leaves one group fewer); two groups left apart never interact (docs/cgt.md "Regions").
    std::vector<std::uint64_t> groups;
    std::uint64_t rest = occ & b.all;
    while (rest) {
        std::uint64_t g = rest & -rest;
        for (;;) {
            const std::uint64_t grown = dilate(b, g) & occ;
            if (grown == g) break;
            g = grown;
        }
        groups.push_back(g);
        rest &= ~g;
    }
    // One group: nothing to split (a group without moves is valued 0 at once anyway).
    if (groups.size() <= 1) return groups;
    struct Group {
        std::uint64_t pieces, coarse;
        std::optional<std::uint64_t> exact;
        bool tried = false;
    };
    std::vector<Group> gs;
    for (std::uint64_t g : groups)
        gs.push_back(Group{g, reach(b, g), std::nullopt, false});
    auto exact_of = [&](Group& g) -> const std::optional<std::uint64_t>& {
        if (!g.tried && exact_budget > 0) g.exact = exact_reach(b, g.pieces, exact_budget);
        g.tried = true;
        return g.exact;
    };
    // Two groups interact unless one of their reach sets (the exact one when affordable, which
    // is smaller) keeps them apart by at least one square.
    auto touch = [&](Group& x, Group& y) {
        if (!(dilate(b, x.coarse) & y.coarse)) return false;
        if (exact_budget == 0) return true;
        const auto& ex = exact_of(x);
        const auto& ey = exact_of(y);
        return !ex || !ey || (dilate(b, *ex) & *ey) != 0;
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
                    const std::uint64_t both = gs[i].pieces | gs[j].pieces;
                    gs[i] = Group{both, reach(b, both), std::nullopt, hopeless};
                    gs.erase(gs.begin() + static_cast<std::ptrdiff_t>(j));
                    merged = true;
                    break;
                }
            }
        }
    }
    // A group whose pieces can never jump (no two squares of its reach adjacent) has value 0.
    std::vector<std::uint64_t> out;
    for (Group& g : gs) {
        const std::uint64_t p = g.exact ? *g.exact : g.coarse;
        bool live = false;
        for (int d = 0; d < 4 && !live; ++d)
            live = b.can_jump[d] && (p & back(p, b.step[d]) & b.can_jump[d]);
        if (live) out.push_back(g.pieces);
    }
    std::sort(out.begin(), out.end(), [](std::uint64_t x, std::uint64_t y) {
        return std::countr_zero(x) < std::countr_zero(y);
    });
    return out;
}

Valuer::Valuer(const Board& b, GameStore& store, const ValueOptions& options)
    : group_(b), store_(store), options_(options) {}

std::vector<std::uint64_t> Valuer::regions_of(std::uint64_t occ) const {
    if (!options_.decompose)
        return occ ? std::vector<std::uint64_t>{occ} : std::vector<std::uint64_t>{};
    return regions(board(), occ, options_.exact_reach_budget);
}

GameId Valuer::value(std::uint64_t occ) {
    return value_split(occ, options_.exact_reach_budget);
}

GameId Valuer::value_split(std::uint64_t occ, std::size_t exact_budget) {
    if (!options_.decompose) return value_region(occ);
    // Positions met again (transpositions) skip the split; the memo is of the exact occupancy.
    if (auto it = split_memo_.find(occ); it != split_memo_.end()) return it->second;
    const std::vector<std::uint64_t> parts = regions(board(), occ, exact_budget);
    GameId sum = store_.zero();
    for (std::uint64_t r : parts)
        sum = store_.add(sum, value_region(r));
    split_memo_.emplace(occ, sum);
    return sum;
}

GameId Valuer::value_region(std::uint64_t occ) {
    // The least image under the board's symmetries; an image through a colour-swapping symmetry
    // is the same position with Black and White exchanged: the negative game.
    // On boards of at most 63 squares canonical_key() finds the least image by bit operations:
    // with Black to move, the least through a colour-preserving symmetry (bit 63 clear); with
    // White to move, bit 63 is clear exactly for the images through a colour swap.
    std::uint64_t key = occ;
    bool negate = false;
    if (board().squares() <= kMaxKeySquares) {
        constexpr std::uint64_t kSide = std::uint64_t{1} << 63;
        key = group_.canonical_key(Position{occ, Color::Black});
        const std::uint64_t swapped = group_.canonical_key(Position{occ, Color::White});
        if (!(swapped & kSide) && swapped < key) {
            key = swapped;
            negate = true;
        }
    } else {
        for (int g = 1; g < group_.size(); ++g) {
            const std::uint64_t img = group_.apply(g, occ);
            if (img < key) {
                key = img;
                negate = group_.swaps_colour(g);
            }
        }
    }
    if (auto it = memo_.find(key); it != memo_.end())
        return negate ? store_.neg(it->second) : it->second;
    if (options_.max_positions && memo_.size() >= options_.max_positions)
        throw ValueLimit("not computed within " + std::to_string(options_.max_positions) +
                         " positions");
    if (options_.max_games && store_.size() >= options_.max_games)
        throw ValueLimit("not computed within " + std::to_string(options_.max_games) + " games");
    // The options of the canonical image `key` (Left = Black's jumps, Right = White's).
    const Board& b = board();
    std::vector<GameId> left, right;
    for_each_jump(b, Position{key, Color::Black},
                  [&](Move, Position child) { left.push_back(value_split(child.occ, 0)); });
    for_each_jump(b, Position{key, Color::White},
                  [&](Move, Position child) { right.push_back(value_split(child.occ, 0)); });
    const GameId v = store_.make(std::move(left), std::move(right));
    memo_.emplace(key, v);
    if (options_.progress && (memo_.size() & 0xFFFF) == 0)
        options_.progress(memo_.size(), store_.size());
    return negate ? store_.neg(v) : v;
}

}  // namespace konane::cgt
