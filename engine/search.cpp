#include "engine/search.hpp"

#include <algorithm>
#include <bit>
#include <exception>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>

#include "core/rules_generic.hpp"

namespace konane::engine {

namespace {

constexpr int kInfinity = kWinScore + 1;
constexpr int kMaxPly = 130;  // a game of 64 squares has at most 64 plies, removals included
constexpr int kDefaultDepth = 100;
enum Bound : std::uint8_t { kExact = 1, kLower = 2, kUpper = 3, kHasMove = 4 };

/// A search score as the transposition table keeps it: a win or loss counted from the node,
/// not from the root (so that it holds wherever the position recurs).
int to_table(int score, int ply) {
    if (score > kWinBound) return score + ply;
    if (score < -kWinBound) return score - ply;
    return score;
}
int from_table(int score, int ply) {
    if (score > kWinBound) return score - ply;
    if (score < -kWinBound) return score + ply;
    return score;
}

}  // namespace

SearchFeatures parse_features(std::string_view text) {
    SearchFeatures f{false, false, false, false, false};
    if (text == "none") return f;
    while (!text.empty()) {
        const std::size_t comma = text.find(',');
        const std::string_view name = text.substr(0, comma);
        text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
        bool* on = name == "tt"           ? &f.transposition_table
                   : name == "pvs"        ? &f.principal_variation
                   : name == "killers"    ? &f.killers
                   : name == "history"    ? &f.history
                   : name == "aspiration" ? &f.aspiration
                                          : nullptr;
        if (!on) {
            throw std::invalid_argument("unknown search feature '" + std::string(name) +
                                        "' (tt, pvs, killers, history, aspiration, or none)");
        }
        *on = true;
    }
    return f;
}

std::string features_text(const SearchFeatures& f) {
    std::string s;
    const auto add = [&](bool on, const char* name) {
        if (on) s += (s.empty() ? "" : ",") + std::string(name);
    };
    add(f.transposition_table, "tt");
    add(f.principal_variation, "pvs");
    add(f.killers, "killers");
    add(f.history, "history");
    add(f.aspiration, "aspiration");
    return s.empty() ? "none" : s;
}

AlphaBeta::AlphaBeta(const Board& b, Ruleset r, Evaluation eval, SearchFeatures features,
                     std::size_t table_bytes, int threads)
    : board_(b), rules_(r), eval_(eval), features_(features), table_(std::make_shared<Table>()) {
    if (threads < 1 || threads > 1024) {
        throw std::invalid_argument("threads: expected 1 to 1024, got " + std::to_string(threads));
    }
    if (features_.transposition_table) {
        std::size_t n = 1;
        while (n * 2 * sizeof(Slot) <= table_bytes)
            n *= 2;
        // Zeroed pages from the kernel, touched only where the search stores: making a table
        // of gigabytes costs nothing at the first move.
        table_->memory = process::ZeroedMemory(n * sizeof(Slot));
        table_->slots = static_cast<Slot*>(table_->memory.data());
        table_->size = n;
    }
    init_thread_state();
    for (int i = 1; i < threads; ++i)
        helpers_.push_back(std::unique_ptr<AlphaBeta>(new AlphaBeta(*this, i)));
}

AlphaBeta::AlphaBeta(const AlphaBeta& main, int helper)
    : board_(main.board_),
      rules_(main.rules_),
      eval_(main.eval_),
      features_(main.features_),
      table_(main.table_),
      helper_(helper) {
    init_thread_state();
}

AlphaBeta::~AlphaBeta() = default;

std::size_t AlphaBeta::thread_state_bytes() {
    // As init_thread_state() allocates them.
    constexpr std::size_t plies = kMaxPly + 1;
    return 2 * 64 * 64 * sizeof(std::uint32_t) + plies * sizeof(std::array<Move, 2>) +
           plies * (sizeof(std::vector<Gen>) + kMaxMoves * sizeof(Gen)) + sizeof(AlphaBeta);
}

void AlphaBeta::init_thread_state() {
    history_.assign(2 * 64 * 64, 0);
    killers_.assign(kMaxPly + 1, {});
    // Every ply's move list at its largest once, not grown in the search.
    move_stack_.assign(kMaxPly + 1, std::vector<Gen>(kMaxMoves));
    full_pieces_ = std::popcount(board_.all);
}

void AlphaBeta::fault_in() {
    table_->memory.fault_in();
}

void AlphaBeta::clear() {
    table_->memory.zero();
    std::fill(history_.begin(), history_.end(), 0);
    killers_.assign(kMaxPly + 1, {});
    for (auto& h : helpers_) {
        std::fill(h->history_.begin(), h->history_.end(), 0);
        h->killers_.assign(kMaxPly + 1, {});
    }
}

AlphaBeta::Slot* AlphaBeta::slot(std::uint64_t occ, Color side) const {
    std::uint64_t h =
        (occ ^ (static_cast<std::uint64_t>(side) * 0x5bd1e9955bd1e995ull)) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 31;
    return &table_->slots[h & (table_->size - 1)];
}

// The packed entry: bits 0-1 side + 1 (never 0, so that a stored entry is never all zeros),
// 2-9 depth, 10-12 bound, 13-20 from, 21-28 to, 29-44 score (two's complement).
bool AlphaBeta::probe(const Slot* s, std::uint64_t occ, Color side, Entry& e) {
    const std::uint64_t d = std::atomic_ref(s->data).load(std::memory_order_relaxed);
    const std::uint64_t c = std::atomic_ref(s->check).load(std::memory_order_relaxed);
    if (d == 0 || (c ^ d) != occ || (d & 3) != static_cast<std::uint64_t>(side) + 1) return false;
    e.occ = occ;
    e.side = static_cast<std::uint8_t>(d & 3);
    e.depth = static_cast<std::uint8_t>(d >> 2);
    e.bound = static_cast<std::uint8_t>((d >> 10) & 7);
    e.from = static_cast<std::uint8_t>(d >> 13);
    e.to = static_cast<std::uint8_t>(d >> 21);
    e.score = static_cast<std::int16_t>(static_cast<std::uint16_t>(d >> 29));
    return true;
}

void AlphaBeta::store(Slot* s, const Entry& e) {
    const std::uint64_t d = std::uint64_t{e.side} | std::uint64_t{e.depth} << 2 |
                            std::uint64_t{e.bound} << 10 | std::uint64_t{e.from} << 13 |
                            std::uint64_t{e.to} << 21 |
                            std::uint64_t{static_cast<std::uint16_t>(e.score)} << 29;
    std::atomic_ref(s->data).store(d, std::memory_order_relaxed);
    std::atomic_ref(s->check).store(e.occ ^ d, std::memory_order_relaxed);
}

int AlphaBeta::generate(std::uint64_t occ, Color side, Gen* out) const {
    int n = 0;
    if (std::popcount(occ) >= full_pieces_ - 1) {
        // The full and one-hole boards: the opening removals, by the one rule of legal_moves().
        for (const MoveChild& mc : legal_moves(board_, rules_, Position{occ, side}))
            out[n++] = Gen{mc.move, mc.child.occ, 0};
        return n;
    }
    rules::jumps(board_, occ, side, [&](int from, int land, std::uint64_t child) {
        out[n++] =
            Gen{Move{static_cast<std::uint8_t>(from), static_cast<std::uint8_t>(land)}, child, 0};
    });
    return n;
}

void AlphaBeta::check_limits() {
    next_check_ = nodes_ + 1024;
    if (limits_.nodes && nodes_ >= limits_.nodes) throw Stop{};
    if (limits_.stop && limits_.stop->load(std::memory_order_relaxed)) throw Stop{};
    if (limits_.seconds > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() >
            limits_.seconds)
        throw Stop{};
    if (limits_.nodes && next_check_ > limits_.nodes) next_check_ = limits_.nodes;
}

int AlphaBeta::negamax(std::uint64_t occ, Color side, int depth, int alpha, int beta, int ply,
                       bool pv) {
    if (++nodes_ >= next_check_) check_limits();
    if (depth <= 0 || ply >= kMaxPly) {
        // The opening removals are not evaluated (no side has a jump yet): searched on.
        if (std::popcount(occ) < full_pieces_ - 1 || ply >= kMaxPly)
            return evaluate(board_, occ, side, eval_, ply);
        depth = 1;
    }

    Move tt_move{};
    bool have_tt_move = false;
    Slot* sl = nullptr;
    if (table_->size) {
        sl = slot(occ, side);
        Entry e;
        if (probe(sl, occ, side, e)) {
            have_tt_move = (e.bound & kHasMove) != 0;
            tt_move = Move{e.from, e.to};
            const int s = from_table(e.score, ply);
            const int bound = e.bound & 3;
            if (!pv && e.depth >= depth &&
                (bound == kExact || (bound == kLower && s >= beta) ||
                 (bound == kUpper && s <= alpha)))
                return s;
        }
    }

    std::vector<Gen>& moves = move_stack_[static_cast<std::size_t>(ply)];
    const int n = generate(occ, side, moves.data());
    if (n == 0) return -(kWinScore - ply);

    const std::array<Move, 2>& killer = killers_[static_cast<std::size_t>(ply)];
    const std::size_t hs = static_cast<std::size_t>(side) * 4096;
    for (int i = 0; i < n; ++i) {
        Gen& g = moves[static_cast<std::size_t>(i)];
        if (have_tt_move && g.move == tt_move) {
            g.order = 1 << 30;
        } else if (features_.killers && g.move == killer[0] && !(killer[0] == Move{})) {
            g.order = 1 << 29;
        } else if (features_.killers && g.move == killer[1] && !(killer[1] == Move{})) {
            g.order = 1 << 28;
        } else if (features_.history) {
            g.order = static_cast<int>(
                std::min<std::uint32_t>(history_[hs + g.move.from * 64u + g.move.to], 1u << 27));
        } else {
            g.order = 0;
        }
    }
    std::stable_sort(moves.begin(), moves.begin() + n,
                     [](const Gen& a, const Gen& b) { return a.order > b.order; });

    const int alpha0 = alpha;
    int best = -kInfinity;
    Move best_move = moves[0].move;
    const Color next = other(side);
    for (int i = 0; i < n; ++i) {
        // Copied: the deeper plies reuse the move lists of their own ply only.
        const Gen g = moves[static_cast<std::size_t>(i)];
        int score;
        if (i == 0 || !features_.principal_variation) {
            score = -negamax(g.child, next, depth - 1, -beta, -alpha, ply + 1, pv);
        } else {
            score = -negamax(g.child, next, depth - 1, -alpha - 1, -alpha, ply + 1, false);
            if (score > alpha && score < beta)
                score = -negamax(g.child, next, depth - 1, -beta, -alpha, ply + 1, pv);
        }
        if (score > best) {
            best = score;
            best_move = g.move;
        }
        if (score > alpha) alpha = score;
        if (alpha >= beta) {
            if (features_.killers && !(killer[0] == g.move)) {
                auto& k = killers_[static_cast<std::size_t>(ply)];
                k[1] = k[0];
                k[0] = g.move;
            }
            if (features_.history) history_[hs + g.move.from * 64u + g.move.to] += depth * depth;
            break;
        }
    }
    if (sl) {
        Entry e;
        e.occ = occ;
        e.side = static_cast<std::uint8_t>(static_cast<int>(side) + 1);
        e.depth = static_cast<std::uint8_t>(std::min(depth, 255));
        e.bound = static_cast<std::uint8_t>((best <= alpha0 ? kUpper
                                             : best >= beta ? kLower
                                                            : kExact) |
                                            kHasMove);
        e.from = best_move.from;
        e.to = best_move.to;
        e.score = static_cast<std::int16_t>(to_table(best, ply));
        store(sl, e);
    }
    return best;
}

std::vector<Move> AlphaBeta::principal_variation(Position p, int max_len) {
    std::vector<Move> pv;
    std::vector<Gen> moves(kMaxMoves);
    while (static_cast<int>(pv.size()) < max_len && table_->size) {
        Entry e;
        if (!probe(slot(p.occ, p.to_move), p.occ, p.to_move, e) || !(e.bound & kHasMove)) break;
        const int n = generate(p.occ, p.to_move, moves.data());
        const auto it = std::find_if(moves.begin(), moves.begin() + n, [&](const Gen& g) {
            return g.move == Move{e.from, e.to};
        });
        if (it == moves.begin() + n) break;
        pv.push_back(it->move);
        p = Position{it->child, other(p.to_move)};
    }
    return pv;
}

SearchResult AlphaBeta::search(Position p, const SearchLimits& limits,
                               const std::function<void(const SearchInfo&)>& progress) {
    if (helpers_.empty()) return iterate(p, limits, progress);
    // Lazy SMP: the helpers search the same root until the main search ends; what they store
    // in the shared table cuts the main search's tree and orders its moves.
    std::atomic<bool> done{false};
    std::vector<std::exception_ptr> failures(helpers_.size());
    std::vector<std::thread> pool;
    pool.reserve(helpers_.size());
    const auto join = [&] {
        done = true;
        for (std::thread& t : pool)
            t.join();
    };
    SearchResult r;
    try {
        // Inside the try: a thread that cannot start leaves the started ones joined.
        for (std::size_t i = 0; i < helpers_.size(); ++i) {
            pool.emplace_back([&, i] {
                SearchLimits hl;
                hl.stop = &done;
                try {
                    helpers_[i]->iterate(p, hl, {});
                } catch (...) {
                    failures[i] = std::current_exception();
                }
            });
        }
        r = iterate(p, limits, progress);
    } catch (...) {
        join();
        throw;
    }
    join();
    for (const std::exception_ptr& f : failures)
        if (f) std::rethrow_exception(f);
    for (const auto& h : helpers_)
        r.info.nodes += h->nodes_;
    return r;
}

SearchResult AlphaBeta::iterate(Position p, const SearchLimits& limits,
                                const std::function<void(const SearchInfo&)>& progress) {
    limits_ = limits;
    nodes_ = 0;
    next_check_ = 1;
    start_ = std::chrono::steady_clock::now();
    SearchResult r;
    std::vector<Gen> root(kMaxMoves);
    const int n = generate(p.occ, p.to_move, root.data());
    root.resize(static_cast<std::size_t>(n));
    if (n == 0) return r;
    r.has_move = true;
    r.best = MoveChild{root[0].move, Position{root[0].child, other(p.to_move)}};
    const int max_depth = limits.depth > 0 ? std::min(limits.depth, kMaxPly - 1) : kDefaultDepth;
    const auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    };
    // A helper starts at another root move and every other one an iteration deeper, so that
    // the threads do not all search the same tree in the same order.
    if (helper_ > 0) {
        std::rotate(root.begin(),
                    root.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(helper_) %
                                                               root.size()),
                    root.end());
    }
    int prev_score = 0;
    for (int depth = 1 + (helper_ & 1); depth <= max_depth; ++depth) {
        // An iteration that cannot end within the time left is not begun (each iteration
        // takes a few times the one before).
        if (depth > 1 && limits.seconds > 0 && elapsed() > limits.seconds * 0.5) break;
        int alpha = -kInfinity, beta = kInfinity;
        if (features_.aspiration && depth > 2 && std::abs(prev_score) < kWinBound) {
            alpha = prev_score - 50;
            beta = prev_score + 50;
        }
        int best = -kInfinity;
        std::size_t best_index = 0;
        bool first_done = false;
        try {
            for (;;) {
                const int a0 = alpha;
                best = -kInfinity;
                for (std::size_t i = 0; i < root.size(); ++i) {
                    const Position c{root[i].child, other(p.to_move)};
                    int score;
                    if (i == 0 || !features_.principal_variation) {
                        score = -negamax(c.occ, c.to_move, depth - 1, -beta, -alpha, 1, true);
                    } else {
                        score = -negamax(c.occ, c.to_move, depth - 1, -alpha - 1, -alpha, 1, false);
                        if (score > alpha && score < beta)
                            score = -negamax(c.occ, c.to_move, depth - 1, -beta, -alpha, 1, true);
                    }
                    if (score > best) {
                        best = score;
                        best_index = i;
                    }
                    if (score > alpha) alpha = score;
                    if (i == 0) first_done = true;
                }
                // Outside the aspiration window: search again with the window open.
                if ((best <= a0 && a0 > -kInfinity) || (best >= beta && beta < kInfinity)) {
                    alpha = -kInfinity;
                    beta = kInfinity;
                    first_done = false;
                    continue;
                }
                break;
            }
        } catch (const Stop&) {
            // The first root move (the previous iteration's best) was searched in full: any
            // move found better since is better at this depth too.
            if (first_done && best_index != 0) {
                r.best = MoveChild{root[best_index].move,
                                   Position{root[best_index].child, other(p.to_move)}};
            }
            break;
        }
        prev_score = best;
        // The best move first for the next iteration, the rest in this one's order.
        std::rotate(root.begin(), root.begin() + static_cast<std::ptrdiff_t>(best_index),
                    root.begin() + static_cast<std::ptrdiff_t>(best_index) + 1);
        r.best = MoveChild{root[0].move, Position{root[0].child, other(p.to_move)}};
        r.info.depth = depth;
        r.info.score = best;
        r.info.pv = {root[0].move};
        for (const Move& m : principal_variation(r.best.child, depth - 1))
            r.info.pv.push_back(m);
        r.info.nodes = nodes_;
        r.info.seconds = elapsed();
        if (progress) progress(r.info);
        if (std::abs(best) > kWinBound) break;  // a win or loss the search proved
        if (n == 1 && depth >= 1 && limits.depth == 0 && limits.nodes == 0) break;
    }
    r.info.nodes = nodes_;
    r.info.seconds = elapsed();
    return r;
}

}  // namespace konane::engine
