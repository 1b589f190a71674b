#include "search/proof_certificate.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/notation.hpp"

namespace konane {

CertificateBuilder::CertificateBuilder(ProofSearch& s)
    : search_(s), game_(s.board(), Opening(s.options().rules), s.options().jumps_only) {}

void CertificateBuilder::add_root(Position p, Color winner) {
    const std::uint64_t limit = search_.options().max_nodes;
    search_.set_max_nodes(0);
    try {
        if (wins(p) != (winner == p.to_move)) {
            throw std::runtime_error("certificate: the search does not confirm that " +
                                     std::string(color_name(winner)) + " wins " +
                                     format_position(search_.board(), p));
        }
        if (winner == p.to_move) {
            win(p);
        } else {
            lose(p);
        }
    } catch (...) {
        search_.set_max_nodes(limit);
        throw;
    }
    search_.set_max_nodes(limit);
    roots_.push_back({p, winner});
}

bool CertificateBuilder::wins(Position p) {
    if (const auto v = search_.proven(p)) return *v;
    const ProofResult r = search_.solve(p);
    ++stats_.searched;
    stats_.nodes += r.nodes;
    if (!r.win) throw std::runtime_error("certificate: a search stopped undecided");
    return *r.win;
}

void CertificateBuilder::tick() {
    if ((stats_.won + stats_.lost) % 100000 != 0) return;
    stats_.bytes = won_.bytes() + lost_.bytes();
    stats_.peak_bytes = std::max(stats_.peak_bytes, stats_.bytes);
    if (progress_) progress_(stats_);
}

void CertificateBuilder::win(Position p) {
    const ProofKey k = game_.key(p);
    if (won_.contains(k)) return;
    const std::vector<MoveChild> moves = game_.moves(k);
    if (moves.size() > 255) throw std::logic_error("certificate: more than 255 moves");
    int choice = -1;
    // 1. A move into a position already proven lost: a transposition, nothing to add.
    for (std::size_t i = 0; i < moves.size() && choice < 0; ++i)
        if (lost_.contains(game_.key(moves[i].child))) choice = static_cast<int>(i);
    if (choice >= 0) ++stats_.transpositions;
    // 2. Among moves the transposition table knows to win, the one leaving fewest replies.
    if (choice < 0) {
        int best = 1 << 30;
        for (std::size_t i = 0; i < moves.size(); ++i) {
            const auto v = search_.proven(moves[i].child);
            if (v && !*v) {
                const int replies = count_jumps(search_.board(), moves[i].child);
                if (replies < best) {
                    best = replies;
                    choice = static_cast<int>(i);
                }
            }
        }
    }
    // 3. Search again, fewest replies first (the table replaced what proved this position).
    if (choice < 0) {
        std::vector<int> order(moves.size());
        for (std::size_t i = 0; i < moves.size(); ++i)
            order[i] = static_cast<int>(i);
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
            return count_jumps(search_.board(), moves[static_cast<std::size_t>(a)].child) <
                   count_jumps(search_.board(), moves[static_cast<std::size_t>(b)].child);
        });
        for (int i : order) {
            if (!wins(moves[static_cast<std::size_t>(i)].child)) {
                choice = i;
                break;
            }
        }
    }
    if (choice < 0) {
        throw std::runtime_error("certificate: no winning move found in " +
                                 format_position(search_.board(), k.position()) +
                                 ", which the search had proven won");
    }
    won_.insert(k, static_cast<std::uint8_t>(choice));
    ++stats_.won;
    tick();
    lose(moves[static_cast<std::size_t>(choice)].child);
}

void CertificateBuilder::lose(Position p) {
    const ProofKey k = game_.key(p);
    if (lost_.contains(k)) return;
    lost_.insert(k, 0);
    ++stats_.lost;
    tick();
    const std::vector<MoveChild> replies =
        game_.in_opening(p) ? legal_moves(search_.board(), search_.options().rules, p)
                            : game_.moves(k);
    for (const MoveChild& m : replies) {
        if (!wins(m.child)) {
            throw std::runtime_error("certificate: " + format_position(search_.board(), m.child) +
                                     " should be won for the side to move, the search says lost");
        }
        win(m.child);
    }
}

Certificate CertificateBuilder::finish(CertificateKind kind, const Opening& opening,
                                       std::string generator) {
    Certificate c;
    c.board = search_.board();
    c.opening = opening.gap ? opening : Opening(search_.options().rules);
    c.jumps_only = search_.options().jumps_only;
    c.kind = kind;
    c.roots = roots_;
    c.generator = std::move(generator);
    stats_.bytes = won_.bytes() + lost_.bytes();
    stats_.peak_bytes = std::max(stats_.peak_bytes, stats_.bytes);
    lost_.clear();
    c.entries = won_.take();
    return c;
}

}  // namespace konane
