// Kōnane positions as combinatorial games: the game played by jumps alone (no opening stage),
// Black as Left and White as Right, valued in canonical form, by independent regions.
// Rules: docs/rules.md ("Jumps", "End"); the decomposition rule and its proof: docs/cgt.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cgt/game.hpp"
#include "cgt/position_map.hpp"
#include "core/board.hpp"
#include "core/outcome.hpp"
#include "core/symmetry.hpp"
#include "core/wide.hpp"
#include "core/wide_symmetry.hpp"

namespace konane::cgt {

/// The outcome class of a Kōnane position in the project's terms (core/outcome.hpp) from its
/// CGT letter, Black being Left: L Black, R White, N First, P Second.
constexpr Outcome konane_outcome(OutcomeClass o) {
    switch (o) {
        case OutcomeClass::L:
            return Outcome::Black;
        case OutcomeClass::R:
            return Outcome::White;
        case OutcomeClass::N:
            return Outcome::First;
        case OutcomeClass::P:
            return Outcome::Second;
    }
    return Outcome::Second;
}

/// Every square a piece of `occ` could ever stand on, whatever the players do: the least set P
/// holding occ and closed under "s in P, s + d in P (d one step in a direction) and s + 2d on
/// the board => s + 2d in P". Pieces only ever appear on a square a jump lands on, and a jump
/// from s over s + d lands on s + 2d (a multi-jump is a chain of such steps), so by induction on
/// the moves every piece stays in P (docs/cgt.md "Regions").
std::uint64_t reach(const Board& b, std::uint64_t occ);

/// reach() bounded by counting: a jump captures one piece of the other colour and moves the
/// jumping piece two squares, so a Black piece never stands more than 2 * (White's pieces in
/// occ) squares (rows plus files) from where it started, a White piece 2 * (Black's pieces).
/// The closure of reach() kept inside the box those distances allow around each colour's
/// pieces (a piece never lands outside it), on boards whose lines have at most 64 squares;
/// reach() on the others. Usually far smaller than reach(), whose rays run to the board's edge
/// (docs/cgt.md "Regions").
std::uint64_t bounded_reach(const Board& b, std::uint64_t occ);

/// The squares of x and their orthogonal neighbours on the board.
std::uint64_t dilate(const Board& b, std::uint64_t x);

/// Every square a piece of `occ` stands on in some position reachable from occ by jumps of
/// either side in any order (the exact version of reach(), which contains it); nullopt when
/// more than `budget` positions are reachable.
std::optional<std::uint64_t> exact_reach(const Board& b, std::uint64_t occ, std::size_t budget);

/// Splits the pieces of occ into regions that never interact: groups whose reach sets are
/// neither overlapping nor orthogonally adjacent, the reach of a group being exact_reach() when
/// it has at most `exact_budget` positions below it (0: never) and bounded_reach() otherwise. The
/// game is then the sum of the regions' games (docs/cgt.md "Regions" proves it). Groups of pieces
/// that can never jump are left out: their value is 0. Returned in increasing order of their lowest
/// square; empty when nobody can ever move.
std::vector<std::uint64_t> regions(const Board& b, std::uint64_t occ, std::size_t exact_budget = 0);

/// reach(), dilate(), exact_reach() and regions() on the wide board (core/wide.hpp), the same
/// code (cgt/konane_generic.hpp).
BigBits reach(const BigBoard& b, const BigBits& occ);
BigBits bounded_reach(const BigBoard& b, const BigBits& occ);
BigBits dilate(const BigBoard& b, const BigBits& x);
std::optional<BigBits> exact_reach(const BigBoard& b, const BigBits& occ, std::size_t budget);
std::vector<BigBits> regions(const BigBoard& b, const BigBits& occ, std::size_t exact_budget = 0);

/// Thrown when valuing would memoise more positions, or hold more games, than allowed. The
/// message says "not computed within N positions" (or games).
struct ValueLimit : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Thrown when valuing is stopped from outside (ValueOptions::should_stop: a deadline passed, a
/// client gone, a server stopping). The message is the reason should_stop gave.
struct ValueStopped : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// New positions and splits a Valuer computes between two calls of ValueOptions::should_stop.
inline constexpr std::size_t kValueStopPoll = 16;

/// Options of a Valuer.
struct ValueOptions {
    /// Value a position as the sum of its regions (regions()); false: the whole board as one
    /// game (for checking the decomposition).
    bool decompose = true;
    /// Most positions (regions, up to symmetry) the memo may hold; 0: no limit.
    std::size_t max_positions = 0;
    /// Most games the GameStore may hold; 0: no limit.
    std::size_t max_games = 0;
    /// The position given to value() is split with exact_reach() of at most this many positions
    /// per group (the positions below it with the cheaper reach()).
    std::size_t exact_reach_budget = 4096;
    /// The positions below it are split with exact_reach() of at most this many positions per
    /// group, memoised by group (the same groups recur in many positions), and bounded_reach()
    /// for larger groups; 0: bounded_reach() alone. Measured on konjecture's STAIR(9): 64 values
    /// a quarter of the positions of 0 in 60% of the time (docs/cgt.md "Speed").
    std::size_t exact_reach_below = 64;
    /// Value each region on the smallest board that holds its reach set (its bounding box), not
    /// on the board it stands on: the same region anywhere on any board is then one position of
    /// the memo, and a region whose box has at most 64 squares is valued by the 64-bit code even
    /// on a wide board. The game is the same (no piece of the region ever stands outside its
    /// reach set; docs/cgt.md "Local boards"). False: every region on the board given (for
    /// checking, and for measuring the difference).
    bool local_boards = true;
    /// Called with positions() each time the memo has grown by 65,536 (progress of long work).
    std::function<void(std::size_t positions, std::size_t games)> progress;
    /// Asked every kValueStopPoll new positions or splits (a split of a large board costs
    /// milliseconds, so it is asked often enough to stop within a fraction of a second):
    /// returns "" to go on, or why to stop, which value() then throws as ValueStopped. Empty:
    /// never asked.
    std::function<std::string()> should_stop;
};

/// About the bytes one memoised position takes with its share of the game store and of the
/// memos of splits and reach sets (measured: 780 bytes on a dense 5x5 position, 1.2 to 1.8 KB
/// on konjecture's STAIR(8) to STAIR(10); docs/cgt.md "Limits"): a memory budget allows
/// budget / this many positions.
inline constexpr std::size_t kValueBytesPerPosition = 2048;

template <class BoardT>
class BasicValuer;

/// A set of squares a group's pieces never leave (a reach set: bounded_reach(), exact_reach()),
/// with its dilation (dilate(): it and the squares touching it), which the region test compares
/// other groups' reach sets against. B: std::uint64_t or WideBits<N>.
template <class B>
struct ReachSet {
    B squares;
    B halo;
};

namespace detail {
/// The valuers of the local boards (ValueOptions::local_boards) one valuer and those it made
/// share, and the positions all of them hold (cgt/konane_generic.hpp).
struct ValuerFamily;
}  // namespace detail

/// Values Kōnane positions on one board: the canonical form, for Black as Left, of the game
/// where the pieces of `occ` play by jumps alone (the side to move does not enter: a value is
/// both players' options). Memoised by region, up to the board's symmetries; a symmetry that
/// swaps the colours of the squares negates the value. Not thread-safe. BoardT is the 64-bit
/// Board (Valuer) or a wide board (cgt/wide.hpp WideValuer); the code is the same.
template <class BoardT>
class BasicValuer {
  public:
    using Bits = rules::BitsOf<BoardT>;

    /// A valuer for board b putting its games into `store` (which must outlive it).
    BasicValuer(const BoardT& b, GameStore& store, const ValueOptions& options = {});
    BasicValuer(BasicValuer&&) noexcept;
    ~BasicValuer();

    const BoardT& board() const { return board_; }
    GameStore& store() { return store_; }
    const ValueOptions& options() const { return options_; }

    /// The regions value() splits occ into (regions() with the options' exact-reach budget); occ
    /// itself, when not empty, without decomposition.
    std::vector<Bits> regions_of(const Bits& occ) const;

    /// The value of the position with pieces `occ` (Left = Black). @throws ValueLimit.
    GameId value(const Bits& occ);

    /// Positions (regions, up to symmetry) in the memo, with those of the local boards'
    /// valuers (ValueOptions::local_boards), and those begun when a limit stopped the valuer.
    std::size_t positions() const;
    /// The local boards (ValueOptions::local_boards) regions have been moved to so far.
    std::size_t local_boards() const;

  private:
    template <class>
    friend class BasicValuer;
    /// A valuer of a local board, sharing the family of the valuer that makes it.
    BasicValuer(const BoardT& b, GameStore& store, const ValueOptions& options,
                detail::ValuerFamily* family);
    using Group = std::conditional_t<std::is_same_v<BoardT, Board>, SymmetryGroup,
                                     WideSymmetryGroup<sizeof(Bits) / 8>>;
    GameId value_split(const Bits& occ, std::size_t exact_budget);
    /// dilate() on this board.
    Bits dilate_here(const Bits& x) const;
    using Reach = ReachSet<Bits>;
    /// What is memoised of a group of pieces (the same groups recur in many positions).
    struct GroupReach {
        std::optional<Reach> bounded;  // bounded_reach(), once asked
        std::optional<Reach> exact;    // exact_reach() within exact_reach_below, once tried
        bool exact_tried = false;
    };
    /// The memo's entry of a group (made empty on first use); nullptr when the memo is full.
    GroupReach* group_reach(const Bits& group);
    /// exact_reach() of a group within options_.exact_reach_below positions, memoised.
    std::optional<Reach> exact_reach_below(const Bits& group);
    /// bounded_reach() of a group, memoised.
    Reach bounded_reach_of(const Bits& group);
    /// Counts one unit of new work; every kValueStopPoll, asks options_.should_stop.
    void poll_stop();
    /// The value of one region of pieces `occ` whose pieces never leave `reach`: on its local
    /// board when options_.local_boards, else here (value_here()).
    GameId value_region(const Bits& occ, const Bits& reach);
    /// The value of the region `occ` on this board: memoised by its least image.
    GameId value_here(const Bits& occ);
    /// The least image of occ under the board's symmetries, and whether the symmetry that gives
    /// it swaps the colours (the image's game is then the negative).
    std::pair<Bits, bool> least_image(const Bits& occ) const;

    BoardT board_;
    Group group_;
    GameStore& store_;
    ValueOptions options_;
    PositionMap<Bits> memo_;         // region (least image) -> value
    PositionMap<Bits> split_memo_;   // position -> sum of its regions
    PositionMap<Bits> group_index_;  // group -> its entry's index in group_reaches_
    std::vector<GroupReach> group_reaches_;
    std::size_t work_ = 0;                              // new positions and splits, for polls
    std::unique_ptr<detail::ValuerFamily> own_family_;  // the first valuer's: owns the others
    detail::ValuerFamily* family_ = nullptr;            // own_family_'s, or the first valuer's
};

/// The valuer of boards of up to 64 squares.
using Valuer = BasicValuer<Board>;
extern template class BasicValuer<Board>;

/// The valuer of wide boards (core/wide.hpp BigBoard, up to kMaxWideSquares squares).
using WideValuer = BasicValuer<BigBoard>;
extern template class BasicValuer<BigBoard>;

}  // namespace konane::cgt
