// The engine: the move to play in any position on a board of up to 64 squares, perfect wherever
// something proves it (a table of the board, the proof search within a share of the time, the
// combinatorial game value of a position split into regions), the strongest the heuristic search
// finds elsewhere. docs/engine.md says how each source is chosen and what each feature measured.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/board.hpp"
#include "core/movegen.hpp"
#include "engine/evaluation.hpp"
#include "engine/search.hpp"
#include "probe/probe.hpp"

namespace konane {
class ProofSearch;
}

namespace konane::engine {

/// What decided a move.
enum class Source : std::uint8_t {
    Table,   ///< the table of the board: the perfect move
    Proof,   ///< the proof search proved the position won: a winning move
    Value,   ///< the position's CGT value (the sum of its regions') is a win: a winning move
    Search,  ///< the heuristic search (the position unproven, or proven lost)
    Only,    ///< the only legal move
};

/// "table", "proof", "value", "search" or "only move".
const char* source_name(Source s);

/// The memory a thread of the engine takes of its own beside the tables, on the largest board:
/// its heuristic search's state (history, killers, move lists), its proof search's (history,
/// per-ply frames) and an allowance for its stack and allocator arena. Every thread past the
/// first takes it out of EngineOptions::memory_bytes.
std::size_t engine_thread_bytes();

/// The threads an engine with `memory_bytes` of memory runs when asked for `threads`: as many
/// as asked while those past the first take at most half the memory of their own
/// (engine_thread_bytes() each), and at least one.
int threads_within(std::size_t memory_bytes, int threads);

/// Options of an Engine.
struct EngineOptions {
    Ruleset rules = Ruleset::Brainking;
    /// The baseline player (`konane engine --baseline`): alpha-beta to depth 4 on the mobility
    /// difference, no transposition table, no move ordering, no table, no proof search.
    bool baseline = false;
    Evaluation evaluation{};
    SearchFeatures features{};
    /// Bytes of memory: first each thread's own state past the first thread's
    /// (engine_thread_bytes() each), then of the rest a quarter for the heuristic search's
    /// transposition table, an eighth for the valuer's memo (when `values`), the rest for the
    /// proof search's.
    std::size_t memory_bytes = std::size_t{256} << 20;
    /// Threads of the proof search and of the heuristic search (Lazy SMP: engine/search.hpp);
    /// the baseline runs on one. More than one: moves do not repeat exactly. The engine runs
    /// threads_within(memory_bytes, threads) of them: their own state stays within the memory.
    int threads = 1;
    /// Share of a move's budget (time or nodes) given to the proof search first (0: no proof
    /// search).
    double proof_share = 0.5;
    /// The CGT value as a source (cgt/konane.hpp): a position the proof search leaves
    /// undecided that splits into two or more independent regions is valued as the sum of its
    /// regions' values, within what is left of the proof's share of the budget, and a win is
    /// played by a move whose value keeps it won. The valuer keeps its memo between moves.
    bool values = true;
    /// Fewest proof-search nodes a move gets under a depth limit (which gives no budget to
    /// share): reproducible play with --depth still proves what is in reach.
    std::uint64_t proof_nodes_at_depth = 200'000;
    /// A table of the board (optional): its positions are played perfectly.
    std::optional<Tablebase> table;
};

/// The budget of one move: any of the three (none: depth 64, as far as the position goes).
struct MoveLimits {
    double seconds = 0;       ///< wall-clock seconds (not reproducible)
    std::uint64_t nodes = 0;  ///< nodes of the proof and heuristic searches together
    int depth = 0;            ///< the heuristic search's deepest iteration
    const std::atomic<bool>* stop = nullptr;  ///< stop soon after *stop becomes true
};

/// The engine's decision in a position.
struct Decision {
    MoveChild move;
    Source source = Source::Search;
    /// For Table, Proof and Value: the position's proven value (true: the side to move wins). A
    /// proven loss (Search with proven_win == false) is played by the search to resist.
    std::optional<bool> proven_win;
    /// Table: the depth to end (plies) of the position. Search: the deepest iteration.
    int depth = 0;
    /// Search: the score for the side to move (hundredths of a move; +-(kWinScore - n) for a
    /// win or loss in n plies the search proved).
    int score = 0;
    std::vector<Move> pv;     ///< the expected line from this position, the move first
    std::uint64_t nodes = 0;  ///< nodes of both searches
    std::uint64_t proof_nodes = 0;
    /// Value: the position's value in CGSuite's notation (Black as Left) and its regions.
    std::string value;
    int regions = 0;
    double seconds = 0;  ///< wall time of the decision

    /// "table (win in 11)", "proof (win)", "value (win: 1/2, 3 regions)", "search depth 9,
    /// score 300", ...
    std::string describe() const;
};

/// The memory worth giving an engine made for one move under `limits` (a one-shot `bestmove`):
/// `memory_bytes`, or, when the move is bounded by time alone, what its searches can store in
/// that time: 128 MiB per second and thread (the searches store at most one 16-byte entry a
/// node at about 4 M nodes a second a thread, so half the table stays free), at least 16 MiB.
/// A table larger than the move can fill costs its making and nothing else: the kernel zeroes
/// a page of a randomly probed table within the first few thousand stores, at about 1 GiB a
/// second (a 0.05 s move given 3 GiB took 2.0 s).
std::size_t one_move_memory(std::size_t memory_bytes, const MoveLimits& limits, int threads);

/// The engine on one board: keeps its searches' tables between moves (what one move proves
/// speeds up the next, and a proven win stays proven). Not thread-safe: one Engine per thread.
class Engine {
  public:
    /// An engine for board b. The table, when given, must be of board b (std::invalid_argument
    /// naming both sizes). @throws std::bad_alloc when the memory cannot be had.
    Engine(const Board& b, EngineOptions options);
    ~Engine();
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    const Board& board() const { return board_; }
    const EngineOptions& options() const { return options_; }

    /// The move to play in p within `limits`; nullopt when p has no legal move (the side to move
    /// has lost). `progress` receives the heuristic search's completed iterations.
    std::optional<Decision> decide(Position p, const MoveLimits& limits,
                                   const std::function<void(const SearchInfo&)>& progress = {});

    /// The proven value of p for its side to move (true: it wins) from the table or the proof
    /// search within `limits` (its nodes or seconds; neither: proof_nodes_at_depth nodes);
    /// nullopt when undecided, when p has no table value and the proof search is off.
    std::optional<bool> prove(Position p, const MoveLimits& limits);

    /// The heuristic search's judgement of p within `limits` (no table, no proof): its score
    /// for the side to move, best move and line.
    SearchResult judge(Position p, const MoveLimits& limits);

    /// Forgets what the searches learnt (a new game).
    void clear();
    /// Makes the searches' tables now, untimed (every page faulted in): the GTP session calls
    /// it at start-up and on boardsize, so that the first move's budget is the search's. An
    /// engine that is never prepared makes the pages as its searches touch them.
    void prepare();

  private:
    /// The value source: true, with d's move, source, value and regions filled, when p is of
    /// the jump stage, splits into two or more regions and its value, computed within
    /// `max_positions` new positions of the memo (0: the memo's limit alone), before `deadline`
    /// and `stop`, is a win for the side to move; false otherwise, with d.proven_win = false
    /// when the value is a loss.
    bool decide_by_value(Position p, Decision& d, std::uint64_t max_positions,
                         std::optional<std::chrono::steady_clock::time_point> deadline,
                         const std::atomic<bool>* stop);

    Board board_;
    EngineOptions options_;
    AlphaBeta search_;
    std::unique_ptr<ProofSearch> proof_;
    struct Values;
    std::unique_ptr<Values> values_;            ///< the valuer and its memo, made on first use
    std::optional<Position> proven_won_after_;  ///< the position our last proven win led to
    bool won_by_value_ = false;                 ///< that win was proven by the value
};

}  // namespace konane::engine
