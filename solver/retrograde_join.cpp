#include "solver/retrograde_join.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>

#include "core/movegen.hpp"
#include "core/symmetry.hpp"
#include "solver/entry_packing.hpp"
#include "solver/radix_sort.hpp"

namespace konane::solver {

namespace {

// The child layer's keys holding each record's key: the index of the first key not below the
// record's, from j on; a linear walk over short gaps, galloping over long ones. Returns
// keys.size() when the key is past the last one.
inline std::size_t advance(const std::uint64_t* keys, std::size_t n, std::size_t j,
                           std::uint64_t key) {
    if (j + 8 < n && keys[j + 8] < key) {
        std::size_t lo = j + 8, step = 16;
        while (lo + step < n && keys[lo + step] < key) {
            lo += step;
            step *= 2;
        }
        return static_cast<std::size_t>(
            std::lower_bound(keys + lo + 1, keys + std::min(n, lo + step + 1), key) - keys);
    }
    while (j < n && keys[j] < key)
        ++j;
    return j;
}

// One chunk of parents, keys[lo, hi): their children's records sorted and merged against the
// child layers, the depths combined into by_rank[lo, hi). The buffers are the thread's, reused
// from chunk to chunk. Throws std::runtime_error for damaged input (see solve_layer_by_join).
void join_chunk(const Board& b, const SymmetryGroup& group, std::span<const std::uint64_t> keys,
                std::size_t lo, std::size_t hi, int pieces, int cb,
                const std::vector<const RankedLayer*>& layer_of,
                std::vector<std::vector<std::uint64_t>>& records,
                std::vector<std::uint64_t>& scratch, std::vector<std::uint8_t>& least_loss,
                std::vector<std::uint16_t>& greatest, std::vector<Depth>& by_rank) {
    const int squares = b.squares();
    const int key_bits = squares + 1;
    const std::uint64_t square_mask = (std::uint64_t{1} << squares) - 1;
    const std::uint64_t index_mask = (std::uint64_t{1} << cb) - 1;
    records.resize(layer_of.size());
    for (auto& r : records)
        r.clear();
    for (std::size_t i = lo; i < hi; ++i) {
        const Position p = position_of_key(keys[i]);
        if (std::popcount(p.occ) != pieces) {
            throw std::runtime_error("the join solve: a key of layer " + std::to_string(pieces) +
                                     " has " + std::to_string(std::popcount(p.occ)) + " pieces");
        }
        const std::uint64_t index = i - lo;
        const SymmetryGroup::ParentImages pi = group.parent_images(p.occ);
        for_each_jump(b, p, [&](Move m, Position c) {
            const std::uint64_t k = group.child_key(pi, c, m.from, m.to);
            const std::uint64_t packed = (k & square_mask) | ((k >> 63) << squares);
            const int offset = pieces - std::popcount(c.occ) - 1;  // 0 .. max_capture - 1
            records[static_cast<std::size_t>(offset)].push_back(packed << cb | index);
        });
    }
    const std::size_t m = hi - lo;
    if (least_loss.size() < m) least_loss.resize(m), greatest.resize(m);
    std::fill(least_loss.begin(), least_loss.begin() + static_cast<std::ptrdiff_t>(m), 255);
    std::fill(greatest.begin(), greatest.begin() + static_cast<std::ptrdiff_t>(m), 0);
    auto key_of_record = [&](std::uint64_t x) {
        const std::uint64_t packed = x >> cb;
        return (packed & square_mask) | ((packed >> squares) << 63);
    };
    for (std::size_t offset = 0; offset < records.size(); ++offset) {
        auto& r = records[offset];
        if (r.empty()) continue;
        const RankedLayer* l = layer_of[offset];
        if (!l) {
            throw std::runtime_error("the join solve: no solved layer of " +
                                     std::to_string(pieces - static_cast<int>(offset) - 1) +
                                     " pieces given for the children of layer " +
                                     std::to_string(pieces));
        }
        if (scratch.size() < r.size()) scratch.resize(r.size());
        if (radix_detail::lsd_serial(r.data(), scratch.data(), r.size(), key_bits, cb))
            std::copy_n(scratch.begin(), r.size(), r.begin());
        const std::uint64_t* lk = l->keys.data();
        const std::size_t ln = l->keys.size();
        std::size_t j =
            static_cast<std::size_t>(std::lower_bound(lk, lk + ln, key_of_record(r.front())) - lk);
        for (const std::uint64_t x : r) {
            const std::uint64_t k = key_of_record(x);
            j = advance(lk, ln, j, k);
            if (j == ln || lk[j] != k) {
                throw std::runtime_error("the join solve: a child of layer " +
                                         std::to_string(pieces) + " is missing from layer " +
                                         std::to_string(l->pieces) + " (damaged work files?)");
            }
            const int d = l->depth[j];
            const std::size_t p = x & index_mask;
            if ((d & 1) == 0 && d < least_loss[p]) least_loss[p] = static_cast<std::uint8_t>(d);
            if (d + 1 > greatest[p]) greatest[p] = static_cast<std::uint16_t>(d + 1);
        }
    }
    for (std::size_t p = 0; p < m; ++p) {
        const int d = greatest[p] == 0 ? 0 : least_loss[p] != 255 ? least_loss[p] + 1 : greatest[p];
        if (d > 255) throw std::runtime_error("the join solve: depth to end over 255 plies");
        by_rank[lo + p] = static_cast<Depth>(d);
    }
}

}  // namespace

void solve_layer_by_join(const Board& b, std::span<const std::uint64_t> keys, int pieces,
                         std::span<const RankedLayer> below, std::vector<Depth>& by_rank,
                         int threads, const ProgressFn& progress, int chunk_bits,
                         const char* phase) {
    const int squares = b.squares();
    if (squares > 48) {
        throw std::invalid_argument("the join solve takes boards of at most 48 squares, not " +
                                    std::to_string(squares));
    }
    const int cb = join_chunk_bits(b, chunk_bits);
    const int most = max_capture(b);
    std::vector<const RankedLayer*> layer_of(static_cast<std::size_t>(most), nullptr);
    for (const RankedLayer& l : below) {
        if (l.depth.size() != l.keys.size()) {
            throw std::invalid_argument("the join solve: layer " + std::to_string(l.pieces) +
                                        " has " + std::to_string(l.keys.size()) + " keys but " +
                                        std::to_string(l.depth.size()) + " depths");
        }
        const int offset = pieces - l.pieces - 1;  // 0: one piece fewer
        if (offset < 0 || offset >= most) continue;
        auto& slot = layer_of[static_cast<std::size_t>(offset)];
        if (slot) {
            throw std::invalid_argument("the join solve: layer " + std::to_string(l.pieces) +
                                        " given twice");
        }
        slot = &l;
    }
    const SymmetryGroup group(b);
    const std::size_t n = keys.size();
    const std::size_t chunk = std::size_t{1} << cb;
    by_rank.assign(n, 0);
    // The first error of any thread, rethrown after the parallel region (an exception must
    // not leave it).
    std::atomic<bool> failed{false};
    std::exception_ptr error;
    std::uint64_t done = 0;
    std::mutex progress_mutex;
#pragma omp parallel num_threads(std::max(1, threads)) if (n > chunk)
    {
        std::vector<std::vector<std::uint64_t>> records;  // per child layer
        std::vector<std::uint64_t> scratch;
        // Per parent, DepthAccumulator's rule (core/depth.hpp) in 3 bytes instead of 8, so that
        // a chunk's accumulators stay in the cache: the least even child depth (255: none) and
        // the greatest child depth + 1 (0: no child).
        std::vector<std::uint8_t> least_loss;
        std::vector<std::uint16_t> greatest;
#pragma omp for schedule(dynamic, 1)
        for (std::size_t lo = 0; lo < n; lo += chunk) {
            if (failed.load(std::memory_order_relaxed)) continue;
            try {
                const std::size_t hi = std::min(n, lo + chunk);
                join_chunk(b, group, keys, lo, hi, pieces, cb, layer_of, records, scratch,
                           least_loss, greatest, by_rank);
                if (progress) {
                    // Whichever thread finished the chunk reports it, one at a time. A
                    // std::mutex, not an omp critical section: an exception thrown by
                    // progress() may leave a lock_guard, never a critical section. (Thread
                    // 0 alone reporting missed every report when the other threads took all
                    // the chunks.)
                    const std::lock_guard<std::mutex> lock(progress_mutex);
                    done += hi - lo;
                    progress(phase, pieces, done, n);
                }
            } catch (...) {
#pragma omp critical(konane_join_error)
                if (!failed.exchange(true)) error = std::current_exception();
            }
        }
    }
    if (error) std::rethrow_exception(error);
}

}  // namespace konane::solver
