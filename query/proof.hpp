// The proof search's answer for one position (win or loss for the side to move, without depth),
// and with both sides its outcome class: assembled here once for the command (`konane solve
// --wdl`), `konane serve` (/api/wdl) and the Python module (solve(wdl=True), outcome(wdl=True)).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

#include "core/board.hpp"
#include "core/outcome.hpp"
#include "search/proof.hpp"

namespace konane::query {

/// What a proof search found for one position.
struct ProofAnswer {
    Position position;
    /// True: the side to move wins; false: it loses; nullopt: not decided within the limits.
    std::optional<bool> win;
    std::optional<Move> winning_move;  ///< a winning move when win is true
    /// Asked with both sides: the verdicts with Black to move and with White to move (one of
    /// them the position's own), and the outcome class when both are decided.
    bool both = false;
    std::optional<bool> black_starts, white_starts;
    std::optional<Outcome> outcome;
    /// The work of every solve() the answer took (both sides: each position searched once).
    std::uint64_t nodes = 0, table_hits = 0;
    double seconds = 0, cpu_seconds = 0;

    /// True when every verdict asked for is known.
    bool decided() const { return win && (!both || (black_starts && white_starts)); }
};

/// Called before each solve() of a side other than the position's own: " black starts" or
/// " white starts" (a progress line shows it).
using SideLabel = std::function<void(std::string_view)>;

/// The proof answer for p from s (its transposition table kept for later calls): p's verdict,
/// and with `both` the verdicts with each side to move and the outcome class
/// (core/outcome.hpp outcome_of). Throws what ProofSearch::solve() throws (its stop flag's
/// error, std::bad_alloc).
ProofAnswer prove(ProofSearch& s, Position p, bool both, const SideLabel& label = {});

}  // namespace konane::query
