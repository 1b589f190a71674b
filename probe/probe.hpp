// The probe library: values, move values, the perfect move and the perfect line from a table.
// Values and tie-breaks: docs/rules.md ("Values"); the file: format/FORMAT.md.
//
// Error policy: a position the table does not hold is an explicit "not stored" (std::nullopt
// from lookup()/value(), NotStored from the functions that must return moves); a damaged or
// foreign file is a format::FormatError naming the file and section. Nothing is guessed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include "core/board.hpp"
#include "core/gap.hpp"
#include "core/movegen.hpp"
#include "core/symmetry.hpp"
#include "core/value.hpp"
#include "format/table.hpp"

namespace konane {

// Value, move_value(), MoveValue, better() and pick_best() are the game's (core/value.hpp).

/// Thrown when moves, a best move or a line are asked of a table that does not hold the
/// position (nor, in the opening stage, its children). The message names the position and the
/// file.
struct NotStored : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// A tablebase opened for probing.
///
/// - Opening maps the file read-only (format::Table) and validates its structure; the data
///   blocks are checked when first decoded.
/// - Every member is const and thread-safe: any number of threads may probe one Tablebase (or
///   copies of it, which share the mapping) at once. There is no global state.
/// - Positions are konane::Position on board(); a position with squares off that board is not
///   stored. Positions are reduced by the board's symmetries before look-up, so every raw
///   position of a stored class is answered.
/// - What the table holds: every position reachable after both opening removals under its
///   ruleset (the Play stage). The opening-stage positions (the full board with Black to move,
///   and a one-hole board with White to move whose hole is one of Black's legal removals) are
///   answered from their children. A table built from one gap (opening().gap, core/gap.hpp)
///   holds the positions reachable from that gap's start position and no opening stage.
/// - Membership is exact: a position the table does not hold is always reported as not stored
///   (the file keeps the sorted set of its positions, format/FORMAT.md).
class Tablebase {
  public:
    /// Opens a table file. `expect` may require a board size and ruleset; `options.load` says
    /// whether the file is mapped (the default) or read into memory backed by huge pages, for
    /// long-running users of a large table (format::Load).
    /// @throws format::FormatError "<file>: <section>: <problem>" for a missing, damaged or
    ///         foreign file, or a table not matching `expect`; format::IoError when the file
    ///         cannot be read (or, for Load::memory, the memory cannot be had).
    static Tablebase open(const std::filesystem::path& path, const format::Expect& expect = {},
                          const format::OpenOptions& options = {});

    /// The board and opening ruleset the table was generated for (Any for a gap's table: its
    /// game records start with the gap's two removals, which ruleset Any allows).
    const Board& board() const;
    Ruleset rules() const;
    /// What the table starts from: its ruleset's removals, or the gap it was built from.
    const Opening& opening() const;
    /// The underlying file reader.
    const format::Table& table() const;
    /// The board's symmetry group (used to reduce positions before look-up).
    const SymmetryGroup& group() const;

    /// The stored value of a Play-stage position, or nullopt when the table does not hold it
    /// (squares off the board, no layer of its piece count, or not among the layer's positions).
    /// Opening-stage positions are never stored: use value().
    /// @throws format::FormatError if the block needed is damaged.
    std::optional<Value> lookup(Position p) const;

    /// The value of p for the side to move: Play-stage positions from the table (lookup()),
    /// opening-stage positions from their children. nullopt when the table does not hold p
    /// (for a one-hole board: when the hole is not one of Black's legal removals under rules(),
    /// or a child is not stored; for a gap's table: any opening-stage position). @throws
    /// format::FormatError on a damaged block.
    std::optional<Value> value(Position p) const;

    /// Every legal move of p (legal_moves() order) with its value for the mover (move_value()
    /// of the child's value: depth counted from before the move). Empty when p has no move.
    /// @throws NotStored when the table does not hold p or one of its children.
    /// @throws format::FormatError on a damaged block.
    std::vector<MoveValue> moves(Position p) const;

    /// The perfect move of p: from a WIN, the move to the LOSS child of least depth; from a
    /// LOSS, the move to the child of greatest depth; ties to the earliest move (better()).
    /// Its value equals value(p). nullopt when p has no move. @throws NotStored, FormatError.
    std::optional<MoveValue> best_move(Position p) const;

    /// The perfect line from p: perfect moves, one per ply, until the side to move has none.
    /// Its length equals value(p)->depth; after it the side to move is the loser (the mover at
    /// p when value(p) is a LOSS, its opponent otherwise). @throws NotStored, FormatError.
    std::vector<MoveValue> perfect_line(Position p) const;

  private:
    struct State;
    explicit Tablebase(std::shared_ptr<const State> s) : state_(std::move(s)) {}
    std::shared_ptr<const State> state_;
};

}  // namespace konane
