// Who wins: the outcome class of a position (combinatorial game theory) and the verdict of a
// choice among options whose winners are known, or not yet. Source: docs/rules.md ("Values").
#pragma once

#include <cstdint>
#include <optional>

#include "core/board.hpp"
#include "core/value.hpp"

namespace konane {

/// The outcome class of a position (combinatorial game theory): who wins with Black to move
/// and with White to move.
enum class Outcome : std::uint8_t {
    Black,   ///< Black wins whoever starts
    White,   ///< White wins whoever starts
    First,   ///< the player to move wins
    Second,  ///< the player to move loses
};

/// "black", "white", "first" or "second".
const char* outcome_name(Outcome o);

/// "Black wins whoever starts", "White wins whoever starts", "the player to move wins" or "the
/// player to move loses".
const char* outcome_description(Outcome o);

/// The outcome class from the values with Black to move and with White to move (only `win`
/// is read).
Outcome outcome_of(const Value& black_starts, const Value& white_starts);

/// The winner of a choice that side `chooser` makes among options (Black's opening removals,
/// White's replies to one), from the options' winners as they become known: the chooser wins
/// when some option wins for it, the other side when every option does (also when there is no
/// option: the chooser cannot move and loses), and it is undecided (nullopt) otherwise (an
/// undecided option and none winning for the chooser). Used by the openings of a table
/// (probe/openings.hpp) and of the proof search (search/proof.hpp search_openings).
class Verdict {
  public:
    explicit Verdict(Color chooser) : chooser_(chooser) {}
    /// Adds one option's winner (nullopt: undecided).
    void add(std::optional<Color> winner) {
        if (winner == chooser_) {
            some_win_ = true;
        } else if (!winner) {
            all_lose_ = false;
        }
    }
    /// The winner of the choice so far.
    std::optional<Color> winner() const {
        if (some_win_) return chooser_;
        if (all_lose_) return other(chooser_);
        return std::nullopt;
    }

  private:
    Color chooser_;
    bool some_win_ = false;
    bool all_lose_ = true;
};

}  // namespace konane
