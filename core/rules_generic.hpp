// The rules of Kōnane written once over the bitboard type: the board's masks, the opening
// removals, the stage, the jumps and perft, for the 64-bit Board (core/board.hpp, boards of up
// to 64 squares) and WideBoard<N> (core/wide.hpp, up to 64*N squares) alike. Source of every
// rule: docs/rules.md ("Board and colours", "Opening: two removals", "Jumps", "End").
//
// A board type BoardT has: int rows, cols; `all`, `color[2]`, `can_jump[4]` of its bitboard type
// (std::uint64_t or WideBits<N>, core/bitboard.hpp); int step[4]; square(file, rank),
// file_of(s), rank_of(s), color_of(s). RulesTypes<BoardT> names its position, move and
// move-with-child types (specialised in core/movegen.hpp and core/wide.hpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "core/bitboard.hpp"
#include "core/board.hpp"

namespace konane {

/// The position, move and (move, child) types of a board type: Pos {occ, to_move}, Move {from,
/// to} (from == to: a removal), MoveChild {move, child}.
template <class BoardT>
struct RulesTypes;

namespace rules {

/// The bitboard type of a board type.
template <class BoardT>
using BitsOf = std::remove_cvref_t<decltype(BoardT::all)>;

/// Fills the masks of an R x C board whose rows and cols are set: every square, each colour's
/// squares (Black's when file + R - rank is even), the squares from which a jump in each
/// direction stays on the board, and the index step of each direction.
template <class BoardT>
void init_geometry(BoardT& b) {
    using B = BitsOf<BoardT>;
    using Ops = BitOps<B>;
    b.all = B{};
    b.color[0] = b.color[1] = B{};
    for (auto& m : b.can_jump)
        m = B{};
    b.step[Up] = b.cols;
    b.step[Down] = -b.cols;
    b.step[Right] = 1;
    b.step[Left] = -1;
    const int n = b.rows * b.cols;
    for (int s = 0; s < n; ++s) {
        Ops::set(b.all, s);
        Ops::set(b.color[static_cast<int>(b.color_of(s))], s);
        const int f = b.file_of(s), k = b.rank_of(s);
        if (k + 2 <= b.rows) Ops::set(b.can_jump[Up], s);
        if (k - 2 >= 1) Ops::set(b.can_jump[Down], s);
        if (f + 2 < b.cols) Ops::set(b.can_jump[Right], s);
        if (f - 2 >= 0) Ops::set(b.can_jump[Left], s);
    }
}

/// The central squares: rows floor((R-1)/2)..floor(R/2) counted from the top x files
/// floor((C-1)/2)..floor(C/2) (rules.md "Opening: two removals").
template <class BoardT>
BitsOf<BoardT> centre(const BoardT& b) {
    BitsOf<BoardT> m{};
    for (int row = (b.rows - 1) / 2; row <= b.rows / 2; ++row)
        for (int f = (b.cols - 1) / 2; f <= b.cols / 2; ++f)
            BitOps<BitsOf<BoardT>>::set(m, b.square(f, b.rows - row));
    return m;
}

/// The four corners (fewer on boards one square wide).
template <class BoardT>
BitsOf<BoardT> corners(const BoardT& b) {
    using Ops = BitOps<BitsOf<BoardT>>;
    BitsOf<BoardT> m{};
    Ops::set(m, b.square(0, 1));
    Ops::set(m, b.square(b.cols - 1, 1));
    Ops::set(m, b.square(0, b.rows));
    Ops::set(m, b.square(b.cols - 1, b.rows));
    return m;
}

/// The squares Black may empty first under ruleset r.
template <class BoardT>
BitsOf<BoardT> black_removals(const BoardT& b, Ruleset r) {
    const auto black = b.color[static_cast<int>(Color::Black)];
    switch (r) {
        case Ruleset::Brainking:
            return (corners(b) | centre(b)) & black;
        case Ruleset::Center:
            return centre(b) & black;
        case Ruleset::Any:
            return black;
    }
    return BitsOf<BoardT>{};
}

/// The squares orthogonally adjacent to square s.
template <class BoardT>
BitsOf<BoardT> neighbours(const BoardT& b, int s) {
    using Ops = BitOps<BitsOf<BoardT>>;
    const int f = b.file_of(s), k = b.rank_of(s);
    BitsOf<BoardT> m{};
    if (f > 0) Ops::set(m, s - 1);
    if (f + 1 < b.cols) Ops::set(m, s + 1);
    if (k > 1) Ops::set(m, s - b.cols);
    if (k < b.rows) Ops::set(m, s + b.cols);
    return m;
}

/// The stage of the position (occ, to_move) under ruleset r: core/board.hpp stage_of's rule.
template <class BoardT>
Stage stage(const BoardT& b, Ruleset r, const BitsOf<BoardT>& occ, Color to_move) {
    using Ops = BitOps<BitsOf<BoardT>>;
    const auto holes = b.all & ~occ;
    if (!holes) return to_move == Color::Black ? Stage::FullBoard : Stage::Play;
    if (Ops::count(holes) == 1 && to_move == Color::White && (holes & black_removals(b, r)))
        return Stage::OneHole;
    return Stage::Play;
}

/// The jump masks, the one statement of where a jump can start (rules.md "Jumps"): the squares
/// x from which a piece jumps in direction d, x + step an opponent piece (in `opp`), x + 2 step
/// empty (in `empty`) and on the board (can_jump[d]). Whose piece stands on x is the caller's
/// to check. b.can_jump[d] must be non-empty (so that the shifts stay below the width).
template <class BoardT>
BitsOf<BoardT> jump_squares(const BoardT& b, const BitsOf<BoardT>& opp, const BitsOf<BoardT>& empty,
                            int d) {
    const int s = b.step[d];
    return b.can_jump[d] & shift_back(opp, s) & shift_back(empty, 2 * s);
}

/// Calls f(from, land, child_occ) for every jump of side `to_move` in occupancy occ, in the
/// order of core/movegen.hpp for_each_jump (directions Up, Down, Right, Left; start squares by
/// increasing index; shorter jumps first). The one statement of the jump rule (rules.md "Jumps").
template <class BoardT, class F>
inline void jumps(const BoardT& b, const BitsOf<BoardT>& occ, Color to_move, F&& f) {
    using B = BitsOf<BoardT>;
    using Ops = BitOps<B>;
    const B mine = occ & b.color[static_cast<int>(to_move)];
    const B opp = occ & b.color[static_cast<int>(other(to_move))];
    const B empty = b.all & ~occ;
    for (int d = 0; d < 4; ++d) {
        // No square can jump this way (a board of one or two ranks or files): skipping it also
        // keeps the shifts below the word's width.
        if (!b.can_jump[d]) continue;
        const int s = b.step[d];
        const B jumpable = jump_squares(b, opp, empty, d);
        B src = mine & jumpable;
        while (src) {
            const int from = Ops::lowest(src);
            Ops::pop_lowest(src);
            B child = occ;
            Ops::reset(child, from);
            int at = from;
            for (;;) {
                const int land = at + 2 * s;
                Ops::reset(child, at + s);
                B out = child;
                Ops::set(out, land);
                f(from, land, out);
                if (!Ops::test(jumpable, land)) break;
                at = land;
            }
        }
    }
}

/// True when side `to_move` has a jump in occupancy occ.
template <class BoardT>
bool has_jump(const BoardT& b, const BitsOf<BoardT>& occ, Color to_move) {
    using B = BitsOf<BoardT>;
    const B mine = occ & b.color[static_cast<int>(to_move)];
    const B opp = occ & b.color[static_cast<int>(other(to_move))];
    const B empty = b.all & ~occ;
    for (int d = 0; d < 4; ++d) {
        if (!b.can_jump[d]) continue;
        if (mine & jump_squares(b, opp, empty, d)) return true;
    }
    return false;
}

/// The number of jumps side `to_move` has in occupancy occ (the moves jumps() would give),
/// counted by bit operations without making the children: the pieces that can jump once in a
/// direction, then those whose landing square can jump on, and so on along the chain (the
/// squares behind a jump never matter for the next one, so the masks of occ hold throughout).
template <class BoardT>
int count_jumps(const BoardT& b, const BitsOf<BoardT>& occ, Color to_move) {
    using B = BitsOf<BoardT>;
    using Ops = BitOps<B>;
    const B mine = occ & b.color[static_cast<int>(to_move)];
    const B opp = occ & b.color[static_cast<int>(other(to_move))];
    const B empty = b.all & ~occ;
    int n = 0;
    for (int d = 0; d < 4; ++d) {
        if (!b.can_jump[d]) continue;  // no jump this way; keeps the shifts below the width
        const int s = b.step[d];
        const B jumpable = jump_squares(b, opp, empty, d);
        // `at`: the squares a jump of this direction starts from at this step of a chain.
        B at = mine & jumpable;
        while (at) {
            n += Ops::count(at);
            at = shift_back(at, -2 * s) & jumpable;
        }
    }
    return n;
}

/// The legal moves of position p under ruleset r, with their children (core/movegen.hpp
/// legal_moves): removals in the opening stage, in increasing square order; jumps otherwise, or
/// always with jumps_only.
template <class BoardT>
std::vector<typename RulesTypes<BoardT>::MoveChild> legal_moves(
    const BoardT& b, Ruleset r, const typename RulesTypes<BoardT>::Pos& p, bool jumps_only) {
    using T = RulesTypes<BoardT>;
    using B = BitsOf<BoardT>;
    using Ops = BitOps<B>;
    using Sq = decltype(T::Move::from);
    std::vector<typename T::MoveChild> out;
    const Stage st = jumps_only ? Stage::Play : stage(b, r, p.occ, p.to_move);
    const Color next = other(p.to_move);
    if (st == Stage::Play) {
        jumps(b, p.occ, p.to_move, [&](int from, int land, const B& child) {
            out.push_back({typename T::Move{static_cast<Sq>(from), static_cast<Sq>(land)},
                           typename T::Pos{child, next}});
        });
        return out;
    }
    B removable{};
    if (st == Stage::FullBoard) {
        removable = black_removals(b, r);
    } else {
        const int hole = Ops::lowest(b.all & ~p.occ);
        removable = neighbours(b, hole) & b.color[static_cast<int>(Color::White)];
    }
    removable &= p.occ;
    while (removable) {
        const int s = Ops::lowest(removable);
        Ops::pop_lowest(removable);
        B child = p.occ;
        Ops::reset(child, s);
        out.push_back({typename T::Move{static_cast<Sq>(s), static_cast<Sq>(s)},
                       typename T::Pos{child, next}});
    }
    return out;
}

/// Thrown by perft() when its stop flag is set.
struct PerftStopped : std::runtime_error {
    PerftStopped() : std::runtime_error("perft stopped") {}
};

/// Move sequences of `depth` plies from the position (occ, to_move) played by jumps. When
/// `stop` is given, it is read at every node 3 or more plies from the leaves (a few in a
/// thousand nodes) and PerftStopped thrown once it is true.
template <class BoardT>
std::uint64_t perft_jumps(const BoardT& b, const BitsOf<BoardT>& occ, Color to_move, int depth,
                          const std::atomic<bool>* stop = nullptr) {
    using B = BitsOf<BoardT>;
    if (depth == 0) return 1;
    std::uint64_t n = 0;
    const Color next = other(to_move);
    if (depth == 1) {
        jumps(b, occ, to_move, [&](int, int, const B&) { ++n; });
        return n;
    }
    if (stop && depth >= 3 && stop->load(std::memory_order_relaxed)) throw PerftStopped();
    jumps(b, occ, to_move,
          [&](int, int, const B& child) { n += perft_jumps(b, child, next, depth - 1, stop); });
    return n;
}

/// Move sequences of `depth` plies from p under ruleset r (removals count as plies); `stop` as
/// in perft_jumps().
template <class BoardT>
std::uint64_t perft(const BoardT& b, Ruleset r, const typename RulesTypes<BoardT>::Pos& p,
                    int depth, const std::atomic<bool>* stop = nullptr) {
    if (depth == 0) return 1;
    if (stage(b, r, p.occ, p.to_move) == Stage::Play)
        return perft_jumps(b, p.occ, p.to_move, depth, stop);
    std::uint64_t n = 0;
    for (const auto& mc : legal_moves(b, r, p, false))
        n += perft(b, r, mc.child, depth - 1, stop);
    return n;
}

}  // namespace rules
}  // namespace konane
