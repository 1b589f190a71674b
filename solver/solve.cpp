#include "solver/solve.hpp"

#include <omp.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
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
#include "solver/pipeline.hpp"
#include "solver/preflight.hpp"
#include "solver/retrograde.hpp"
#include "solver/retrograde_join.hpp"
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

// The keys of a key file as a source of Mphf::build_streamed(): read from the file at each
// call, in chunks of 2^22 keys (32 MiB).
Mphf::KeySource key_source(const std::filesystem::path& file) {
    return [file](const std::function<void(std::span<const std::uint64_t>)>& sink) {
        KeyFileReader r(file);
        std::vector<std::uint64_t> chunk, part;
        while (r.next(part)) {
            chunk.insert(chunk.end(), part.begin(), part.end());
            if (chunk.size() >= (std::size_t{1} << 22)) {
                sink(chunk);
                chunk.clear();
            }
        }
        if (!chunk.empty()) sink(chunk);
    };
}

// The whole of each layer in this process, one part per layer: the enumeration's runs, the
// layers' keys and the solved layers in the work directory (WorkDir), the solved layers the
// next layers' jumps reach in memory (SolvedLookup). The store of generate().
class WholeLayers final : public LayerStore {
  public:
    WholeLayers(const GenerateOptions& o, GenerateReport& rep, WorkDir& wd)
        : o_(o),
          rep_(rep),
          wd_(wd),
          b_(o.board),
          threads_(rep.threads),
          most_captured_(max_capture(o.board)),
          lookup_(o.board) {}

    // The most bytes the work directory held, as this store saw it.
    std::uint64_t peak_work() const { return peak_work_; }
    // Seconds spent building perfect hashes of layers solved by joins (index_by_slot()).
    double index_seconds() const { return index_seconds_; }
    void note_disk() { peak_work_ = std::max(peak_work_, wd_.bytes_on_disk()); }
    const PhaseMeter& solve_meter() const { return *solve_meter_; }
    std::vector<std::unique_ptr<SolvedLayer>>& live() { return live_; }

    // Enumeration, in bounded memory and resumable (enumerate_to()).
    std::vector<LayerCount> enumerate() override {
        PhaseMeter meter;
        EnumerateOptions eo;
        eo.threads = threads_;
        eo.memory_bytes = rep_.memory_bytes - o_.process_bytes;
        eo.progress = [&](const char* phase, int pieces, std::uint64_t done, std::uint64_t total) {
            if (done == total) note_disk();
            if (o_.progress) o_.progress(phase, pieces, done, total);
        };
        rep_.runs_written = enumerate_to(wd_, b_, opening_of(o_), eo);
        note_disk();
        rep_.enumerate_phase = meter.done();
        std::vector<LayerCount> layers;
        for (int n : wd_.layers_with_positions()) {
            const LayerRecord& r = wd_.layer(n);
            layers.push_back(LayerCount{n, r.classes, r.raw, r.enumerate_seconds});
            rep_.enumerate_seconds += r.enumerate_seconds;
        }
        return layers;
    }

    // Every layer is checked before the first is solved, and a refusal names the budget the
    // whole rest of the run needs (its largest layer's), not only the first layer over it.
    // Layer n only needs the solved layers n-1 .. n-max_capture(b). A layer whose keys and
    // perfect hash's build the budget cannot hold together gets its hash built from its key
    // file (solve_memory_bytes_streamed()).
    void prepare_solve(const std::vector<LayerCount>& layers) override {
        auto window_of = [&](int n) {
            std::uint64_t w = 0;
            for (int k = 1; k <= most_captured_ && n - k >= 0; ++k)
                w += wd_.layer(n - k).classes;
            return w;
        };
        int worst_layer = -1;
        std::uint64_t worst = 0;
        for (const LayerCount& l : layers) {
            const std::uint64_t window = window_of(l.pieces);
            std::uint64_t need = solve_memory_bytes(l.classes, window);
            if (need > rep_.memory_bytes) {
                streamed_.insert(l.pieces);
                need = solve_memory_bytes_streamed(l.classes, window);
            }
            if (need > worst) worst = need, worst_layer = l.pieces;
        }
        if (worst > rep_.memory_bytes) {
            throw ResourceError(
                "memory budget " + gib(rep_.memory_bytes) + " cannot hold the solve of " +
                b_.name() + ": its largest layer, " + std::to_string(worst_layer) + " pieces (" +
                std::to_string(wd_.layer(worst_layer).classes) + " positions), needs about " +
                gib(worst) + "; rerun with --memory " + std::to_string((worst >> 20) + 1) +
                "M or more (enough for every layer) to resume from the work directory " +
                wd_.path().string());
        }
        plan_methods(layers, window_of);
        solve_meter_.emplace();
    }

    // Which layers are solved by sort-merge joins (GenerateOptions::solve_by), and in which
    // forms each solved layer is kept for the layers above: the perfect hash and depths by slot
    // (lookup_) for a layer solved by look-ups, the keys and depths by rank (ranked_) for a
    // join. Under `automatic`, every layer from the first of join_from_positions up joins (a
    // layer solved by look-ups above joined layers would need their perfect hashes built) if
    // the budget holds each of them (join_memory_bytes()); none joins otherwise. The layers
    // just below the first join are kept both ways while the last look-ups run (9 bytes
    // per position of layers under join_from_positions).
    template <class WindowOf>
    void plan_methods(const std::vector<LayerCount>& layers, const WindowOf& window_of) {
        const auto size = static_cast<std::size_t>(b_.squares()) + 1;
        join_.assign(size, 0);
        need_lookup_.assign(size, 0);
        need_ranked_.assign(size, 0);
        const SolveMethod method = o_.keep_layers ? SolveMethod::hash : o_.solve_by;
        if (method == SolveMethod::join) {
            // The refusal names the largest need of the layers still to solve (layers solved
            // before are read back), so that one rerun with that budget goes through.
            const LayerCount* worst = nullptr;
            std::uint64_t worst_need = 0;
            for (const LayerCount& l : layers) {
                const std::uint64_t need =
                    join_memory_bytes(l.classes, window_of(l.pieces), threads_);
                if (!wd_.layer(l.pieces).solved && need > worst_need) worst_need = need, worst = &l;
            }
            if (worst_need > rep_.memory_bytes) {
                throw ResourceError(
                    "memory budget " + gib(rep_.memory_bytes) + " cannot hold the solve of " +
                    b_.name() + " by sort-merge joins: its largest layer still to solve, " +
                    std::to_string(worst->pieces) + " pieces (" + std::to_string(worst->classes) +
                    " positions), needs about " + gib(worst_need) + "; rerun with --memory " +
                    std::to_string((worst_need >> 20) + 1) +
                    "M or more, or --solve-by auto, to resume from the work directory " +
                    wd_.path().string());
            }
        }
        bool joining = false;
        for (const LayerCount& l : layers) {
            if (method == SolveMethod::hash) break;
            const std::uint64_t need = join_memory_bytes(l.classes, window_of(l.pieces), threads_);
            const bool fits = need <= rep_.memory_bytes || method == SolveMethod::join;
            joining = joining || l.classes >= o_.join_from_positions || method == SolveMethod::join;
            join_[static_cast<std::size_t>(l.pieces)] = joining;
            // All or none: a layer looked up by perfect hash above joined layers would hold
            // their keys and depths beside its perfect hashes, which no estimate counts.
            if (joining && !fits) {
                std::fill(join_.begin(), join_.end(), 0);
                break;
            }
        }
        for (const LayerCount& l : layers) {
            for (int k = 1; k <= most_captured_ && l.pieces - k >= 0; ++k) {
                auto& need =
                    join_[static_cast<std::size_t>(l.pieces)] ? need_ranked_ : need_lookup_;
                need[static_cast<std::size_t>(l.pieces - k)] = 1;
            }
        }
    }

    // The layer being solved by its perfect hash's slots, built from its keys and depths by
    // rank (a layer solved by joins that a layer solved by look-ups reaches). A layer whose
    // keys and perfect hash's build the budget cannot hold together (streamed_) lets its keys
    // go during the build, which reads them from its key file, and reads them back after.
    void index_by_slot(int n) {
        const auto t = Clock::now();
        build_hash(n, streamed_.contains(n));
        process::assign_huge(layer_->depth, keys_.size());
        scatter_by_slot(layer_->mphf.view(), keys_, by_rank_, layer_->depth.data(), threads_);
        if (o_.progress) o_.progress("hash", n, keys_.size(), keys_.size());
        index_seconds_ += since(t);
    }

    // layer_->mphf over layer n's keys: from keys_, or when `streamed` from its key file, keys_
    // let go during the build and read back after it.
    void build_hash(int n, bool streamed) {
        if (streamed) {
            keys_ = {};
            ++rep_.streamed_layers;
            layer_->mphf = Mphf::build_streamed(wd_.layer(n).classes, key_source(wd_.layer_keys(n)),
                                                threads_, Mphf::kDefaultSeed, kFastBuild);
            read_keys(n);
        } else {
            layer_->mphf = Mphf::build(keys_, threads_, Mphf::kDefaultSeed, kFastBuild);
        }
    }

    // keys_ from layer n's key file, checked against the manifest's count.
    void read_keys(int n) {
        keys_ = read_key_file(wd_.layer_keys(n));
        if (const std::uint64_t classes = wd_.layer(n).classes; keys_.size() != classes) {
            throw std::runtime_error("work file " + wd_.layer_keys(n).string() + ": " +
                                     std::to_string(keys_.size()) + " keys, the manifest says " +
                                     std::to_string(classes));
        }
    }

    // by_rank_ from the layer's perfect hash and depths by slot, when it was read back so.
    void rank_from_slots() {
        if (!by_rank_.empty() || keys_.empty()) return;
        const MphfView mph = layer_->mphf.view();
        by_rank_.resize(keys_.size());
        const auto count = static_cast<std::int64_t>(keys_.size());
        const auto& depth = layer_->depth;
        const auto& keys = keys_;
        auto& by_rank = by_rank_;
#pragma omp parallel for num_threads(threads_) if (count > 65536) schedule(static)
        for (std::int64_t i = 0; i < count; ++i) {
            by_rank[i] = depth[mph(keys[i])];
        }
    }

    // The layer's depths, by perfect-hash slot (look-ups) or by rank (joins): solved here (then
    // kept in the work directory), or read back from it when an earlier run solved the layer.
    void solve(const LayerCount& l, LayerReport& lr) override {
        const int n = l.pieces;
        const LayerRecord rec = wd_.layer(n);
        // A layer whose perfect hash is built from its key file reads its keys after the build.
        const bool streamed =
            streamed_.contains(n) && !rec.solved && !join_[static_cast<std::size_t>(n)];
        if (!streamed) read_keys(n);
        layer_ = std::make_unique<SolvedLayer>();
        layer_->pieces = n;
        layer_->raw = rec.raw;
        by_rank_.clear();  // the depths in key order, as the file stores them
        if (rec.solved && rec.by_rank) {
            // Solved by joins before an interruption: read back the depths by rank.
            by_rank_ = read_byte_file(wd_.solved_depth(n), keys_.size());
            layer_->hash_seconds = rec.hash_seconds;
            layer_->solve_seconds = rec.solve_seconds;
            lr.max_depth = rec.max_depth;
            lr.by_join = true;
        } else if (rec.solved) {
            // Solved before an interruption: read back the hash and the depths.
            // In huge pages, as a layer solved here would be: the next layers look up depths
            // in it at random.
            layer_->mphf = Mphf::from_words(process::huge_copy(read_key_file(wd_.solved_mphf(n))));
            layer_->depth = process::huge_copy(read_byte_file(wd_.solved_depth(n), keys_.size()));
            if (layer_->mphf.size() != keys_.size()) {
                throw std::runtime_error("work file " + wd_.solved_mphf(n).string() +
                                         ": perfect hash of the wrong size");
            }
            layer_->hash_seconds = rec.hash_seconds;
            layer_->solve_seconds = rec.solve_seconds;
            lr.max_depth = rec.max_depth;
        } else if (join_[static_cast<std::size_t>(n)]) {
            const auto t = Clock::now();
            std::vector<RankedLayer> below;
            for (const auto& [m, r] : ranked_)
                below.push_back(RankedLayer{m, r.keys, r.depth});
            solve_layer_by_join(b_, keys_, n, below, by_rank_, threads_, o_.progress);
            layer_->solve_seconds = since(t);
            for (Depth d : by_rank_)
                lr.max_depth = std::max<int>(lr.max_depth, d);
            write_byte_file(wd_.solved_depth(n), by_rank_, threads_);
            process::kill_point();
            wd_.record_solved(n, lr.max_depth, 0, layer_->solve_seconds, true);
            note_disk();
            lr.by_join = true;
        } else {
            auto t = Clock::now();
            if (o_.progress) o_.progress("hash", n, 0, rec.classes);
            build_hash(n, streamed);
            layer_->hash_seconds = since(t);
            t = Clock::now();
            solve_layer(b_, lookup_, *layer_, keys_, by_rank_, threads_, o_.progress);
            layer_->solve_seconds = since(t);
            for (Depth d : layer_->depth)
                lr.max_depth = std::max<int>(lr.max_depth, d);
            write_key_file(wd_.solved_mphf(n), layer_->mphf.words(), threads_, false);
            process::kill_point();
            write_byte_file(wd_.solved_depth(n), layer_->depth, threads_);
            process::kill_point();
            wd_.record_solved(n, lr.max_depth, layer_->hash_seconds, layer_->solve_seconds);
            note_disk();
        }
        lr.hash_seconds = layer_->hash_seconds;
        lr.solve_seconds = layer_->solve_seconds;
        lr.mphf_bytes = layer_->mphf.size_bytes();
        if (lr.by_join) ++rep_.join_layers;
    }

    // The layer's keys and depths in key order, one whole layer to the writer.
    void write(const LayerCount& l, format::TableWriter* writer) override {
        if (!writer) return;
        if (o_.progress) o_.progress("write", l.pieces, 0, keys_.size());
        // Read back from the work directory by slot: the file stores values by rank (the keys'
        // sorted order).
        rank_from_slots();
        writer->add_layer(
            format::LayerInfo{static_cast<std::uint32_t>(l.pieces), keys_.size(), l.raw}, keys_,
            by_rank_);
    }

    // The layer joins the look-up (or the joins) of the layers above, in the forms they need
    // (plan_methods()); the layers no later jump reaches go.
    void done(const LayerCount& l) override {
        const int n = l.pieces;
        const auto at = static_cast<std::size_t>(n);
        // (Before layer_ goes to the look-up: a layer read back by slot and written to no
        // table has no depths by rank yet.)
        if (need_ranked_[at]) rank_from_slots();
        if (o_.keep_layers || need_lookup_[at]) {
            if (layer_->mphf.size() != keys_.size()) index_by_slot(n);
            if (o_.keep_layers) layer_->keys = std::move(keys_);
            lookup_.add(*layer_);
            live_.push_back(std::move(layer_));
        }
        if (need_ranked_[at]) ranked_[n] = Ranked{std::move(keys_), std::move(by_rank_)};
        layer_.reset();
        keys_ = {};
        by_rank_ = {};
        if (!o_.keep_layers) {
            drop_unreachable_layers(lookup_, live_, n, most_captured_);
            // Nor the layers that only joins above n still read (they hold them by rank).
            for (auto& kept : live_) {
                if (!kept) continue;
                bool looked_up = false;
                for (int k = n + 1; k <= std::min(kept->pieces + most_captured_, b_.squares()); ++k)
                    looked_up = looked_up || !join_[static_cast<std::size_t>(k)];
                if (!looked_up) {
                    lookup_.remove(kept->pieces);
                    kept.reset();
                }
            }
        }
        // No layer above n - most_captured_ + 1 .. n reaches the others.
        std::erase_if(ranked_, [&](const auto& r) { return r.first <= n - most_captured_; });
    }

  private:
    const GenerateOptions& o_;
    GenerateReport& rep_;
    WorkDir& wd_;
    const Board& b_;
    int threads_;
    int most_captured_;
    std::uint64_t peak_work_ = 0;
    std::optional<PhaseMeter> solve_meter_;
    std::set<int> streamed_;  // layers whose perfect hash is built from their key file
    SolvedLookup lookup_;
    std::vector<std::unique_ptr<SolvedLayer>> live_;  // layers the lookup still refers to
    // Per piece count (plan_methods()): solved by joins; kept for look-ups; kept by rank.
    std::vector<char> join_, need_lookup_, need_ranked_;
    struct Ranked {
        std::vector<std::uint64_t> keys;
        std::vector<Depth> depth;  // by rank
    };
    std::map<int, Ranked> ranked_;  // the solved layers the next joins read
    double index_seconds_ = 0;
    // The layer between solve() and done(): its keys, solved layer and depths by rank.
    std::vector<std::uint64_t> keys_;
    std::unique_ptr<SolvedLayer> layer_;
    std::vector<Depth> by_rank_;
};

}  // namespace

int generate_threads(int requested) {
    return requested > 0 ? requested : omp_get_max_threads();
}

GenerateReport generate(const GenerateOptions& o) {
    const auto t0 = Clock::now();
    GenerateReport rep;
    rep.threads = generate_threads(o.threads);
    rep.memory_bytes = o.memory_bytes ? o.memory_bytes : default_memory_budget();
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

    WholeLayers store(o, rep, wd);
    const PipelineReport run = run_pipeline(store, pipeline_options(o, rep.threads));
    rep.layers = run.layers;
    rep.classes = run.classes;
    rep.raw = run.raw;
    rep.hash_seconds = run.hash_seconds + store.index_seconds();
    rep.solve_seconds = run.solve_seconds;
    rep.write_seconds = run.write_seconds;
    rep.file_bytes = run.file_bytes;
    for (const LayerReport& l : run.layers)
        rep.mphf_bytes += l.mphf_bytes;
    rep.solve_phase = store.solve_meter().done();
    if (o.keep_layers) {
        for (auto& l : store.live())
            rep.solved.push_back(std::move(*l));
    }
    store.note_disk();
    const std::uint64_t recorded_rss = wd.recorded_peak_rss();
    rep.peak_work_bytes = std::max(store.peak_work(), wd.recorded_peak_disk());
    if (!o.keep_work || tmp) wd.remove_all();
    rep.total_seconds = since(t0);
    // The peak of every run that worked on this table (a resumed run's own is lower).
    rep.peak_rss_bytes = std::max(
        {rep.enumerate_phase.peak_rss_bytes, rep.solve_phase.peak_rss_bytes, recorded_rss});
    return rep;
}

}  // namespace konane::solver
