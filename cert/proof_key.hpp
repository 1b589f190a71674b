// The key of a position in a proof certificate (cert/certificate.hpp, docs/certificate.md), and
// an entry: a key with its winning move.
#pragma once

#include <cstdint>

#include "core/board.hpp"

namespace konane {

/// The key of a position in a certificate. Positions played by jumps are keyed by their
/// canonical form under the board's symmetries (SymmetryGroup::canonical); positions of the
/// opening stage (a full board, or a one-hole board where White removes next; core/board.hpp
/// stage_of) by themselves, since a colour-swapping symmetry would turn them into positions of
/// another stage. Order: opening-stage keys after jump-stage keys, then Black to move first,
/// then by occupancy.
struct ProofKey {
    std::uint64_t occ = 0;
    /// Bit 0: White to move; bit 1: an opening-stage position (keyed as itself).
    std::uint8_t tag = 0;
    static constexpr std::uint8_t kWhite = 1, kOpening = 2;

    Position position() const {
        return Position{occ, (tag & kWhite) ? Color::White : Color::Black};
    }
    bool opening() const { return (tag & kOpening) != 0; }
    friend bool operator==(const ProofKey&, const ProofKey&) = default;
    friend bool operator<(const ProofKey& a, const ProofKey& b) {
        return a.tag != b.tag ? a.tag < b.tag : a.occ < b.occ;
    }
};

/// A winning move for the side to move in the position of `key`: the index of the move in
/// ProofGame::moves(key).
struct ProofEntry {
    ProofKey key;
    std::uint8_t move = 0;
};

}  // namespace konane
