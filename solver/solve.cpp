#include "solver/solve.hpp"

#include <omp.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>

#include "format/table.hpp"
#include "konane_version.hpp"
#include "process/huge_pages.hpp"
#include "process/resource_error.hpp"
#include "process/self.hpp"
#include "process/temp_dir.hpp"
#include "process/utf8_cut.hpp"
#include "solver/estimate.hpp"
#include "solver/keyfile.hpp"
#include "solver/preflight.hpp"
#include "solver/retrograde.hpp"
#include "solver/workdir.hpp"

namespace konane::solver {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

// Solves one layer: layer.depth[mphf(key)] for every key and by_rank[i] for keys[i], from the
// children's depths in `lookup` (recompute_layer()).
void solve_layer(const Board& b, const SolvedLookup& lookup, SolvedLayer& layer,
                 const std::vector<std::uint64_t>& keys, std::vector<Depth>& by_rank, int threads,
                 const ProgressFn& progress) {
    by_rank.assign(keys.size(), 0);
    recompute_layer(
        b, lookup, keys, layer.pieces, threads, "solve", progress, [](std::int64_t) {},
        [&](std::int64_t i, int d) { by_rank[i] = static_cast<Depth>(d); });
    process::assign_huge(layer.depth, keys.size());
    scatter_by_slot(layer.mphf.view(), keys, by_rank, layer.depth.data(), threads);
}

}  // namespace

std::filesystem::path default_work_dir(const std::filesystem::path& output) {
    // "<name>.work", the name cut (at a UTF-8 character boundary) to fit NAME_MAX (255 bytes).
    std::string name = output.filename().string();
    process::cut_utf8(name, 250);
    return output.parent_path() / (name + ".work");
}

format::TableMeta table_meta(const Board& b, const Opening& o) {
    format::TableMeta meta;
    meta.rows = static_cast<unsigned>(b.rows);
    meta.cols = static_cast<unsigned>(b.cols);
    meta.ruleset = opening_tag(b, o);
    meta.generator = kGenerator;  // the project version (konane_version.hpp)
    return meta;
}

std::string default_table_name(const Board& b, const Opening& o) {
    return "konane-" + b.name() + "-" + opening_tag(b, o) + ".kbt";
}

namespace {

// rchar and wchar of /proc/self/io: bytes through read and write system calls.
std::pair<std::uint64_t, std::uint64_t> io_bytes() {
    std::ifstream in("/proc/self/io");
    std::string key;
    std::uint64_t value = 0, r = 0, w = 0;
    while (in >> key >> value) {
        if (key == "rchar:") r = value;
        if (key == "wchar:") w = value;
    }
    return {r, w};
}

// Measures a phase: time, I/O, and the process's peak resident memory at its end.
class PhaseMeter {
  public:
    PhaseMeter() : t_(Clock::now()), io_(io_bytes()) {}
    PhaseReport done() const {
        const auto io = io_bytes();
        return PhaseReport{since(t_), io.first - io_.first, io.second - io_.second,
                           process::peak_rss_bytes()};
    }

  private:
    Clock::time_point t_;
    std::pair<std::uint64_t, std::uint64_t> io_;
};

std::string gib(std::uint64_t bytes) {
    char buf[32];
    if (bytes < (std::uint64_t{1} << 30))
        std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1u << 20));
    else
        std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / (1u << 30));
    return buf;
}

std::uint64_t free_bytes(const std::filesystem::path& p) {
    std::error_code ec;
    const auto s = std::filesystem::space(existing_parent(p), ec);
    return ec ? UINT64_MAX : s.available;
}

// Refuses a run whose estimate (estimate_resources()) exceeds the memory budget or the free
// disk, before any work. An upper-bound estimate (another ruleset's) refuses nothing. The budget
// it advises is at least `least` bytes (what any run takes: least_memory_budget()).
void check_resources(const Board& b, Ruleset rules, std::uint64_t budget, std::uint64_t least,
                     const std::filesystem::path& work, const std::filesystem::path& output) {
    const auto e = estimate_resources(b, rules);
    if (!e || e->upper_bound) return;
    const std::string what = b.name() + " " + ruleset_name(rules);
    if (e->memory_bytes > budget) {
        throw ResourceError(
            "memory budget of " + std::to_string(budget) + " bytes (" + gib(budget) +
            ") cannot hold the solve of " + what + "'s largest layer (" +
            std::to_string(e->largest_layer) + " positions): it needs about " +
            gib(e->memory_bytes) + " (" + e->source + "); rerun with --memory " +
            std::to_string((std::max(e->memory_bytes, least) >> 20) + 1) + "M or more");
    }
    // The work directory may already hold part of the work (a resumed run).
    std::error_code ec;
    const std::uint64_t held = std::filesystem::exists(work, ec) ? directory_bytes(work) : 0;
    std::uint64_t need_work = e->work_bytes > held ? e->work_bytes - held : 0;
    std::uint64_t need_out = output.empty() ? 0 : e->table_bytes;
    struct stat sw {
    }, so{};
    const bool same = !output.empty() && ::stat(existing_parent(work).c_str(), &sw) == 0 &&
                      ::stat(existing_parent(output).c_str(), &so) == 0 && sw.st_dev == so.st_dev;
    if (same) need_work += need_out, need_out = 0;
    auto refuse = [&](const std::filesystem::path& where, std::uint64_t need, std::uint64_t have) {
        throw ResourceError(where.string() + ": " + gib(have) + " free on its file system, " +
                            what + " needs about " + gib(need) + " there (" + e->source + ")");
    };
    if (const auto have = free_bytes(work); need_work > have) refuse(work, need_work, have);
    if (const auto have = free_bytes(output); need_out > have) refuse(output, need_out, have);
}

}  // namespace

GenerateReport generate(const GenerateOptions& o) {
    const auto t0 = Clock::now();
    GenerateReport rep;
    rep.threads = o.threads > 0 ? o.threads : omp_get_max_threads();
    rep.memory_bytes = o.memory_bytes ? o.memory_bytes : default_memory_budget();
    const int threads = rep.threads;
    const Board& b = o.board;
    // Before any work (and before the work directory, which would create it).
    preflight_generate(o);
    std::unique_ptr<process::TempDir> tmp;
    std::filesystem::path work = o.work_dir;
    if (work.empty() && !o.output.empty()) work = default_work_dir(o.output);
    const Opening opening = opening_of(o);
    // A gap's table is a part of the ruleset tables the estimates are measured on: none is given.
    if (!o.gap) {
        check_resources(b, o.rules, rep.memory_bytes, least_memory_budget(o.process_bytes),
                        work.empty() ? std::filesystem::temp_directory_path() : work, o.output);
    }
    if (o.process_bytes > 0) check_memory_budget(rep.memory_bytes, o.process_bytes);
    if (work.empty()) {
        tmp = std::make_unique<process::TempDir>("konane-generate");
        work = tmp->path() / "work";
    }
    WorkDir wd(work, b, opening);
    rep.resumed = wd.resumed();
    std::uint64_t peak_work = 0;
    auto note_disk = [&] { peak_work = std::max(peak_work, wd.bytes_on_disk()); };

    // Enumeration, in bounded memory and resumable.
    {
        PhaseMeter meter;
        EnumerateOptions eo;
        eo.threads = threads;
        eo.memory_bytes = rep.memory_bytes - o.process_bytes;
        eo.progress = [&](const char* phase, int pieces, std::uint64_t done, std::uint64_t total) {
            if (done == total) note_disk();
            if (o.progress) o.progress(phase, pieces, done, total);
        };
        rep.runs_written = enumerate_to(wd, b, opening, eo);
        note_disk();
        rep.enumerate_phase = meter.done();
    }
    const std::vector<int> order = wd.layers_with_positions();
    for (int n : order)
        rep.enumerate_seconds += wd.layer(n).enumerate_seconds;
    if (!o.output.empty() && order.empty()) {
        throw std::invalid_argument(std::string("no position is reachable after the removals on ") +
                                    b.name() + " " + opening_text(b, opening) +
                                    ": there is no table to write");
    }

    // Layer n only needs the solved layers n-1 .. n-max_capture(b).
    const int most_captured = max_capture(b);
    auto window_of = [&](int n) {
        std::uint64_t w = 0;
        for (int k = 1; k <= most_captured && n - k >= 0; ++k)
            w += wd.layer(n - k).classes;
        return w;
    };
    // Every layer is checked before the first is solved, and a refusal names the budget the
    // whole rest of the run needs (its largest layer's), not only the first layer over it.
    int worst_layer = -1;
    std::uint64_t worst = 0;
    for (int n : order) {
        const std::uint64_t need = solve_memory_bytes(wd.layer(n).classes, window_of(n));
        if (need > worst) worst = need, worst_layer = n;
    }
    if (worst > rep.memory_bytes) {
        throw ResourceError(
            "memory budget " + gib(rep.memory_bytes) + " cannot hold the solve of " + b.name() +
            ": its largest layer, " + std::to_string(worst_layer) + " pieces (" +
            std::to_string(wd.layer(worst_layer).classes) + " positions), needs about " +
            gib(worst) + "; rerun with --memory " + std::to_string((worst >> 20) + 1) +
            "M or more (enough for every layer) to resume from the work directory " +
            wd.path().string());
    }

    std::unique_ptr<format::TableWriter> writer;
    if (!o.output.empty()) {
        writer = std::make_unique<format::TableWriter>(o.output, table_meta(b, opening), threads);
    }

    PhaseMeter meter;
    std::uint64_t run_total = 0, run_done = 0;
    for (int n : order)
        run_total += wd.layer(n).classes;
    if (o.run_progress) o.run_progress(0, run_total);
    SolvedLookup lookup(b);
    std::vector<std::unique_ptr<SolvedLayer>> live;  // layers the lookup still refers to
    for (int n : order) {
        const LayerRecord rec = wd.layer(n);
        std::vector<std::uint64_t> keys = read_key_file(wd.layer_keys(n));
        if (keys.size() != rec.classes) {
            throw std::runtime_error("work file " + wd.layer_keys(n).string() + ": " +
                                     std::to_string(keys.size()) + " keys, the manifest says " +
                                     std::to_string(rec.classes));
        }
        auto layer = std::make_unique<SolvedLayer>();
        layer->pieces = n;
        layer->raw = rec.raw;
        LayerReport lr;
        lr.pieces = n;
        lr.classes = rec.classes;
        lr.raw = rec.raw;
        lr.enumerate_seconds = rec.enumerate_seconds;
        std::vector<Depth> by_rank;  // the depths in key order, as the file stores them
        if (rec.solved) {
            // Solved before an interruption: read back the hash and the depths.
            // In huge pages, as a layer solved here would be: the next layers look up depths
            // in it at random.
            layer->mphf = Mphf::from_words(process::huge_copy(read_key_file(wd.solved_mphf(n))));
            layer->depth = process::huge_copy(read_byte_file(wd.solved_depth(n), keys.size()));
            if (layer->mphf.size() != keys.size()) {
                throw std::runtime_error("work file " + wd.solved_mphf(n).string() +
                                         ": perfect hash of the wrong size");
            }
            layer->hash_seconds = rec.hash_seconds;
            layer->solve_seconds = rec.solve_seconds;
            lr.max_depth = rec.max_depth;
        } else {
            auto t = Clock::now();
            if (o.progress) o.progress("hash", n, 0, keys.size());
            layer->mphf = Mphf::build(keys, threads, Mphf::kDefaultSeed, kFastBuild);
            layer->hash_seconds = since(t);
            t = Clock::now();
            solve_layer(b, lookup, *layer, keys, by_rank, threads, o.progress);
            layer->solve_seconds = since(t);
            for (Depth d : layer->depth)
                lr.max_depth = std::max<int>(lr.max_depth, d);
            write_key_file(wd.solved_mphf(n), layer->mphf.words(), threads, false);
            process::kill_point();
            write_byte_file(wd.solved_depth(n), layer->depth, threads);
            process::kill_point();
            wd.record_solved(n, lr.max_depth, layer->hash_seconds, layer->solve_seconds);
            note_disk();
        }
        lr.hash_seconds = layer->hash_seconds;
        lr.solve_seconds = layer->solve_seconds;
        lr.mphf_bytes = layer->mphf.size_bytes();
        rep.hash_seconds += lr.hash_seconds;
        rep.solve_seconds += lr.solve_seconds;

        if (writer) {
            const auto t = Clock::now();
            if (o.progress) o.progress("write", n, 0, keys.size());
            if (by_rank.empty() && !keys.empty()) {
                // Read back from the work directory: the file stores values by rank (the keys'
                // sorted order), not by hash slot.
                const MphfView mph = layer->mphf.view();
                by_rank.resize(keys.size());
                const auto count = static_cast<std::int64_t>(keys.size());
#pragma omp parallel for num_threads(threads) if (count > 65536) schedule(static)
                for (std::int64_t i = 0; i < count; ++i) {
                    by_rank[i] = layer->depth[mph(keys[i])];
                }
            }
            writer->add_layer(
                format::LayerInfo{static_cast<std::uint32_t>(n), keys.size(), rec.raw}, keys,
                by_rank);
            rep.write_seconds += since(t);
        }
        rep.classes += lr.classes;
        rep.raw += lr.raw;
        rep.mphf_bytes += lr.mphf_bytes;
        rep.layers.push_back(lr);
        run_done += lr.classes;
        if (o.run_progress) o.run_progress(run_done, run_total);

        if (o.keep_layers) layer->keys = std::move(keys);
        keys = {};
        lookup.add(*layer);
        live.push_back(std::move(layer));
        if (!o.keep_layers) drop_unreachable_layers(lookup, live, n, most_captured);
    }
    if (writer) {
        const auto t = Clock::now();
        writer->commit();
        rep.write_seconds += since(t);
        rep.file_bytes = std::filesystem::file_size(o.output);
    }
    rep.solve_phase = meter.done();
    if (o.keep_layers) {
        for (auto& l : live)
            rep.solved.push_back(std::move(*l));
    }
    note_disk();
    const std::uint64_t recorded_rss = wd.recorded_peak_rss();
    rep.peak_work_bytes = std::max(peak_work, wd.recorded_peak_disk());
    if (!o.keep_work || tmp) wd.remove_all();
    rep.total_seconds = since(t0);
    // The peak of every run that worked on this table (a resumed run's own is lower).
    rep.peak_rss_bytes = std::max(
        {rep.enumerate_phase.peak_rss_bytes, rep.solve_phase.peak_rss_bytes, recorded_rss});
    return rep;
}

}  // namespace konane::solver
