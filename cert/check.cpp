#include "cert/check.hpp"

#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "cert/packed_keys.hpp"
#include "core/notation.hpp"

namespace konane {

namespace {

/// What the walks of one check share, whatever the threads: the entries proven won (a bit per
/// entry) and the positions proven lost (a set in shards, each under its mutex). A position is
/// counted by the walk that marks it first, so the counts are those of one walk, whatever the
/// threads.
struct Proven {
    static constexpr std::size_t kShards = 64;
    struct Shard {
        std::mutex mutex;
        CompactKeyMap keys{std::size_t{1} << 18, false};
    };
    std::vector<std::uint64_t> won_bits;  ///< read and written through std::atomic_ref
    std::array<Shard, kShards> lost;
    std::atomic<bool> failed{false};  ///< a walk failed: the others stop

    explicit Proven(std::size_t entries) : won_bits((entries + 63) / 64, 0) {}

    bool won(std::size_t i) const {
        return (std::atomic_ref(won_bits[i / 64]).load(std::memory_order_relaxed) >> (i % 64)) & 1;
    }
    /// Marks entry i won; true when this call marked it.
    bool mark_won(std::size_t i) {
        const std::uint64_t bit = std::uint64_t{1} << (i % 64);
        return (std::atomic_ref(won_bits[i / 64]).fetch_or(bit, std::memory_order_relaxed) & bit) ==
               0;
    }
    Shard& shard(const ProofKey& k) {
        return lost[((k.occ * 0x9E3779B97F4A7C15ull) >> 58) ^ (k.tag & 1)];
    }
    bool lost_contains(const ProofKey& k) {
        Shard& s = shard(k);
        std::lock_guard<std::mutex> lock(s.mutex);
        return s.keys.contains(k);
    }
    /// Marks k lost; true when this call marked it.
    bool mark_lost(const ProofKey& k) {
        Shard& s = shard(k);
        std::lock_guard<std::mutex> lock(s.mutex);
        return s.keys.insert(k, 0);
    }
};

/// The walk of one certificate's proof tree (see check.hpp), on one thread, over the shared
/// Proven. The line of moves from the root is kept in the orientation of the game as played,
/// for the messages.
/// Thrown by a walk that stops because another failed.
struct Abandoned {};

class Checker {
  public:
    /// `progress` is called by this walk alone (the lead's; nullptr for the others).
    Checker(const Certificate& c, const ProofGame& game, Proven& proven,
            const CheckProgress* progress)
        : c_(c), game_(game), proven_(proven), progress_(progress) {
        const SymmetryGroup& g = game_.group();
        inverse_.assign(static_cast<std::size_t>(g.size()) * 64, 0);
        for (int s = 0; s < c.board.squares(); ++s)
            for (int k = 0; k < g.size(); ++k)
                inverse_[static_cast<std::size_t>(k) * 64 + g.map_square(k, s)] =
                    static_cast<std::uint8_t>(s);
    }

    /// Proves that the side to move in p wins (`win`) or loses, for root number `root` (the
    /// messages name it; the line of moves is counted from p). Throws CertificateError.
    void prove(std::size_t root, Position p, bool win_claim) {
        root_ = root;
        line_.clear();
        if (win_claim) {
            win(p);
        } else {
            lose(p);
        }
    }

    /// The positions one level below p in the proof: the certificate's winning move's child
    /// (to lose) where p's side to move should win, else every reply's child (to win). Throws
    /// CertificateError as the walk does.
    std::vector<std::pair<Position, bool>> below(Position p, bool win_claim) {
        std::vector<std::pair<Position, bool>> out;
        if (win_claim) {
            const ProofKey k = game_.key(p);
            out.emplace_back(winning_move(p, k, c_.entries.find(k)).child, false);
        } else {
            for_each_reply(p, [&](const MoveChild& m) { out.emplace_back(m.child, true); });
        }
        return out;
    }

    std::uint64_t won() const { return won_; }
    std::uint64_t lost() const { return lost_; }
    const std::vector<std::uint64_t>& won_by_pieces() const { return won_by_pieces_; }
    const std::vector<std::uint64_t>& lost_by_pieces() const { return lost_by_pieces_; }

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

    void tick() {
        if (((won_ + lost_) & 0xfffff) != 0) return;
        if (progress_ && *progress_) (*progress_)(won_, lost_);
        if (proven_.failed.load(std::memory_order_relaxed)) throw Abandoned{};
    }

    /// The certificate's winning move in p (key k, entry `at`: npos when the certificate has
    /// none, a failure), in p's orientation.
    MoveChild winning_move(Position p, const ProofKey& k, std::size_t at) {
        if (at == PackedKeys::npos) {
            fail(p, std::string(color_name(p.to_move)) +
                        " is to move and should win, but the certificate records no winning "
                        "move here (a reply's proof is missing, or the claimed winner is wrong)");
        }
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
        return mp;
    }

    /// The side to move in p wins: by the certificate's move.
    void win(Position p) {
        const ProofKey k = game_.key(p);
        const std::size_t at = c_.entries.find(k);
        if (at != PackedKeys::npos && proven_.won(at)) return;
        const MoveChild mp = winning_move(p, k, at);
        line_.push_back(mp.move);
        lose(mp.child);
        line_.pop_back();
        if (proven_.mark_won(at)) {
            ++won_;
            ++won_by_pieces_[static_cast<std::size_t>(std::popcount(p.occ))];
            tick();
        }
    }

    /// Calls f(MoveChild) for each move of the side to move in p (the opening's removals, or
    /// the jumps).
    template <class F>
    void for_each_reply(Position p, F&& f) const {
        if (game_.in_opening(p)) {
            for (const MoveChild& m : legal_moves(c_.board, c_.opening.rules, p))
                f(m);
        } else {
            MoveChild buf[kMaxMoves];
            int n = 0;
            for_each_jump(c_.board, p, [&](Move m, Position child) { buf[n++] = {m, child}; });
            for (int i = 0; i < n; ++i)
                f(buf[i]);
        }
    }

    /// The side to move in p loses: every reply leads to a position the certificate proves won.
    void lose(Position p) {
        const ProofKey k = game_.key(p);
        if (proven_.lost_contains(k)) return;
        for_each_reply(p, [&](const MoveChild& m) {
            line_.push_back(m.move);
            win(m.child);
            line_.pop_back();
        });
        if (proven_.mark_lost(k)) {
            ++lost_;
            ++lost_by_pieces_[static_cast<std::size_t>(std::popcount(p.occ))];
            tick();
        }
    }

    const Certificate& c_;
    const ProofGame& game_;
    Proven& proven_;
    const CheckProgress* progress_;
    std::vector<std::uint8_t> inverse_;  ///< [symmetry][image square] -> square
    std::vector<Move> line_;
    std::size_t root_ = 0;
    std::uint64_t won_ = 0, lost_ = 0;
    std::vector<std::uint64_t> won_by_pieces_ = std::vector<std::uint64_t>(kMaxSquares + 1, 0);
    std::vector<std::uint64_t> lost_by_pieces_ = std::vector<std::uint64_t>(kMaxSquares + 1, 0);
};

}  // namespace

CertificateCheck check_certificate(const Certificate& c, const CheckProgress& progress,
                                   int threads) {
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
    const ProofGame game(c.board, c.opening, c.jumps_only);
    Proven proven(c.entries.size());
    std::vector<std::unique_ptr<Checker>> walks;
    walks.push_back(std::make_unique<Checker>(c, game, proven, &progress));
    const auto claim = [&](std::size_t i) {
        return c.roots[i].winner == c.roots[i].position.to_move;
    };
    if (threads > 1 && !c.roots.empty()) {
        // The proof tree's top levels, expanded here until there are a few dozen subtrees a
        // thread, are proven by the threads in any order; the walk from each root below then
        // finds them proven. A failure anywhere stops the threads, and the walk from the roots
        // finds it again, so that the message names the root and the line from it as one
        // thread's walk does.
        std::vector<std::pair<Position, bool>> frontier;
        std::vector<std::size_t> root_of;
        for (std::size_t i = 0; i < c.roots.size(); ++i) {
            frontier.emplace_back(c.roots[i].position, claim(i));
            root_of.push_back(i);
        }
        const std::size_t want = static_cast<std::size_t>(threads) * 32;
        bool failed = false;
        for (int level = 0; level < 12 && frontier.size() < want && !failed; ++level) {
            std::vector<std::pair<Position, bool>> next;
            std::vector<std::size_t> next_root;
            try {
                for (std::size_t j = 0; j < frontier.size(); ++j) {
                    for (const auto& child :
                         walks[0]->below(frontier[j].first, frontier[j].second)) {
                        next.push_back(child);
                        next_root.push_back(root_of[j]);
                    }
                }
            } catch (const CertificateError&) {
                failed = true;  // found again by the walk from the roots
                break;
            }
            if (next.empty()) break;
            frontier.swap(next);
            root_of.swap(next_root);
        }
        if (!failed) {
            for (int t = 1; t < threads; ++t)
                walks.push_back(std::make_unique<Checker>(c, game, proven, nullptr));
            std::atomic<std::size_t> take{0};
            auto work = [&](Checker& w) {
                try {
                    for (std::size_t j; (j = take.fetch_add(1)) < frontier.size();)
                        w.prove(root_of[j], frontier[j].first, frontier[j].second);
                } catch (...) {
                    proven.failed.store(true);
                }
            };
            std::vector<std::thread> pool;
            for (int t = 1; t < threads; ++t)
                pool.emplace_back(work, std::ref(*walks[static_cast<std::size_t>(t)]));
            work(*walks[0]);
            for (auto& th : pool)
                th.join();
            proven.failed.store(false);
        }
    }
    for (std::size_t i = 0; i < c.roots.size(); ++i) {
        walks[0]->prove(i, c.roots[i].position, claim(i));
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
    out.won_by_pieces.assign(kMaxSquares + 1, 0);
    out.lost_by_pieces.assign(kMaxSquares + 1, 0);
    for (const auto& w : walks) {
        out.won += w->won();
        out.lost += w->lost();
        for (std::size_t n = 0; n < out.won_by_pieces.size(); ++n) {
            out.won_by_pieces[n] += w->won_by_pieces()[n];
            out.lost_by_pieces[n] += w->lost_by_pieces()[n];
        }
    }
    out.unused = c.entries.size() - out.won;
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
}

}  // namespace konane
