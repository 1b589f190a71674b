#include "solver/enumerate.hpp"

#include <omp.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <future>
#include <memory>
#include <optional>
#include <stdexcept>

#include "core/movegen.hpp"
#include "process/huge_pages.hpp"
#include "process/self.hpp"
#include "process/temp_dir.hpp"
#include "solver/keyfile.hpp"
#include "solver/orientations.hpp"
#include "solver/radix_sort.hpp"
#include "solver/run_merge.hpp"
#include "solver/workdir.hpp"

namespace konane::solver {

namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

std::uint64_t enumerate_to(WorkDir& wd, const Board& b, const Opening& op,
                           const EnumerateOptions& o) {
    require_generatable(b);
    if (wd.enumeration_complete()) return 0;
    std::uint64_t runs = 0;
    const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
    const SymmetryGroup group(b);
    const int top = first_layer_pieces(b);
    // A gap's run tracks the symmetries each class was reached through (Orientations).
    std::optional<Orientations> orient;
    if (op.gap) orient.emplace(group);
    const EntryPacking pk = EntryPacking::of(b, orient ? orient->bits() : 2);
    const std::uint64_t flag_mask = pk.flag_mask();
    const int most_captured = max_capture(b);

    // Memory. The children waiting to be sorted share one arena of fixed capacity, each entry
    // tagged with the pieces its jump captured (EntryPacking), so that one radix sort groups
    // them by layer;
    // the sort's scratch is as large again: 16 bytes per arena slot, 60% of the budget. The
    // rest: the threads' local buffers, the chunk being expanded, the merge's readers.
    const int bits = pk.sort_bits();
    // (Small boards: after a sort, at most 2^(S+1) keys per layer wait, so no more is needed.)
    // The merge reads at least 8 runs of about 1 MiB each (fan_in below) while the arena is
    // held: under a small budget the arena gets what they leave, so that the two fit together.
    const std::uint64_t mib = std::uint64_t{1} << 20;
    const std::uint64_t arena_bytes = std::min(
        o.memory_bytes / 10 * 6, o.memory_bytes > 10 * mib ? o.memory_bytes - 10 * mib : 0);
    const std::size_t capacity = std::clamp<std::size_t>(
        arena_bytes / 16, std::size_t{1} << 16,
        std::max<std::size_t>(std::size_t{1} << 16,
                              std::size_t{1} << std::min(62, b.squares() + 4)));
    const std::size_t chunk = std::clamp<std::size_t>(capacity / 32, 4096, std::size_t{1} << 20);
    // A thread's children go to the arena unsorted, in batches that stay in the level-2 cache
    // (64 Ki entries, 512 KiB). Sorting each batch first dropped about a quarter of them as
    // duplicates, but sorted every child twice: 6x6 layers 20 to 18 enumerate 19-22% faster
    // without it (docs/results.md, "The threads' batches unsorted").
    const std::size_t flush_at = std::clamp<std::size_t>(
        capacity / 128 / static_cast<std::size_t>(threads), 4096, std::size_t{1} << 16);

    int start = std::min(wd.lowest_enumerated() - 1, top);
    if (start == top) {
        // The positions after both removals: the run of the first layer.
        std::vector<std::uint64_t> first, scratch;
        for (const Position& p : start_positions(b, op)) {
            if (orient) {
                int h = 0;
                const std::uint64_t key = orient->canonical(p, h);
                first.push_back(pk.pack(key, orient->of_start(h)));
            } else {
                first.push_back(pk.pack(group.canonical_key(p), 1u << static_cast<int>(p.to_move)));
            }
        }
        compact(first, scratch, pk.bits(), flag_mask, 1);
        write_key_file(wd.run(top, top + 1, 0), first);
        process::kill_point();
    }

    std::vector<std::uint64_t> pending, entries, scratch;
    process::reserve_huge(pending, capacity);
    process::reserve_huge(scratch, capacity);
    // The merge holds about 1 MiB per run (a decoded chunk and its compressed bytes): more runs
    // than an eighth of the budget allows are first merged in groups into one run each.
    const std::size_t fan_in =
        std::max<std::size_t>(8, o.memory_bytes / 8 / (std::size_t{1} << 20));
    for (int n = start; n >= 0; --n) {
        const auto t0 = Clock::now();
        // Runs merged from groups are named as from layer n + 1, index 1000000 and up: after
        // every other run of the layer in runs_of()'s order.
        int group_index = 1000000;
        const auto fresh = [&] {
            while (std::filesystem::exists(wd.run(n, n + 1, group_index)))
                ++group_index;
            return wd.run(n, n + 1, group_index);
        };
        RunMerger merger(merge_runs_in_groups(wd.runs_of(n), fan_in, flag_mask, threads, fresh),
                         flag_mask);
        KeyFileWriter keys_out(wd.layer_keys(n), threads);
        std::vector<int> run_index(static_cast<std::size_t>(most_captured) + 1, 0);
        std::uint64_t raw = 0, classes = 0;
        std::size_t most_children = 16;  // per position, seen so far (for the arena's headroom)

        // Sorts and deduplicates the waiting children; writes them as one run per layer when
        // `all` or when they still fill half the arena.
        auto spill = [&](bool all) {
            // Both buffers keep the arena's capacity for the whole enumeration (the sort swaps
            // them): no reallocation, and no page is cleared again.
            compact(pending, scratch, bits, flag_mask, threads);
            if (!all && pending.size() <= capacity / 2) return;
            std::size_t at = 0;
            while (at < pending.size()) {
                const std::uint64_t tag = pk.tag(pending[at]);
                std::size_t end = at;
                while (end < pending.size() && pk.tag(pending[end]) == tag)
                    ++end;
                const int cap = static_cast<int>(tag);
                for (std::size_t i = at; i < end; ++i)
                    pending[i] = pk.untagged(pending[i]);
                write_key_file(wd.run(n - cap, n, run_index[cap]++),
                               std::span(pending).subspan(at, end - at), threads);
                ++runs;
                process::kill_point();
                at = end;
            }
            pending.clear();
        };

        // The merge of the next chunk runs on a thread of its own beside the expansion of this
        // one (a pipeline of two stages): the merge is serial, the expansion parallel, and
        // one after the other the expansion's threads would wait for the merge.
        std::vector<std::uint64_t> next_entries;
        auto merge_next = [&] {
            return std::async(std::launch::async, [&] {
                const bool more = merger.next(next_entries, chunk);
                return std::pair<bool, std::uint64_t>(more, merger.consumed());
            });
        };
        auto ahead = merge_next();
        for (;;) {
            const auto [more, consumed] = ahead.get();
            if (!more) break;
            entries.swap(next_entries);
            ahead = merge_next();
            const auto count = static_cast<std::int64_t>(entries.size());
            std::vector<std::uint64_t> keys(entries.size());
            std::uint64_t chunk_raw = 0;
            std::size_t chunk_most = 0;
            // An exception (a full disk while spilling, memory) must not leave the OpenMP
            // region: the first one is kept, the other iterations skipped, and it is rethrown.
            std::exception_ptr error;
            std::atomic<bool> failed{false};
            auto keep = [&] {
#pragma omp critical(konane_enumerate_error)
                if (!error) error = std::current_exception();
                failed.store(true, std::memory_order_relaxed);
            };
#pragma omp parallel num_threads(threads) if (count > 8192) reduction(+ : chunk_raw) reduction(max : chunk_most)
            {
                std::vector<std::uint64_t> local;
                local.reserve(2 * flush_at);
                auto flush = [&] {
#pragma omp critical(konane_enumerate_pending)
                    {
                        if (pending.size() + local.size() > pending.capacity()) spill(false);
                        if (pending.size() + local.size() > pending.capacity()) spill(true);
                        pending.insert(pending.end(), local.begin(), local.end());
                    }
                    local.clear();
                };
#pragma omp for schedule(dynamic, 1024)
                for (std::int64_t i = 0; i < count; ++i) {
                    if (failed.load(std::memory_order_relaxed)) continue;
                    try {
                        const std::uint64_t e = entries[i];
                        const std::uint64_t flags = e & flag_mask;
                        keys[i] = pk.key(e);
                        const Position p = position_of_key(keys[i]);
                        std::size_t children = 0;
                        if (orient) {
                            chunk_raw += static_cast<std::uint64_t>(orient->raw(p, flags));
                            for_each_jump(b, p, [&](Move, Position c) {
                                const auto cap =
                                    static_cast<std::uint64_t>(n - std::popcount(c.occ));
                                int h = 0;
                                const std::uint64_t key = orient->canonical(c, h);
                                local.push_back(
                                    pk.tagged(pk.pack(key, orient->child(flags, h)), cap));
                                ++children;
                            });
                        } else {
                            chunk_raw +=
                                static_cast<std::uint64_t>(group.preserving_orbit_size(p)) *
                                static_cast<std::uint64_t>(std::popcount(flags));
                            const std::uint64_t child_flags = swap_sides(flags);
                            const SymmetryGroup::ParentImages pi = group.parent_images(p.occ);
                            for_each_jump(b, p, [&](Move m, Position c) {
                                const auto cap =
                                    static_cast<std::uint64_t>(n - std::popcount(c.occ));
                                local.push_back(pk.tagged(
                                    pk.pack(group.child_key(pi, c, m.from, m.to), child_flags),
                                    cap));
                                ++children;
                            });
                        }
                        chunk_most = std::max(chunk_most, children);
                        if (local.size() >= flush_at) flush();
                    } catch (...) {
                        keep();
                    }
                }
                try {
                    if (!local.empty() && !failed.load()) flush();
                } catch (...) {
                    keep();
                }
            }
            if (error) std::rethrow_exception(error);
            raw += chunk_raw;
            classes += entries.size();
            keys_out.append(keys);
            most_children = std::max(most_children, chunk_most);
            // Room for the next chunk's children, or sort and spill now.
            if (pending.size() + chunk * most_children > capacity) spill(false);
            if (o.progress) o.progress("enumerate", n, consumed, merger.total());
        }
        spill(true);
        keys_out.finish();
        process::kill_point();
        const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
        wd.record_enumerated(n, classes, raw, seconds);
        for (const auto& p : wd.runs_of(n))
            std::filesystem::remove(p);
        if (o.layer_done) o.layer_done(n, classes, raw);
    }
    wd.record_enumeration_complete();
    return runs;
}

std::vector<EnumeratedLayer> enumerate(const Board& b, const Opening& r, int threads,
                                       const ProgressFn& progress) {
    process::TempDir tmp("konane-enumerate");
    WorkDir wd(tmp.path() / "work", b, r);
    EnumerateOptions o;
    o.threads = threads;
    o.progress = progress;
    enumerate_to(wd, b, r, o);
    std::vector<EnumeratedLayer> layers;
    const std::vector<int> order = wd.layers_with_positions();
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const int n = *it;
        const LayerRecord& rec = wd.layer(n);
        EnumeratedLayer l;
        l.pieces = n;
        l.keys = read_key_file(wd.layer_keys(n));
        l.classes = rec.classes;
        l.raw = rec.raw;
        l.seconds = rec.enumerate_seconds;
        layers.push_back(std::move(l));
    }
    return layers;
}

}  // namespace konane::solver
