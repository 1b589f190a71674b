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

#include "cert/packed_keys.hpp"
#include "cert/proof_key.hpp"
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
    /// The positions with a winning move, sorted by key, keys distinct; each value is the
    /// index of the winning move in ProofGame::moves(key).
    PackedKeys entries;
    /// Free text: the program and search that wrote it (not checked).
    std::string generator;
};

/// The largest uncompressed entries (docs/certificate.md "data RAW") compressed at zstd level 19
/// (every published certificate); larger ones (hundreds of millions of entries, where level 19
/// would take about half an hour of CPU a gigabyte) at level 9: 15 times faster, 2% larger.
inline constexpr std::uint64_t kLevel19Bytes = std::uint64_t{256} << 20;

/// The zstd level of entries of `raw_bytes` uncompressed bytes: 19 up to `level19_bytes`
/// (kLevel19Bytes unless a test sets another bound), 9 above it.
int certificate_zstd_level(std::uint64_t raw_bytes, std::uint64_t level19_bytes = kLevel19Bytes);

/// Writes c to `path` (docs/certificate.md: a text header, the entries zstd-compressed, an
/// XXH64 checksum of every byte before it) through a temporary file renamed when complete.
/// The entries are streamed into the compressor (no second copy of them is made; the compressed
/// bytes, 2 to 3 a entry, are held until written). Throws CertificateError naming the file when
/// it cannot be written, std::invalid_argument on a key tag over 3.
void write_certificate(const std::filesystem::path& path, const Certificate& c);

/// The same with another bound than kLevel19Bytes between the one-shot level-19 compression and
/// the streamed level-9 one (for tests of the streamed form on small certificates).
void write_certificate(const std::filesystem::path& path, const Certificate& c,
                       std::uint64_t level19_bytes);

/// The most entries a certificate may hold by default: about 10 GiB once read (5 bytes an
/// entry), several times the largest proof searched (7x7, hundreds of millions of entries).
inline constexpr std::uint64_t kMaxCertificateEntries = std::uint64_t{1} << 31;

/// What reading a certificate may take, checked against its header before the checksum is
/// computed and before anything is decompressed (docs/certificate.md "Limits of a reader").
struct CertificateLimits {
    /// The most entries (memory is about 5 bytes an entry).
    std::uint64_t max_entries = kMaxCertificateEntries;
    /// The most entries per compressed byte beyond `free_entries`: a proof's entries take 2 to
    /// 3 compressed bytes each (0.4 to 0.5 entries a byte in every published certificate), so a
    /// file claiming more holds a decompression bomb, not a proof.
    std::uint64_t entries_per_byte = 32;
    /// Entries allowed whatever the compressed size (small proofs compress unevenly).
    std::uint64_t free_entries = std::uint64_t{1} << 20;
};

/// Reads and validates a certificate file: magic, version, header fields and sizes (against
/// `limits`, before the rest of the file is read), checksum, entry counts and order, each
/// entry's piece count (never more than a root's). The file is read in pieces and its entries
/// decompressed as they are packed (PackedKeys), so that memory is about 5 bytes per entry. It
/// does not check the proof (check_certificate does). Throws CertificateError naming the file
/// and what is wrong.
Certificate read_certificate(const std::filesystem::path& path,
                             const CertificateLimits& limits = {});

/// The same over a certificate's bytes in memory; `name` stands for the file in the messages.
Certificate parse_certificate(std::string bytes, const std::string& name,
                              const CertificateLimits& limits = {});

/// "openings" or "positions".
const char* certificate_kind_name(CertificateKind k);

}  // namespace konane
