// The baseline a user would write instead of a tablebase: negamax alpha-beta with a
// transposition table, for the benchmarks (tests/bench/konane_bench_tool.cpp).
//
// - Positions are searched in canonical form (SymmetryGroup::canonical), so the transposition
//   table is keyed by the symmetry class, and a stored best-move index refers to the same move
//   list whenever the class comes back.
// - Scores carry the full depth semantics of docs/rules.md "Values": a WIN at depth d
//   scores S - d, a LOSS at depth d scores d - S. A parent's score from a child's score v is
//   shrink(-v) (one ply further from the end), so maximising over the children is exactly
//   "the winner hurries, the loser delays". The window is mapped through the same monotone
//   function at every ply, which keeps alpha-beta exact.
// - WDL only: a null window around 0 (no score is 0) answers WIN or LOSS and nothing more.
// - Depth-exact: first the WDL search, then a search with the window on the known side of 0.
// - Move ordering: the transposition table's best move first, then the children that leave the
//   opponent the fewest single jumps (a child with none is an immediate win).
// - Transposition table: fixed size, 2 entries per bucket (one kept for the larger subtree,
//   one always replaced), fail-soft lower and upper bounds per entry; clear() is O(1) (a new
//   generation), so every question can start from an empty table.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/board.hpp"
#include "core/movegen.hpp"
#include "core/symmetry.hpp"

namespace konane::bench {

class AlphaBeta {
  public:
    static constexpr int kS = 100;  ///< score of a WIN at depth 0 (never happens: WIN >= 1)
    static constexpr int kInf = 1000;

    /// A searcher for board b with a table of 2^tt_log2 entries (16 bytes each).
    AlphaBeta(const Board& b, int tt_log2) : board_(b), group_(b) {
        tt_.resize(std::size_t{1} << tt_log2);
        mask_ = (tt_.size() >> 1) - 1;  // buckets of two entries
    }

    /// Empties the transposition table (by starting a new generation: entries of older ones
    /// are ignored) and the node counter.
    void clear() {
        if (++gen_ == 0) {
            std::fill(tt_.begin(), tt_.end(), Entry{});
            gen_ = 1;
        }
        nodes_ = 0;
    }
    std::uint64_t nodes() const { return nodes_; }

    /// Depth of a score (plies to the end) and whether it is a WIN.
    static int depth_of_score(int s) { return s > 0 ? kS - s : s + kS; }
    static int score_of(bool win, int depth) { return win ? kS - depth : depth - kS; }

    /// WIN (true) or LOSS for the side to move, by a null-window search.
    bool wdl(Position p) {
        const Position c = group_.canonical(p);
        return search(c, -1, 1) > 0;
    }

    /// The exact score (WIN/LOSS and depth) of p.
    int exact(Position p) {
        const Position c = group_.canonical(p);
        const bool win = search(c, -1, 1) > 0;
        return win ? search(c, 0, kInf) : search(c, -kInf, 0);
    }

    /// The perfect move of p (rules.md: WIN: to the LOSS child of least depth; LOSS: to the
    /// child of greatest depth; ties to the earliest move in legal_moves order) and p's score;
    /// nullopt when p has no jump. Finds p's exact score, then tests the moves in order with a
    /// null window for the first that reaches it.
    std::optional<std::pair<Move, int>> perfect_move(Position p) {
        const int v = exact(p);
        std::optional<std::pair<Move, int>> out;
        for_each_jump(board_, p, [&](Move m, Position child) {
            if (out) return;
            const Position c = group_.canonical(child);
            // parent score shrink(-w) >= v  <=>  w <= -grow(v): a null window just above that.
            const int t = -grow(v);
            const int w = search(c, t, t + 1);
            if (w <= t) out = std::pair{m, v};
        });
        return out;
    }

    /// A winning move when p is a WIN (the first in legal order whose child is a LOSS), else
    /// the first move; and whether p is a WIN. nullopt when p has no jump.
    std::optional<std::pair<Move, bool>> winning_move(Position p) {
        std::optional<std::pair<Move, bool>> first, win;
        for_each_jump(board_, p, [&](Move m, Position child) {
            if (win) return;
            if (!first) first = std::pair{m, false};
            if (search(group_.canonical(child), -1, 1) < 0) win = std::pair{m, true};
        });
        return win ? win : first;
    }

  private:
    struct Entry {
        std::uint64_t key = 0;  // canonical key; 0 (the empty board) never occurs
        std::int16_t lo = -kInf, hi = kInf;
        std::uint8_t best = 0xff;  // index of the best move in for_each_jump order, 0xff: none
        std::uint8_t pieces = 0;
        std::uint16_t gen = 0;  // generation: entries of an older one are empty
    };

    static int shrink(int x) { return x > 0 ? x - 1 : x < 0 ? x + 1 : 0; }
    static int grow(int y) { return y > 0 ? y + 1 : y < 0 ? y - 1 : 0; }

    Entry* find(std::uint64_t key) {
        Entry* b = &tt_[(hash(key) & mask_) << 1];
        if (b[0].key == key && b[0].gen == gen_) return &b[0];
        if (b[1].key == key && b[1].gen == gen_) return &b[1];
        return nullptr;
    }
    void store(std::uint64_t key, int pieces, int lo, int hi, int best) {
        Entry* b = &tt_[(hash(key) & mask_) << 1];
        Entry* e;
        if (b[0].key == key && b[0].gen == gen_) {
            e = &b[0];
            lo = std::max<int>(lo, e->lo);
            hi = std::min<int>(hi, e->hi);
        } else if (b[1].key == key && b[1].gen == gen_) {
            e = &b[1];
            lo = std::max<int>(lo, e->lo);
            hi = std::min<int>(hi, e->hi);
        } else if (b[0].gen != gen_) {
            e = &b[0];
        } else if (pieces >= b[0].pieces) {
            b[1] = b[0];  // the older deep entry moves to the always-replace slot
            e = &b[0];
        } else {
            e = &b[1];
        }
        static_assert(sizeof(Entry) == 16);
        *e = Entry{key,
                   static_cast<std::int16_t>(lo),
                   static_cast<std::int16_t>(hi),
                   static_cast<std::uint8_t>(best),
                   static_cast<std::uint8_t>(pieces),
                   gen_};
    }
    static std::uint64_t hash(std::uint64_t k) {
        k ^= k >> 31;
        k *= 0x9E3779B97F4A7C15ull;
        return k ^ (k >> 29);
    }

    /// Single jumps of the side to move in p: a cheap mobility estimate for move ordering.
    int mobility(Position p) const {
        const std::uint64_t mine = mover_pieces(board_, p), opp = opponent_pieces(board_, p);
        const std::uint64_t empty = board_.all & ~p.occ;
        int n = 0;
        for (int d = 0; d < 4; ++d) {
            if (!board_.can_jump[d]) continue;  // keeps the shifts below 64 bits
            const int s = board_.step[d];
            const std::uint64_t j =
                board_.can_jump[d] &
                (s > 0 ? (opp >> s) & (empty >> (2 * s)) : (opp << -s) & (empty << (-2 * s)));
            n += std::popcount(mine & j);
        }
        return n;
    }

    /// Fail-soft negamax on a canonical position.
    int search(Position p, int alpha, int beta) {
        ++nodes_;
        const std::uint64_t key = key_of(p);
        int hint = 0xff;
        if (const Entry* e = find(key)) {
            if (e->lo >= beta) return e->lo;
            if (e->hi <= alpha) return e->hi;
            if (e->lo == e->hi) return e->lo;
            alpha = std::max<int>(alpha, e->lo);
            beta = std::min<int>(beta, e->hi);
            hint = e->best;
        }
        struct Child {
            Position c;
            int order;
            std::uint8_t index;
        };
        std::array<Child, kMaxMoves> kids;
        int n = 0;
        for_each_jump(board_, p, [&](Move, Position child) {
            const Position c = group_.canonical(child);
            const int mob = mobility(c);
            kids[n] = Child{c, n == hint ? -1 : mob, static_cast<std::uint8_t>(n)};
            ++n;
        });
        const int pieces = std::popcount(p.occ);
        if (n == 0) {
            store(key, pieces, -kS, -kS, 0xff);
            return -kS;
        }
        std::sort(kids.begin(), kids.begin() + n,
                  [](const Child& a, const Child& b) { return a.order < b.order; });
        const int a0 = alpha;
        int best = -kInf, best_index = 0xff;
        for (int i = 0; i < n; ++i) {
            const int v = search(kids[i].c, -grow(beta), -grow(alpha));
            const int s = shrink(-v);
            if (s > best) {
                best = s;
                best_index = kids[i].index;
            }
            if (s > alpha) alpha = s;
            if (alpha >= beta) break;
        }
        if (best <= a0) {
            store(key, pieces, -kInf, best, best_index);
        } else if (best >= beta) {
            store(key, pieces, best, kInf, best_index);
        } else {
            store(key, pieces, best, best, best_index);
        }
        return best;
    }

    Board board_;
    SymmetryGroup group_;
    std::vector<Entry> tt_;
    std::uint64_t mask_ = 0;
    std::uint64_t nodes_ = 0;
    std::uint16_t gen_ = 1;
};

}  // namespace konane::bench
