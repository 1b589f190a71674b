// Writing the proof of a verdict the proof search reached (search/proof.hpp) as a certificate
// (cert/certificate.hpp, docs/certificate.md) that `konane check-proof` verifies without it.
#pragma once

#include <cstdint>
#include <functional>

#include "cert/certificate.hpp"
#include "cert/packed_keys.hpp"
#include "search/proof.hpp"

namespace konane {

/// Counts of a certificate being built, for progress and for the docs' size figures.
struct CertificateStats {
    std::uint64_t won = 0;             ///< positions with a winning move recorded (entries)
    std::uint64_t lost = 0;            ///< positions proven lost (every reply walked)
    std::uint64_t transpositions = 0;  ///< moves chosen because their position was proven already
    std::uint64_t searched = 0;        ///< positions searched again (their proof had been evicted)
    std::uint64_t nodes = 0;           ///< nodes of those searches
    /// Bytes the won and lost positions take (measured every 100,000 positions), and the most.
    std::uint64_t bytes = 0, peak_bytes = 0;
};

/// Builds a certificate from a ProofSearch that has decided its roots. The proof is extracted
/// by walking the proof tree: where the winner is to move, a move to a position already in the
/// proof is preferred (a transposition costs nothing), then a move whose result the search's
/// transposition table holds and that leaves the loser fewest replies (a smaller subtree), and
/// only then a move searched again (an entry the table replaced). Where the loser is to move,
/// every reply is walked. The search's node limit is lifted while building.
class CertificateBuilder {
  public:
    /// A builder over s (which must outlive it), for positions of s's board and rules.
    explicit CertificateBuilder(ProofSearch& s);

    /// Adds the proof that `winner` wins p. Throws std::runtime_error when the search cannot
    /// confirm it (a wrong claim: the search finds the other winner).
    void add_root(Position p, Color winner);

    /// Called about every 100,000 positions added.
    void on_progress(std::function<void(const CertificateStats&)> f) { progress_ = std::move(f); }

    const CertificateStats& stats() const { return stats_; }

    /// The certificate of the roots added, of the given kind and opening (the search's ruleset
    /// when `opening` has no gap), entries sorted. The builder hands its positions over: call it
    /// once, after the last add_root.
    Certificate finish(CertificateKind kind, const Opening& opening, std::string generator);

  private:
    /// The side to move in p wins (the search says so): record a winning move, prove its child.
    void win(Position p);
    /// The side to move in p loses: prove every reply won.
    void lose(Position p);
    /// Whether the side to move in p wins: the transposition table's answer, else a search.
    bool wins(Position p);
    void tick();

    ProofSearch& search_;
    ProofGame game_;
    /// key -> the winning move's index in ProofGame::moves, and the keys proven lost: a few
    /// bytes a position (7x7's proof holds hundreds of millions).
    CompactKeyMap won_;
    CompactKeyMap lost_{std::size_t{1} << 22, false};
    std::vector<ProofRoot> roots_;
    CertificateStats stats_;
    std::function<void(const CertificateStats&)> progress_;
};

}  // namespace konane
