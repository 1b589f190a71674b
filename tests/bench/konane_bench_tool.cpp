// konane_bench_tool: the measuring programs behind scripts/bench and docs/results.md.
// Each subcommand prints one JSON object on stdout; times are in seconds unless a field's name
// says otherwise (_ns, _us, _ms).
//
//   mphf      our perfect hash against BBHash on the canonical keys of a layer and on random keys
//   probe     probe latency of value() and best_move(): warm, random order, cold
//   size      file size per section and layer beside the order-0 entropy of the stored values
//   baseline  alpha-beta with a transposition table (tests/bench/alphabeta.hpp) against the
//             table: the openings table and the perfect move in random mid-game positions
//   refsolve  the plain memoised negamax of the tests (tests/reference.hpp) over every
//             reachable position of a board
//   regions   every opening of a board decided by the proof search without and with region
//             values (ProofOptions::region_max_pieces), alternated, checked equal: nodes, CPU
//   solve-join  the solve of one layer of a kept work directory two ways, alternated: the
//             generator's perfect-hash look-ups (recompute_layer) and sort-merge joins
//             (solve_layer_by_join), checked equal
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "tests/bench/bbhash.hpp"

#include "core/board.hpp"
#include "core/movegen.hpp"
#include "core/notation.hpp"
#include "core/symmetry.hpp"
#include "format/table.hpp"
#include "index/mphf.hpp"
#include "probe/openings.hpp"
#include "probe/probe.hpp"
#include "search/proof.hpp"
#include "solver/entry_packing.hpp"
#include "solver/enumerate.hpp"
#include "solver/keyfile.hpp"
#include "solver/retrograde.hpp"
#include "solver/retrograde_join.hpp"
#include "tests/bench/alphabeta.hpp"
#include "tests/reference.hpp"

namespace {

using json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;
using namespace konane;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}
double ns_between(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::nano>(b - a).count();
}

/// Quantile q (0..1) of v (nearest rank on a sorted copy).
double quantile(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const auto i = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
    return v[std::min(v.size() - 1, i == 0 ? 0 : i - 1)];
}
double median(const std::vector<double>& v) {
    return quantile(v, 0.5);
}

json summary_ns(const std::vector<double>& ns) {
    return {{"count", ns.size()},
            {"median_ns", median(ns)},
            {"p99_ns", quantile(ns, 0.99)},
            {"min_ns", quantile(ns, 0.0)},
            {"max_ns", quantile(ns, 1.0)}};
}

// ---- mphf ------------------------------------------------------------------------------------

/// Per-query time (ns) of `f` over `queries`, in batches of `batch` queries; the median and
/// spread over the batches. Independent queries (throughput) or a dependency chain (latency).
template <class F>
json query_times(const std::vector<std::uint64_t>& queries, std::size_t batch, int rounds, F&& f,
                 bool chained) {
    std::vector<double> per_query;
    std::uint64_t sink = 0;
    for (int r = 0; r < rounds; ++r) {
        for (std::size_t at = 0; at + batch <= queries.size(); at += batch) {
            const auto t0 = Clock::now();
            if (chained) {
                std::uint64_t prev = 0;
                for (std::size_t i = at; i < at + batch; ++i)
                    prev = f(queries[i] ^ (prev >> 63));
                sink += prev;
            } else {
                std::uint64_t acc = 0;
                for (std::size_t i = at; i < at + batch; ++i)
                    acc += f(queries[i]);
                sink += acc;
            }
            per_query.push_back(ns_between(t0, Clock::now()) / static_cast<double>(batch));
        }
    }
    if (sink == 42) std::fprintf(stderr, " ");  // keep the work
    return {{"batches", per_query.size()},
            {"batch", batch},
            {"median_ns", median(per_query)},
            {"p10_ns", quantile(per_query, 0.1)},
            {"p90_ns", quantile(per_query, 0.9)}};
}

/// BBHash's size in bits (its totalBitSize() prints a breakdown on stdout, which is ours: it is
/// sent to stderr instead).
double bbhash_bits(BBHash& f) {
    std::fflush(stdout);
    const int saved = ::dup(1);
    ::dup2(2, 1);
    const double bits = static_cast<double>(f.totalBitSize());
    std::fflush(stdout);
    ::dup2(saved, 1);
    ::close(saved);
    return bits;
}

json bench_key_set(const std::string& name, const std::vector<std::uint64_t>& keys, int reps,
                   const std::vector<int>& threads) {
    std::fprintf(stderr, "mphf: %s, %zu keys\n", name.c_str(), keys.size());
    json out;
    out["keys"] = name;
    out["n"] = keys.size();
    // Query keys: 2^22 member keys in random order (far more than any cache holds).
    std::mt19937_64 rng(12345);
    std::vector<std::uint64_t> queries(std::size_t{1} << 22);
    for (auto& q : queries)
        q = keys[rng() % keys.size()];
    const std::size_t batch = 1 << 14;
    const int rounds = 3;

    json ours = json::array();
    std::optional<Mphf> built;
    for (int t : threads) {
        std::vector<double> secs;
        for (int r = 0; r < reps; ++r) {
            const auto t0 = Clock::now();
            Mphf f = Mphf::build(keys, t);
            secs.push_back(seconds_since(t0));
            if (!built) built = std::move(f);
        }
        ours.push_back(
            {{"threads", t},
             {"build_seconds_median", median(secs)},
             {"build_keys_per_second", static_cast<double>(keys.size()) / median(secs)}});
    }
    {
        // Check: a bijection onto [0, n).
        std::vector<std::uint8_t> seen(keys.size(), 0);
        std::size_t bad = 0;
        for (auto k : keys) {
            const auto s = (*built)(k);
            if (s >= keys.size() || seen[s]++) ++bad;
        }
        if (bad) throw std::runtime_error("our MPHF is not a bijection on " + name);
    }
    const MphfView v = built->view();
    out["ours"] = {{"bits_per_key", v.bits_per_key()},
                   {"build", ours},
                   {"query", query_times(queries, batch, rounds, v, false)},
                   {"query_chained", query_times(queries, batch, rounds, v, true)}};

    json bb = json::array();
    for (double gamma : {1.0, 2.0}) {
        json builds = json::array();
        std::unique_ptr<BBHash> keep;
        for (int t : threads) {
            std::vector<double> secs;
            for (int r = 0; r < reps; ++r) {
                const auto t0 = Clock::now();
                auto f =
                    std::make_unique<BBHash>(keys.size(), boomphf::range(keys.begin(), keys.end()),
                                             t, gamma, false, false, 0.03f);
                secs.push_back(seconds_since(t0));
                if (!keep) keep = std::move(f);
            }
            builds.push_back(
                {{"threads", t},
                 {"build_seconds_median", median(secs)},
                 {"build_keys_per_second", static_cast<double>(keys.size()) / median(secs)}});
        }
        BBHash& f = *keep;
        auto q = [&f](std::uint64_t k) { return static_cast<std::uint64_t>(f.lookup(k)); };
        bb.push_back({{"gamma", gamma},
                      {"bits_per_key", bbhash_bits(f) / static_cast<double>(keys.size())},
                      {"build", builds},
                      {"query", query_times(queries, batch, rounds, q, false)},
                      {"query_chained", query_times(queries, batch, rounds, q, true)}});
    }
    out["bbhash"] = bb;
    return out;
}

int run_mphf(const std::string& board, const std::string& rules, int reps,
             const std::vector<int>& threads, int enum_threads) {
    const Board b = Board::parse(board);
    const auto t0 = Clock::now();
    auto layers = solver::enumerate(b, parse_ruleset(rules), enum_threads);
    const double enum_s = seconds_since(t0);
    auto largest = std::max_element(layers.begin(), layers.end(), [](const auto& x, const auto& y) {
        return x.keys.size() < y.keys.size();
    });
    std::vector<std::uint64_t> real = std::move(largest->keys);
    const int pieces = largest->pieces;
    layers.clear();
    std::mt19937_64 rng(real.size());
    std::shuffle(real.begin(), real.end(), rng);
    std::vector<std::uint64_t> random;
    random.reserve(real.size() + 1000);
    while (random.size() < real.size()) {
        while (random.size() < real.size())
            random.push_back(rng());
        std::sort(random.begin(), random.end());
        random.erase(std::unique(random.begin(), random.end()), random.end());
    }
    std::shuffle(random.begin(), random.end(), rng);
    json j;
    j["board"] = b.name();
    j["rules"] = rules;
    j["layer_pieces"] = pieces;
    j["enumerate_seconds"] = enum_s;
    j["reps"] = reps;
    j["sets"] = json::array({bench_key_set("layer", real, reps, threads),
                             bench_key_set("random", random, reps, threads)});
    std::printf("%s\n", j.dump().c_str());
    return 0;
}

// ---- sample positions ------------------------------------------------------------------------

/// `count` Play-stage positions with at least one jump: for each, a random game from the full
/// board (uniform random legal moves) stopped in the middle of its jump phase.
std::vector<Position> midgame_positions(const Board& b, Ruleset r, std::size_t count,
                                        std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<Position> out;
    while (out.size() < count) {
        std::vector<Position> line;
        Position p = b.start();
        for (;;) {
            const auto ms = legal_moves(b, r, p);
            if (ms.empty()) break;
            if (stage_of(b, p) == Stage::Play) line.push_back(p);
            p = ms[rng() % ms.size()].child;
        }
        if (!line.empty()) out.push_back(line[line.size() / 2]);
    }
    return out;
}

// ---- probe -----------------------------------------------------------------------------------

/// Drops the file from the page cache (clean pages are dropped; pages mapped by a live process
/// are not) and returns the fraction of its pages still resident afterwards (mincore).
double drop_page_cache(const std::filesystem::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) throw std::runtime_error("open " + path.string());
    ::fdatasync(fd);
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    struct stat st {};
    ::fstat(fd, &st);
    const std::size_t len = static_cast<std::size_t>(st.st_size);
    double resident = -1;
    void* m = ::mmap(nullptr, len, PROT_READ, MAP_SHARED, fd, 0);
    if (m != MAP_FAILED) {
        const long page = ::sysconf(_SC_PAGESIZE);
        std::vector<unsigned char> vec((len + page - 1) / page);
        if (::mincore(m, len, vec.data()) == 0) {
            std::size_t in = 0;
            for (auto c : vec)
                in += c & 1;
            resident = static_cast<double>(in) / static_cast<double>(vec.size());
        }
        ::munmap(m, len);
    }
    ::close(fd);
    return resident;
}

/// Reads the whole file once so that it sits in the page cache.
void warm_page_cache(const std::filesystem::path& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw std::runtime_error("open " + path.string());
    std::vector<char> buf(1 << 20);
    while (std::fread(buf.data(), 1, buf.size(), f) == buf.size()) {
    }
    std::fclose(f);
}

/// Probes value() and best_move() of every position of 200 random games (another seed than the
/// measured positions), so that the value code of every layer is loaded before timing and the
/// blocks checked so far are unrelated ones, as in a long-running program.
std::uint64_t warm_up(const Tablebase& tb, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    const Board& b = tb.board();
    std::uint64_t sink = 0;
    for (int g = 0; g < 200; ++g) {
        Position p = b.start();
        for (;;) {
            const auto ms = legal_moves(b, tb.rules(), p);
            if (ms.empty()) break;
            if (auto v = tb.value(p)) sink += v->depth;
            if (auto m = tb.best_move(p)) sink += m->move.to;
            p = ms[rng() % ms.size()].child;
        }
    }
    return sink;
}

/// The machine's huge-page state (format::huge_page_state()) and, when `t` is given, the memory
/// its table holds (format::Table::memory_use()) and the process's AnonHugePages from
/// /proc/self/smaps_rollup, as JSON.
json memory_json(const Tablebase* t) {
    const format::HugePageState h = format::huge_page_state();
    json j = {{"thp_anon", h.anon_mode},
              {"thp_shmem", h.shmem_mode},
              {"meminfo_anon_huge_pages", h.anon_huge_pages},
              {"meminfo_file_huge_pages", h.file_huge_pages},
              {"meminfo_file_pmd_mapped", h.file_pmd_mapped}};
    if (t != nullptr) {
        const format::MemoryUse m = t->table().memory_use();
        j["load"] = format::load_name(m.load);
        j["table_bytes"] = m.bytes;
        j["table_huge_bytes"] = m.huge;
        std::ifstream in("/proc/self/smaps_rollup");
        std::string line;
        while (std::getline(in, line)) {
            if (line.rfind("AnonHugePages:", 0) == 0)
                j["process_anon_huge_pages"] = std::stoll(line.substr(14)) * 1024;
            if (line.rfind("Rss:", 0) == 0) j["process_rss"] = std::stoll(line.substr(4)) * 1024;
        }
    }
    return j;
}

int run_probe(const std::string& file, std::size_t samples, std::size_t cold_samples,
              std::uint64_t seed, bool check_first, const format::OpenOptions& options) {
    const std::filesystem::path path(file);
    warm_page_cache(path);
    // The positions come from a table object closed before the timings: a table left open
    // would keep the folios it mapped in the page cache through the cold regime's drop (a
    // whole 2 MiB folio for one mapped page).
    std::optional<Tablebase> tb0 = Tablebase::open(path);
    const Board b = tb0->board();
    const auto pos = midgame_positions(b, tb0->rules(), samples, seed);
    tb0.reset();
    std::uint64_t sink = 0;
    json j;
    j["table"] = file;
    j["board"] = b.name();
    j["samples"] = pos.size();
    j["cold_samples"] = std::min(cold_samples, pos.size());
    {
        // Random order, page cache warm, fresh table: each probe finds its block checked only
        // when an earlier probe happened to read it (open maps the pages the cache holds).
        // With --check-first, each fresh table first checks every block (as `konane serve
        // --check`), so that the probes below hash none; the time it took is reported.
        auto check_all = [&](const Tablebase& t) {
            if (!check_first) return;
            const auto c0 = Clock::now();
            if (!t.table().verify_checksums().ok) throw std::runtime_error("verify failed");
            j["check_first_ns"] = ns_between(c0, Clock::now());
        };
        const auto o0 = Clock::now();
        const Tablebase tb = Tablebase::open(path, {}, options);
        j["open_ns"] = ns_between(o0, Clock::now());
        j["memory"] = memory_json(&tb);
        check_all(tb);
        sink += warm_up(tb, seed + 1000);
        std::vector<double> val, mv;
        for (const auto& p : pos) {
            const auto t0 = Clock::now();
            const auto v = tb.value(p);
            const auto t1 = Clock::now();
            sink += v ? static_cast<std::uint64_t>(v->depth) : 0;
            val.push_back(ns_between(t0, t1));
        }
        const Tablebase tb2 = Tablebase::open(path, {}, options);
        check_all(tb2);
        sink += warm_up(tb2, seed + 1000);
        for (const auto& p : pos) {
            const auto t0 = Clock::now();
            const auto m = tb2.best_move(p);
            const auto t1 = Clock::now();
            sink += m ? m->move.to : 0;
            mv.push_back(ns_between(t0, t1));
        }
        j["random"] = {{"value", summary_ns(val)}, {"best_move", summary_ns(mv)}};
    }
    {
        // Warm: the same position again right after a first probe (its blocks are decoded and
        // blocks checked, the pages resident).
        const Tablebase tb = Tablebase::open(path, {}, options);
        std::vector<double> val, mv;
        for (const auto& p : pos) {
            sink += tb.value(p)->depth;
            const auto t0 = Clock::now();
            const auto v = tb.value(p);
            const auto t1 = Clock::now();
            sink += v->depth;
            val.push_back(ns_between(t0, t1));
            sink += tb.best_move(p)->move.to;
            const auto t2 = Clock::now();
            const auto m = tb.best_move(p);
            const auto t3 = Clock::now();
            sink += m->move.to;
            mv.push_back(ns_between(t2, t3));
        }
        j["warm"] = {{"value", summary_ns(val)}, {"best_move", summary_ns(mv)}};
    }
    {
        // Cold: the file dropped from the page cache, the table opened afresh (not timed), then
        // the first probe: it reads and checks the blocks it needs from the disk.
        std::vector<double> val, mv, open_ns, resident;
        const std::size_t n = std::min(cold_samples, pos.size());
        for (std::size_t i = 0; i < n; ++i) {
            for (int what = 0; what < 2; ++what) {
                resident.push_back(drop_page_cache(path));
                const auto t0 = Clock::now();
                const Tablebase tb = Tablebase::open(path, {}, options);
                const auto t1 = Clock::now();
                open_ns.push_back(ns_between(t0, t1));
                if (what == 0) {
                    const auto v = tb.value(pos[i]);
                    const auto t2 = Clock::now();
                    sink += v->depth;
                    val.push_back(ns_between(t1, t2));
                } else {
                    const auto m = tb.best_move(pos[i]);
                    const auto t2 = Clock::now();
                    sink += m->move.to;
                    mv.push_back(ns_between(t1, t2));
                }
            }
        }
        j["cold"] = {{"value", summary_ns(val)},
                     {"best_move", summary_ns(mv)},
                     {"open", summary_ns(open_ns)},
                     {"resident_after_drop_max", quantile(resident, 1.0)}};
        warm_page_cache(path);
    }
    j["sink"] = sink;
    std::printf("%s\n", j.dump().c_str());
    return 0;
}

// ---- size ------------------------------------------------------------------------------------

double entropy_bits(const std::map<int, std::uint64_t>& hist, std::uint64_t n) {
    double h = 0;
    for (const auto& [v, c] : hist) {
        const double p = static_cast<double>(c) / static_cast<double>(n);
        if (c) h -= p * std::log2(p);
    }
    return h;
}

int run_size(const std::string& file) {
    const auto t = format::Table::open(file);
    json j;
    j["table"] = file;
    j["file_bytes"] = t->file_size();
    j["meta"] = {{"block_buckets", t->meta().block_buckets},
                 {"value_group", t->meta().value_group}};
    j["layers"] = json::array();
    std::map<int, std::uint64_t> all;
    std::uint64_t n_all = 0;
    format::SectionSizes sum;
    double entropy_sum_bits = 0;
    std::vector<std::uint8_t> values;
    // Every part in bits (SectionSizes), scaled by `per` (1/8: bytes; 1/n: bits per position).
    auto sections = [](const format::SectionSizes& s, double per) {
        return json{{"directory", s.directory * per}, {"ef_high", s.high * per},
                    {"ef_low", s.low * per},          {"index", s.index() * per},
                    {"val_code", s.code * per},       {"val_groups", s.groups * per},
                    {"val_codes", s.codes * per},     {"values", s.values() * per},
                    {"checks", s.checks * per},       {"padding", s.padding * per}};
    };
    for (std::size_t i = 0; i < t->layers().size(); ++i) {
        const auto& l = t->layers()[i];
        const auto s = t->section_sizes(i);
        t->read_values(i, values);
        std::map<int, std::uint64_t> hist;
        for (auto v : values)
            ++hist[v];
        for (const auto& [v, c] : hist)
            all[v] += c;
        const double h = entropy_bits(hist, l.classes);
        entropy_sum_bits += h * static_cast<double>(l.classes);
        n_all += l.classes;
        sum.directory += s.directory;
        sum.high += s.high;
        sum.low += s.low;
        sum.code += s.code;
        sum.groups += s.groups;
        sum.codes += s.codes;
        sum.checks += s.checks;
        sum.padding += s.padding;
        j["layers"].push_back({{"pieces", l.pieces},
                               {"classes", l.classes},
                               {"distinct_values", hist.size()},
                               {"entropy_bits", h},
                               {"bytes", sections(s, 1.0 / 8)},
                               {"bits_per_position", sections(s, 1.0 / l.classes)}});
    }
    const double per = 8.0 / static_cast<double>(n_all);
    // The header, layer table (less the code lengths, counted in the values) and trailer.
    const std::uint64_t other = t->file_size() - sum.total() / 8;
    j["classes"] = n_all;
    j["bytes"] = sections(sum, 1.0 / 8);
    j["bytes"]["other"] = other;
    j["bits_per_position"] = sections(sum, 1.0 / static_cast<double>(n_all));
    j["bits_per_position"]["other"] = other * per;
    j["bits_per_position"]["total"] = t->file_size() * per;
    j["entropy"] = {{"per_layer_weighted_bits", entropy_sum_bits / static_cast<double>(n_all)},
                    {"global_bits", entropy_bits(all, n_all)}};
    std::printf("%s\n", j.dump().c_str());
    return 0;
}

// ---- baseline --------------------------------------------------------------------------------

int run_baseline(const std::string& file, std::size_t positions, std::uint64_t seed, int tt_log2,
                 int reps, bool exact_openings) {
    const std::filesystem::path path(file);
    warm_page_cache(path);
    const Tablebase tb0 = Tablebase::open(path);
    const Board b = tb0.board();
    const Ruleset r = tb0.rules();
    json j;
    j["table"] = file;
    j["board"] = b.name();
    j["tt_entries"] = std::uint64_t{1} << tt_log2;
    j["tt_bytes"] = (std::uint64_t{1} << tt_log2) * 16;
    bench::AlphaBeta ab(b, tt_log2);
    std::size_t mismatches = 0;

    // 1. The openings table: winner and depth of every removal pair.
    {
        Openings ref;
        std::vector<double> table_secs;
        for (int i = 0; i < reps; ++i) {
            const auto t0 = Clock::now();
            const Tablebase tb = Tablebase::open(path);  // no block checked yet, pages warm
            ref = compute_openings(tb);
            table_secs.push_back(seconds_since(t0));
        }
        auto pos_of = [&](const OpeningLine& l) {
            return Position{
                b.all & ~(std::uint64_t{1} << l.black.from) & ~(std::uint64_t{1} << l.white.from),
                Color::Black};
        };
        std::vector<double> wdl_secs, exact_secs;
        std::uint64_t wdl_nodes = 0, exact_nodes = 0;
        for (int i = 0; i < reps; ++i) {
            ab.clear();
            const auto t0 = Clock::now();
            for (const auto& l : ref.lines) {
                const bool win = ab.wdl(pos_of(l));
                if (win != (l.winner == Color::Black)) ++mismatches;
            }
            wdl_secs.push_back(seconds_since(t0));
            wdl_nodes = ab.nodes();
        }
        if (exact_openings) {
            for (int i = 0; i < reps; ++i) {
                ab.clear();
                const auto t0 = Clock::now();
                for (const auto& l : ref.lines) {
                    const int s = ab.exact(pos_of(l));
                    if ((s > 0) != (l.winner == Color::Black) ||
                        bench::AlphaBeta::depth_of_score(s) != l.depth)
                        ++mismatches;
                }
                exact_secs.push_back(seconds_since(t0));
                exact_nodes = ab.nodes();
            }
        }
        j["openings"] = {{"pairs", ref.lines.size()},
                         {"reps", reps},
                         {"table_seconds_median", median(table_secs)},
                         {"alphabeta_wdl_seconds_median", median(wdl_secs)},
                         {"alphabeta_wdl_nodes", wdl_nodes},
                         {"alphabeta_exact_seconds_median",
                          exact_openings ? json(median(exact_secs)) : json(nullptr)},
                         {"alphabeta_exact_nodes", exact_nodes}};
        std::fprintf(stderr, "baseline: openings done (%zu mismatches)\n", mismatches);
    }

    // 2. The perfect move in random mid-game positions.
    {
        const auto pos = midgame_positions(b, r, positions, seed);
        const Tablebase tb = Tablebase::open(path);
        (void)warm_up(tb, seed + 1000);
        std::vector<double> table_ns, exact_ns, wdl_ns;
        std::vector<double> exact_nodes, wdl_nodes;
        std::size_t move_mismatch = 0;
        for (const auto& p : pos) {
            const auto t0 = Clock::now();
            const auto best = tb.best_move(p);
            table_ns.push_back(ns_between(t0, Clock::now()));

            ab.clear();
            const auto t1 = Clock::now();
            const auto pm = ab.perfect_move(p);
            exact_ns.push_back(ns_between(t1, Clock::now()));
            exact_nodes.push_back(static_cast<double>(ab.nodes()));
            if (!pm || !best || !(pm->first == best->move) || (pm->second > 0) != best->value.win ||
                bench::AlphaBeta::depth_of_score(pm->second) != best->value.depth)
                ++move_mismatch;

            ab.clear();
            const auto t2 = Clock::now();
            const auto wm = ab.winning_move(p);
            wdl_ns.push_back(ns_between(t2, Clock::now()));
            wdl_nodes.push_back(static_cast<double>(ab.nodes()));
            if (!wm || wm->second != best->value.win) ++move_mismatch;
        }
        mismatches += move_mismatch;
        j["midgame"] = {{"positions", pos.size()},
                        {"table_best_move", summary_ns(table_ns)},
                        {"alphabeta_perfect_move", summary_ns(exact_ns)},
                        {"alphabeta_perfect_move_nodes_median", median(exact_nodes)},
                        {"alphabeta_winning_move", summary_ns(wdl_ns)},
                        {"alphabeta_winning_move_nodes_median", median(wdl_nodes)},
                        {"tt_cleared_between_positions", true}};
    }
    j["mismatches"] = mismatches;
    std::printf("%s\n", j.dump().c_str());
    return mismatches == 0 ? 0 : 1;
}

// ---- refsolve --------------------------------------------------------------------------------

int run_refsolve(const std::string& board, const std::string& rules, int reps) {
    const Board b = Board::parse(board);
    const ref::RefBoard rb = ref::ref_board(b);
    const ref::Rules rr = ref::rules_of(parse_ruleset(rules));
    std::vector<double> enum_s, solve_s, total_s, cpu_s;
    std::size_t raw = 0, memo = 0;
    for (int i = 0; i < reps; ++i) {
        const std::clock_t c0 = std::clock();
        const auto t0 = Clock::now();
        const ref::Reachable reach = ref::enumerate_reachable(rb, rr);
        const auto t1 = Clock::now();
        ref::RefMemo m(rb, rr);
        for (const auto& k : reach.raw)
            (void)ref::solve(ref::pos_of(rb, k), m);
        const auto t2 = Clock::now();
        cpu_s.push_back(static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC);
        enum_s.push_back(std::chrono::duration<double>(t1 - t0).count());
        solve_s.push_back(std::chrono::duration<double>(t2 - t1).count());
        total_s.push_back(std::chrono::duration<double>(t2 - t0).count());
        raw = reach.raw.size();
        memo = m.values.size();
        std::fprintf(stderr, "refsolve: run %d: %.2f s\n", i + 1, total_s.back());
    }
    json j;
    j["board"] = b.name();
    j["rules"] = rules;
    j["reps"] = reps;
    j["raw_positions"] = raw;
    j["memo_entries"] = memo;
    j["enumerate_seconds_median"] = median(enum_s);
    j["solve_seconds_median"] = median(solve_s);
    j["total_seconds_median"] = median(total_s);
    j["total_seconds_all"] = total_s;
    j["cpu_seconds_median"] = median(cpu_s);
    std::printf("%s\n", j.dump().c_str());
    return 0;
}

// ---- solve-join ------------------------------------------------------------------------------

// The board of a work directory, from its manifest's "board RxC" line.
Board work_board(const std::filesystem::path& work) {
    std::ifstream in(work / "manifest");
    std::string word, value;
    while (in >> word) {
        if (word == "board" && in >> value) return Board::parse(value);
        std::getline(in, value);
    }
    throw std::runtime_error((work / "manifest").string() +
                             ": no board line (not a work directory)");
}

int run_solve_join(const std::filesystem::path& work, int pieces, int reps, int threads,
                   int chunk_bits) {
    const Board b = work_board(work);
    auto path = [&](const std::string& name) { return work / name; };
    const auto t_load = Clock::now();
    const std::vector<std::uint64_t> keys =
        solver::read_key_file(path("layer-" + std::to_string(pieces) + ".keys"));
    struct Lower {
        int pieces;
        std::vector<std::uint64_t> keys;
        Mphf mphf;
        std::vector<solver::Depth> by_slot, by_rank;
    };
    std::vector<Lower> lower;
    // The layers a jump reaches; none has 0 pieces.
    for (int m = pieces - 1; m >= std::max(1, pieces - solver::max_capture(b)); --m) {
        Lower l{m, solver::read_key_file(path("layer-" + std::to_string(m) + ".keys")), {}, {}, {}};
        const auto mphf_file = path("solved-" + std::to_string(m) + ".mphf");
        const auto depth_file = path("solved-" + std::to_string(m) + ".depth");
        if (std::filesystem::exists(mphf_file)) {
            l.mphf = Mphf::from_words(solver::read_key_file(mphf_file));
            l.by_slot = solver::read_byte_file(depth_file, l.keys.size());
            l.by_rank.resize(l.keys.size());
            for (std::size_t i = 0; i < l.keys.size(); ++i)
                l.by_rank[i] = l.by_slot[l.mphf(l.keys[i])];
        } else {
            // Solved by joins (the manifest's "ranked"): the depths are by rank.
            l.by_rank = solver::read_byte_file(depth_file, l.keys.size());
            l.mphf = Mphf::build(l.keys, threads);
            l.by_slot.resize(l.keys.size());
            for (std::size_t i = 0; i < l.keys.size(); ++i)
                l.by_slot[l.mphf(l.keys[i])] = l.by_rank[i];
        }
        lower.push_back(std::move(l));
    }
    const double load_s = seconds_since(t_load);
    solver::SolvedLookup lookup(b);
    std::vector<solver::RankedLayer> ranked;
    for (const Lower& l : lower) {
        lookup.add(l.pieces, l.mphf.view(), l.by_slot.data());
        ranked.push_back({l.pieces, l.keys, l.by_rank});
    }
    std::uint64_t children = 0;
    for (std::uint64_t k : keys)
        for_each_jump(b, position_of_key(k), [&](Move, Position) { ++children; });
    if (children == 0)
        throw std::runtime_error("layer " + std::to_string(pieces) + " has no jump to time");

    std::vector<double> hash_s, join_s;
    bool equal = true;
    for (int r = 0; r < reps; ++r) {
        std::vector<solver::Depth> a(keys.size()), j;
        auto t = Clock::now();
        solver::recompute_layer(
            b, lookup, keys, pieces, threads, "solve", {}, [](std::int64_t) {},
            [&](std::int64_t i, int d) {
                a[static_cast<std::size_t>(i)] = static_cast<solver::Depth>(d);
            });
        hash_s.push_back(seconds_since(t));
        t = Clock::now();
        solver::solve_layer_by_join(b, keys, pieces, ranked, j, threads, {}, chunk_bits);
        join_s.push_back(seconds_since(t));
        equal = equal && a == j;
    }
    json out;
    out["board"] = b.name();
    out["layer"] = pieces;
    out["positions"] = keys.size();
    out["children"] = children;
    out["threads"] = threads;
    out["chunk_bits"] = solver::join_chunk_bits(b, chunk_bits);
    out["load_seconds"] = load_s;
    out["perfect_hash_seconds"] = hash_s;
    out["join_seconds"] = join_s;
    out["perfect_hash_median"] = median(hash_s);
    out["join_median"] = median(join_s);
    out["speedup"] = median(hash_s) / median(join_s);
    out["perfect_hash_ns_per_child_thread"] =
        median(hash_s) * 1e9 * threads / static_cast<double>(children);
    out["join_ns_per_child_thread"] =
        median(join_s) * 1e9 * threads / static_cast<double>(children);
    out["equal"] = equal;
    std::printf("%s\n", out.dump().c_str());
    return equal ? 0 : 1;
}

}  // namespace

/// Every opening of `board` by proof search (search_openings) with region values off and at
/// each of `pieces` (region_max_pieces; region_max_total `total`), `reps` rounds alternated; the
/// verdicts of every line must agree (exit 1 otherwise); `dfpn`: df-pn, else the enhanced
/// alpha-beta. Prints per setting the median nodes,
/// CPU seconds and the region hits of the last round.
int run_regions(const std::string& board, const std::string& rules, const std::vector<int>& pieces,
                int total, std::size_t memory_mb, int reps, bool dfpn) {
    const Board b = Board::parse(board);
    std::vector<int> settings{0};
    settings.insert(settings.end(), pieces.begin(), pieces.end());
    std::map<int, std::vector<double>> cpu, wall;
    std::map<int, std::uint64_t> nodes, hits, misses;
    std::optional<std::vector<std::optional<Color>>> want;
    for (int rep = 0; rep < reps; ++rep) {
        for (const int k : settings) {
            ProofOptions o;
            o.rules = parse_ruleset(rules);
            o.memory_bytes = memory_mb << 20;
            o.region_max_pieces = k;
            o.region_max_total = total;
            if (dfpn) o.algorithm = ProofAlgorithm::DfPn;
            ProofSearch s(b, o);
            const auto t0 = std::chrono::steady_clock::now();
            const SearchedOpenings got = search_openings(s);
            const double w =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            std::vector<std::optional<Color>> verdicts;
            for (const auto& l : got.lines)
                verdicts.push_back(l.winner);
            if (!want) want = verdicts;
            if (verdicts != *want) {
                std::fprintf(stderr,
                             "regions: the verdicts at %d pieces differ from the search's\n", k);
                return 1;
            }
            cpu[k].push_back(got.cpu_seconds);
            wall[k].push_back(w);
            nodes[k] = got.nodes;
            hits[k] = got.region_hits;
            misses[k] = got.region_misses;
        }
    }
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    json out;
    out["board"] = board;
    out["rules"] = rules;
    out["reps"] = reps;
    out["region_max_total"] = total;
    out["search"] = dfpn ? "df-pn" : "alpha-beta";
    out["lines"] = want ? want->size() : 0;
    for (const int k : settings) {
        out["settings"].push_back({{"region_max_pieces", k},
                                   {"nodes", nodes[k]},
                                   {"cpu_seconds", median(cpu[k])},
                                   {"seconds", median(wall[k])},
                                   {"region_hits", hits[k]},
                                   {"region_misses", misses[k]}});
    }
    std::printf("%s\n", out.dump().c_str());
    return 0;
}

int main(int argc, char** argv) {
    CLI::App app{"konane_bench_tool: measurements for scripts/bench (JSON on stdout)"};
    app.require_subcommand(1);

    std::string board = "5x6", rules = "brainking", table;
    int reps = 3, enum_threads = 0, tt_log2 = 24;
    std::vector<int> threads{1, 2};
    std::size_t samples = 2000, cold = 100, positions = 100;
    std::uint64_t seed = 1;
    bool no_exact = false;

    auto* mphf = app.add_subcommand("mphf", "Our MPHF against BBHash: layer keys and random keys");
    mphf->add_option("--board", board, "Board whose largest layer gives the keys");
    mphf->add_option("--rules", rules, "Ruleset");
    mphf->add_option("--reps", reps, "Builds per configuration (median)");
    mphf->add_option("--threads", threads, "Build thread counts")->delimiter(',');
    mphf->add_option("--enum-threads", enum_threads, "Threads for the enumeration");

    auto* probe = app.add_subcommand("probe", "Probe latency: warm, random order, cold");
    probe->add_option("TABLE", table)->required();
    probe->add_option("--samples", samples, "Mid-game positions");
    probe->add_option("--cold", cold, "Positions probed with a cold cache");
    probe->add_option("--seed", seed);
    bool check_first = false;
    std::string load = "map";
    probe
        ->add_option("--load", load,
                     "Where the table is read from: map (the file mapped), memory (read into "
                     "anonymous memory advised to huge pages) or auto (format::Load)")
        ->check(CLI::IsMember({"map", "memory", "auto"}));
    probe->add_flag("--check-first", check_first,
                    "Seen once: check every block of each fresh table before its warm-up "
                    "(Table::verify_checksums, as konane serve --check)");

    auto* size = app.add_subcommand("size", "Section sizes and value entropy per layer");
    size->add_option("TABLE", table)->required();

    auto* base = app.add_subcommand("baseline", "Alpha-beta with a transposition table vs table");
    base->add_option("TABLE", table)->required();
    base->add_option("--positions", positions, "Mid-game positions for the perfect move");
    base->add_option("--seed", seed);
    base->add_option("--tt-log2", tt_log2, "log2 of the transposition table entries (16 B)");
    base->add_option("--reps", reps, "Runs of the openings table (median)");
    base->add_flag("--no-exact-openings", no_exact, "Skip the depth-exact openings search");

    auto* refs = app.add_subcommand("refsolve", "Plain memoised negamax (tests/reference.hpp)");
    refs->add_option("--board", board);
    refs->add_option("--rules", rules);
    refs->add_option("--reps", reps);

    std::string work;
    int layer = 0, join_threads = 2, chunk_bits = 21;
    auto* sj = app.add_subcommand(
        "solve-join",
        "One layer of a kept work directory solved by perfect-hash look-ups and by "
        "sort-merge joins, alternated, checked equal");
    sj->add_option("WORK", work,
                   "Work directory (generate --keep-work, or one stopped after the "
                   "layers below LAYER were solved)")
        ->required();
    sj->add_option("--layer", layer, "Pieces of the layer to solve")->required();
    sj->add_option("--reps", reps, "Runs of each way, alternated (median)")
        ->check(CLI::Range(1, 1000));
    sj->add_option("--threads", join_threads, "OpenMP threads")->check(CLI::Range(1, 1000));
    sj->add_option("--chunk-bits", chunk_bits, "log2 of the join's parents per chunk");

    std::vector<int> region_pieces{8};
    int region_total = 0;
    std::size_t memory_mb = 256;
    auto* reg = app.add_subcommand(
        "regions", "Every opening by proof search without and with region values, alternated");
    reg->add_option("--board", board);
    reg->add_option("--rules", rules);
    reg->add_option("--pieces", region_pieces, "region_max_pieces settings")->delimiter(',');
    reg->add_option("--total", region_total, "region_max_total (0: any)");
    reg->add_option("--memory-mb", memory_mb, "Transposition table MiB");
    reg->add_option("--reps", reps, "Rounds, alternated (median)");
    bool reg_dfpn = false;
    reg->add_flag("--dfpn", reg_dfpn, "df-pn instead of the enhanced alpha-beta");

    CLI11_PARSE(app, argc, argv);
    try {
        if (*mphf) return run_mphf(board, rules, reps, threads, enum_threads);
        if (*probe)
            return run_probe(table, samples, cold, seed, check_first,
                             format::OpenOptions{format::parse_load(load)});
        if (*size) return run_size(table);
        if (*base) return run_baseline(table, positions, seed, tt_log2, reps, !no_exact);
        if (*refs) return run_refsolve(board, rules, reps);
        if (*sj) return run_solve_join(work, layer, reps, join_threads, chunk_bits);
        if (*reg)
            return run_regions(board, rules, region_pieces, region_total, memory_mb, reps,
                               reg_dfpn);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "konane_bench_tool: %s\n", e.what());
        return 1;
    }
    return 2;
}
