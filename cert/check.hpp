// The certificate checker: verifies a proof certificate with the rules engine alone (core/:
// moves, symmetry, notation). It shares nothing with the proof search that wrote the
// certificate and reads no table. Algorithm: the proof tree is walked from each root; where the
// claimed winner is to move, the certificate's move must be legal and lead to a position where
// the loser loses; where the loser is to move, every legal reply (generated here) must lead to a
// position the certificate proves won. A position is proven once (memoised by its key), so
// transpositions cost nothing; games end because every move removes a piece.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "cert/certificate.hpp"

namespace konane {

/// What check_certificate proved.
struct CertificateCheck {
    /// The winner of each root (equal to the claimed one: a wrong claim is refused).
    std::vector<Color> winners;
    /// For an openings certificate: the winner of each of Black's removals against White's best
    /// reply, in the order of legal_moves, and the board's winner (Black when some removal wins
    /// against every reply, else White). For a gap certificate (one root): that root's winner.
    std::vector<std::pair<Move, Color>> removals;
    std::optional<Color> board_winner;
    std::uint64_t won = 0;     ///< positions proven won for the side to move (entries used)
    std::uint64_t lost = 0;    ///< positions proven lost for the side to move
    std::uint64_t unused = 0;  ///< entries the proof never needed
    /// The positions proven, by number of pieces on the board (index 0 .. 64): how deep into
    /// the game the proof goes, and which endgame tables of at most K pieces it could use.
    std::vector<std::uint64_t> won_by_pieces, lost_by_pieces;
    double seconds = 0;  ///< wall time of the check
};

/// Progress of a long check: positions proven so far (won + lost).
using CheckProgress = std::function<void(std::uint64_t won, std::uint64_t lost)>;

/// Verifies that c proves each of its roots' claimed winner (and, for an openings certificate,
/// that its roots are exactly the board's removal pairs under its opening rule, in order).
/// Throws CertificateError naming the first failure: the root, the line of moves from it, the
/// position, and what is wrong (no winning move recorded, a move index out of range, a move that
/// does not win). `progress` is called about every million positions (of the calling thread's
/// walk).
///
/// `threads` (at least 1) walk the proof at once: the top levels of the proof tree are expanded
/// into a few dozen subtrees a thread, which the threads prove in any order, sharing what is
/// proven (a position is counted by the walk that marks it first, so every count is the same
/// whatever the threads); the walk from each root then finds them proven. The verdict, the
/// counts and the message of a refusal (found again by the walk from the roots) are those of
/// one thread.
CertificateCheck check_certificate(const Certificate& c, const CheckProgress& progress = {},
                                   int threads = 1);

}  // namespace konane
