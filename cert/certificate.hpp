// Proof certificates: the proof of a win/loss verdict as data, and its file format
// (docs/certificate.md). A certificate names, for each position of the proof where the winner is
// to move, one winning move; the loser's replies are not listed, the checker generates them all
// from the rules (cert/check.hpp). Positions are keyed up to the board's symmetries, so a
// position reached by several lines (a transposition) is proven once.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/board.hpp"
#include "core/gap.hpp"
#include "core/movegen.hpp"
#include "core/symmetry.hpp"

namespace konane {

/// A certificate that cannot be read or does not prove what it claims. The message names the
/// file (when there is one) and the first thing wrong: a damaged byte, a wrong move, a missing
/// reply's proof, a wrong claimed winner.
struct CertificateError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

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

/// The game a certificate's positions are played in, and the one place that decides a
/// position's key and moves: board, opening rule (ruleset or gap) and whether the opening
/// removals are played at all.
class ProofGame {
  public:
    ProofGame(const Board& b, const Opening& o, bool jumps_only);

    const Board& board() const { return board_; }
    const Opening& opening() const { return opening_; }
    bool jumps_only() const { return jumps_only_; }
    const SymmetryGroup& group() const { return group_; }

    /// True when p is in the opening stage (removals; never with jumps_only).
    bool in_opening(Position p) const;
    /// p's key (see ProofKey).
    ProofKey key(Position p) const;
    /// The moves of the position a key stands for, in a fixed order (legal_moves for an
    /// opening-stage key, for_each_jump's order otherwise): a certificate names a move by its
    /// index here. At most 255 moves (a jump-stage position has at most 128; a full board at
    /// most 32 removals).
    std::vector<MoveChild> moves(const ProofKey& k) const;

  private:
    Board board_;
    Opening opening_;
    bool jumps_only_;
    SymmetryGroup group_;
};

/// One position whose winner a certificate claims.
struct ProofRoot {
    Position position;
    Color winner;
};

/// A winning move for the side to move in the position of `key`: the index of the move in
/// ProofGame::moves(key).
struct ProofEntry {
    ProofKey key;
    std::uint8_t move = 0;
};

/// What a certificate proves: the value of the positions given (`konane solve --wdl`), or every
/// opening of a board (`konane openings --search`: one root per removal pair, in the order of
/// start_positions(), from which the checker derives the board's verdict).
enum class CertificateKind : std::uint8_t { Positions, Openings };

/// A proof certificate in memory.
struct Certificate {
    Board board = Board::make(1, 1);
    Opening opening;
    bool jumps_only = false;
    CertificateKind kind = CertificateKind::Positions;
    std::vector<ProofRoot> roots;
    /// Sorted by key, keys distinct.
    std::vector<ProofEntry> entries;
    /// Free text: the program and search that wrote it (not checked).
    std::string generator;
};

/// Writes c to `path` (docs/certificate.md: a text header, the entries zstd-compressed, an
/// XXH64 checksum of every byte before it) through a temporary file renamed when complete.
/// Throws CertificateError naming the file when it cannot be written, std::invalid_argument
/// when c's entries are not sorted and distinct.
void write_certificate(const std::filesystem::path& path, const Certificate& c);

/// Reads and validates a certificate file: magic, version, checksum, header fields, entry
/// counts and order. It does not check the proof (check_certificate does). Throws
/// CertificateError naming the file and what is wrong.
Certificate read_certificate(const std::filesystem::path& path);

/// The same over a certificate's bytes in memory; `name` stands for the file in the messages.
Certificate parse_certificate(std::string bytes, const std::string& name);

/// "openings" or "positions".
const char* certificate_kind_name(CertificateKind k);

}  // namespace konane
