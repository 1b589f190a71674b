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
/// Positions go in batches of 32 through three stages: (A) canonical keys of every child and
/// the start of their perfect-hash queries (the pilot prefetched), and a call of prepare(i) per
/// own position; (B) the children's slots and a prefetch of their depths; (C) the depths
/// combined (DepthAccumulator) and the sink called. A thread runs stage A of one batch, B of the
/// one before and C of the one before that, so that each prefetch has a whole batch's work to
/// land before it is read, and a position's children wait for memory together instead of one
/// after another. Throws std::runtime_error when a depth exceeds 255 plies.
template <class Prepare, class Sink>
void recompute_layer(const Board& b, const SolvedLookup& lookup,
                     const std::vector<std::uint64_t>& keys, int pieces, int threads,
                     const char* phase, const ProgressFn& progress, Prepare&& prepare,
                     Sink&& sink) {
    constexpr std::int64_t kBatch = 32;  // positions per batch
    constexpr std::int64_t kRun = 64;    // batches per run (the unit of the schedule)
    const auto n = static_cast<std::int64_t>(keys.size());
    const std::int64_t batches = (n + kBatch - 1) / kBatch;
    const std::int64_t runs = (batches + kRun - 1) / kRun;
    std::uint64_t done = 0;
    int max_depth = 0;
#pragma omp parallel num_threads(threads) if (n > 8192) reduction(max : max_depth)
    {
        // Three batches in flight, one per stage: (A) children's keys and the pilots'
        // prefetch, (B) the children's slots and the depths' prefetch, (C) the depths
        // combined. Each prefetch has a whole batch's work to land before it is used.
        struct Stage {
            std::vector<SolvedLookup::Pending> pending;
            std::vector<const Depth*> where;
            std::vector<std::uint8_t> owner;
            std::int64_t lo = 0, hi = 0;
        };
        Stage stages[3];
        for (Stage& st : stages) {
            st.pending.reserve(kBatch * 64);
            st.where.reserve(kBatch * 64);
            st.owner.reserve(kBatch * 64);
        }
        auto stage_a = [&](Stage& st, std::int64_t batch) {
            st.lo = batch * kBatch;
            st.hi = std::min(n, st.lo + kBatch);
            st.pending.clear();
            st.owner.clear();
            for (std::int64_t i = st.lo; i < st.hi; ++i) {
                prepare(i);
                for_each_jump(b, position_of_key(keys[i]), [&](Move, Position c) {
                    st.pending.push_back(lookup.start(c));
                    st.owner.push_back(static_cast<std::uint8_t>(i - st.lo));
                });
            }
        };
        auto stage_b = [&](Stage& st) {
            st.where.resize(st.pending.size());
            for (std::size_t j = 0; j < st.pending.size(); ++j)
                st.where[j] = lookup.finish(st.pending[j]);
        };
        auto stage_c = [&](Stage& st) {
            DepthAccumulator acc[kBatch];
            for (std::size_t j = 0; j < st.where.size(); ++j)
                acc[st.owner[j]].add(*st.where[j]);
            for (std::int64_t i = st.lo; i < st.hi; ++i) {
                const int d = acc[i - st.lo].result();
                max_depth = std::max(max_depth, d);
                sink(i, d);
            }
        };
#pragma omp for schedule(dynamic, 1)
        for (std::int64_t run = 0; run < runs; ++run) {
            const std::int64_t first = run * kRun, last = std::min(batches, first + kRun);
            const std::int64_t count = last - first;
            for (std::int64_t s = 0; s < count + 2; ++s) {
                if (s < count) stage_a(stages[s % 3], first + s);
                if (s >= 1 && s - 1 < count) stage_b(stages[(s - 1) % 3]);
                if (s >= 2) stage_c(stages[(s - 2) % 3]);
            }
            if ((run & 31) == 0 && progress) {
#pragma omp critical(konane_recompute_progress)
                {
                    done += 32 * kRun * kBatch;
                    if (omp_get_thread_num() == 0) {
                        progress(phase, pieces, std::min<std::uint64_t>(done, n), n);
                    }
                }
            }
        }
    }
    if (max_depth > 255) throw std::runtime_error("depth to end over 255 plies");
}

/// Stores by_rank[i] at depth[mph(keys[i])] for every i (keys: the layer's keys, mph: its
/// perfect hash; depth sized keys.size()), from `threads` OpenMP threads, the queries of 64 keys
/// started together so that their cache misses overlap (MphfView::start()).
inline void scatter_by_slot(MphfView mph, const std::vector<std::uint64_t>& keys,
                            const std::vector<Depth>& by_rank, Depth* depth, int threads) {
    constexpr std::int64_t kBatch = 64;
    const auto n = static_cast<std::int64_t>(keys.size());
#pragma omp parallel for num_threads(threads) if (n > 65536) schedule(static, 256)
    for (std::int64_t lo = 0; lo < n; lo += kBatch) {
        const std::int64_t hi = std::min(n, lo + kBatch);
        MphfView::Query q[kBatch];
        for (std::int64_t i = lo; i < hi; ++i)
            q[i - lo] = mph.start(keys[i]);
        for (std::int64_t i = lo; i < hi; ++i)
            depth[mph.finish(q[i - lo])] = by_rank[i];
    }
}

}  // namespace konane::solver
