#include "engine/engine.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <stdexcept>

#include "search/proof.hpp"

namespace konane::engine {

namespace {

/// The baseline's fixed depth (the control player of course tournaments).
constexpr int kBaselineDepth = 4;

/// Moves of the perfect line reported with a table's move.
constexpr int kTableLine = 64;

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

Engine::Engine(const Board& b, EngineOptions options)
    : board_(b),
      options_(std::move(options)),
      search_(b, options_.rules, options_.baseline ? kMobilityOnly : options_.evaluation,
              options_.baseline ? kPlainAlphaBeta : options_.features,
              options_.baseline ? 0 : options_.memory_bytes / 4) {
    if (options_.table &&
        (options_.table->board().rows != b.rows || options_.table->board().cols != b.cols)) {
        throw std::invalid_argument("the table is of " + options_.table->board().name() +
                                    ", not of the engine's board " + b.name());
    }
    if (!options_.baseline && options_.proof_share > 0) {
        ProofOptions po;
        po.rules = options_.rules;
        po.memory_bytes = std::max<std::size_t>(options_.memory_bytes - options_.memory_bytes / 4,
                                                std::size_t{1} << 20);
        po.threads = std::max(1, options_.threads);
        proof_ = std::make_unique<ProofSearch>(b, po, options_.table);
    }
}

Engine::~Engine() = default;

void Engine::clear() {
    search_.clear();
    if (proof_) proof_->clear();
    proven_won_after_.reset();
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

    // 2. The proof search, within its share of the budget. A position our last proven win
    // led to (the opponent has replied since) gets the whole budget: a won game is kept won.
    if (proof_) {
        bool kept_win = false;
        if (proven_won_after_) {
            for (const MoveChild& r : legal_moves(board_, options_.rules, *proven_won_after_))
                kept_win = kept_win || r.child == p;
        }
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
        d.nodes = r.nodes;
        if (r.win && *r.win && r.winning_move) {
            d.move = *r.winning_move;
            d.source = Source::Proof;
            d.proven_win = true;
            d.pv = {d.move.move};
            d.seconds = since(t0);
            proven_won_after_ = d.move.child;
            return d;
        }
        if (r.win) d.proven_win = false;
    }
    proven_won_after_.reset();

    // 3. The heuristic search with what is left.
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
