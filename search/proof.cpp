#include "search/proof.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <iterator>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>

#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "cgt/game.hpp"
#include "cgt/konane.hpp"
#include "core/outcome.hpp"
#include "process/huge_pages.hpp"
#include "process/read_file.hpp"
#include "process/replace_file.hpp"

namespace konane {

/// A transposition-table entry: a canonical position and its proven value, two words read and
/// written as relaxed atomics (the threads of a team share the table without locks).
struct ProofSearch::Entry {
    std::uint64_t occ;
    /// Bits 0..7 flags (bit 0: in use; bit 1: White to move; bit 2: win for the mover), bits
    /// 8..15 work (1 + floor(log2(nodes of the proof)), for replacement), bits 32..63 the high
    /// half of hash_of(key): a word torn from another position's fails this check.
    std::uint64_t data;
};

/// A mapped table: the transposition table (shared by a team and by sharing searches), or
/// df-pn's numbers (a search's own).
struct ProofSearch::Memory {
    process::ZeroedMemory bytes;
    explicit Memory(std::size_t n) : bytes(n) {}
};

/// What the threads of one team solve() share.
struct ProofSearch::Team {
    std::atomic<bool> stop{false};        ///< set when the root is decided or the limit passed
    std::atomic<bool> limit_hit{false};   ///< the node limit ended the search
    std::atomic<std::uint64_t> nodes{0};  ///< every thread's nodes, in steps of at most 4,096
    std::uint64_t size = 1;               ///< threads in the team
    std::mutex mutex;                     ///< guards the answer below
    std::optional<bool> win;              ///< the root's value, from the first thread to decide
    std::optional<MoveChild> winning_move;
    std::exception_ptr error;  ///< what a helper thread threw (rethrown by the calling thread)
    /// df-pn on threads (ProofOptions::parallel_dfpn): per slot of a position's hash, how many
    /// threads are searching at it or below it (Kaneko 2010's marks), read and written through
    /// std::atomic_ref; empty otherwise.
    std::vector<std::uint16_t> busy;
};

namespace {
constexpr int kBucket = 4;  // entries per 64-byte bucket
constexpr std::uint8_t kUsed = 1, kWhite = 2, kWin = 4;

std::uint8_t side_flag(Position key) {
    return key.to_move == Color::White ? kWhite : 0;
}
std::uint64_t hash_of(Position key) {
    std::uint64_t h = (key.occ ^ (key.to_move == Color::White ? 0x5bd1e9955bd1e995ull : 0)) *
                      0x9E3779B97F4A7C15ull;
    return h ^ (h >> 31);
}
std::uint64_t load(const std::uint64_t& w) {
    return std::atomic_ref<const std::uint64_t>(w).load(std::memory_order_relaxed);
}
void put(std::uint64_t& w, std::uint64_t v) {
    std::atomic_ref<std::uint64_t>(w).store(v, std::memory_order_relaxed);
}
constexpr std::uint64_t kCheckMask = 0xFFFFFFFF00000000ull;
/// A helper thread rotates the move order of nodes up to this ply (root: ply 0). Measured on
/// every 6x6 opening with 2 threads: up to ply 0, 1 or 2 the same total nodes within noise
/// (6.35 to 6.50 M), from ply 3 on a third more (8.3 to 8.9 M).
constexpr int kHelperPlies = 2;
}  // namespace

/// Per ply: the children of the node at that ply, their canonical forms and order, and the
/// move being searched (for the progress line).
struct ProofSearch::Frame {
    MoveChild moves[kMaxMoves];
    Position keys[kMaxMoves];
    int score[kMaxMoves];
    std::uint16_t order[kMaxMoves];
    /// df-pn: a child's numbers when neither table holds it: a new leaf's, then those its
    /// last search left (mid()).
    std::uint64_t fallback_pn[kMaxMoves], fallback_dn[kMaxMoves];
    /// df-pn on threads: a child's weight (its leaf numbers' factor), what each other thread
    /// searching below it adds to its numbers when a child is chosen (virtual numbers).
    std::uint64_t weight[kMaxMoves];
    Move current;
    int index = 0, count = 0;
};

namespace {
/// The bytes of a table within `budget`: a power of two buckets of 64 bytes, at least one.
std::size_t table_bytes_within(std::size_t budget) {
    std::size_t buckets = 1;
    while (buckets * 2 * 64 <= budget)
        buckets *= 2;
    return buckets * 64;
}
/// The bytes of df-pn's table of proof and disproof numbers for options o.
std::size_t dfpn_bytes(const ProofOptions& o) {
    return table_bytes_within(o.dfpn_memory_bytes != 0
                                  ? o.dfpn_memory_bytes
                                  : std::max<std::size_t>(o.memory_bytes / 2, 128));
}
}  // namespace

ProofSearch::ProofSearch(const Board& b, const ProofOptions& options,
                         std::optional<Tablebase> table)
    : board_(b), options_(options), group_(b), table_(std::move(table)) {
    if (table_ && !(table_->board() == b)) {
        throw std::invalid_argument("the table " + table_->table().path().string() + " is for a " +
                                    table_->board().name() + " board, the position for a " +
                                    b.name() + " board");
    }
    // Anonymous memory (zero-filled) in 2 MiB huge pages where the kernel allows: the table is
    // probed at random, and with 4 KiB pages nearly every probe also misses the TLB. The kernel
    // zeroes a page when the search first touches it, so making the table costs nothing
    // (process::ZeroedMemory).
    table_size_ = table_bytes_within(proven_budget(options_));
    memory_ = std::make_shared<Memory>(table_size_);
    entries_ = static_cast<Entry*>(memory_->bytes.data());
    bucket_mask_ = table_size_ / 64 - 1;
    if (options_.algorithm == ProofAlgorithm::DfPn) init_dfpn(dfpn_bytes(options_));
    history_.assign(2 * 64 * 64, 0);
    // A game lasts at most one ply per piece, plus the two removals.
    frames_.resize(static_cast<std::size_t>(b.squares()) + 3);
}

std::size_t ProofSearch::proven_budget(const ProofOptions& o) {
    // df-pn: half of the memory for the proven values, half for proof and disproof numbers
    // (unless dfpn_memory_bytes says otherwise).
    if (o.algorithm != ProofAlgorithm::DfPn) return o.memory_bytes;
    if (o.dfpn_memory_bytes == 0) return std::max<std::size_t>(o.memory_bytes / 2, 128);
    return o.memory_bytes - std::min(dfpn_bytes(o), o.memory_bytes);
}

ProofSearch::ProofSearch(const ProofSearch& share, const ProofOptions& options)
    : board_(share.board_),
      options_(options),
      group_(share.group_),
      table_(share.table_),
      memory_(share.memory_),
      entries_(share.entries_),
      table_size_(share.table_size_),
      bucket_mask_(share.bucket_mask_) {
    if (options_.rules != share.options_.rules ||
        options_.jumps_only != share.options_.jumps_only) {
        throw std::invalid_argument(
            "a proof search shares the table of proven values only with a search of the same "
            "ruleset and game");
    }
    if (options_.algorithm == ProofAlgorithm::DfPn) init_dfpn(dfpn_bytes(options_));
    history_.assign(2 * 64 * 64, 0);
    frames_.resize(share.frames_.size());
}

ProofSearch::ProofSearch(const ProofSearch& lead, int index)
    : board_(lead.board_),
      options_(lead.options_),
      group_(lead.group_),
      table_(lead.table_),
      memory_(lead.memory_),
      entries_(lead.entries_),
      table_size_(lead.table_size_),
      bucket_mask_(lead.bucket_mask_),
      index_(index) {
    if (options_.algorithm == ProofAlgorithm::DfPn) {
        if (options_.parallel_dfpn) {
            dfpn_ = lead.dfpn_;  // the lead's numbers, shared (the lead outlives its helpers)
            dfpn_size_ = lead.dfpn_size_;
            dfpn_mask_ = lead.dfpn_mask_;
        } else {
            options_.algorithm = ProofAlgorithm::Enhanced;
        }
    }
    options_.threads = 1;
    history_.assign(2 * 64 * 64, 0);
    frames_.resize(lead.frames_.size());
}

std::size_t ProofSearch::helper_bytes(int squares) {
    // As the helper's constructor allocates them.
    return sizeof(ProofSearch) + 2 * 64 * 64 * sizeof(std::uint32_t) +
           (static_cast<std::size_t>(squares) + 3) * sizeof(Frame);
}

ProofSearch::~ProofSearch() = default;

std::uint64_t ProofSearch::stored() const {
    std::uint64_t n = stored_.load(std::memory_order_relaxed);
    for (const auto& h : helpers_)
        n += h->stored_.load(std::memory_order_relaxed);
    return n;
}

void ProofSearch::on_checkpoint(std::function<void()> f, double interval) {
    checkpoint_ = std::move(f);
    checkpoint_interval_ = interval;
    last_checkpoint_ = std::chrono::steady_clock::now();
}

void ProofSearch::on_progress(std::function<void(const ProofProgress&)> f, double interval) {
    progress_ = std::move(f);
    interval_ = interval;
}

std::size_t ProofSearch::table_bytes() const {
    return table_size_;
}

void ProofSearch::fault_in() {
    memory_->bytes.fault_in();
    if (dfpn_memory_) dfpn_memory_->bytes.fault_in();
}

void ProofSearch::clear() {
    memory_->bytes.zero();
    if (dfpn_memory_) dfpn_memory_->bytes.zero();
    stored_ = 0;
    std::fill(history_.begin(), history_.end(), 0);
    for (auto& h : helpers_) {
        h->stored_ = 0;
        std::fill(h->history_.begin(), h->history_.end(), 0);
    }
}

namespace {
/// The header of a save_proven() file, up to and including its "end" line.
std::string proven_header(const Board& b, const ProofOptions& o, std::uint64_t count) {
    return "konane proven positions 1\nboard " + b.name() + "\nrules " + ruleset_name(o.rules) +
           "\ngame " + (o.jumps_only ? "jumps-only" : "jumps") + "\ncount " +
           std::to_string(count) + "\nend\n";
}
constexpr std::size_t kProvenRecord = 10;  // occupancy (8), flags (1), work (1)
}  // namespace

std::uint64_t ProofSearch::save_proven(const std::filesystem::path& path,
                                       std::uint64_t min_nodes) const {
    const auto min_work = static_cast<std::uint8_t>(std::bit_width(min_nodes) + 1);
    std::string body;
    std::uint64_t count = 0;
    const std::size_t n = table_size_ / sizeof(Entry);
    for (std::size_t i = 0; i < n; ++i) {
        // Helper threads may be writing the table: take only entries that check.
        const std::uint64_t occ = load(entries_[i].occ), data = load(entries_[i].data);
        const auto flags = static_cast<std::uint8_t>(data),
                   work = static_cast<std::uint8_t>(data >> 8);
        if (!(flags & kUsed) || work < min_work) continue;
        const Position key{occ, (flags & kWhite) ? Color::White : Color::Black};
        if ((data & kCheckMask) != (hash_of(key) & kCheckMask)) continue;
        char rec[kProvenRecord];
        for (int k = 0; k < 8; ++k)
            rec[k] = static_cast<char>(occ >> (8 * k));
        rec[8] = static_cast<char>(flags);
        rec[9] = static_cast<char>(work);
        body.append(rec, kProvenRecord);
        ++count;
    }
    const std::string head = proven_header(board_, options_, count);
    process::replace_file(path, {head, body}, process::ReplaceOptions::with_trailer());
    return count;
}

std::uint64_t ProofSearch::load_proven(const std::filesystem::path& path) {
    // At most what save_proven() writes from a table of this size (its header is far under
    // 4 KiB): a link to a device, a pipe or a file of another size is refused before reading,
    // and the header is checked against the file's size before the records are read.
    constexpr std::size_t kMaxHeader = 4096;
    const std::uint64_t most = kMaxHeader + (table_size_ / sizeof(Entry)) * kProvenRecord + 8;
    process::ChecksummedFile file(
        path, most, process::Links::Refuse,
        "not a checkpoint of a search with this much memory (give the memory of the search "
        "that wrote it, or remove the work directory)");
    const std::optional<std::string> head = file.header(kMaxHeader);
    if (!head) throw std::runtime_error(path.string() + ": not a proven-positions checkpoint");
    const std::size_t body = head->size();
    const std::uint64_t body_bytes = file.size() - 8 - body;
    const std::size_t records = static_cast<std::size_t>(body_bytes / kProvenRecord);
    const bool fits =
        body_bytes % kProvenRecord == 0 && *head == proven_header(board_, options_, records);
    const auto [bytes, checksum_ok] = file.body(body);
    if (!checksum_ok) {
        throw std::runtime_error(path.string() + ": checksum mismatch: the checkpoint is damaged");
    }
    if (!fits) {
        throw std::runtime_error(path.string() +
                                 ": a checkpoint of another board, ruleset or game, or damaged");
    }
    for (std::size_t i = 0; i < records; ++i) {
        const char* r = bytes.data() + i * kProvenRecord;
        std::uint64_t occ = 0;
        for (int k = 0; k < 8; ++k)
            occ |= std::uint64_t{static_cast<unsigned char>(r[k])} << (8 * k);
        const auto flags = static_cast<std::uint8_t>(r[8]);
        const auto work = static_cast<std::uint8_t>(r[9]);
        if (!(flags & kUsed) || work < 2 || work > 65 || (occ & ~board_.all)) {
            throw std::runtime_error(path.string() + ": a damaged record");
        }
        const Position key{occ, (flags & kWhite) ? Color::White : Color::Black};
        store(key, (flags & kWin) != 0, std::uint64_t{1} << (work - 2));
    }
    return records;
}

Position ProofSearch::canonical(Position p) const {
    return group_.canonical(p);
}

int ProofSearch::probe(Position key) const {
    const std::uint64_t h = hash_of(key);
    const Entry* e = entries_ + (h & bucket_mask_) * kBucket;
    const std::uint64_t want = kUsed | side_flag(key) | (h & kCheckMask);
    for (int i = 0; i < kBucket; ++i, ++e) {
        if (load(e->occ) != key.occ) continue;
        const std::uint64_t d = load(e->data);
        if ((d & (kUsed | kWhite | kCheckMask)) == want) return (d & kWin) ? 1 : 0;
    }
    return -1;
}

void ProofSearch::store(Position key, bool win, std::uint64_t work) {
    const std::uint64_t h = hash_of(key);
    Entry* b = entries_ + (h & bucket_mask_) * kBucket;
    const std::uint64_t w = std::bit_width(work) + 1;
    const std::uint64_t data =
        kUsed | side_flag(key) | (win ? kWin : 0) | (w << 8) | (h & kCheckMask);
    Entry* victim = b;
    std::uint64_t victim_work = ~std::uint64_t{0};
    for (int i = 0; i < kBucket; ++i) {
        Entry* e = b + i;
        const std::uint64_t d = load(e->data);
        if (!(d & kUsed)) {
            victim = e;
            // Written by this thread only, read by the calling thread's progress line.
            stored_.store(stored_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
            break;
        }
        if (load(e->occ) == key.occ && (d & kWhite) == side_flag(key)) {
            victim = e;
            break;
        }
        const std::uint64_t ew = (d >> 8) & 0xFF;
        if (ew < victim_work) {
            victim = e;
            victim_work = ew;
        }
    }
    put(victim->occ, key.occ);
    put(victim->data, data);
}

void ProofSearch::count_node() {
    if (++nodes_ < next_check_) return;
    if (team_) {
        // A team counts its nodes together, 4,096 at a time per thread.
        if (team_->stop.load(std::memory_order_relaxed)) throw Stopped{};
        const std::uint64_t all =
            team_->nodes.fetch_add(nodes_ - counted_, std::memory_order_relaxed) + nodes_ -
            counted_;
        counted_ = nodes_;
        std::uint64_t step = 4096;
        if (limit_) {  // near the limit the threads check more often, to stop close to it
            const std::uint64_t left = all < limit_ ? limit_ - all : 0;
            step = std::clamp<std::uint64_t>(left / team_->size, 1, 4096);
        }
        next_check_ = nodes_ + step;
        if ((limit_ && all > limit_) || out_of_time()) {
            team_->limit_hit.store(true);
            team_->stop.store(true);
            throw NodeLimit{};
        }
        if (index_ != 0) return;  // progress and checkpoints from the calling thread only
    } else {
        if ((limit_ && nodes_ > limit_) || out_of_time()) throw NodeLimit{};
        next_check_ = nodes_ + 4096;
        if (limit_ && next_check_ > limit_ + 1) next_check_ = limit_ + 1;
    }
    if (progress_ || checkpoint_) {
        const auto now = std::chrono::steady_clock::now();
        if (progress_ && std::chrono::duration<double>(now - last_report_).count() >= interval_) {
            last_report_ = now;
            report();
        }
        if (checkpoint_ &&
            std::chrono::duration<double>(now - last_checkpoint_).count() >= checkpoint_interval_) {
            checkpoint_();
            last_checkpoint_ = std::chrono::steady_clock::now();
        }
    }
}

bool ProofSearch::out_of_time() const {
    if (options_.stop && options_.stop->load(std::memory_order_relaxed)) return true;
    return options_.max_seconds > 0 &&
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() >
               options_.max_seconds;
}

void ProofSearch::report() {
    ProofProgress pr;
    pr.nodes = nodes_;
    pr.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    pr.table_bytes = table_bytes();
    pr.stored = stored();
    for (const Frame& f : frames_) {
        if (f.count == 0) break;
        pr.line.push_back(f.current);
        pr.line_index.push_back(f.index + 1);
        pr.line_count.push_back(f.count);
    }
    progress_(pr);
}

namespace {
/// Clears a frame's "being searched" mark when its node returns (for the progress line).
struct FrameGuard {
    int& count;
    ~FrameGuard() { count = 0; }
};
}  // namespace

bool ProofSearch::search_opening(Position p, int ply) {
    count_node();
    Frame& f = frames_[static_cast<std::size_t>(ply)];
    FrameGuard guard{f.count};
    // Who wins only: the first winning removal decides (the depth is not asked).
    return opening_value(
               board_, options_.rules, p,
               [&](const MoveChild& mc, std::size_t i, std::size_t n) {
                   f.count = static_cast<int>(n);
                   f.index = static_cast<int>(i);
                   f.current = mc.move;
                   return std::optional(Value{search_child(mc.child, ply + 1), 0});
               },
               /*first_win=*/true)
        ->win;
}

bool ProofSearch::search_child(Position c, int ply) {
    if (in_opening(board_, options_.rules, c, options_.jumps_only)) return search_opening(c, ply);
    if (options_.algorithm == ProofAlgorithm::Plain) return search_plain(c, ply);
    if (options_.algorithm == ProofAlgorithm::DfPn) return search_dfpn(c, canonical(c), ply);
    return search(c, canonical(c), ply);
}

std::optional<bool> ProofSearch::known(Position p, Position key) {
    if (const int v = probe(key); v >= 0) return v == 1;
    if (table_ && (options_.table_max_pieces == 0 || piece_count(p) <= options_.table_max_pieces)) {
        if (const auto v = table_->lookup(p)) {
            ++table_hits_;
            store(key, v->win, 1);
            return v->win;
        }
    }
    return std::nullopt;
}

/// The valuer of region values, one per thread (cgt's valuer is not thread-safe).
struct ProofSearch::RegionValuer {
    cgt::GameStore store;
    cgt::Valuer valuer;
    RegionValuer(const Board& b, const cgt::ValueOptions& o) : valuer(b, store, o) {}
};

std::optional<bool> ProofSearch::region_value(Position p) {
    if (options_.region_max_total > 0 && piece_count(p) > options_.region_max_total) {
        return std::nullopt;
    }
    // The regions with a move for either side (the others are worth 0); a position of one
    // region is left to the search, which is as fast on it.
    const std::vector<std::uint64_t> parts = cgt::regions(board_, p.occ);
    bool small = parts.size() >= 2;
    for (std::size_t i = 0; small && i < parts.size(); ++i)
        small = std::popcount(parts[i]) <= options_.region_max_pieces;
    if (!small && !parts.empty()) {
        ++region_misses_;
        return std::nullopt;
    }
    if (!regions_) {
        cgt::ValueOptions o;
        o.max_positions =
            std::max<std::size_t>(options_.region_memory / cgt::kValueBytesPerPosition, 1024);
        o.max_games = 4 * o.max_positions;
        regions_ = std::make_unique<RegionValuer>(board_, o);
    }
    cgt::GameStore& st = regions_->store;
    cgt::GameId sum = st.zero();
    try {
        for (const std::uint64_t r : parts)
            sum = st.add(sum, regions_->valuer.value(r));
    } catch (const cgt::ValueLimit&) {
        // The valuer is full: start again with an empty one (the search goes on meanwhile).
        const cgt::ValueOptions o = regions_->valuer.options();
        regions_.reset();
        regions_ = std::make_unique<RegionValuer>(board_, o);
        ++region_misses_;
        return std::nullopt;
    }
    ++region_hits_;
    // Normal play, Black as Left: L Black wins whoever starts, R White, N the side to move,
    // P the other side.
    switch (st.outcome(sum)) {
        case cgt::OutcomeClass::L:
            return p.to_move == Color::Black;
        case cgt::OutcomeClass::R:
            return p.to_move == Color::White;
        case cgt::OutcomeClass::N:
            return true;
        case cgt::OutcomeClass::P:
            return false;
    }
    return std::nullopt;
}

std::optional<bool> ProofSearch::proven(Position p) {
    if (in_opening(board_, options_.rules, p, options_.jumps_only)) return std::nullopt;
    return known(p, canonical(p));
}

bool ProofSearch::search_plain(Position p, int ply) {
    count_node();
    const Position key = canonical(p);
    if (const auto v = known(p, key)) return *v;
    Frame& f = frames_[static_cast<std::size_t>(ply)];
    int n = 0;
    for_each_jump(board_, p, [&](Move m, Position c) { f.moves[n++] = {m, c}; });
    if (n == 0) return false;
    const std::uint64_t before = nodes_;
    FrameGuard guard{f.count};
    f.count = n;
    for (int i = 0; i < n; ++i) {
        f.index = i;
        f.current = f.moves[i].move;
        if (!search_plain(f.moves[i].child, ply + 1)) {
            store(key, true, nodes_ - before);
            return true;
        }
    }
    store(key, false, nodes_ - before);
    return false;
}

bool ProofSearch::search(Position p, Position key, int ply) {
    count_node();
    if (const auto v = known(p, key)) return *v;
    if (options_.region_max_pieces > 0) {
        if (const auto v = region_value(p)) {
            store(key, *v, 1);
            return *v;
        }
    }
    Frame& f = frames_[static_cast<std::size_t>(ply)];
    int n = 0;
    for_each_jump(board_, p, [&](Move m, Position c) { f.moves[n++] = {m, c}; });
    if (n == 0) return false;
    const int side = static_cast<int>(p.to_move);
    // Enhanced transposition cut-off and immediate wins: look every child up first.
    int live = 0;
    for (int i = 0; i < n; ++i) {
        const Position c = f.moves[i].child;
        if (count_jumps(board_, c) == 0) {  // the opponent has no reply
            store(key, true, 1);
            return true;
        }
        f.keys[i] = canonical(c);
        __builtin_prefetch(entries_ + (hash_of(f.keys[i]) & bucket_mask_) * kBucket);
    }
    for (int i = 0; i < n; ++i) {
        const Position c = f.moves[i].child;
        const int replies = count_jumps(board_, c);
        const Position ck = f.keys[i];
        if (const int v = probe(ck); v >= 0) {
            if (v == 0) {
                store(key, true, 1);
                return true;
            }
            continue;  // a proven win for the opponent: never worth searching
        }
        const Move m = f.moves[i].move;
        // Fewest replies first; among equals, the move that most often refuted before.
        const std::uint32_t h = history_[(side * 64 + m.from) * 64 + m.to];
        // The opponent's replies count four times the mover's own jumps in the child.
        const int own = count_jumps(board_, Position{c.occ, p.to_move});
        f.score[i] =
            (4 * replies - own + 256) * 4096 - static_cast<int>(std::min<std::uint32_t>(h, 4095));
        f.order[live++] = static_cast<std::uint16_t>(i);
    }
    const std::uint64_t before = nodes_;
    if (live == 0) {
        store(key, false, 1);
        return false;
    }
    // Insertion sort: a handful of moves.
    for (int i = 1; i < live; ++i) {
        const std::uint16_t x = f.order[i];
        int j = i;
        for (; j > 0 && f.score[f.order[j - 1]] > f.score[x]; --j)
            f.order[j] = f.order[j - 1];
        f.order[j] = x;
    }
    // A helper thread takes the moves near the root in another order than the calling thread
    // (rotated by its number), so that the threads prove different subtrees at once.
    if (index_ != 0 && ply <= kHelperPlies && live > 1) {
        std::rotate(f.order, f.order + (index_ + ply) % live, f.order + live);
    }
    FrameGuard guard{f.count};
    f.count = live;
    for (int k = 0; k < live; ++k) {
        const int i = f.order[k];
        f.index = k;
        f.current = f.moves[i].move;
        if (!search(f.moves[i].child, f.keys[i], ply + 1)) {
            auto& h = history_[(side * 64 + f.current.from) * 64 + f.current.to];
            h = std::min<std::uint32_t>(h + 1 + static_cast<std::uint32_t>(live - k), 1u << 20);
            store(key, true, nodes_ - before);
            return true;
        }
    }
    store(key, false, nodes_ - before);
    return false;
}

// ---------------------------------------------------------------------------------------------
// df-pn (Nagai 2002) in negamax form. A position's proof number pn is the least number of leaves
// to prove that its mover wins, its disproof number dn the least to prove that it loses:
// pn(p) = min over children c of dn(c), dn(p) = sum over children of pn(c). mid() searches the
// child of least dn until p's numbers reach the thresholds, giving that child the thresholds
// (th_dn - dn(p) + pn(c), min(th_pn, dn2 * (1 + epsilon) + 1)), dn2 being the second-least dn:
// the child is searched until it is no longer the best by a margin (Pawlewicz and Lew 2007),
// which saves re-expanding the same two children in turn.

/// An entry of df-pn's table: a canonical occupancy and the side to move, and its numbers,
/// each in 31 bits by pack_number().
struct ProofSearch::DfpnEntry {
    std::uint64_t occ;
    std::uint32_t pn_side;  ///< bit 31: White to move; bits 0..30: pn (0: unused entry)
    std::uint32_t dn;
};

namespace {
// The numbers are 64-bit while df-pn works on them: sums of many children's numbers times deep
// df-pn's weights can pass 2^31 in searches of 10^9 nodes and more, and a 32-bit sum stopped
// there would be taken for a threshold reached and leave the root undecided.
constexpr std::uint64_t kInf = (std::uint64_t{1} << 62) - 1;  // "infinite": proven
constexpr std::uint32_t kSide = 1u << 31;
constexpr std::uint32_t kPacked = 1u << 30;  // a packed number's flag (pack_number())
constexpr int kMantissaBits = 24;

/// A number of df-pn (below kInf) in 31 bits, as the table keeps it (16-byte entries, four
/// to a cache line): below 2^30 as it is; above, 2^30 plus a shift (6 bits) and the top 25 bits
/// of the number (the first, always 1, left out), rounded up, so that unpack_number() never
/// gives less than was packed: a child read back at less than its search left it would be
/// entered again only to return at once (as in the livelock below mid()).
std::uint32_t pack_number(std::uint64_t v) {
    if (v < kPacked) return static_cast<std::uint32_t>(v);
    int shift = std::bit_width(v) - (kMantissaBits + 1);
    std::uint64_t m = v >> shift;
    if ((m << shift) != v && ++m == (std::uint64_t{2} << kMantissaBits)) {
        m >>= 1;
        ++shift;
    }
    const int code = shift - (31 - (kMantissaBits + 1));  // 0 for numbers of 31 bits; below 64
    return kPacked | static_cast<std::uint32_t>(code) << kMantissaBits |
           static_cast<std::uint32_t>(m & ((std::uint64_t{1} << kMantissaBits) - 1));
}

std::uint64_t unpack_number(std::uint32_t p) {
    if ((p & kPacked) == 0) return p;
    const int shift = static_cast<int>((p >> kMantissaBits) & 63) + (31 - (kMantissaBits + 1));
    return ((std::uint64_t{1} << kMantissaBits) | (p & ((1u << kMantissaBits) - 1))) << shift;
}
/// Deep df-pn's weight of a new leaf is its pieces less this many (at least 1). Measured: 4
/// and 8 against none on every opening of 4x8 to 6x7 and on 6x8 h1 g1 (docs/beyond.md).
constexpr int kDeepPieces = 4;

std::uint64_t sat_add(std::uint64_t a, std::uint64_t b) {
    return a >= kInf - b ? kInf : a + b;
}
}  // namespace

void ProofSearch::init_dfpn(std::size_t bytes) {
    dfpn_size_ = bytes;
    dfpn_memory_ = std::make_unique<Memory>(dfpn_size_);  // as the table
    dfpn_ = static_cast<DfpnEntry*>(dfpn_memory_->bytes.data());
    dfpn_mask_ = dfpn_size_ / 64 - 1;
}

ProofSearch::ProofNumbers ProofSearch::numbers(Position c, Position key, ProofNumbers leaf) {
    if (const auto v = known(c, key)) return *v ? ProofNumbers{0, kInf} : ProofNumbers{kInf, 0};
    if (const auto n = find_numbers(key)) return *n;
    return leaf;
}

// df-pn's entries are read and written word by word as relaxed atomics: the threads of a team
// share them (ProofOptions::parallel_dfpn). An entry two threads write at once may mix their
// numbers; numbers only guide the search (proven values live in the transposition table), so a
// mixed entry costs nodes, never a wrong value, provided no number reads as 0 (proven): a
// reader takes a 0 for an absent entry, and checks the occupancy again after the numbers, so
// that an entry replaced meanwhile reads as absent.
std::optional<ProofSearch::ProofNumbers> ProofSearch::find_numbers(Position key) const {
    DfpnEntry* e = dfpn_ + (hash_of(key) & dfpn_mask_) * kBucket;
    const std::uint32_t side = key.to_move == Color::White ? kSide : 0;
    for (int i = 0; i < kBucket; ++i, ++e) {
        if (load(e->occ) != key.occ) continue;
        const std::uint32_t pn_side = std::atomic_ref(e->pn_side).load(std::memory_order_relaxed);
        if (pn_side == 0 || (pn_side & kSide) != side) continue;
        const std::uint32_t dn = std::atomic_ref(e->dn).load(std::memory_order_relaxed);
        // A stored number is never 0 (proven positions live in the transposition table): a 0
        // is an empty entry read while another thread fills it, its occupancy and pn written,
        // its dn not yet. Taken as a number, it would be a disproof (seen under
        // ThreadSanitizer's timing: wrong verdicts of df-pn on threads).
        if (dn == 0 || (pn_side & ~kSide) == 0) continue;
        if (load(e->occ) != key.occ) continue;
        return ProofNumbers{unpack_number(pn_side & ~kSide), unpack_number(dn)};
    }
    return std::nullopt;
}

void ProofSearch::store_numbers(Position key, ProofNumbers n) {
    DfpnEntry* b = dfpn_ + (hash_of(key) & dfpn_mask_) * kBucket;
    const std::uint32_t side = key.to_move == Color::White ? kSide : 0;
    DfpnEntry* victim = b;
    std::uint64_t least = ~std::uint64_t{0};
    for (int i = 0; i < kBucket; ++i) {
        DfpnEntry* e = b + i;
        const std::uint32_t pn_side = std::atomic_ref(e->pn_side).load(std::memory_order_relaxed);
        if (pn_side == 0 || (load(e->occ) == key.occ && (pn_side & kSide) == side)) {
            victim = e;
            break;
        }
        const std::uint64_t w =
            unpack_number(pn_side & ~kSide) +
            unpack_number(std::atomic_ref(e->dn).load(std::memory_order_relaxed));
        if (w < least) {
            least = w;
            victim = e;
        }
    }
    put(victim->occ, key.occ);
    // pn 0 is proven: kept in the other table
    std::atomic_ref(victim->pn_side)
        .store((n.pn == 0 ? 1 : pack_number(n.pn)) | side, std::memory_order_relaxed);
    std::atomic_ref(victim->dn).store(pack_number(n.dn), std::memory_order_relaxed);
}

void ProofSearch::mid(Position p, Position key, std::uint64_t th_pn, std::uint64_t th_dn, int ply) {
    count_node();
    // Region values at a node's first expansion only (it has no numbers yet): df-pn enters a
    // node many times, and the split is worth trying once.
    if (options_.region_max_pieces > 0 && !find_numbers(key)) {
        if (const auto v = region_value(p)) {
            store(key, *v, 1);
            return;
        }
    }
    Frame& f = frames_[static_cast<std::size_t>(ply)];
    int n = 0;
    for_each_jump(board_, p, [&](Move m, Position c) { f.moves[n++] = {m, c}; });
    const std::uint64_t before = nodes_;
    if (n == 0) {
        store(key, false, 1);
        return;
    }
    // A child not yet in the tables is a new leaf: its numbers, for the opponent to move there,
    // are made once here from the two sides' jumps (the engine's mobility): disproof number
    // the opponent's replies, each of which must be refuted (Allis 1994), proof number 1 plus
    // the mover's own jumps left, as a position where the mover keeps more play is harder for
    // the opponent to win (evaluation-based initialisation, Winands and Schadd 2011). Every
    // opening of 4x8 to 6x7: 13% to 47% fewer nodes than proof number 1 (docs/beyond.md).
    // Both are then multiplied by the leaf's distance from the end of the game, counted in
    // pieces (every jump takes one): deep df-pn (Zhang, Iida and van den Herik 2017), whose
    // smaller numbers deeper down keep df-pn on a line until it is settled instead of turning
    // between siblings near the root. Counted from the position, not from the search's root,
    // a leaf's numbers are the same by every path and in every search (the proof manager's
    // leaves). 6x7 every opening and 6x8 h1 g1: 27% and 29% fewer nodes (docs/beyond.md).
    for (int i = 0; i < n; ++i) {
        const Position c = f.moves[i].child;
        const int replies = count_jumps(board_, c);
        if (replies == 0) {  // the opponent has no reply
            store(key, true, 1);
            return;
        }
        f.keys[i] = canonical(c);
        const int own = count_jumps(board_, Position{c.occ, p.to_move});
        const std::uint64_t depth =
            static_cast<std::uint64_t>(std::max(1, piece_count(c) - kDeepPieces)) *
            std::max<std::uint64_t>(options_.dfpn_leaf_scale, 1);
        f.fallback_pn[i] = (1 + static_cast<std::uint64_t>(own)) * depth;
        f.fallback_dn[i] = static_cast<std::uint64_t>(replies) * depth;
        f.weight[i] = depth;
    }
    FrameGuard guard{f.count};
    f.count = n;
    // df-pn on threads (Kaneko 2010): this node is marked busy while this thread searches at
    // it or below, and a child other threads are searching is chosen as if its numbers were
    // larger by its weight for each of them (virtual numbers), so that the threads spread over
    // the tree instead of all following one line. Stored numbers are the real ones.
    const auto busy = [&](Position k) {
        return &team_->busy[hash_of(k) & (team_->busy.size() - 1)];
    };
    const bool marking = team_ && !team_->busy.empty();
    struct Mark {
        std::uint16_t* slot;
        ~Mark() {
            if (slot) std::atomic_ref(*slot).fetch_sub(1, std::memory_order_relaxed);
        }
    } mark{marking ? busy(key) : nullptr};
    if (marking) std::atomic_ref(*mark.slot).fetch_add(1, std::memory_order_relaxed);
    for (;;) {
        // Another thread may have proven this node: nothing is left to do here.
        if (marking && probe(key) >= 0) return;
        std::uint64_t pn = kInf, dn = 0, dn2 = kInf;
        std::uint64_t vpn = kInf;  // pn with virtual numbers (pn itself without threads)
        int best = -1;
        for (int i = 0; i < n; ++i) {
            const ProofNumbers c =
                numbers(f.moves[i].child, f.keys[i], {f.fallback_pn[i], f.fallback_dn[i]});
            dn = sat_add(dn, c.pn);
            pn = std::min(pn, c.dn);
            std::uint64_t v = c.dn;
            if (marking && c.dn != 0 && c.dn < kInf) {
                const std::uint16_t others =
                    std::atomic_ref(*busy(f.keys[i])).load(std::memory_order_relaxed);
                v = sat_add(v, others * f.weight[i]);
            }
            if (v < vpn || best < 0) {
                dn2 = vpn;
                vpn = v;
                best = i;
            } else if (v < dn2) {
                dn2 = v;
            }
        }
        if (pn == 0) {
            store(key, true, nodes_ - before + 1);
            return;
        }
        if (dn == 0) {
            store(key, false, nodes_ - before + 1);
            return;
        }
        // With threads, the threshold holds for the virtual number (vpn >= pn), which is also
        // what is stored: the child chosen by it may have a real number past the threshold
        // already, which it would return at once, and the parent, reading the real number,
        // would choose this node again, for as long as the other thread stays below a child
        // of it reached by another path (seen: 5x7 on two threads going round for minutes).
        // A number so raised is made real again when the node is next searched.
        if (vpn >= th_pn || dn >= th_dn) {
            store_numbers(key, {vpn, dn});
            return;
        }
        const ProofNumbers cb =
            numbers(f.moves[best].child, f.keys[best], {f.fallback_pn[best], f.fallback_dn[best]});
        const std::uint64_t child_th_pn = sat_add(th_dn - dn, cb.pn);
        const std::uint64_t eps = dn2 >= kInf ? kInf : sat_add(sat_add(dn2, dn2 / 4), 1);
        const std::uint64_t child_th_dn = std::min(th_pn, eps);
        f.index = best;
        f.current = f.moves[best].move;
        mid(f.moves[best].child, f.keys[best], child_th_pn, child_th_dn, ply + 1);
        // The child's numbers as its search left them become its fallback here. Were its
        // entry replaced before the next read (two siblings sharing a bucket of a full table
        // each replace the other's), it would read as a new leaf again, smaller than what its
        // search found: df-pn would go back into it only for it to return at once, and so on
        // for ever (seen on 6x8 after 10^9 nodes: 4 M nodes a second, nothing decided).
        const ProofNumbers seen = numbers(f.moves[best].child, f.keys[best], cb);
        f.fallback_pn[best] = seen.pn;
        f.fallback_dn[best] = seen.dn;
    }
}

bool ProofSearch::search_dfpn(Position p, Position key, int ply) {
    if (const auto v = known(p, key)) return *v;
    mid(p, key, kInf, kInf, ply);
    const auto v = known(p, key);
    if (!v) throw std::logic_error("df-pn: the root's value was not stored");
    return *v;
}

namespace {
double thread_cpu_seconds() {
    timespec ts{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
}  // namespace

std::vector<MoveChild> ProofSearch::root_moves(Position p, bool opening) const {
    std::vector<MoveChild> moves = legal_moves(board_, options_.rules, p, options_.jumps_only);
    if (options_.algorithm == ProofAlgorithm::Enhanced && !opening) {
        std::stable_sort(moves.begin(), moves.end(), [&](const MoveChild& a, const MoveChild& b) {
            return count_jumps(board_, a.child) < count_jumps(board_, b.child);
        });
    }
    return moves;
}

std::optional<MoveChild> ProofSearch::proven_winning_move(const std::vector<MoveChild>& moves) {
    for (const MoveChild& m : moves) {
        const auto v = known(m.child, canonical(m.child));
        if ((v && !*v) || count_jumps(board_, m.child) == 0) return m;
    }
    return std::nullopt;
}

std::optional<MoveChild> ProofSearch::search_root(const std::vector<MoveChild>& moves) {
    Frame& f = frames_[0];
    f.count = static_cast<int>(moves.size());
    for (std::size_t i = 0; i < moves.size(); ++i) {
        f.index = static_cast<int>(i);
        f.current = moves[i].move;
        if (!search_child(moves[i].child, 1)) return moves[i];
    }
    return std::nullopt;
}

void ProofSearch::help(Position p) {
    nodes_ = counted_ = table_hits_ = region_hits_ = region_misses_ = 0;
    limit_ = options_.max_nodes;
    next_check_ = 1;
    for (Frame& f : frames_)
        f.count = 0;
    std::vector<MoveChild> moves = root_moves(p, false);
    std::rotate(moves.begin(), moves.begin() + static_cast<std::ptrdiff_t>(index_ % moves.size()),
                moves.end());
    try {
        count_node();
        if (options_.algorithm == ProofAlgorithm::DfPn) {
            // df-pn on threads: df-pn from the root beside the lead, on the shared tables, until
            // the root is proven by any thread. The answer is taken here only with a winning
            // move the table shows (a child proven lost); otherwise the lead finds it.
            const Position key = canonical(p);
            mid(p, key, kInf, kInf, 0);
            const auto v = known(p, key);
            if (!v) return;
            const std::optional<MoveChild> winning = proven_winning_move(moves);
            if (*v && !winning) return;
            const std::lock_guard lock(team_->mutex);
            if (!team_->win) {
                team_->win = *v;
                team_->winning_move = *v ? winning : std::nullopt;
            }
            team_->stop.store(true);
            return;
        }
        const std::optional<MoveChild> winning = search_root(moves);
        store(canonical(p), winning.has_value(), nodes_);
        const std::lock_guard lock(team_->mutex);
        if (!team_->win) {
            team_->win = winning.has_value();
            team_->winning_move = winning;
        }
        team_->stop.store(true);
    } catch (const NodeLimit&) {
    } catch (const Stopped&) {
    } catch (...) {
        const std::lock_guard lock(team_->mutex);
        if (!team_->error) team_->error = std::current_exception();
        team_->stop.store(true);
    }
    team_->nodes.fetch_add(nodes_ - counted_, std::memory_order_relaxed);
    counted_ = nodes_;
}

ProofResult ProofSearch::solve(Position p) {
    ProofResult r;
    const double cpu_start = thread_cpu_seconds();
    nodes_ = counted_ = 0;
    table_hits_ = region_hits_ = region_misses_ = 0;
    limit_ = options_.max_nodes;
    next_check_ = 1;
    start_ = last_report_ = std::chrono::steady_clock::now();
    for (Frame& f : frames_)
        f.count = 0;
    const bool opening = in_opening(board_, options_.rules, p, options_.jumps_only);
    std::vector<MoveChild> moves = root_moves(p, opening);

    // With threads: helpers search the same root beside this thread (solve_team's comment in
    // proof.hpp); each thread's nodes and CPU time are added to the answer.
    Team team;
    std::vector<std::thread> workers;
    std::vector<double> helper_cpu;
    if (options_.threads > 1 && !opening && !moves.empty()) {
        while (helpers_.size() + 1 < static_cast<std::size_t>(options_.threads)) {
            helpers_.push_back(std::unique_ptr<ProofSearch>(
                new ProofSearch(*this, static_cast<int>(helpers_.size()) + 1)));
        }
        team.size = helpers_.size() + 1;
        if (options_.algorithm == ProofAlgorithm::DfPn && options_.parallel_dfpn)
            team.busy.assign(std::size_t{1} << 16, 0);
        team_ = &team;
        helper_cpu.assign(helpers_.size(), 0.0);
        for (std::size_t i = 0; i < helpers_.size(); ++i) {
            ProofSearch& h = *helpers_[i];
            h.team_ = &team;
            h.options_.max_nodes = options_.max_nodes;
            h.options_.max_seconds = options_.max_seconds;
            h.options_.stop = options_.stop;
            h.start_ = start_;
            workers.emplace_back([&h, &helper_cpu, i, p] {
                const double c0 = thread_cpu_seconds();
                h.help(p);
                helper_cpu[i] = thread_cpu_seconds() - c0;
            });
        }
    }
    auto join = [&] {
        team.stop.store(true);
        for (std::thread& t : workers)
            t.join();
        workers.clear();
        team_ = nullptr;
        for (auto& h : helpers_)
            h->team_ = nullptr;
    };
    try {
        count_node();
        Frame& f = frames_[0];
        f.count = static_cast<int>(moves.size());
        bool win = false;
        if (options_.algorithm == ProofAlgorithm::DfPn && !opening && !moves.empty()) {
            // df-pn from the root itself (a transposition of an earlier root is then answered at
            // once); the winning move is then a child the proof left proven lost.
            const Position key = canonical(p);
            if (search_dfpn(p, key, 0)) {
                r.winning_move = proven_winning_move(moves);
                for (std::size_t i = 0; i < moves.size() && !r.winning_move; ++i)
                    if (!search_child(moves[i].child, 1)) r.winning_move = moves[i];
                win = true;
            }
            moves.clear();  // decided: the loop below has nothing left to search
        }
        if (!win) {
            r.winning_move = search_root(moves);
            win = r.winning_move.has_value();
        }
        f.count = 0;
        if (!opening && !moves.empty()) store(canonical(p), win, nodes_);
        r.win = win;
        if (team_) {
            const std::lock_guard lock(team.mutex);
            if (!team.win) {
                team.win = win;
                team.winning_move = r.winning_move;
            }
        }
    } catch (const NodeLimit&) {
        r.win.reset();
        r.winning_move.reset();
    } catch (const Stopped&) {
        // another thread decided the root: its answer is taken below
    } catch (...) {
        join();
        throw;
    }
    for (Frame& f : frames_)
        f.count = 0;
    r.nodes = nodes_;
    r.table_hits = table_hits_;
    r.region_hits = region_hits_;
    r.region_misses = region_misses_;
    double cpu = thread_cpu_seconds() - cpu_start;
    if (!workers.empty()) {
        join();
        if (team.error) std::rethrow_exception(team.error);
        r.win = team.win;
        r.winning_move = team.win && *team.win ? team.winning_move : std::nullopt;
        for (std::size_t i = 0; i < helpers_.size(); ++i) {
            r.nodes += helpers_[i]->nodes_;
            r.table_hits += helpers_[i]->table_hits_;
            r.region_hits += helpers_[i]->region_hits_;
            r.region_misses += helpers_[i]->region_misses_;
            cpu += helper_cpu[i];
        }
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    r.cpu_seconds = cpu;
    return r;
}

}  // namespace konane

namespace konane {

SearchedOpenings search_openings(ProofSearch& s,
                                 const std::function<void(const SearchedOpening&)>& each,
                                 const std::vector<std::optional<SearchedOpening>>& done) {
    SearchedOpenings out;
    const Board& b = s.board();
    const Ruleset r = s.options().rules;
    Verdict board_verdict(Color::Black);  // Black chooses the removal
    for (const auto& first : legal_moves(b, r, b.start())) {
        SearchedOpenings::Choice choice;
        choice.black = first.move;
        Verdict reply_verdict(Color::White);  // White chooses the reply
        for (const auto& second : legal_moves(b, r, first.child)) {
            const std::size_t at = out.lines.size();
            SearchedOpening line;
            if (at < done.size() && done[at]) {
                line = *done[at];
            } else {
                const ProofResult res = s.solve(second.child);
                line = SearchedOpening{first.move, second.move, std::nullopt,
                                       res.nodes,  res.seconds, res.cpu_seconds};
                if (res.win) line.winner = *res.win ? Color::Black : Color::White;
                out.region_hits += res.region_hits;
                out.region_misses += res.region_misses;
            }
            out.lines.push_back(line);
            out.nodes += line.nodes;
            out.seconds += line.seconds;
            out.cpu_seconds += line.cpu_seconds;
            if (each) each(line);
            reply_verdict.add(line.winner);
            if (line.winner == Color::White && !choice.white_wins_by)
                choice.white_wins_by = second.move;
        }
        choice.winner = reply_verdict.winner();
        board_verdict.add(choice.winner);
        out.choices.push_back(choice);
    }
    out.winner = board_verdict.winner();  // White also when Black has no removal at all
    return out;
}

}  // namespace konane
