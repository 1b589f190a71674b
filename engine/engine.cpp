#include "engine/engine.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <stdexcept>

#include "cgt/konane.hpp"
#include "search/proof.hpp"

namespace konane::engine {

namespace {

/// The baseline's fixed depth (the control player of course tournaments).
constexpr int kBaselineDepth = 4;

/// Moves of the perfect line reported with a table's move.
constexpr int kTableLine = 64;

/// Proof-search nodes one new position of the valuer is counted as, in a budget of nodes (a
/// position costs about that much time: docs/engine.md "The value").
constexpr std::uint64_t kValuePositionNodes = 32;

/// Characters of a value kept in a decision (a hot game's canonical form can run to pages).
constexpr std::size_t kValueText = 120;

double since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

const char* source_name(Source s) {
    switch (s) {
        case Source::Table:
            return "table";
        case Source::Proof:
            return "proof";
        case Source::Value:
            return "value";
        case Source::Search:
            return "search";
        case Source::Only:
            return "only move";
    }
    return "?";
}

std::string Decision::describe() const {
    switch (source) {
        case Source::Table:
            return std::string("table (") + (proven_win.value_or(false) ? "win" : "loss") + " in " +
                   std::to_string(depth) + ")";
        case Source::Proof:
            return "proof (win)";
        case Source::Value:
            return "value (win: " + value + ", " + std::to_string(regions) + " regions)";
        case Source::Only:
            return "only move";
        case Source::Search:
            break;
    }
    std::string s = "search depth " + std::to_string(depth) + ", ";
    if (std::abs(score) > kWinBound) {
        s += std::string(score > 0 ? "win" : "loss") + " in " +
             std::to_string(kWinScore - std::abs(score));
    } else {
        s += "score " + std::to_string(score);
    }
    if (proven_win && !*proven_win) s += " (proven loss)";
    return s;
}

namespace {

/// A thread's stack and allocator arena as the engine's searches use them (measured: a few
/// hundred KiB resident per thread at the deepest searches).
constexpr std::size_t kThreadStackBytes = std::size_t{512} << 10;

/// `o` with its threads within its memory (threads_within()) and the memory of their own
/// state taken out of what the tables get.
EngineOptions within_memory(EngineOptions o) {
    if (o.baseline) return o;  // one thread
    o.threads = threads_within(o.memory_bytes, std::max(1, o.threads));
    o.memory_bytes -= static_cast<std::size_t>(o.threads - 1) * engine_thread_bytes();
    return o;
}

}  // namespace

std::size_t engine_thread_bytes() {
    return AlphaBeta::thread_state_bytes() + ProofSearch::helper_bytes(kMaxSquares) +
           kThreadStackBytes;
}

int threads_within(std::size_t memory_bytes, int threads) {
    const std::size_t helpers = memory_bytes / 2 / engine_thread_bytes();
    return 1 + static_cast<int>(std::min<std::size_t>(
                   helpers, static_cast<std::size_t>(std::max(threads, 1) - 1)));
}

Engine::Engine(const Board& b, EngineOptions options)
    : board_(b),
      options_(within_memory(std::move(options))),
      search_(b, options_.rules, options_.baseline ? kMobilityOnly : options_.evaluation,
              options_.baseline ? kPlainAlphaBeta : options_.features,
              options_.baseline ? 0 : options_.memory_bytes / 4,
              options_.baseline ? 1 : std::max(1, options_.threads)) {
    if (options_.table &&
        (options_.table->board().rows != b.rows || options_.table->board().cols != b.cols)) {
        throw std::invalid_argument("the table is of " + options_.table->board().name() +
                                    ", not of the engine's board " + b.name());
    }
    if (!options_.baseline && options_.proof_share > 0) {
        ProofOptions po;
        po.rules = options_.rules;
        // A quarter to the heuristic search, an eighth to the valuer, the rest here.
        const std::size_t others =
            options_.memory_bytes / 4 + (options_.values ? options_.memory_bytes / 8 : 0);
        po.memory_bytes =
            std::max<std::size_t>(options_.memory_bytes - others, std::size_t{1} << 20);
        po.threads = std::max(1, options_.threads);
        proof_ = std::make_unique<ProofSearch>(b, po, options_.table);
    }
}

/// The valuer (cgt/konane.hpp) and its store, kept between moves.
struct Engine::Values {
    cgt::GameStore store;
    cgt::Valuer valuer;
    std::uint64_t limit = 0;  ///< new positions allowed in the current call (0: no limit)
    std::size_t start = 0;    ///< positions() when the current call began
    std::optional<std::chrono::steady_clock::time_point> deadline;
    const std::atomic<bool>* stop = nullptr;

    Values(const Board& b, std::size_t max_positions) : valuer(b, store, options(max_positions)) {}

    cgt::ValueOptions options(std::size_t max_positions) {
        cgt::ValueOptions o;
        o.max_positions = max_positions;
        o.max_games = std::max<std::size_t>(4 * max_positions, 1024);
        o.should_stop = [this]() -> std::string {
            if (limit && valuer.positions() - start >= limit) return "budget";
            if (stop && stop->load(std::memory_order_relaxed)) return "stopped";
            if (deadline && std::chrono::steady_clock::now() >= *deadline) return "time";
            return "";
        };
        return o;
    }
};

Engine::~Engine() = default;

std::size_t one_move_memory(std::size_t memory_bytes, const MoveLimits& limits, int threads) {
    if (limits.seconds <= 0 || limits.nodes != 0 || limits.depth != 0) return memory_bytes;
    constexpr double kPerSecond = 128.0 * (1 << 20);
    constexpr std::size_t kLeast = std::size_t{16} << 20;
    const double fill = limits.seconds * std::max(1, threads) * kPerSecond;
    if (fill >= static_cast<double>(memory_bytes)) return memory_bytes;
    return std::min(memory_bytes, std::max(kLeast, static_cast<std::size_t>(fill)));
}

void Engine::prepare() {
    search_.fault_in();
    if (proof_) proof_->fault_in();
}

void Engine::clear() {
    search_.clear();
    if (proof_) proof_->clear();
    values_.reset();
    proven_won_after_.reset();
    won_by_value_ = false;
}

bool Engine::decide_by_value(Position p, Decision& d, std::uint64_t max_positions,
                             std::optional<std::chrono::steady_clock::time_point> deadline,
                             const std::atomic<bool>* stop) {
    if (stage_of(board_, options_.rules, p) != Stage::Play) return false;
    // One region is left to the proof search, which is as fast on it as the valuer. The test
    // by reach sets alone costs microseconds; the exact reach sets the valuer splits by (which
    // may find more regions) cost milliseconds on 8x8, and made the engine 8% slower there
    // without ever finding a split the cheap test missed (docs/engine.md "The value").
    if (cgt::regions(board_, p.occ).size() < 2) return false;
    if (!values_) {
        const std::size_t memo =
            std::max<std::size_t>(options_.memory_bytes / 8 / cgt::kValueBytesPerPosition, 1024);
        values_ = std::make_unique<Values>(board_, memo);
    }
    Values& v = *values_;
    const std::vector<std::uint64_t> parts = v.valuer.regions_of(p.occ);
    v.limit = max_positions;
    v.start = v.valuer.positions();
    v.deadline = deadline;
    v.stop = stop;
    // Black is Left: Black to move wins a game of class L or N, and after its move, with White
    // to move, one of class L or P (White the same with R).
    const bool black = p.to_move == Color::Black;
    const auto wins_first = [&](cgt::OutcomeClass o) {
        return o == cgt::OutcomeClass::N ||
               o == (black ? cgt::OutcomeClass::L : cgt::OutcomeClass::R);
    };
    const auto wins_second = [&](cgt::OutcomeClass o) {
        return o == cgt::OutcomeClass::P ||
               o == (black ? cgt::OutcomeClass::L : cgt::OutcomeClass::R);
    };
    bool won = false, full = false;
    try {
        const cgt::GameId g = v.valuer.value(p.occ);
        if (!wins_first(v.store.outcome(g))) {
            d.proven_win = false;
        } else {
            // A child differs from p in one region: its value is mostly in the memo already.
            // A won game has a winning move, so the loop ends with one.
            for (const MoveChild& m : legal_moves(board_, options_.rules, p)) {
                if (!wins_second(v.store.outcome(v.valuer.value(m.child.occ)))) continue;
                d.move = m;
                d.source = Source::Value;
                d.proven_win = true;
                d.pv = {m.move};
                d.regions = static_cast<int>(parts.size());
                d.value = v.store.format(g);
                if (d.value.size() > kValueText) d.value = d.value.substr(0, kValueText) + "...";
                won = true;
                break;
            }
        }
    } catch (const cgt::ValueLimit&) {
        full = true;
    } catch (const cgt::ValueStopped&) {
    }
    d.nodes += (v.valuer.positions() - v.start) * kValuePositionNodes;
    if (full) values_.reset();  // the memo is full: start again with an empty one next move
    return won;
}

std::optional<bool> Engine::prove(Position p, const MoveLimits& limits) {
    if (options_.table && !options_.baseline) {
        if (const auto v = options_.table->value(p)) return v->win;
    }
    if (legal_moves(board_, options_.rules, p).empty()) return false;
    if (!proof_) return std::nullopt;
    proof_->set_max_nodes(limits.nodes         ? limits.nodes
                          : limits.seconds > 0 ? 0
                                               : options_.proof_nodes_at_depth);
    proof_->set_max_seconds(limits.seconds);
    proof_->set_stop(limits.stop);
    return proof_->solve(p).win;
}

SearchResult Engine::judge(Position p, const MoveLimits& limits) {
    SearchLimits sl;
    sl.depth = limits.depth;
    sl.nodes = limits.nodes;
    sl.seconds = limits.seconds;
    sl.stop = limits.stop;
    return search_.search(p, sl);
}

std::optional<Decision> Engine::decide(Position p, const MoveLimits& limits,
                                       const std::function<void(const SearchInfo&)>& progress) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<MoveChild> moves = legal_moves(board_, options_.rules, p);
    if (moves.empty()) return std::nullopt;
    Decision d;

    // 1. The table: the perfect move.
    if (options_.table && !options_.baseline) {
        if (const auto v = options_.table->value(p)) {
            const auto best = options_.table->best_move(p);
            d.move = MoveChild{best->move, best->child};
            d.source = Source::Table;
            d.proven_win = v->win;
            d.depth = v->depth;
            for (const MoveValue& m : options_.table->perfect_line(p)) {
                if (static_cast<int>(d.pv.size()) >= kTableLine) break;
                d.pv.push_back(m.move);
            }
            d.seconds = since(t0);
            return d;
        }
    }
    if (moves.size() == 1) {
        d.move = moves[0];
        d.source = Source::Only;
        d.pv = {moves[0].move};
        d.seconds = since(t0);
        return d;
    }

    // A position our last proven win led to (the opponent has replied since) is won: it gets
    // the whole budget, first from the source that proved the win.
    bool kept_win = false;
    if (proven_won_after_) {
        for (const MoveChild& r : legal_moves(board_, options_.rules, *proven_won_after_))
            kept_win = kept_win || r.child == p;
    }
    const bool use_values = options_.values && !options_.baseline;
    const auto value_budget = [&](double share) -> std::uint64_t {
        if (limits.nodes) {
            const std::uint64_t left = limits.nodes > d.nodes ? limits.nodes - d.nodes : 0;
            return std::max<std::uint64_t>(
                1, static_cast<std::uint64_t>(static_cast<double>(left) * share) /
                       kValuePositionNodes);
        }
        if (limits.seconds > 0) return 0;
        return options_.proof_nodes_at_depth / kValuePositionNodes;
    };
    const auto value_deadline =
        [&](double share) -> std::optional<std::chrono::steady_clock::time_point> {
        if (limits.seconds <= 0) return std::nullopt;
        const double left = std::max(limits.seconds - since(t0), 0.0);
        return std::chrono::steady_clock::now() +
               std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                   std::chrono::duration<double>(left * share));
    };
    const auto value_decided = [&] {
        d.seconds = since(t0);
        proven_won_after_ = d.move.child;
        won_by_value_ = true;
        return d;
    };
    if (kept_win && won_by_value_ && use_values &&
        decide_by_value(p, d, value_budget(1.0), value_deadline(1.0), limits.stop)) {
        return value_decided();
    }

    // 2. The proof search, within its share of the budget (the whole of it for a kept win).
    if (proof_) {
        const double share = kept_win ? 1.0 : options_.proof_share;
        std::uint64_t nodes = 0;
        double seconds = 0;
        if (limits.nodes)
            nodes = std::max<std::uint64_t>(
                1, static_cast<std::uint64_t>(static_cast<double>(limits.nodes) * share));
        if (limits.seconds > 0) seconds = limits.seconds * share;
        if (!limits.nodes && limits.seconds <= 0) nodes = options_.proof_nodes_at_depth;
        proof_->set_max_nodes(nodes);
        proof_->set_max_seconds(seconds);
        proof_->set_stop(limits.stop);
        const ProofResult r = proof_->solve(p);
        d.proof_nodes = r.nodes;
        d.nodes += r.nodes;
        if (r.win && *r.win && r.winning_move) {
            d.move = *r.winning_move;
            d.source = Source::Proof;
            d.proven_win = true;
            d.pv = {d.move.move};
            d.seconds = since(t0);
            proven_won_after_ = d.move.child;
            won_by_value_ = false;
            return d;
        }
        if (r.win) d.proven_win = false;
    }

    // 3. The value, for a position the proof search left undecided, within half of what is
    // left.
    if (use_values && !d.proven_win && !(kept_win && won_by_value_) &&
        decide_by_value(p, d, value_budget(0.5), value_deadline(0.5), limits.stop)) {
        return value_decided();
    }
    proven_won_after_.reset();
    won_by_value_ = false;

    // 4. The heuristic search with what is left.
    SearchLimits sl;
    sl.stop = limits.stop;
    if (options_.baseline) {
        sl.depth = kBaselineDepth;
    } else {
        sl.depth = limits.depth;
        if (limits.nodes) sl.nodes = limits.nodes > d.nodes ? limits.nodes - d.nodes : 1;
        if (limits.seconds > 0) sl.seconds = std::max(limits.seconds - since(t0), 0.001);
    }
    const SearchResult r = search_.search(p, sl, progress);
    d.move = r.best;
    d.source = Source::Search;
    d.depth = r.info.depth;
    d.score = r.info.score;
    d.pv = r.info.pv;
    if (d.pv.empty()) d.pv = {d.move.move};
    d.nodes += r.info.nodes;
    d.seconds = since(t0);
    return d;
}

}  // namespace konane::engine
