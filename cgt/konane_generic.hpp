// The region rule and the valuer (cgt/konane.hpp) written once over the board type: the 64-bit
// Board (cgt/konane.cpp) and the wide board (cgt/wide.cpp) instantiate the same code.
// The rule and its proof: docs/cgt.md "Regions".
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

#include "cgt/konane.hpp"
#include "cgt/position_map.hpp"
#include "core/rules_generic.hpp"
#include "core/wide.hpp"

namespace konane::cgt::generic {

template <class B>
using HashOf =
    std::conditional_t<std::is_same_v<B, std::uint64_t>, std::hash<std::uint64_t>, WideBitsHash>;

/// x shifted one step in direction with index step s (bit i of the result is bit i - s of x).
template <class B>
B forth(const B& x, int s) {
    return shift_back(x, -s);
}

/// cgt/konane.hpp reach() on any board type, within the squares `within` (the least set P
/// holding occ & within and closed under "s, s + d in P and s + 2d in `within`"): the squares
/// the pieces of occ can reach when they are known never to leave `within`.
template <class BoardT>
rules::BitsOf<BoardT> reach(const BoardT& b, const rules::BitsOf<BoardT>& occ,
                            const rules::BitsOf<BoardT>& within) {
    using B = rules::BitsOf<BoardT>;
    B p = occ & within;
    if constexpr (std::is_same_v<B, std::uint64_t>) {
        for (;;) {
            B next = p;
            for (int d = 0; d < 4; ++d) {
                if (!b.can_jump[d]) continue;
                const int s = b.step[d];
                // s in P, s + d in P, s + 2d on the board: s + 2d joins P.
                const B from = p & shift_back(p, s) & b.can_jump[d];
                next |= forth(from, 2 * s) & within;
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
                B ray = forth(B(p & shift_back(p, s) & b.can_jump[d]), 2 * s) & within;
                const int length = s == 1 || s == -1 ? b.cols : b.rows;
                if (!ray || length <= kRoundsPerLine) {
                    next |= ray;  // short lines: the rounds cost less than the fill
                    continue;
                }
                // The squares one step along d from a square of the same line: a square steps
                // one iff it can jump two or is one past such a square (a line with a jump has
                // at least three squares).
                B e = forth(B(b.can_jump[d] | forth(b.can_jump[d], s)), s) & within;
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

/// cgt/konane.hpp reach() on any board type.
template <class BoardT>
rules::BitsOf<BoardT> reach(const BoardT& b, const rules::BitsOf<BoardT>& occ) {
    return reach(b, occ, b.all);
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
    if (budget <= 128) {
        // Few positions (the valuer asks this of most groups it meets): a list of those seen,
        // found again through a small open-addressing table of their indices (a table of 2^16
        // bytes would cost more to clear than the search; a list searched from its end costs
        // its length a child).
        std::vector<B> seen{occ};
        seen.reserve(budget + 8);
        constexpr std::size_t kSlots = 1024;       // at most 129 used: a quarter full or less
        std::array<std::uint16_t, kSlots> slot{};  // index + 1 into seen; 0: empty
        auto home = [](const B& x) {
            return static_cast<std::size_t>(position_hash(x) >> 54);  // the top 10 bits: kSlots
        };
        slot[home(occ)] = 1;
        B all = occ;
        for (std::size_t next = 0; next < seen.size(); ++next) {
            const B p = seen[next];
            for (Color c : {Color::Black, Color::White}) {
                rules::jumps(b, p, c, [&](int, int, const B& child) {
                    if (seen.size() > budget) return;  // over: the answer is known
                    std::size_t i = home(child);
                    for (; slot[i]; i = (i + 1) & (kSlots - 1))
                        if (seen[slot[i] - 1] == child) return;
                    seen.push_back(child);
                    slot[i] = static_cast<std::uint16_t>(seen.size());
                    all |= child;
                });
            }
            if (seen.size() > budget) return std::nullopt;
        }
        return all;
    }
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

/// Whether either side has a jump in the position of pieces occ (the game is 0 when neither has:
/// { | }).
template <class BoardT>
bool any_jump(const BoardT& b, const rules::BitsOf<BoardT>& occ) {
    using B = rules::BitsOf<BoardT>;
    const B empty = b.all & ~occ;
    for (int d = 0; d < 4; ++d) {
        if (!b.can_jump[d]) continue;
        const int s = b.step[d];
        // A piece on t, a piece on t + d (the other colour: neighbours differ) and t + 2d empty.
        if (occ & b.can_jump[d] & shift_back(occ, s) & shift_back(empty, 2 * s)) return true;
    }
    return false;
}

/// The lowest 64 bits of a set of squares.
inline std::uint64_t low_word(std::uint64_t x) {
    return x;
}
template <int N>
std::uint64_t low_word(const WideBits<N>& x) {
    return x.w[0];
}

/// The set whose lowest 64 bits are `word`, the others empty.
template <class B>
B from_word(std::uint64_t word) {
    if constexpr (std::is_same_v<B, std::uint64_t>) {
        return word;
    } else {
        B x;
        x.w[0] = word;
        return x;
    }
}

/// The ranks r0..r1 and files f0..f1 a set of squares spans (empty: r1 < r0).
struct Box {
    int r0 = 0, r1 = -1, f0 = 0, f1 = -1;
    int rows() const { return r1 - r0 + 1; }
    int cols() const { return f1 - f0 + 1; }
};

/// The highest member of a non-empty set.
inline int highest(std::uint64_t x) {
    return 63 - std::countl_zero(x);
}
template <int N>
int highest(const WideBits<N>& x) {
    for (int i = N - 1; i > 0; --i)
        if (x.w[i]) return 64 * i + 63 - std::countl_zero(x.w[i]);
    return 63 - std::countl_zero(x.w[0]);
}

/// The bounding box of x on board b, whose lines have at most 64 squares (b.cols <= 64).
template <class BoardT>
Box bounding_box(const BoardT& b, const rules::BitsOf<BoardT>& x) {
    using B = rules::BitsOf<BoardT>;
    if (!x) return Box{};
    Box box;
    box.r0 = BitOps<B>::lowest(x) / b.cols + 1;
    box.r1 = highest(x) / b.cols + 1;
    // The files: the box's rows folded onto its first (after the steps of k = 1, 2, 4, ...
    // row 0 holds rows 0 to 2k - 1).
    B f = shift_back(x, (box.r0 - 1) * b.cols);
    for (int k = 1; k < box.rows(); k *= 2)
        f |= shift_back(f, k * b.cols);
    const std::uint64_t line = b.cols == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << b.cols) - 1;
    const std::uint64_t files = low_word(f) & line;
    box.f0 = std::countr_zero(files);
    box.f1 = 63 - std::countl_zero(files);
    return box;
}

/// A box the pieces of occ never leave, by counting: a jump captures one piece of the other
/// colour and moves the jumping piece two squares, so a Black piece ends within 2 * (White's
/// pieces) squares of where it stands (in rows plus files), and a White piece within 2 *
/// (Black's pieces). The union of the two colours' boxes so widened, on the board.
template <class BoardT>
Box count_box(const BoardT& b, const rules::BitsOf<BoardT>& occ) {
    using B = rules::BitsOf<BoardT>;
    const B black = occ & b.color[static_cast<int>(Color::Black)];
    const B white = occ & b.color[static_cast<int>(Color::White)];
    const int nb = BitOps<B>::count(black), nw = BitOps<B>::count(white);
    // A colour whose pieces may move at least the board's length and width fills it, wherever
    // its pieces stand (no box to compute).
    const int span = std::max(b.rows, b.cols) - 1;
    if ((nb > 0 && 2 * nw >= span) || (nw > 0 && 2 * nb >= span))
        return Box{1, b.rows, 0, b.cols - 1};
    Box box;
    auto add = [&](const B& pieces, int reach) {
        if (!pieces) return;
        const Box p = bounding_box(b, pieces);
        const Box wide{std::max(1, p.r0 - reach), std::min(b.rows, p.r1 + reach),
                       std::max(0, p.f0 - reach), std::min(b.cols - 1, p.f1 + reach)};
        if (box.r1 < box.r0) {
            box = wide;
            return;
        }
        box = Box{std::min(box.r0, wide.r0), std::max(box.r1, wide.r1), std::min(box.f0, wide.f0),
                  std::max(box.f1, wide.f1)};
    };
    add(black, 2 * nw);
    add(white, 2 * nb);
    return box;
}

/// The squares of `box` on board b (lines of at most 64 squares).
template <class BoardT>
rules::BitsOf<BoardT> box_mask(const BoardT& b, const Box& box) {
    using B = rules::BitsOf<BoardT>;
    const int w = box.cols();
    const std::uint64_t line = (w == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << w) - 1)
                               << box.f0;
    const B row = from_word<B>(line);
    B m{};
    for (int r = box.r0; r <= box.r1; ++r)
        m |= shift_back(row, -(r - 1) * b.cols);
    return m;
}

/// cgt/konane.hpp bounded_reach() on any board type; from `start` (occ and squares of its
/// bounded reach) when given.
template <class BoardT>
rules::BitsOf<BoardT> bounded_reach(const BoardT& b, const rules::BitsOf<BoardT>& occ,
                                    const rules::BitsOf<BoardT>& start) {
    if (b.cols > 64) return reach(b, start);
    return reach(b, start, box_mask(b, count_box(b, occ)));
}
template <class BoardT>
rules::BitsOf<BoardT> bounded_reach(const BoardT& b, const rules::BitsOf<BoardT>& occ) {
    return bounded_reach(b, occ, occ);
}

/// The squares of x inside `box` on board b, as a set of the box's own board (box.rows() x
/// box.cols(), its rank 1 the box's lowest rank, its file a the box's first file).
template <class Local, class BoardT>
Local to_box(const BoardT& b, const rules::BitsOf<BoardT>& x, const Box& box) {
    const int w = box.cols();
    const std::uint64_t line = w == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << w) - 1;
    Local out{};
    for (int r = box.r0; r <= box.r1; ++r) {
        const std::uint64_t row = low_word(shift_back(x, (r - 1) * b.cols + box.f0)) & line;
        if (row) out |= shift_back(from_word<Local>(row), -(r - box.r0) * w);
    }
    return out;
}

/// The orthogonally connected groups of the pieces occ on board b, each as a set, in the order
/// of their lowest squares. On the 64-bit board each group grows from its lowest piece by
/// dilation, a few word operations a round; on the wide boards, where a round costs a shift of
/// every word and a group takes as many rounds as it is long (a STAIR's staircase: twice its
/// pairs), by union-find over the pieces, each joined to its neighbours one file and one rank
/// up, in one pass (docs/cgt.md "Speed"; in the 64-bit proof search's region test the
/// union-find cost more than the dilation).
template <class BoardT>
std::vector<rules::BitsOf<BoardT>> orthogonal_groups(const BoardT& b,
                                                     const rules::BitsOf<BoardT>& occ) {
    using B = rules::BitsOf<BoardT>;
    using Ops = BitOps<B>;
    if constexpr (std::is_same_v<B, std::uint64_t>) {
        std::vector<B> groups;
        for (B rest = occ; rest;) {
            B g = Ops::one(Ops::lowest(rest));
            for (;;) {
                const B grown = cgt::dilate(b, g) & occ;
                if (grown == g) break;
                g = grown;
            }
            groups.push_back(g);
            rest &= ~g;
        }
        return groups;
    }
    // Square -> piece, piece -> square, piece -> parent; only the entries of pieces are read.
    // (One more than the squares: lowest() of an empty set is kBits, which the compiler sees.)
    std::array<std::uint16_t, Ops::kBits + 1> piece, square, parent;
    int n = 0;
    for (B rest = occ; rest; Ops::pop_lowest(rest)) {
        const int s = Ops::lowest(rest);
        piece[static_cast<std::size_t>(s)] = static_cast<std::uint16_t>(n);
        square[static_cast<std::size_t>(n)] = static_cast<std::uint16_t>(s);
        parent[static_cast<std::size_t>(n)] = static_cast<std::uint16_t>(n);
        ++n;
    }
    auto find = [&](int k) {
        while (parent[static_cast<std::size_t>(k)] != k) {
            auto& up = parent[static_cast<std::size_t>(k)];
            up = parent[up];  // path halving
            k = up;
        }
        return k;
    };
    // The root of a group is its least piece number, its lowest square.
    auto unite = [&](int x, int y) {
        x = find(x);
        y = find(y);
        if (x < y) parent[static_cast<std::size_t>(y)] = static_cast<std::uint16_t>(x);
        if (y < x) parent[static_cast<std::size_t>(x)] = static_cast<std::uint16_t>(y);
    };
    const int squares = std::min(b.rows * b.cols, Ops::kBits);
    for (int k = 0; k < n; ++k) {
        const int s = square[static_cast<std::size_t>(k)];
        const int right = s + 1, up = s + b.cols;
        if (right < squares && s % b.cols + 1 < b.cols && Ops::test(occ, right))
            unite(k, piece[static_cast<std::size_t>(right)]);
        if (up < squares && Ops::test(occ, up)) unite(k, piece[static_cast<std::size_t>(up)]);
    }
    std::vector<B> groups;
    groups.reserve(static_cast<std::size_t>(n));
    std::array<std::uint16_t, Ops::kBits + 1> slot;  // root -> its group's index in `groups`
    for (int k = 0; k < n; ++k) {
        const int r = find(k);
        const B one = Ops::one(square[static_cast<std::size_t>(k)]);
        if (r == k) {
            slot[static_cast<std::size_t>(k)] = static_cast<std::uint16_t>(groups.size());
            groups.push_back(one);
        } else {
            groups[slot[static_cast<std::size_t>(r)]] |= one;
        }
    }
    return groups;
}

/// cgt/konane.hpp regions() on any board type; dil(x) is dilate() on the board; exact(g) is
/// exact_reach() of a group g within the budget with its dilation (nullopt over it), or
/// nullptr: none tried; bounded(g) is bounded_reach() of an orthogonally connected group with
/// its dilation (callers memoise both, the same groups recurring in many positions). With
/// `reaches`, also, in the same order, a set of squares each region's pieces never leave: its
/// reach set (the exact one where it was computed), or the whole board for a position of one
/// group, where no reach set is needed to split it.
template <class BoardT, class Dilate, class Exact, class Bounded>
std::vector<rules::BitsOf<BoardT>> regions(const BoardT& b, const rules::BitsOf<BoardT>& occ,
                                           Exact&& exact, Dilate&& dil, Bounded&& bounded,
                                           std::vector<rules::BitsOf<BoardT>>* reaches = nullptr) {
    constexpr bool kExact = !std::is_same_v<std::decay_t<Exact>, std::nullptr_t>;
    using B = rules::BitsOf<BoardT>;
    using Ops = BitOps<B>;
    // Start from the pieces' orthogonally connected groups (adjacent pieces interact at once),
    // then merge any two groups whose reach sets overlap or touch, until none do (each merge
    // leaves one group fewer); two groups left apart never interact (docs/cgt.md "Regions").
    std::vector<B> groups = orthogonal_groups(b, B(occ & b.all));
    // One group: nothing to split (a group without moves is valued 0 at once anyway).
    if (groups.size() <= 1) {
        if (reaches) reaches->assign(groups.size(), b.all);  // not computed: the whole board
        return groups;
    }
    // Dilation distributes over union, so a merged group's dil(coarse) is the union of the
    // two groups' (no dilation a merge).
    struct Group {
        B pieces, coarse;
        std::optional<B> exact;
        bool tried = false;
        bool open = false;  // coarse is a union of reach sets, not yet closed
        B halo{};           // dil(coarse), or dil(*exact) once tried and found: for touch()
        B coarse_halo{};    // dil(coarse)
    };
    // Whether pieces standing within p could ever jump (two adjacent squares of p with room to
    // land); true of p is true of every set holding p.
    auto live = [&](const B& p) {
        for (int d = 0; d < 4; ++d)
            if (b.can_jump[d] && (p & shift_back(p, b.step[d]) & b.can_jump[d])) return true;
        return false;
    };
    // A group's reach set: bounded_reach(), from `start`, a subset of it.
    auto tight = [&](const B& pieces, const B& start) { return bounded_reach(b, pieces, start); };
    // Two groups interact unless one of their reach sets (the exact one when affordable, which
    // is smaller) keeps them apart by at least one square.
    // (Each group's dilated reach set is kept in it, made once: a group is tested against
    // every other.)
    auto touch = [&](Group& x, Group& y) {
        if (!(x.halo & y.coarse)) return false;
        if constexpr (!kExact) {
            return true;
        } else {
            auto exact_of = [&](Group& g) -> const std::optional<B>& {
                if (!g.tried) {
                    if (const std::optional<ReachSet<B>> e = exact(g.pieces)) {
                        g.exact = e->squares;
                        g.halo = e->halo;
                    }
                }
                g.tried = true;
                return g.exact;
            };
            const auto& ex = exact_of(x);
            const auto& ey = exact_of(y);
            return !ex || !ey || static_cast<bool>(x.halo & *ey);
        }
    };
    // Merging: each group in turn absorbs the groups kept so far that it touches. A merged
    // group's reach is at first the union of the two (`open`: not closed yet, a subset of its
    // reach set): closing it costs a reach computation a merge, and most positions end as one
    // region, which needs no reach set. Only when two or more groups are left are the open ones
    // closed and the merging run again, until every group left is closed and none touches
    // another.
    // (Each vector is given its room once: a split is made millions of times, and a vector
    // grown by doubling costs a malloc and a free a doubling.)
    std::vector<Group> gs, kept;
    gs.reserve(groups.size());
    kept.reserve(groups.size());
    // A bounded() that can (the valuer's memo) is told every group first, so that the memo's
    // look-ups, each a cache miss, wait together.
    if constexpr (requires { bounded.prefetch(groups[0]); }) {
        for (const B& g0 : groups)
            bounded.prefetch(g0);
    }
    for (const B& g0 : groups) {
        const ReachSet<B> c = bounded(g0);
        gs.push_back(Group{g0, c.squares, std::nullopt, false, false, c.halo, c.halo});
    }
    for (;;) {
        kept.clear();
        for (Group& g : gs) {
            for (bool grew = true; grew;) {
                grew = false;
                for (std::size_t j = 0; j < kept.size(); ++j) {
                    if (!touch(g, kept[j])) continue;
                    // A group over the budget makes the merged one (more pieces, more
                    // positions) not worth trying again.
                    const bool hopeless =
                        (g.tried && !g.exact) || (kept[j].tried && !kept[j].exact);
                    const B c = g.coarse | kept[j].coarse;
                    const B halo = g.coarse_halo | kept[j].coarse_halo;
                    g = Group{
                        B(g.pieces | kept[j].pieces), c, std::nullopt, hopeless, true, halo, halo};
                    kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(j));
                    grew = true;
                    break;
                }
            }
            kept.push_back(std::move(g));
        }
        gs.swap(kept);
        if (gs.size() == 1) {
            // One region: its reach set is not needed (nor known, when open). A union that
            // could jump is within a reach set that can; otherwise close it to know.
            Group& g = gs[0];
            if (g.open && !live(g.coarse)) g.coarse = tight(g.pieces, g.coarse);
            if (!live(g.exact ? *g.exact : g.coarse)) {
                if (reaches) reaches->clear();
                return {};
            }
            if (reaches) reaches->assign(1, b.all);
            return {g.pieces};
        }
        bool closed_all = true;
        for (Group& g : gs) {
            if (!g.open) continue;
            // The closure of the union of reach sets is the reach of the merged group (reach
            // is a closure: monotone, idempotent; the merged count box holds both boxes).
            g.coarse = tight(g.pieces, g.coarse);
            g.coarse_halo = dil(g.coarse);
            if (!g.exact) g.halo = g.coarse_halo;
            g.open = false;
            closed_all = false;
        }
        if (closed_all) break;
    }
    // A group whose pieces can never jump (no two squares of its reach adjacent) has value 0.
    std::vector<std::pair<B, B>> live_groups;  // pieces, reach
    live_groups.reserve(gs.size());
    for (Group& g : gs) {
        const B p = g.exact ? *g.exact : g.coarse;
        if (live(p)) live_groups.emplace_back(g.pieces, p);
    }
    std::sort(live_groups.begin(), live_groups.end(), [](const auto& x, const auto& y) {
        return Ops::lowest(x.first) < Ops::lowest(y.first);
    });
    std::vector<B> out;
    out.reserve(live_groups.size());
    if (reaches) {
        reaches->clear();
        reaches->reserve(live_groups.size());
    }
    for (const auto& [pieces, p] : live_groups) {
        out.push_back(pieces);
        if (reaches) reaches->push_back(p);
    }
    return out;
}

/// regions() with exact_reach() of at most `exact_budget` positions a group (0: none tried).
template <class BoardT, class Dilate, class Bounded>
std::vector<rules::BitsOf<BoardT>> regions_within(
    const BoardT& b, const rules::BitsOf<BoardT>& occ, std::size_t exact_budget, Dilate&& dil,
    Bounded&& bounded, std::vector<rules::BitsOf<BoardT>>* reaches = nullptr) {
    using B = rules::BitsOf<BoardT>;
    if (exact_budget == 0) return regions(b, occ, nullptr, dil, bounded, reaches);
    return regions(
        b, occ,
        [&](const B& g) -> std::optional<ReachSet<B>> {
            const std::optional<B> e = exact_reach(b, g, exact_budget);
            if (!e) return std::nullopt;
            return ReachSet<B>{*e, dil(*e)};
        },
        dil, bounded, reaches);
}

}  // namespace konane::cgt::generic

namespace konane::cgt::detail {

/// The valuers of the local boards, by shape (rows * 1024 + cols), made on first use; the first
/// valuer owns the family, and every valuer of it counts its positions here.
struct ValuerFamily {
    std::size_t positions = 0;
    std::unordered_map<int, std::unique_ptr<BasicValuer<Board>>> narrow;        // <= 64 squares
    std::unordered_map<int, std::unique_ptr<BasicValuer<WideBoard<2>>>> wide2;  // <= 128
    std::unordered_map<int, std::unique_ptr<BasicValuer<WideBoard<3>>>> wide3;  // <= 192
    std::unordered_map<int, std::unique_ptr<BasicValuer<BigBoard>>> wide;       // the rest
};

}  // namespace konane::cgt::detail

namespace konane::cgt {
template <class BoardT>
BasicValuer<BoardT>::BasicValuer(const BoardT& b, GameStore& store, const ValueOptions& options)
    : board_(b),
      group_(b),
      store_(store),
      options_(options),
      own_family_(std::make_unique<detail::ValuerFamily>()),
      family_(own_family_.get()) {}

template <class BoardT>
BasicValuer<BoardT>::BasicValuer(const BoardT& b, GameStore& store, const ValueOptions& options,
                                 detail::ValuerFamily* family)
    : board_(b), group_(b), store_(store), options_(options), family_(family) {}

template <class BoardT>
BasicValuer<BoardT>::BasicValuer(BasicValuer&&) noexcept = default;

template <class BoardT>
BasicValuer<BoardT>::~BasicValuer() = default;

template <class BoardT>
std::size_t BasicValuer<BoardT>::positions() const {
    return family_->positions;
}

template <class BoardT>
std::size_t BasicValuer<BoardT>::local_boards() const {
    return family_->narrow.size() + family_->wide2.size() + family_->wide3.size() +
           family_->wide.size();
}

template <class BoardT>
auto BasicValuer<BoardT>::regions_of(const Bits& occ) const -> std::vector<Bits> {
    if (!options_.decompose) return occ ? std::vector<Bits>{occ} : std::vector<Bits>{};
    return generic::regions_within(
        board(), occ, options_.exact_reach_budget, [&](const Bits& x) { return dilate_here(x); },
        [&](const Bits& g) {
            const Bits r = generic::bounded_reach(board(), g);
            return ReachSet<Bits>{r, dilate_here(r)};
        });
}

template <class BoardT>
auto BasicValuer<BoardT>::dilate_here(const Bits& x) const -> Bits {
    if constexpr (std::is_same_v<BoardT, Board>) {
        return dilate(board(), x);
    } else {
        return generic::dilate(board(), x, board().first_file, board().last_file);
    }
}

template <class BoardT>
GameId BasicValuer<BoardT>::value(const Bits& occ) {
    return value_split(occ, options_.exact_reach_budget);
}

template <class BoardT>
GameId BasicValuer<BoardT>::value_split(const Bits& occ, std::size_t exact_budget) {
    if (!options_.decompose)
        return occ ? value_region(occ, generic::reach(board(), occ)) : store_.zero();
    // Positions met again (transpositions) skip the split; the memo is of the exact occupancy.
    if (!generic::any_jump(board(), occ)) return store_.zero();
    if (const GameId* known = split_memo_.find(occ)) return *known;
    poll_stop();
    std::vector<Bits> reaches;
    auto dil = [&](const Bits& x) { return dilate_here(x); };
    // bounded_reach_of(), and the memo's slot of a group asked of memory ahead (regions()).
    struct Bounded {
        BasicValuer* v;
        Reach operator()(const Bits& g) const { return v->bounded_reach_of(g); }
        void prefetch(const Bits& g) const { v->group_index_.prefetch(g); }
    } bounded{this};
    // The position given: exact reaches within the options' budget; the positions below it:
    // within the small budget, memoised (the same groups recur in many positions).
    const std::vector<Bits> parts =
        exact_budget > 0 || options_.exact_reach_below == 0
            ? generic::regions_within(board(), occ, exact_budget, dil, bounded, &reaches)
            : generic::regions(
                  board(), occ, [&](const Bits& g) { return exact_reach_below(g); }, dil, bounded,
                  &reaches);
    GameId sum = store_.zero();
    for (std::size_t i = 0; i < parts.size(); ++i)
        sum = store_.add(sum, value_region(parts[i], reaches[i]));
    split_memo_.insert(occ, sum);
    return sum;
}

template <class BoardT>
auto BasicValuer<BoardT>::group_reach(const Bits& group) -> GroupReach* {
    if (const std::uint32_t* known = group_index_.find(group)) return &group_reaches_[*known];
    if (group_reaches_.size() >= 0xFFFFFFF0u) return nullptr;  // a full memo: not kept
    group_index_.insert(group, static_cast<std::uint32_t>(group_reaches_.size()));
    return &group_reaches_.emplace_back();
}

template <class BoardT>
auto BasicValuer<BoardT>::exact_reach_below(const Bits& group) -> std::optional<Reach> {
    auto find = [&]() -> std::optional<Reach> {
        const std::optional<Bits> e =
            generic::exact_reach(board(), group, options_.exact_reach_below);
        if (!e) return std::nullopt;
        return Reach{*e, dilate_here(*e)};
    };
    GroupReach* r = group_reach(group);
    if (!r) return find();
    if (!r->exact_tried) {
        r->exact = find();
        r->exact_tried = true;
    }
    return r->exact;
}

template <class BoardT>
auto BasicValuer<BoardT>::bounded_reach_of(const Bits& group) -> Reach {
    auto find = [&] {
        const Bits b = generic::bounded_reach(board(), group);
        return Reach{b, dilate_here(b)};
    };
    GroupReach* r = group_reach(group);
    if (!r) return find();
    if (!r->bounded) r->bounded = find();
    return *r->bounded;
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
GameId BasicValuer<BoardT>::value_region(const Bits& occ, const Bits& reach) {
    const BoardT& b = board();
    if (!options_.local_boards || b.cols > 64) return value_here(occ);
    // Two boxes the pieces never leave: the reach set's (the board's when the reach set is all
    // of it: a position of one region), and the count's.
    const generic::Box rb =
        reach == b.all ? generic::Box{1, b.rows, 0, b.cols - 1} : generic::bounding_box(b, reach);
    const generic::Box cb = generic::count_box(b, occ);
    const generic::Box box{std::max(rb.r0, cb.r0), std::min(rb.r1, cb.r1), std::max(rb.f0, cb.f0),
                           std::min(rb.f1, cb.f1)};
    const int h = box.rows(), w = box.cols();
    // The box's top-left square is Black's on its own board: where it is White's here, every
    // piece changes colour on the way, and the game is the negative.
    const bool negate = ((box.f0 + b.rows - box.r1) & 1) != 0;
    // On the board of the box's shape with the fewest words that hold it.
    auto on = [&]<class L>(std::unordered_map<int, std::unique_ptr<BasicValuer<L>>>& boards) {
        if constexpr (std::is_same_v<L, BoardT>) {
            if (h == b.rows && w == b.cols) return value_here(occ);
        }
        auto& slot = boards[h * 1024 + w];
        if (!slot) slot.reset(new BasicValuer<L>(L::make(h, w), store_, options_, family_));
        const GameId v = slot->value_here(generic::to_box<rules::BitsOf<L>>(b, occ, box));
        return negate ? store_.neg(v) : v;
    };
    const int squares = h * w;
    if (squares <= kMaxSquares) return on(family_->narrow);
    if (squares <= 128) return on(family_->wide2);
    if (squares <= 192) return on(family_->wide3);
    return on(family_->wide);
}

template <class BoardT>
GameId BasicValuer<BoardT>::value_here(const Bits& occ) {
    // The least image under the board's symmetries; an image through a colour-swapping symmetry
    // is the same position with Black and White exchanged: the negative game.
    const auto [key, negate] = least_image(occ);
    if (const GameId* known = memo_.find(key)) return negate ? store_.neg(*known) : *known;
    if (options_.max_positions && family_->positions >= options_.max_positions)
        throw ValueLimit("not computed within " + std::to_string(options_.max_positions) +
                         " positions");
    if (options_.max_games && store_.size() >= options_.max_games)
        throw ValueLimit("not computed within " + std::to_string(options_.max_games) + " games");
    poll_stop();
    // Counted when begun, so that the limit holds along a line of positions begun and not yet
    // finished (the memo holds them all once they are).
    ++family_->positions;
    // The options of the canonical image `key` (Left = Black's jumps, Right = White's).
    const BoardT& b = board();
    // The children first, their split memo's slots asked of memory together (each look-up is
    // a cache miss, and a child's own work seldom needs the cache lines of its siblings').
    std::vector<Bits> children;
    children.reserve(32);
    rules::jumps(b, key, Color::Black,
                 [&](int, int, const Bits& child) { children.push_back(child); });
    const std::size_t lefts = children.size();
    rules::jumps(b, key, Color::White,
                 [&](int, int, const Bits& child) { children.push_back(child); });
    for (const Bits& child : children)
        split_memo_.prefetch(child);
    std::vector<GameId> left, right;
    left.reserve(lefts);
    right.reserve(children.size() - lefts);
    for (std::size_t i = 0; i < children.size(); ++i)
        (i < lefts ? left : right).push_back(value_split(children[i], 0));
    const GameId v = store_.make(std::move(left), std::move(right));
    memo_.insert(key, v);
    if (options_.progress && (family_->positions & 0xFFFF) == 0)
        options_.progress(family_->positions, store_.size());
    return negate ? store_.neg(v) : v;
}

}  // namespace konane::cgt
