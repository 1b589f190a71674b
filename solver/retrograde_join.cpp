#include "solver/retrograde_join.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <bit>
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
    // A record: the child's key (squares + 1 bits) above its parent's index in the chunk.
    const int cb = std::clamp(chunk_bits, 1, 63 - squares);
    const int key_bits = squares + 1;
    const std::uint64_t square_mask = (std::uint64_t{1} << squares) - 1;
    const std::uint64_t index_mask = (std::uint64_t{1} << cb) - 1;
    const int most = max_capture(b);
    std::vector<const RankedLayer*> layer_of(static_cast<std::size_t>(most), nullptr);
    for (const RankedLayer& l : below) {
        const int offset = pieces - l.pieces - 1;  // 0: one piece fewer
        if (offset >= 0 && offset < most) layer_of[static_cast<std::size_t>(offset)] = &l;
    }
    const SymmetryGroup group(b);
    const std::size_t n = keys.size();
    const std::size_t chunk = std::size_t{1} << cb;
    by_rank.assign(n, 0);
    std::atomic<bool> failed{false};
    std::string error;
    std::uint64_t done = 0;
#pragma omp parallel num_threads(threads) if (n > 65536)
    {
        std::vector<std::vector<std::uint64_t>> records(static_cast<std::size_t>(most));
        std::vector<std::uint64_t> scratch;
        std::vector<std::uint8_t> least_loss(std::min(chunk, n));  // 255: no even child
        std::vector<std::uint16_t> greatest(std::min(chunk, n));   // greatest child + 1; 0: none
        auto fail = [&](const std::string& what) {
#pragma omp critical(konane_join_error)
            if (!failed.exchange(true)) error = what;
        };
#pragma omp for schedule(dynamic, 1)
        for (std::size_t lo = 0; lo < n; lo += chunk) {
            if (failed.load(std::memory_order_relaxed)) continue;
            const std::size_t hi = std::min(n, lo + chunk);
            for (auto& r : records)
                r.clear();
            for (std::size_t i = lo; i < hi; ++i) {
                const std::uint64_t index = i - lo;
                for_each_jump(b, position_of_key(keys[i]), [&](Move, Position c) {
                    const std::uint64_t k = group.canonical_key(c);
                    const std::uint64_t packed = (k & square_mask) | ((k >> 63) << squares);
                    const int offset = pieces - std::popcount(c.occ) - 1;
                    records[static_cast<std::size_t>(offset)].push_back(packed << cb | index);
                });
            }
            std::fill(least_loss.begin(), least_loss.begin() + (hi - lo), 255);
            std::fill(greatest.begin(), greatest.begin() + (hi - lo), 0);
            for (int offset = 0; offset < most; ++offset) {
                auto& r = records[static_cast<std::size_t>(offset)];
                if (r.empty()) continue;
                const RankedLayer* l = layer_of[static_cast<std::size_t>(offset)];
                if (!l) {
                    fail("no solved layer of " + std::to_string(pieces - offset - 1) +
                         " pieces given for the children of layer " + std::to_string(pieces));
                    break;
                }
                if (scratch.size() < r.size()) scratch.resize(r.size());
                if (radix_detail::lsd_serial(r.data(), scratch.data(), r.size(), key_bits, cb))
                    std::copy(scratch.begin(),
                              scratch.begin() + static_cast<std::ptrdiff_t>(r.size()), r.begin());
                const std::uint64_t* lk = l->keys.data();
                const std::size_t ln = l->keys.size();
                auto key_of_record = [&](std::uint64_t x) {
                    const std::uint64_t packed = x >> cb;
                    return (packed & square_mask) | ((packed >> squares) << 63);
                };
                std::size_t j = static_cast<std::size_t>(
                    std::lower_bound(lk, lk + ln, key_of_record(r.front())) - lk);
                for (const std::uint64_t x : r) {
                    const std::uint64_t k = key_of_record(x);
                    j = advance(lk, ln, j, k);
                    if (j == ln || lk[j] != k) {
                        fail("a child of layer " + std::to_string(pieces) +
                             " is missing from layer " + std::to_string(l->pieces) +
                             " (damaged work files?)");
                        break;
                    }
                    const int d = l->depth[j];
                    const std::size_t p = x & index_mask;
                    if ((d & 1) == 0 && d < least_loss[p])
                        least_loss[p] = static_cast<std::uint8_t>(d);
                    if (d + 1 > greatest[p]) greatest[p] = static_cast<std::uint16_t>(d + 1);
                }
            }
            for (std::size_t i = lo; i < hi; ++i) {
                const std::size_t p = i - lo;
                const int d = greatest[p] == 0       ? 0
                              : least_loss[p] != 255 ? least_loss[p] + 1
                                                     : greatest[p];
                if (d > 255) fail("depth to end over 255 plies");
                by_rank[i] = static_cast<Depth>(d);
            }
            if (progress) {
#pragma omp critical(konane_join_progress)
                {
                    done += hi - lo;
                    if (omp_get_thread_num() == 0) progress(phase, pieces, done, n);
                }
            }
        }
    }
    if (failed) throw std::runtime_error(error);
}

}  // namespace konane::solver
