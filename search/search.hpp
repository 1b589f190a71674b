// Search: the value of any position on any board of up to 64 squares by memoised negamax, for
// positions no table holds (single rows, positions from combinatorial game theory, boards too
// large for a table), optionally using a table's values where the search meets its positions.
// Values and tie-breaks: docs/rules.md ("Values"), as in probe/probe.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "core/board.hpp"
#include "core/movegen.hpp"
#include "core/outcome.hpp"
#include "core/symmetry.hpp"
#include "probe/answer.hpp"
#include "probe/probe.hpp"

namespace konane {

/// Thrown when a search would keep more positions in its memo than SearchOptions::max_positions.
struct SearchLimit : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Options of a Searcher.
struct SearchOptions {
    /// Opening ruleset: decides Black's removals on the full board (and, through them, which
    /// one-hole boards a table holds).
    Ruleset rules = Ruleset::Brainking;
    /// Treat every position as being in the jump stage, even a full board with Black to move
    /// or a one-hole board with White to move (which otherwise are the opening removals, as in
    /// legal_moves()). For positions of combinatorial game theory.
    bool jumps_only = false;
    /// Most positions the memo may hold (0: no limit); exceeding it throws SearchLimit.
    std::size_t max_positions = 50'000'000;
    /// Called with positions() each time the memo has grown by 65,536 positions (progress of a
    /// long search); empty: not called. It may throw to stop the search (`konane serve` does,
    /// past a request's time): the exception leaves value() and the memo holds only finished
    /// positions.
    std::function<void(std::size_t positions)> progress;
};

/// Bytes of memory one memoised position takes, about (hash-table node, allocator overhead,
/// bucket): a memory budget allows budget / kSearchBytesPerPosition positions.
inline constexpr std::size_t kSearchBytesPerPosition = 64;

/// Memoised negamax over canonical positions (positions reduced by the board's symmetries).
///
/// Values, depths, move values and the perfect move follow rules.md exactly as Tablebase's do
/// (same better(), same tie-break by move order), so a Searcher and a Tablebase give the same
/// answers on the table's positions.
///
/// With a Tablebase of the same board, the search takes a stored value instead of searching
/// below a Play-stage position, once it has checked it: every child must be stored too and the
/// stored depth must be the one its children's stored depths give (a check against a damaged
/// or foreign table; membership itself is exact); a rejected value is searched instead.
///
/// Not thread-safe (the memo is mutable state); use one Searcher per thread. The Tablebase is
/// shared (copied handle), not owned exclusively.
class Searcher {
  public:
    /// A searcher for board b. `table`, when given, must be of the same board (checked: throws
    /// std::invalid_argument naming both sizes); when options.rules differs from the table's,
    /// the table's values are still used for the Play stage, where the ruleset does not matter.
    explicit Searcher(const Board& b, const SearchOptions& options = {},
                      std::optional<Tablebase> table = std::nullopt);

    const Board& board() const { return board_; }
    const SearchOptions& options() const { return options_; }

    /// The value of p for the side to move. @throws SearchLimit, format::FormatError.
    Value value(Position p);

    /// Every legal move of p (legal_moves() order, or for_each_jump() order with jumps_only)
    /// with its value for the mover, the depth counted from before the move.
    std::vector<MoveValue> moves(Position p);

    /// The perfect move (better(), earliest on ties); nullopt when p has no move.
    std::optional<MoveValue> best_move(Position p);

    /// Perfect moves until the side to move has none; length value(p).depth.
    std::vector<MoveValue> perfect_line(Position p);

    /// Canonical positions in the memo.
    std::size_t positions() const { return memo_.size(); }
    /// Values taken from the table (after the check above), and values rejected by it.
    std::uint64_t table_hits() const { return table_hits_; }
    std::uint64_t table_rejections() const { return table_rejections_; }
    /// Empties the memo.
    void clear() { memo_.clear(); }

  private:
    struct PosHash {
        std::size_t operator()(const Position& p) const {
            std::uint64_t h =
                (p.occ ^ (static_cast<std::uint64_t>(p.to_move) << 7)) * 0x9E3779B97F4A7C15ull;
            return static_cast<std::size_t>(h ^ (h >> 29));
        }
    };
    std::vector<MoveChild> children(Position p) const;
    int depth_of(Position p);
    std::optional<int> checked_table_depth(Position p);

    Board board_;
    SearchOptions options_;
    SymmetryGroup group_;
    std::optional<Tablebase> table_;
    std::unordered_map<Position, std::uint8_t, PosHash> memo_;
    std::uint64_t table_hits_ = 0, table_rejections_ = 0;
};

/// The answer of a search for p (probe/answer.hpp Answer: value, every move's value, the
/// perfect line). @throws SearchLimit past the searcher's limit.
Answer search_answer(Searcher& s, Position p);

// Outcome, outcome_name() and outcome_of() are the game's: core/outcome.hpp (included here for
// the users that found them in this header).

}  // namespace konane
