// The engine's heuristic search: iterative-deepening alpha-beta (principal variation search)
// over the evaluation of engine/evaluation.hpp, for positions no table or proof decides, on
// boards of up to 64 squares. Rules: docs/rules.md (the opening removals through
// legal_moves(), jumps, the end). Features and their measured effect: docs/engine.md.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/board.hpp"
#include "core/movegen.hpp"
#include "engine/evaluation.hpp"
#include "process/huge_pages.hpp"

namespace konane::engine {

/// Which search features run (each can be switched off to measure it, docs/engine.md).
struct SearchFeatures {
    bool transposition_table = true;  ///< store bounds and best moves by position
    bool principal_variation = true;  ///< null-window search of every move after the first
    /// Two moves per ply that cut off before (Akl 1977); off by default: it won no games
    /// (docs/engine.md).
    bool killers = false;
    bool history = true;      ///< moves ordered by their past cut-offs (Schaeffer 1989)
    bool aspiration = false;  ///< windows around the previous iteration's score
};

/// The baseline's features: plain alpha-beta in generation order.
inline constexpr SearchFeatures kPlainAlphaBeta{false, false, false, false, false};

/// Parses a list of features to switch on, "tt,pvs,killers,history,aspiration" (any of them;
/// "none" for none): the others are off. @throws std::invalid_argument naming an unknown one.
SearchFeatures parse_features(std::string_view text);

/// The features as parse_features() reads them.
std::string features_text(const SearchFeatures& f);

/// Limits of one search. Every limit given applies; none given means depth 64.
struct SearchLimits {
    int depth = 0;            ///< deepest iteration (plies; 0: no limit)
    std::uint64_t nodes = 0;  ///< most nodes (0: no limit); reproducible
    double seconds = 0;       ///< wall-clock seconds (0: no limit); not reproducible
    /// When set, the search stops soon after *stop becomes true.
    const std::atomic<bool>* stop = nullptr;
};

/// What an iteration of the search found (also passed to the progress callback).
struct SearchInfo {
    int depth = 0;            ///< the deepest completed iteration (plies)
    int score = 0;            ///< its score for the side to move (hundredths of a move, or
                              ///< +-(kWinScore - n) for a win or loss in n plies)
    std::vector<Move> pv;     ///< its principal variation from the root
    std::uint64_t nodes = 0;  ///< nodes of the whole search so far
    double seconds = 0;       ///< wall time so far
};

/// The result of a search: the best move found and the last completed iteration.
struct SearchResult {
    bool has_move = false;  ///< false when the root has no legal move
    MoveChild best;         ///< the best move (valid when has_move)
    SearchInfo info;
};

/// Iterative-deepening alpha-beta over one board. Keeps its transposition table and history
/// between searches (clear() empties them). One search at a time: an AlphaBeta is not to be
/// used from two threads at once; with `threads` > 1 it runs its own helpers (Lazy SMP).
class AlphaBeta {
  public:
    /// A search of board b under ruleset r (the opening removals at the root and the next
    /// ply), with a transposition table of about `table_bytes` bytes (16 bytes an entry, a power
    /// of two entries; ignored without the feature), on `threads` threads: with more than one,
    /// helper threads search the same root at once (each its own history and move order, every
    /// other one an iteration deeper) and share the transposition table, which their results
    /// fill for the main thread (Lazy SMP). Node limits count the main thread's nodes; a search
    /// on several threads does not repeat exactly.
    AlphaBeta(const Board& b, Ruleset r, Evaluation eval = {}, SearchFeatures features = {},
              std::size_t table_bytes = std::size_t{32} << 20, int threads = 1);
    ~AlphaBeta();
    AlphaBeta(const AlphaBeta&) = delete;
    AlphaBeta& operator=(const AlphaBeta&) = delete;

    /// Searches p within `limits` and returns the best move of the deepest completed iteration
    /// (of the unfinished one when it already found a better first move). `progress` is called
    /// after each completed iteration. An iteration that proves a win or a loss ends the search.
    SearchResult search(Position p, const SearchLimits& limits,
                        const std::function<void(const SearchInfo&)>& progress = {});

    /// Empties the transposition table, killers and history.
    void clear();
    /// Faults the transposition table's pages in now (process::ZeroedMemory::fault_in()), so
    /// that a timed search does not pay for the kernel zeroing them; clear() then keeps them.
    void fault_in();

    const Board& board() const { return board_; }

    /// Threads the search runs on (1 and its helpers).
    int threads() const { return 1 + static_cast<int>(helpers_.size()); }

    /// The memory one thread's own state takes (its history, killers and move lists), beside
    /// the shared transposition table: what each helper thread adds to a search.
    static std::size_t thread_state_bytes();

  private:
    /// A transposition-table entry as read: the occupancy and side it is for, the depth, bound
    /// and best move of the search that stored it, and its score (from to_table()).
    struct Entry {
        std::uint64_t occ = 0;
        std::uint8_t side = 0, depth = 0, bound = 0, from = 0, to = 0;
        std::int16_t score = 0;
    };
    /// A slot of the shared table: the entry packed in `data` (side, depth, bound, from, to,
    /// score: 43 bits) and `check` = occ ^ data, both written and read without locks. A slot
    /// whose two words come from two different writes (threads storing at once) fails the check
    /// and reads as empty (the lockless hashing of Hyatt and Mann, ICCA J. 2002).
    struct Slot {
        // Read and written through std::atomic_ref (relaxed): plain words, so that a table of
        // zeroed pages from the kernel is a table of empty slots without a constructor run.
        std::uint64_t check, data;
    };
    struct Table {
        process::ZeroedMemory memory;  ///< the slots, zeroed by the kernel as they are touched
        Slot* slots = nullptr;         ///< in memory
        std::size_t size = 0;          ///< a power of two, 0 without the feature
    };
    struct Stop {};
    struct Gen {
        Move move;
        std::uint64_t child;
        int order;
    };

    /// A helper of `main` (helper number `helper`, from 1), sharing its table.
    AlphaBeta(const AlphaBeta& main, int helper);
    /// The history, killers and move lists of this thread.
    void init_thread_state();
    /// The iterative deepening of search() on this thread alone.
    SearchResult iterate(Position p, const SearchLimits& limits,
                         const std::function<void(const SearchInfo&)>& progress);
    int negamax(std::uint64_t occ, Color side, int depth, int alpha, int beta, int ply, bool pv);
    int generate(std::uint64_t occ, Color side, Gen* out) const;
    Slot* slot(std::uint64_t occ, Color side) const;
    /// Reads slot s into e; true when it holds (occ, side).
    static bool probe(const Slot* s, std::uint64_t occ, Color side, Entry& e);
    static void store(Slot* s, const Entry& e);
    void check_limits();
    std::vector<Move> principal_variation(Position p, int max_len);

    Board board_;
    Ruleset rules_;
    Evaluation eval_;
    SearchFeatures features_;
    std::shared_ptr<Table> table_;
    std::vector<std::unique_ptr<AlphaBeta>> helpers_;
    int helper_ = 0;                      ///< 0 for the main search, i for helper i
    std::vector<std::uint32_t> history_;  ///< [side][from][to]
    std::vector<std::array<Move, 2>> killers_;
    std::vector<std::vector<Gen>> move_stack_;
    int full_pieces_ = 0;
    SearchLimits limits_;
    std::uint64_t nodes_ = 0, next_check_ = 0;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace konane::engine
