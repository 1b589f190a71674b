// Proof search: win or loss (no depth) of any position on a board of up to 64 squares (1x64 ..
// 8x8 .. 64x1), for openings and positions no table holds. Boolean (null-window) alpha-beta over
// symmetry-reduced positions with a bounded transposition table, enhanced transposition cut-offs
// and mobility move ordering; optionally a table's stored values. Rules: docs/rules.md
// ("Jumps", "End"; README.md "Positions no opening produces"); the value is that of rules.md
// "Values" without the depth.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "core/board.hpp"
#include "core/movegen.hpp"
#include "core/symmetry.hpp"
#include "probe/probe.hpp"

namespace konane {

/// Which proof search ProofSearch runs.
enum class ProofAlgorithm : std::uint8_t {
    /// Boolean alpha-beta with enhanced transposition cut-offs (Plaat, Schaeffer, Pijls and de
    /// Bruin 1996: every child is looked up in the table before any is searched), immediate
    /// wins (a child where the opponent has no jump), and moves ordered by the opponent's
    /// replies (fewest first) with a history heuristic (Schaeffer 1989) breaking ties.
    Enhanced,
    /// The baseline: boolean alpha-beta with the same transposition table, moves in generation
    /// order, no other enhancement (for measuring the enhancements: `--plain`).
    Plain,
    /// Depth-first proof-number search (df-pn: Nagai 2002) with the 1+epsilon trick of
    /// Pawlewicz and Lew 2007 (epsilon = 1/4), leaves initialised from the two sides' jumps:
    /// proof number 1 + the other side's jumps, disproof number the mover's (Winands and Schadd
    /// 2011's evaluation-based initialisation over the engine's mobility), both times the
    /// leaf's pieces less 4 (deep df-pn, Zhang, Iida and van den Herik 2017), `--dfpn`. Half
    /// of the memory holds the proof and disproof numbers of unproven positions (16-byte
    /// entries, buckets of four, the entry with the smallest pn + dn replaced); proven values
    /// go to the transposition table shared with the other algorithms (so certificates are
    /// built the same way).
    DfPn,
};

/// Options of a ProofSearch.
struct ProofOptions {
    /// Opening ruleset: Black's removals on the full board and which one-hole boards are in the
    /// opening stage (core/board.hpp stage_of).
    Ruleset rules = Ruleset::Brainking;
    /// Every position in the jump stage, as in SearchOptions::jumps_only.
    bool jumps_only = false;
    /// Bytes of the transposition table (rounded down to a power of two buckets of 64 bytes;
    /// at least one bucket). The search's other memory is a few hundred KiB. With DfPn, the
    /// bytes of the proven values and of df-pn's proof and disproof numbers together.
    std::size_t memory_bytes = std::size_t{256} << 20;
    /// DfPn: bytes of the table of proof and disproof numbers (0: half of memory_bytes), the
    /// rest of memory_bytes going to the proven values; each rounded down as memory_bytes is.
    std::size_t dfpn_memory_bytes = 0;
    /// Most nodes one solve() may visit (0: no limit); past it, solve() answers "undecided".
    std::uint64_t max_nodes = 0;
    /// Most wall-clock seconds one solve() may take (0: no limit); past it (checked every few
    /// thousand nodes), solve() answers "undecided", as past max_nodes. Not reproducible: a
    /// verdict that must repeat takes max_nodes.
    double max_seconds = 0;
    /// When set, solve() answers "undecided" soon after *stop becomes true (checked with the
    /// time limit): a caller's way to stop a search from another thread or a signal handler.
    const std::atomic<bool>* stop = nullptr;
    ProofAlgorithm algorithm = ProofAlgorithm::Enhanced;
    /// With a table: look up only positions of at most this many pieces (0: every position).
    /// Measures what endgame tables of at most k pieces would save a search.
    int table_max_pieces = 0;
    /// Region values (Enhanced and DfPn; 0: off; df-pn tries them once per node, at its first
    /// expansion): a jump-stage position of at most
    /// region_max_total pieces (0: any) that splits into two or more independent regions
    /// (cgt/konane.hpp regions()), each of at most region_max_pieces pieces, is decided by the
    /// outcome class of the sum of the regions' combinatorial game values (cgt/, Black as Left,
    /// normal play: the side to move wins when the sum is its own or the first player's) instead
    /// of being searched. The values are memoised by region up to symmetry in a valuer of at
    /// most region_memory bytes per thread (emptied when full). The certificate builder walks
    /// such positions by their moves as any other, so certificates stay checkable by the rules
    /// alone (docs/beyond.md, "Region values").
    int region_max_pieces = 0;
    int region_max_total = 0;
    std::size_t region_memory = std::size_t{64} << 20;
    /// df-pn: every new leaf's proof and disproof numbers are multiplied by this (at least 1).
    /// Scaling them all alike leaves df-pn's choices nearly as they were; the tests drive the
    /// numbers past 2^31 with it (search/proof.cpp: 64-bit numbers, packed in the table).
    std::uint64_t dfpn_leaf_scale = 1;
    /// Threads of one solve() (at least 1). With more than one, helper threads search the same
    /// root beside the calling thread, sharing the transposition table of proven values (no
    /// locks: each entry checks itself, see ProofSearch), each starting from another root move;
    /// the first thread to decide the root ends the others. Helpers run the enhanced
    /// alpha-beta (with DfPn by default too: see parallel_dfpn). max_nodes then bounds the nodes of
    /// all threads together (each thread checks the team's count every 4,096 nodes, more often near
    /// the limit: a few nodes past it at most). Jump-stage roots only; an opening-stage root is
    /// searched by one thread.
    int threads = 1;
    /// DfPn with threads > 1: the helpers run df-pn too, from the root, on the calling thread's
    /// table of proof and disproof numbers, each thread steered away from the lines the others
    /// are searching by virtual proof and disproof numbers (Kaneko 2010, "Parallel depth first
    /// proof number search": a child with k other threads below it is chosen as if its numbers
    /// were k times its leaf weight larger), and a thread leaves a node another has proven.
    /// False (the default, as measured): the helpers run the enhanced alpha-beta beside df-pn,
    /// a portfolio sharing proven values. Every 6x7 opening on two threads (docs/beyond.md "Two
    /// threads on one transposition table"): 68.3 s with this against 56.6 s for the portfolio
    /// and 87.8 s for df-pn on one thread.
    bool parallel_dfpn = false;
};

/// What the progress callback sees.
struct ProofProgress {
    std::uint64_t nodes = 0;      ///< nodes of this solve() so far
    double seconds = 0;           ///< since this solve() began
    std::size_t table_bytes = 0;  ///< bytes of the transposition table
    std::uint64_t stored = 0;     ///< entries in use in the transposition table
    std::vector<Move> line;       ///< the moves from the root to the node being searched
    std::vector<int> line_index;  ///< per move of `line`: its 1-based place among the siblings
    std::vector<int> line_count;  ///< per move of `line`: how many siblings it has
};

/// The answer of one solve().
struct ProofResult {
    /// True: the side to move wins; false: it loses; nullopt: not decided within max_nodes.
    std::optional<bool> win;
    /// A winning move when win is true (none on an undecided or lost position).
    std::optional<MoveChild> winning_move;
    std::uint64_t nodes = 0;       ///< nodes visited by this solve() (all its threads)
    std::uint64_t table_hits = 0;  ///< values taken from the table by this solve()
    /// Positions decided by region values (ProofOptions::region_max_pieces), and those split
    /// without being decided (one region, or a region too large), by this solve().
    std::uint64_t region_hits = 0, region_misses = 0;
    double seconds = 0;      ///< wall time of this solve()
    double cpu_seconds = 0;  ///< CPU time of this solve() (all its threads')
};

/// Win/loss proof search on one board. The transposition table is kept between solve() calls
/// (only proven values are stored, so what one call proves speeds up the next, and a call
/// stopped at its node limit leaves nothing false behind).
///
/// Keys: the canonical form of a position under the board's symmetries (SymmetryGroup); the
/// opening stage (full board, one-hole board) is never stored. Entries: 16 bytes, buckets of
/// four (one cache line); a full bucket replaces the entry whose proof took fewest nodes. An
/// entry is two 64-bit words read and written as relaxed atomics: the canonical occupancy, and
/// the data (bits 0..7 flags, 8..15 work, 32..63 the high half of the key's hash); a reader
/// takes an entry only when its occupancy, side and hash check all match, so an entry torn by
/// two threads writing it at once reads as absent, never as another position's value (the
/// lock-free scheme of Hyatt and Mann 2002, with check bits in place of their XOR).
///
/// With a Tablebase of the same board, a Play-stage position the table holds takes its stored
/// value (the table's membership is exact and its blocks checksummed).
///
/// Not thread-safe: one ProofSearch per thread (a solve() may itself run options.threads; several
/// searches may share one table of proven values, each on its own thread).
class ProofSearch {
  public:
    /// The memory a helper thread of a search on a board of `squares` squares takes of its
    /// own (its history and per-ply frames), beside the tables it shares: what each thread
    /// past the first adds to a search (ProofOptions::threads).
    static std::size_t helper_bytes(int squares);

    /// A search for board b; `table`, when given, must be of board b (std::invalid_argument).
    /// Maps the transposition table (options.memory_bytes; its pages zeroed by the kernel as
    /// they are first touched, or at once by fault_in(); std::bad_alloc when
    /// the system refuses it).
    explicit ProofSearch(const Board& b, const ProofOptions& options = {},
                         std::optional<Tablebase> table = std::nullopt);
    /// A search of share's board that shares share's transposition table of proven values (and
    /// its Tablebase, if any), so that what either proves the other finds: the proof manager's
    /// worker threads (manager/manager.hpp ManagerOptions::shared_table). Its own df-pn
    /// numbers (DfPn: options.dfpn_memory_bytes, or half of options.memory_bytes), history and
    /// counters; the two may search at once, each on its own thread (the table's entries check
    /// themselves, as a team's). The table lives as long as any search sharing it. Throws
    /// std::invalid_argument when options.rules or options.jumps_only differ from share's (the
    /// proven values would not be of the same game).
    ProofSearch(const ProofSearch& share, const ProofOptions& options);
    /// The bytes a search of `options` is given for its table of proven values, before they
    /// are rounded down to a power of two buckets: memory_bytes, less df-pn's numbers (DfPn:
    /// half of memory_bytes unless dfpn_memory_bytes says otherwise). The proof manager sizes
    /// its worker threads' shared table by it (manager/manager.hpp table_holder_options()).
    static std::size_t proven_budget(const ProofOptions& options);
    ~ProofSearch();
    ProofSearch(const ProofSearch&) = delete;
    ProofSearch& operator=(const ProofSearch&) = delete;

    const Board& board() const { return board_; }
    const ProofOptions& options() const { return options_; }

    /// Calls `f` during solve() about every `interval` seconds (never more often).
    void on_progress(std::function<void(const ProofProgress&)> f, double interval = 0.25);

    /// Win or loss of p for the side to move, and a winning move; undecided past max_nodes.
    ProofResult solve(Position p);

    /// The value of p for its side to move when it is known without searching: held by the
    /// transposition table or the given table (a jump-stage position only; nullopt otherwise).
    std::optional<bool> proven(Position p);

    /// Calls `f` during solve() about every `interval` seconds (between nodes, on the search's
    /// thread: the transposition table holds only proven values then, so f may save_proven()).
    void on_checkpoint(std::function<void()> f, double interval);

    /// Writes the proven positions of the transposition table whose proof took at least
    /// `min_nodes` nodes (the ones worth keeping: the rest are proven again quickly) to `path`,
    /// through a temporary file renamed when complete. Format: a text header (board, ruleset,
    /// jumps-only, count), then per position its canonical occupancy (8 bytes, little-endian),
    /// flags and work (1 byte each, as in the table), then an XXH64 of every byte before it.
    /// Returns the number written. Throws std::runtime_error naming the file when it cannot be
    /// written.
    std::uint64_t save_proven(const std::filesystem::path& path, std::uint64_t min_nodes) const;

    /// Adds the positions of a save_proven() file to the transposition table. Throws
    /// std::runtime_error naming the file when it is not a regular file (a directory, a named
    /// pipe, a link to a device: refused before reading), larger than a table of this size
    /// writes, damaged (checksum), truncated, or of another board, ruleset or game. Returns the
    /// number loaded.
    std::uint64_t load_proven(const std::filesystem::path& path);

    /// Changes the node limit of later solve() calls (0: no limit).
    void set_max_nodes(std::uint64_t n) { options_.max_nodes = n; }
    /// Changes the time limit of later solve() calls in seconds (0: no limit).
    void set_max_seconds(double s) { options_.max_seconds = s; }
    /// Changes the stop flag of later solve() calls (nullptr: none).
    void set_stop(const std::atomic<bool>* stop) { options_.stop = stop; }

    /// Bytes of the transposition table, and entries this search filled (all its threads').
    std::size_t table_bytes() const;
    std::uint64_t stored() const;
    /// Empties the transposition table (every sharing search's too) and the history.
    void clear();
    /// Faults the pages of the transposition table and of df-pn's numbers in now
    /// (process::ZeroedMemory::fault_in()), so that a timed solve() does not pay for the kernel
    /// zeroing them; clear() then keeps them. Without it, a page is made when first touched.
    void fault_in();

  private:
    struct Entry;
    struct Frame;
    struct NodeLimit {};
    struct Stopped {};  ///< another thread of the team decided the root
    struct Memory;      ///< the mapped transposition table, shared by a team's threads
    struct Team;        ///< what a solve()'s threads share (stop flag, node count, answer)

    /// A helper of `lead`'s team, number `index` (1..threads-1): shares its transposition table
    /// and table, runs the enhanced alpha-beta.
    ProofSearch(const ProofSearch& lead, int index);
    /// A helper's search of the team's root: its root moves rotated by its index.
    void help(Position p);
    /// The root's moves in search order (fewest replies first for the enhanced search).
    std::vector<MoveChild> root_moves(Position p, bool opening) const;
    /// The first of `moves` whose child is known lost for its side to move (held by the
    /// tables, or without a jump), without searching: the winning move a proof left behind.
    std::optional<MoveChild> proven_winning_move(const std::vector<MoveChild>& moves);
    /// The root loop of solve() and help(): searches `moves` in their order until one's child
    /// loses (frame 0 shows the move being searched); that move, or nullopt when every move
    /// loses. Throws NodeLimit and Stopped as search_child().
    std::optional<MoveChild> search_root(const std::vector<MoveChild>& moves);

    bool search(Position p, Position key, int ply);
    bool search_plain(Position p, int ply);
    struct DfpnEntry;
    struct ProofNumbers {
        std::uint64_t pn, dn;
    };
    /// df-pn's multiple iterative deepening at p (canonical form key): searches until p's proof
    /// number reaches th_pn or its disproof number th_dn, or p is proven (probe/dfpn.cpp).
    void mid(Position p, Position key, std::uint64_t th_pn, std::uint64_t th_dn, int ply);
    /// Whether the side to move in p wins, by df-pn from p (thresholds infinite).
    bool search_dfpn(Position p, Position key, int ply);
    /// The proof and disproof numbers of c for its side to move: proven values from the
    /// transposition table, else df-pn's table, else `leaf`, a new leaf's numbers (mid()).
    ProofNumbers numbers(Position c, Position key, ProofNumbers leaf);
    void store_numbers(Position key, ProofNumbers n);
    /// df-pn's numbers of key (a node entered before), or nothing.
    std::optional<ProofNumbers> find_numbers(Position key) const;
    void init_dfpn(std::size_t bytes);
    bool search_opening(Position p, int ply);
    /// Whether the side to move in c (a child searched at `ply`) wins: search_opening() in the
    /// opening stage (never with jumps_only), else search_plain() or search() by the algorithm.
    bool search_child(Position c, int ply);
    Position canonical(Position p) const;
    /// The proven value of canonical position `key` in the transposition table: 1 win, 0 loss,
    /// -1 not held.
    int probe(Position key) const;
    /// The value of p (canonical form `key`) when the transposition table or the given table
    /// already holds it (a table's answer is stored in the transposition table); else nothing.
    std::optional<bool> known(Position p, Position key);
    void store(Position key, bool win, std::uint64_t work);
    struct RegionValuer;
    /// The value of jump-stage position p by region values (ProofOptions::region_max_pieces):
    /// nullopt when it does not split into small enough regions.
    std::optional<bool> region_value(Position p);
    void count_node();
    /// True when options_.stop is set or options_.max_seconds have passed since start_.
    bool out_of_time() const;
    void report();

    Board board_;
    ProofOptions options_;
    SymmetryGroup group_;
    std::optional<Tablebase> table_;
    std::shared_ptr<Memory> memory_;
    Entry* entries_ = nullptr;
    std::size_t table_size_ = 0;
    std::size_t bucket_mask_ = 0;
    std::atomic<std::uint64_t> stored_{0};               ///< entries this thread filled
    int index_ = 0;                                      ///< 0: the calling thread; else a helper
    Team* team_ = nullptr;                               ///< during a team solve()
    std::vector<std::unique_ptr<ProofSearch>> helpers_;  ///< made on the first team solve()
    std::vector<std::uint32_t> history_;                 ///< [side][from][to]
    std::vector<Frame> frames_;  ///< per ply: the move being searched, for progress

    std::uint64_t nodes_ = 0, limit_ = 0, table_hits_ = 0, next_check_ = 0;
    std::uint64_t region_hits_ = 0, region_misses_ = 0;
    std::unique_ptr<RegionValuer> regions_;  ///< made on first use, one per thread
    std::uint64_t counted_ = 0;              ///< of nodes_, those added to the team's count
    std::function<void(const ProofProgress&)> progress_;
    double interval_ = 0.25;
    std::unique_ptr<Memory> dfpn_memory_;  ///< df-pn's table (DfPn only), mapped
    DfpnEntry* dfpn_ = nullptr;            ///< in dfpn_memory_
    std::size_t dfpn_size_ = 0;            ///< its bytes
    std::size_t dfpn_mask_ = 0;            ///< its bucket mask
    std::function<void()> checkpoint_;
    double checkpoint_interval_ = 0;
    std::chrono::steady_clock::time_point last_checkpoint_;
    std::chrono::steady_clock::time_point start_, last_report_;
};

}  // namespace konane

namespace konane {

/// One pair of opening removals decided by proof search: the winner of the position after it
/// (Black to move), or none when it was not decided within the node limit.
struct SearchedOpening {
    Move black;  ///< Black's removal
    Move white;  ///< White's reply
    std::optional<Color> winner;
    std::uint64_t nodes = 0;
    double seconds = 0;      ///< wall time
    double cpu_seconds = 0;  ///< CPU time
};

/// Every opening of a board decided by proof search, with the verdicts they imply.
struct SearchedOpenings {
    std::vector<SearchedOpening> lines;  ///< Black's removals by square, then White's replies
    /// Per Black removal (in the order of `lines`): the winner when White replies best (White
    /// when some reply wins for White, Black when every reply is decided and wins for Black),
    /// none when undecided; and White's first winning reply.
    struct Choice {
        Move black;
        std::optional<Color> winner;
        std::optional<Move> white_wins_by;
    };
    std::vector<Choice> choices;
    /// The board's winner (Black when some removal wins against every reply, White when every
    /// removal loses), none when undecided lines leave it open.
    std::optional<Color> winner;
    std::uint64_t nodes = 0;
    std::uint64_t region_hits = 0, region_misses = 0;  ///< all lines (ProofResult's)
    double seconds = 0;                                ///< wall time, all lines
    double cpu_seconds = 0;                            ///< CPU time, all lines
};

/// Decides every opening (Black's removal, White's reply) of s's board and ruleset by
/// s.solve() on the position after the two removals, one after another with one transposition
/// table; `each` is called after each line. Every line is searched, even once the verdict is
/// known, so that the table of openings is complete.
///
/// `done` (when not empty: one element per line, in the order of `lines`) holds the lines a
/// previous, interrupted run decided (a checkpoint): those are taken as they are, not searched.
SearchedOpenings search_openings(ProofSearch& s,
                                 const std::function<void(const SearchedOpening&)>& each = {},
                                 const std::vector<std::optional<SearchedOpening>>& done = {});

}  // namespace konane
