#include "solver/solve.hpp"

#include <omp.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/movegen.hpp"
#include "format/table.hpp"
#include "solver/spill.hpp"

namespace konane::solver {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

// Solves one layer: depth[mphf(key)] for every key, from the children's depths in `lookup`.
// Positions go in batches of kBatch, in three passes (canonical keys and pilot prefetches,
// slots and depth prefetches, depths), so that the cache misses of a batch overlap.
void solve_layer(const Board& b, const SolvedLookup& lookup, SolvedLayer& layer,
                 const std::vector<std::uint64_t>& keys, int threads, const ProgressFn& progress) {
    constexpr std::int64_t kBatch = 32;
    const auto n = static_cast<std::int64_t>(keys.size());
    const std::int64_t batches = (n + kBatch - 1) / kBatch;
    layer.depth.assign(keys.size(), 0);
    const MphfView mph = layer.mphf.view();
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
            // 1: canonical keys of every child; prefetch their pilots (and our own keys').
            for (std::int64_t i = lo; i < hi; ++i) {
                mph.prefetch(keys[i]);
                for_each_jump(b, position_of_key(keys[i]), [&](Move, Position c) {
                    pending.push_back(lookup.start(c));
                    owner.push_back(static_cast<std::uint8_t>(i - lo));
                });
            }
            // 2: slots; prefetch the depths.
            where.resize(pending.size());
            for (std::size_t j = 0; j < pending.size(); ++j)
                where[j] = lookup.finish(pending[j]);
            // 3: combine (rules.md "Values").
            DepthAccumulator acc[kBatch];
            for (std::size_t j = 0; j < where.size(); ++j)
                acc[owner[j]].add(*where[j]);
            for (std::int64_t i = lo; i < hi; ++i) {
                const int d = acc[i - lo].result();
                if (d > max_depth) max_depth = d;
                layer.depth[mph(keys[i])] = static_cast<Depth>(d);
            }
            if ((batch & 2047) == 0 && progress) {
#pragma omp critical(konane_solve_progress)
                {
                    done += 2048 * kBatch;
                    if (omp_get_thread_num() == 0) {
                        progress("solve", layer.pieces, std::min<std::uint64_t>(done, n), n);
                    }
                }
            }
        }
    }
    if (max_depth > 255) throw std::runtime_error("depth to end over 255 plies");
}

}  // namespace

std::uint64_t peak_rss_bytes() {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
    }
    return 0;
}

std::string default_table_name(const Board& b, Ruleset r) {
    return "konane-" + b.name() + "-" + ruleset_name(r) + ".kbt";
}

GenerateReport generate(const GenerateOptions& o) {
    const auto t0 = Clock::now();
    GenerateReport rep;
    rep.threads = o.threads > 0 ? o.threads : omp_get_max_threads();
    const int threads = rep.threads;
    const Board& b = o.board;

    auto t = Clock::now();
    std::unique_ptr<KeySpill> spill;
    if (!o.spill_dir.empty()) spill = std::make_unique<KeySpill>(o.spill_dir);
    LayerSink sink;
    if (spill) sink = [&](EnumeratedLayer& l) { spill->put(l.pieces, l.keys); };
    std::vector<EnumeratedLayer> layers = enumerate(b, o.rules, threads, o.progress, sink);
    rep.enumerate_seconds = since(t);

    std::unique_ptr<format::TableWriter> writer;
    if (!o.output.empty() && layers.empty()) {
        throw std::invalid_argument(std::string("no position is reachable after the removals on ") +
                                    b.name() + " under ruleset " + ruleset_name(o.rules) +
                                    ": there is no table to write");
    }
    if (!o.output.empty()) {
        format::TableMeta meta;
        meta.rows = static_cast<unsigned>(b.rows);
        meta.cols = static_cast<unsigned>(b.cols);
        meta.ruleset = ruleset_name(o.rules);
        meta.generator = "konane 0.1.0";
        writer = std::make_unique<format::TableWriter>(o.output, meta, threads);
    }

    // Longest jump chain: a piece crosses at most (max(R, C) - 1) / 2 opponents in one move,
    // so layer n only needs the solved layers n-1 .. n-kMaxCapture.
    const int max_capture = (std::max(b.rows, b.cols) - 1) / 2;
    SolvedLookup lookup(b);
    std::vector<std::unique_ptr<SolvedLayer>> live;  // layers the lookup still refers to

    for (auto it = layers.rbegin(); it != layers.rend(); ++it) {
        EnumeratedLayer& el = *it;
        if (spill) el.keys = spill->take(el.pieces);
        auto layer = std::make_unique<SolvedLayer>();
        layer->pieces = el.pieces;
        layer->raw = el.raw;

        t = Clock::now();
        if (o.progress) o.progress("hash", el.pieces, 0, el.keys.size());
        layer->mphf = Mphf::build(el.keys, threads);
        layer->hash_seconds = since(t);
        rep.hash_seconds += layer->hash_seconds;

        t = Clock::now();
        solve_layer(b, lookup, *layer, el.keys, threads, o.progress);
        layer->solve_seconds = since(t);
        rep.solve_seconds += layer->solve_seconds;

        LayerReport lr;
        lr.pieces = el.pieces;
        lr.classes = el.keys.size();
        lr.raw = el.raw;
        lr.enumerate_seconds = el.seconds;
        lr.hash_seconds = layer->hash_seconds;
        lr.solve_seconds = layer->solve_seconds;
        lr.mphf_bytes = layer->mphf.size_bytes();
        for (Depth d : layer->depth)
            lr.max_depth = std::max<int>(lr.max_depth, d);

        if (writer) {
            t = Clock::now();
            // The file stores values by rank (the keys' sorted order), not by hash slot.
            const MphfView mph = layer->mphf.view();
            std::vector<Depth> by_rank(el.keys.size());
            const auto n = static_cast<std::int64_t>(el.keys.size());
#pragma omp parallel for num_threads(threads) if (n > 65536) schedule(static)
            for (std::int64_t i = 0; i < n; ++i) {
                by_rank[i] = layer->depth[mph(el.keys[i])];
            }
            writer->add_layer(
                format::LayerInfo{static_cast<std::uint32_t>(el.pieces), el.keys.size(), el.raw},
                el.keys, by_rank);
            rep.write_seconds += since(t);
        }
        rep.classes += lr.classes;
        rep.raw += lr.raw;
        rep.mphf_bytes += lr.mphf_bytes;
        rep.layers.push_back(lr);

        if (o.keep_layers) {
            layer->keys = std::move(el.keys);
        }
        el.keys = {};
        el.keys.shrink_to_fit();
        lookup.add(*layer);
        live.push_back(std::move(layer));
        // Drop layers no later layer can reach.
        const int oldest_needed = el.pieces + 1 - max_capture;
        for (auto& l : live) {
            if (l && l->pieces < oldest_needed && !o.keep_layers) {
                lookup.remove(l->pieces);
                l.reset();
            }
        }
    }
    if (writer) {
        t = Clock::now();
        writer->commit();
        rep.write_seconds += since(t);
        rep.file_bytes = std::filesystem::file_size(o.output);
    }
    if (o.keep_layers) {
        for (auto& l : live)
            rep.solved.push_back(std::move(*l));
    }
    if (spill) rep.peak_spill_bytes = spill->peak_bytes_on_disk();
    rep.total_seconds = since(t0);
    rep.peak_rss_bytes = peak_rss_bytes();
    return rep;
}

}  // namespace konane::solver
