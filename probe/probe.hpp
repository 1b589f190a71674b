// The probe library: values, move values, the perfect move and the perfect line from a table.
// Values and tie-breaks: shared/docs/rules.md ("Values"); the file: format/FORMAT.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <vector>

#include "core/board.hpp"
#include "core/movegen.hpp"
#include "core/mphf.hpp"
#include "core/symmetry.hpp"
#include "format/table.hpp"

namespace konane {

/// The value of a position for the side to move: WIN or LOSS, and the depth to end in plies
/// (the winner hurries, the loser delays). WIN depths are odd, LOSS depths even.
struct Value {
    bool win = false;
    int depth = 0;
    /// The value a depth byte stands for (odd = WIN).
    static Value from_depth(int d) { return Value{(d & 1) != 0, d}; }
    friend bool operator==(const Value&, const Value&) = default;
};

/// A legal move with the value it leads to for the player who makes it: `value.win` when the
/// child is a LOSS for the opponent, and `value.depth` = 1 + the child's depth, counted from
/// before the move, so the perfect move's depth equals the position's.
struct MoveValue {
    Move move;
    Position child;
    Value value;
};

/// Thrown when a position is asked of a table that does not hold it (nor, in the opening stage,
/// its children), or is of another board than the table's.
struct NotStored : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// The preference between two move values of one position (rules.md "Values"): a WIN beats a
/// LOSS; among WINs the smaller depth, among LOSSes the greater depth. Ties are broken by move
/// order (legal_moves(): direction up, down, right, left; start square a1, b1, ... ; shorter
/// jumps first; removals by square), the earlier move being preferred.
bool better(const Value& a, const Value& b);

/// A tablebase opened for probing. Opening maps the file read-only and validates it; every
/// member is const and thread-safe (any number of threads may probe one Tablebase); no global
/// state. Copies share the mapping.
class Tablebase {
public:
    /// Opens a table file. `expect` may require a board size and ruleset.
    /// Throws format::FormatError naming the file, the section and the problem.
    static Tablebase open(const std::filesystem::path& path, const format::Expect& expect = {});

    const Board& board() const { return state_->board; }
    Ruleset rules() const { return state_->rules; }
    const format::Table& table() const { return *state_->table; }
    const SymmetryGroup& group() const { return state_->group; }

    /// The stored depth of a Play-stage position, or nullopt when the table does not hold it
    /// (no layer of its piece count, or its slot's fingerprint differs: a position not stored
    /// is taken for a stored one with probability 2^-fingerprint_bits).
    /// Throws format::FormatError if the block needed is damaged.
    std::optional<Value> lookup(Position p) const;

    /// The value of p: stored positions from the table; opening-stage positions (full board,
    /// one-hole board) from their children. nullopt when p (or an opening-stage child) is not
    /// stored. Throws format::FormatError on a damaged block.
    std::optional<Value> value(Position p) const;

    /// Every legal move of p with its value for the mover, in legal_moves() order. Throws
    /// NotStored when a child is not stored (then p is not a reachable position of this table).
    std::vector<MoveValue> moves(Position p) const;

    /// The perfect move of p (see better()); nullopt when p has no move. Throws NotStored.
    std::optional<MoveValue> best_move(Position p) const;

    /// The perfect line from p: perfect moves until the side to move has none. Its length
    /// equals value(p)->depth for Play-stage positions. Throws NotStored.
    std::vector<MoveValue> perfect_line(Position p) const;

private:
    struct State {
        std::shared_ptr<const format::Table> table;
        Board board;
        Ruleset rules = Ruleset::Brainking;
        SymmetryGroup group;
        unsigned fingerprint_bits = 0;
        std::vector<int> layer_of_pieces;  ///< layer index by piece count, -1 if none
        mutable std::vector<std::once_flag> once;
        mutable std::vector<MphfView> views;
        State(std::shared_ptr<const format::Table> t, const Board& b, Ruleset r);
        const MphfView& view(int layer) const;
    };
    explicit Tablebase(std::shared_ptr<const State> s) : state_(std::move(s)) {}
    std::shared_ptr<const State> state_;
};

}  // namespace konane
