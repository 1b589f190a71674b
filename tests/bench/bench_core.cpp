// Micro-benchmarks of the hot paths: move generation, the canonical key and the orbit count,
// the perfect-hash query on real keys, the decoding of a table file's values, and random reads
// from memory in 4 KiB or 2 MiB pages (the solve's access pattern).
//
// Positions: every Play-stage position of 2000 random games on the board (5x6 and 6x6), in game
// order. Table: $KONANE_BENCH_TABLE when set (scripts/bench passes its 5x6 table), otherwise a
// 5x5 table generated once into the temporary directory.
// Counters: items_per_second (positions, queries or blocks), bytes_per_second (decoded bytes),
// and "per_item" (seconds per item, printed with an SI suffix: "25n" = 25 ns).
#include <benchmark/benchmark.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/board.hpp"
#include "core/movegen.hpp"
#include "core/symmetry.hpp"
#include "format/table.hpp"
#include "index/mphf.hpp"
#include "probe/probe.hpp"
#include "process/huge_pages.hpp"
#include "solver/enumerate.hpp"
#include "solver/solve.hpp"

namespace {

using namespace konane;

const Board& board_of(int which) {
    static const Board b56 = Board::make(5, 6), b66 = Board::make(6, 6);
    return which == 0 ? b56 : b66;
}
const char* board_name(int which) {
    return which == 0 ? "5x6" : "6x6";
}

const std::vector<Position>& positions_of(int which) {
    static std::map<int, std::vector<Position>> cache;
    auto& out = cache[which];
    if (out.empty()) {
        const Board& b = board_of(which);
        std::mt19937_64 rng(7);
        for (int g = 0; g < 2000; ++g) {
            Position p = b.start();
            for (;;) {
                const auto ms = legal_moves(b, Ruleset::Brainking, p);
                if (ms.empty()) break;
                if (stage_of(b, p) == Stage::Play) out.push_back(p);
                p = ms[rng() % ms.size()].child;
            }
        }
    }
    return out;
}

void per_item(benchmark::State& state, std::size_t items_per_iteration) {
    const auto total = static_cast<std::int64_t>(state.iterations()) *
                       static_cast<std::int64_t>(items_per_iteration);
    state.SetItemsProcessed(total);
    state.counters["per_item"] = benchmark::Counter(
        static_cast<double>(total), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// ---- move generation ----

/// for_each_jump over every sample position (the generator's and the solver's inner loop).
void BM_ForEachJump(benchmark::State& state) {
    const int which = static_cast<int>(state.range(0));
    const Board& b = board_of(which);
    const auto& pos = positions_of(which);
    std::uint64_t moves = 0;
    for (auto _ : state) {
        std::uint64_t acc = 0;
        for (const auto& p : pos)
            for_each_jump(b, p, [&](Move, Position c) {
                acc += c.occ;
                ++moves;
            });
        benchmark::DoNotOptimize(acc);
    }
    per_item(state, pos.size());
    state.counters["moves_per_position"] =
        static_cast<double>(moves) / static_cast<double>(state.iterations() * pos.size());
    state.SetLabel(board_name(which));
}
BENCHMARK(BM_ForEachJump)->Arg(0)->Arg(1);

/// legal_moves (allocates the vector; what the probe library calls).
void BM_LegalMoves(benchmark::State& state) {
    const int which = static_cast<int>(state.range(0));
    const Board& b = board_of(which);
    const auto& pos = positions_of(which);
    for (auto _ : state) {
        std::size_t acc = 0;
        for (const auto& p : pos)
            acc += legal_moves(b, Ruleset::Brainking, p).size();
        benchmark::DoNotOptimize(acc);
    }
    per_item(state, pos.size());
    state.SetLabel(board_name(which));
}
BENCHMARK(BM_LegalMoves)->Arg(0)->Arg(1);

/// has_jump (the terminal test).
void BM_HasJump(benchmark::State& state) {
    const int which = static_cast<int>(state.range(0));
    const Board& b = board_of(which);
    const auto& pos = positions_of(which);
    for (auto _ : state) {
        std::size_t acc = 0;
        for (const auto& p : pos)
            acc += has_jump(b, p);
        benchmark::DoNotOptimize(acc);
    }
    per_item(state, pos.size());
    state.SetLabel(board_name(which));
}
BENCHMARK(BM_HasJump)->Arg(0)->Arg(1);

// ---- canonical key ----

/// SymmetryGroup::canonical_key (4 symmetries on 5x6, 8 on 6x6).
void BM_CanonicalKey(benchmark::State& state) {
    const int which = static_cast<int>(state.range(0));
    const SymmetryGroup g(board_of(which));
    const auto& pos = positions_of(which);
    for (auto _ : state) {
        std::uint64_t acc = 0;
        for (const auto& p : pos)
            acc ^= g.canonical_key(p);
        benchmark::DoNotOptimize(acc);
    }
    per_item(state, pos.size());
    state.SetLabel(std::string(board_name(which)) + ", " + std::to_string(g.size()) +
                   " symmetries");
}
BENCHMARK(BM_CanonicalKey)->Arg(0)->Arg(1);

/// The canonical keys of every child of every sample position, as the enumeration and the
/// join solve make them: range(0) the board (0: 5x6, 1: 6x6), range(1) the way: 0
/// canonical_key() of each child (the baseline of the same run), 1 child_key() from the
/// parent's images, computed once per position. Items: positions.
void BM_ChildKeys(benchmark::State& state) {
    const int which = static_cast<int>(state.range(0));
    const bool incremental = state.range(1) != 0;
    const Board& b = board_of(which);
    const SymmetryGroup g(b);
    const auto& pos = positions_of(which);
    for (auto _ : state) {
        std::uint64_t acc = 0;
        for (const auto& p : pos) {
            if (incremental) {
                const SymmetryGroup::ParentImages pi = g.parent_images(p.occ);
                for_each_jump(b, p,
                              [&](Move m, Position c) { acc ^= g.child_key(pi, c, m.from, m.to); });
            } else {
                for_each_jump(b, p, [&](Move, Position c) { acc ^= g.canonical_key(c); });
            }
        }
        benchmark::DoNotOptimize(acc);
    }
    per_item(state, pos.size());
    state.SetLabel(std::string(board_name(which)) +
                   (incremental ? ", child_key from the parent's images" : ", canonical_key"));
}
BENCHMARK(BM_ChildKeys)->Args({0, 0})->Args({0, 1})->Args({1, 0})->Args({1, 1});

/// SymmetryGroup::preserving_orbit_size (the enumeration's raw count, once per position):
/// range(0) the board (0: 5x6, 1: 6x6), range(1) the path: 0 the bit operations of the 8x8
/// layout, 1 the byte tables (preserving_orbit_size_by_tables, the baseline of the same run).
void BM_PreservingOrbitSize(benchmark::State& state) {
    const int which = static_cast<int>(state.range(0));
    const bool by_tables = state.range(1) != 0;
    const SymmetryGroup g(board_of(which));
    const auto& pos = positions_of(which);
    for (auto _ : state) {
        int acc = 0;
        for (const auto& p : pos)
            acc += by_tables ? g.preserving_orbit_size_by_tables(p) : g.preserving_orbit_size(p);
        benchmark::DoNotOptimize(acc);
    }
    per_item(state, pos.size());
    state.SetLabel(std::string(board_name(which)) +
                   (by_tables ? ", byte tables" : ", bit operations"));
}
BENCHMARK(BM_PreservingOrbitSize)->Args({0, 0})->Args({0, 1})->Args({1, 0})->Args({1, 1});

// ---- perfect-hash query on real keys ----

/// The canonical keys of every layer of 5x5 (270,689 keys) and 4x6, each layer with its own
/// MPHF as in a table; queries cycle through the layers' keys in random order.
struct RealKeys {
    std::vector<Mphf> mphf;
    std::vector<std::pair<std::uint32_t, std::uint64_t>> queries;  // (layer, key)
    std::uint64_t n = 0;
    double bits = 0;
};
const RealKeys& real_keys() {
    static const RealKeys rk = [] {
        RealKeys r;
        const auto layers = solver::enumerate(Board::make(5, 5), Ruleset::Brainking, 0);
        std::size_t total_bytes = 0;
        for (const auto& l : layers) {
            r.mphf.push_back(Mphf::build(l.keys, 0));
            total_bytes += r.mphf.back().size_bytes();
            for (auto k : l.keys)
                r.queries.emplace_back(static_cast<std::uint32_t>(r.mphf.size() - 1), k);
            r.n += l.keys.size();
        }
        r.bits = 8.0 * static_cast<double>(total_bytes) / static_cast<double>(r.n);
        std::shuffle(r.queries.begin(), r.queries.end(), std::mt19937_64(3));
        return r;
    }();
    return rk;
}

void BM_MphfQueryRealKeys(benchmark::State& state) {
    const auto& rk = real_keys();
    std::vector<MphfView> views;
    for (const auto& m : rk.mphf)
        views.push_back(m.view());
    for (auto _ : state) {
        std::uint64_t acc = 0;
        for (const auto& [l, k] : rk.queries)
            acc += views[l](k);
        benchmark::DoNotOptimize(acc);
    }
    per_item(state, rk.queries.size());
    state.counters["bits_per_key"] = rk.bits;
    state.SetLabel("5x5, every layer, " + std::to_string(rk.n) + " keys");
}
BENCHMARK(BM_MphfQueryRealKeys);

/// Canonical key and hash query together: what a probe computes before touching the file.
void BM_CanonicalKeyAndQuery(benchmark::State& state) {
    const auto& rk = real_keys();
    const Board b = Board::make(5, 5);
    const SymmetryGroup g(b);
    std::vector<Position> pos;
    std::vector<std::uint32_t> layer;
    for (std::size_t i = 0; i < 100000 && i < rk.queries.size(); ++i) {
        pos.push_back(position_of_key(rk.queries[i].second));
        layer.push_back(rk.queries[i].first);
    }
    std::vector<MphfView> views;
    for (const auto& m : rk.mphf)
        views.push_back(m.view());
    for (auto _ : state) {
        std::uint64_t acc = 0;
        for (std::size_t i = 0; i < pos.size(); ++i)
            acc += views[layer[i]](g.canonical_key(pos[i]));
        benchmark::DoNotOptimize(acc);
    }
    per_item(state, pos.size());
    state.SetLabel("5x5");
}
BENCHMARK(BM_CanonicalKeyAndQuery);

// ---- block decoding ----

std::filesystem::path table_path() {
    static const std::filesystem::path path = [] {
        if (const char* env = std::getenv("KONANE_BENCH_TABLE"); env && *env)
            return std::filesystem::path(env);
        const auto p = std::filesystem::temp_directory_path() / "konane_bench_core_5x5.kbt";
        if (!std::filesystem::exists(p)) {
            solver::GenerateOptions o;
            o.board = Board::make(5, 5);
            o.output = p;
            solver::generate(o);
        }
        return p;
    }();
    return path;
}

/// One rank of every value group of every layer, in a cycle: each call finds the block by a
/// binary search of the directory and decodes its group up to that rank (Huffman,
/// table-driven). Ranks of a group's last value; a group's length is the header's value group.
void BM_ValueBlockDecode(benchmark::State& state) {
    const auto t = format::Table::open(table_path());
    const std::uint64_t per = t->meta().value_group;
    std::vector<std::pair<std::size_t, std::uint64_t>> slots;
    for (std::size_t l = 0; l < t->layers().size(); ++l)
        for (std::uint64_t s = per - 1; s < t->layers()[l].classes; s += per)
            slots.emplace_back(l, s);
    std::uint64_t acc = 0;
    for (auto _ : state) {
        for (const auto& [l, s] : slots)
            acc += t->value(l, s);
    }
    benchmark::DoNotOptimize(acc);
    per_item(state, slots.size());
    state.SetLabel(table_path().filename().string() + ", " + std::to_string(slots.size()) +
                   " blocks, last value of each");
}
BENCHMARK(BM_ValueBlockDecode)->Unit(benchmark::kMicrosecond);

/// Whole-layer decoding (Table::read_values: every block, in parallel, no cache) of the
/// largest layer.
void BM_ReadValuesLargestLayer(benchmark::State& state) {
    const auto t = format::Table::open(table_path());
    std::size_t best = 0;
    for (std::size_t l = 0; l < t->layers().size(); ++l)
        if (t->layers()[l].classes > t->layers()[best].classes) best = l;
    std::vector<std::uint8_t> out;
    for (auto _ : state) {
        t->read_values(best, out);
        benchmark::DoNotOptimize(out.data());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                            static_cast<std::int64_t>(t->layers()[best].classes));
    state.SetLabel(table_path().filename().string() + ", " +
                   std::to_string(t->layers()[best].pieces) + " pieces");
}
BENCHMARK(BM_ReadValuesLargestLayer)->Unit(benchmark::kMillisecond)->UseRealTime();

// ---- memory ------------------------------------------------------------------------------

// Random one-byte reads from 1 GiB, in batches of 32 prefetched before any is read: how the
// solve reads the depths of a layer's children (solver/solve.cpp). Arg 0: the memory in 4 KiB
// pages (MADV_NOHUGEPAGE); Arg 1: advised to 2 MiB huge pages before first touch, as
// process/huge_pages.hpp does for the depths, the perfect hash's pilots and the radix sort.
void BM_RandomReadsHugePages(benchmark::State& state) {
    const bool huge = state.range(0) != 0;
    constexpr std::size_t kBytes = std::size_t{1} << 30;
    std::vector<std::uint8_t> a;
    if (huge) {
        konane::process::assign_huge(a, kBytes);
    } else {
        a.reserve(kBytes);
        const auto page = reinterpret_cast<std::uintptr_t>(a.data() + 4095) & ~std::uintptr_t{4095};
        ::madvise(reinterpret_cast<void*>(page), kBytes - 4096, MADV_NOHUGEPAGE);
        a.resize(kBytes);
    }
    for (std::size_t i = 0; i < kBytes; i += 4096)
        a[i] = static_cast<std::uint8_t>(i >> 12);
    std::mt19937_64 rng(5);
    std::vector<std::uint32_t> at(std::size_t{1} << 20);
    for (auto& x : at)
        x = static_cast<std::uint32_t>(rng() & (kBytes - 1));
    std::uint64_t sink = 0;
    for (auto _ : state) {
        for (std::size_t i = 0; i < at.size(); i += 32) {
            for (std::size_t j = 0; j < 32; ++j)
                __builtin_prefetch(a.data() + at[i + j]);
            for (std::size_t j = 0; j < 32; ++j)
                sink += a[at[i + j]];
        }
    }
    benchmark::DoNotOptimize(sink);
    per_item(state, at.size());
    state.SetLabel(huge ? "1 GiB, 2 MiB pages (MADV_HUGEPAGE)" : "1 GiB, 4 KiB pages");
}
BENCHMARK(BM_RandomReadsHugePages)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

/// Tablebase::lookup of one position whose blocks are cached (the warm floor of a probe).
void BM_LookupWarm(benchmark::State& state) {
    const Tablebase tb = Tablebase::open(table_path());
    const Board& b = tb.board();
    std::mt19937_64 rng(11);
    std::vector<Position> pos;
    while (pos.size() < 4) {
        Position p = b.start();
        std::vector<Position> line;
        for (;;) {
            const auto ms = legal_moves(b, tb.rules(), p);
            if (ms.empty()) break;
            if (stage_of(b, p) == Stage::Play) line.push_back(p);
            p = ms[rng() % ms.size()].child;
        }
        if (!line.empty()) pos.push_back(line[line.size() / 2]);
    }
    for (const auto& p : pos)
        benchmark::DoNotOptimize(tb.lookup(p));
    for (auto _ : state) {
        int acc = 0;
        for (const auto& p : pos)
            acc += tb.lookup(p)->depth;
        benchmark::DoNotOptimize(acc);
    }
    per_item(state, pos.size());
    state.SetLabel(table_path().filename().string() + ", 4 positions, blocks cached");
}
BENCHMARK(BM_LookupWarm);

}  // namespace
