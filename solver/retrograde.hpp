// The retrograde step shared by the solve and verify: the depth of every position of a layer
// computed from its children's depths in the layers below, with the children's cache misses
// overlapped in batches. Source: docs/rules.md ("Values").
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/movegen.hpp"
#include "solver/enumerate.hpp"
#include "solver/solved.hpp"

namespace konane::solver {

/// Computes the depth to end of every position keys[i] (sorted canonical keys of one layer)
/// from the depths of its children in `lookup`, which must hold every layer a jump from this
/// one reaches, and calls sink(i, depth) once per index i, from `threads` OpenMP threads
/// (each index on exactly one thread; depth in plies, 0..255 as an int). Reports
/// progress(phase, pieces, done, total) from thread 0 now and then.
///
/// Positions go in batches of 32 in three passes: (1) canonical keys of every child and a
/// prefetch of the perfect hash's pilot, and a call of prepare(i) per own position (to
/// prefetch where sink will write); (2) the children's slots and a prefetch of their depths;
/// (3) the depths combined (DepthAccumulator) and the sink called. A position's children then
/// wait for memory together instead of one after another. Throws std::runtime_error when a
/// depth exceeds 255 plies.
template <class Prepare, class Sink>
void recompute_layer(const Board& b, const SolvedLookup& lookup,
                     const std::vector<std::uint64_t>& keys, int pieces, int threads,
                     const char* phase, const ProgressFn& progress, Prepare&& prepare,
                     Sink&& sink) {
    constexpr std::int64_t kBatch = 32;
    const auto n = static_cast<std::int64_t>(keys.size());
    const std::int64_t batches = (n + kBatch - 1) / kBatch;
    std::uint64_t done = 0;
    int max_depth = 0;
#pragma omp parallel num_threads(threads) if (n > 8192) reduction(max : max_depth)
    {
        std::vector<SolvedLookup::Pending> pending;
        std::vector<const Depth*> where;
        std::vector<std::uint8_t> owner;
        pending.reserve(kBatch * 64);
        where.reserve(kBatch * 64);
        owner.reserve(kBatch * 64);
#pragma omp for schedule(dynamic, 64)
        for (std::int64_t batch = 0; batch < batches; ++batch) {
            const std::int64_t lo = batch * kBatch, hi = std::min(n, lo + kBatch);
            pending.clear();
            owner.clear();
            for (std::int64_t i = lo; i < hi; ++i) {
                prepare(i);
                for_each_jump(b, position_of_key(keys[i]), [&](Move, Position c) {
                    pending.push_back(lookup.start(c));
                    owner.push_back(static_cast<std::uint8_t>(i - lo));
                });
            }
            where.resize(pending.size());
            for (std::size_t j = 0; j < pending.size(); ++j)
                where[j] = lookup.finish(pending[j]);
            DepthAccumulator acc[kBatch];
            for (std::size_t j = 0; j < where.size(); ++j)
                acc[owner[j]].add(*where[j]);
            for (std::int64_t i = lo; i < hi; ++i) {
                const int d = acc[i - lo].result();
                max_depth = std::max(max_depth, d);
                sink(i, d);
            }
            if ((batch & 2047) == 0 && progress) {
#pragma omp critical(konane_recompute_progress)
                {
                    done += 2048 * kBatch;
                    if (omp_get_thread_num() == 0) {
                        progress(phase, pieces, std::min<std::uint64_t>(done, n), n);
                    }
                }
            }
        }
    }
    if (max_depth > 255) throw std::runtime_error("depth to end over 255 plies");
}

}  // namespace konane::solver
