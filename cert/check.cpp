#include "cert/check.hpp"

#include <bit>
#include <chrono>
#include <string>

#include "cert/packed_keys.hpp"
#include "core/notation.hpp"

namespace konane {

namespace {

/// The walk of one certificate's proof tree (see check.hpp). The line of moves from the root is
/// kept in the orientation of the game as played, for the messages.
class Checker {
  public:
    Checker(const Certificate& c, const CheckProgress& progress)
        : c_(c), game_(c.board, c.opening, c.jumps_only), progress_(progress) {
        const SymmetryGroup& g = game_.group();
        inverse_.assign(static_cast<std::size_t>(g.size()) * 64, 0);
        for (int s = 0; s < c.board.squares(); ++s)
            for (int k = 0; k < g.size(); ++k)
                inverse_[static_cast<std::size_t>(k) * 64 + g.map_square(k, s)] =
                    static_cast<std::uint8_t>(s);
        verified_.assign((c.entries.size() + 63) / 64, 0);
    }

    /// Proves that `winner` wins root number `i`; throws CertificateError otherwise.
    void prove_root(std::size_t i) {
        root_ = i;
        line_.clear();
        const ProofRoot& r = c_.roots[i];
        if (r.winner == r.position.to_move) {
            win(r.position);
        } else {
            lose(r.position);
        }
    }

    std::uint64_t won() const { return won_; }
    std::uint64_t lost() const { return lost_; }
    const std::vector<std::uint64_t>& won_by_pieces() const { return won_by_pieces_; }
    const std::vector<std::uint64_t>& lost_by_pieces() const { return lost_by_pieces_; }
    std::uint64_t unused() const {
        std::uint64_t n = c_.entries.size();
        for (std::uint64_t v : verified_)
            n -= static_cast<std::uint64_t>(std::popcount(v));
        return n;
    }

  private:
    [[noreturn]] void fail(Position p, const std::string& what) const {
        const ProofRoot& r = c_.roots[root_];
        std::string line;
        for (const Move& m : line_)
            line += (line.empty() ? "" : " ") + format_move(c_.board, m);
        throw CertificateError(
            "root " + std::to_string(root_ + 1) + " (" + format_position(c_.board, r.position) +
            ", claimed: " + color_name(r.winner) +
            " wins): " + (line.empty() ? std::string("at the root") : "after " + line) + ": " +
            format_position(c_.board, p) + ": " + what);
    }

    bool verified(std::size_t i) const { return (verified_[i / 64] >> (i % 64)) & 1; }

    void tick() {
        if (progress_ && ((won_ + lost_) & 0xfffff) == 0) progress_(won_, lost_);
    }

    /// The side to move in p wins: by the certificate's move.
    void win(Position p) {
        const ProofKey k = game_.key(p);
        const std::size_t at = c_.entries.find(k);
        if (at == PackedKeys::npos) {
            fail(p, std::string(color_name(p.to_move)) +
                        " is to move and should win, but the certificate records no winning "
                        "move here (a reply's proof is missing, or the claimed winner is wrong)");
        }
        if (verified(at)) return;
        const std::vector<MoveChild> moves = game_.moves(k);
        const std::uint8_t index = c_.entries.value(at);
        if (index >= moves.size()) {
            fail(p, "the recorded move number " + std::to_string(index + 1) + " is out of range (" +
                        std::to_string(moves.size()) + " legal moves)");
        }
        const MoveChild mk = moves[index];
        // The same move in p's own orientation (p is k under one of the board's symmetries).
        MoveChild mp = mk;
        if (!k.opening()) {
            const SymmetryGroup& g = game_.group();
            const Position kp = k.position();
            int sym = -1;
            for (int s = 0; s < g.size() && sym < 0; ++s)
                if (g.image(s, p) == kp) sym = s;
            if (sym < 0) fail(p, "internal error: no symmetry maps the position to its key");
            const Move want{inverse_[static_cast<std::size_t>(sym) * 64 + mk.move.from],
                            inverse_[static_cast<std::size_t>(sym) * 64 + mk.move.to]};
            bool found = false;
            for_each_jump(c_.board, p, [&](Move m, Position child) {
                if (m == want) {
                    mp = {m, child};
                    found = true;
                }
            });
            if (!found) fail(p, "internal error: the recorded move has no image");
        }
        line_.push_back(mp.move);
        lose(mp.child);
        line_.pop_back();
        verified_[at / 64] |= std::uint64_t{1} << (at % 64);
        ++won_;
        ++won_by_pieces_[static_cast<std::size_t>(std::popcount(p.occ))];
        tick();
    }

    /// The side to move in p loses: every reply leads to a position the certificate proves won.
    void lose(Position p) {
        const ProofKey k = game_.key(p);
        if (lost_keys_.contains(k)) return;
        auto each = [&](const MoveChild& m) {
            line_.push_back(m.move);
            win(m.child);
            line_.pop_back();
        };
        if (game_.in_opening(p)) {
            for (const MoveChild& m : legal_moves(c_.board, c_.opening.rules, p))
                each(m);
        } else {
            MoveChild buf[kMaxMoves];
            int n = 0;
            for_each_jump(c_.board, p, [&](Move m, Position child) { buf[n++] = {m, child}; });
            for (int i = 0; i < n; ++i)
                each(buf[i]);
        }
        lost_keys_.insert(k, 0);
        ++lost_;
        ++lost_by_pieces_[static_cast<std::size_t>(std::popcount(p.occ))];
        tick();
    }

    const Certificate& c_;
    ProofGame game_;
    const CheckProgress& progress_;
    std::vector<std::uint8_t> inverse_;                     ///< [symmetry][image square] -> square
    std::vector<std::uint64_t> verified_;                   ///< a bit per entry: proven won
    CompactKeyMap lost_keys_{std::size_t{1} << 22, false};  ///< positions proven lost
    std::vector<Move> line_;
    std::size_t root_ = 0;
    std::uint64_t won_ = 0, lost_ = 0;
    std::vector<std::uint64_t> won_by_pieces_ = std::vector<std::uint64_t>(kMaxSquares + 1, 0);
    std::vector<std::uint64_t> lost_by_pieces_ = std::vector<std::uint64_t>(kMaxSquares + 1, 0);
};

}  // namespace

CertificateCheck check_certificate(const Certificate& c, const CheckProgress& progress) {
    const auto start = std::chrono::steady_clock::now();
    CertificateCheck out;
    const Board& b = c.board;
    std::vector<std::vector<Position>> pairs;  // per Black removal: the positions after replies
    std::vector<Move> removal_moves;
    if (c.kind == CertificateKind::Openings) {
        if (c.jumps_only) throw CertificateError("an openings certificate cannot be jumps-only");
        std::vector<Position> expected;
        if (c.opening.gap) {
            expected = start_positions(b, c.opening);
        } else {
            for (const MoveChild& first : legal_moves(b, c.opening.rules, b.start())) {
                removal_moves.push_back(first.move);
                pairs.emplace_back();
                for (const MoveChild& second : legal_moves(b, c.opening.rules, first.child)) {
                    pairs.back().push_back(second.child);
                    expected.push_back(second.child);
                }
            }
        }
        if (expected.size() != c.roots.size()) {
            throw CertificateError("the certificate has " + std::to_string(c.roots.size()) +
                                   " roots, the board's openings are " +
                                   std::to_string(expected.size()));
        }
        for (std::size_t i = 0; i < expected.size(); ++i) {
            if (!(expected[i] == c.roots[i].position)) {
                throw CertificateError("root " + std::to_string(i + 1) + " (" +
                                       format_position(b, c.roots[i].position) +
                                       ") is not the board's opening number " +
                                       std::to_string(i + 1) + " (" +
                                       format_position(b, expected[i]) + ")");
            }
        }
    }
    Checker checker(c, progress);
    for (std::size_t i = 0; i < c.roots.size(); ++i) {
        checker.prove_root(i);
        out.winners.push_back(c.roots[i].winner);
    }
    if (c.kind == CertificateKind::Openings) {
        if (c.opening.gap) {
            out.board_winner = out.winners.front();
        } else {
            // Minimax over the two removals: a removal wins for Black when every reply does.
            std::size_t at = 0;
            bool black = false;
            for (std::size_t r = 0; r < pairs.size(); ++r) {
                Color w = Color::Black;
                for (std::size_t j = 0; j < pairs[r].size(); ++j, ++at)
                    if (out.winners[at] == Color::White) w = Color::White;
                out.removals.emplace_back(removal_moves[r], w);
                black = black || w == Color::Black;
            }
            out.board_winner = black ? Color::Black : Color::White;
        }
    }
    out.won = checker.won();
    out.lost = checker.lost();
    out.won_by_pieces = checker.won_by_pieces();
    out.lost_by_pieces = checker.lost_by_pieces();
    out.unused = checker.unused();
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
}

}  // namespace konane
