// Micro-benchmarks of the minimal perfect hash (index/mphf.hpp) against BBHash (BooPHF.h).
// Keys: distinct occupancy-mask-like keys (36 low bits, bit 63 a side flag), 1M and 10M.
// Counters: keys_per_s (build rate), bits_per_key, time_per_query (s; e.g. "17n" = 17 ns).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "tests/bench/bbhash.hpp"

#include "index/mphf.hpp"

namespace {

const std::vector<std::uint64_t>& keys_for(std::size_t n) {
    static std::map<std::size_t, std::vector<std::uint64_t>> cache;
    auto& keys = cache[n];
    if (keys.empty()) {
        std::mt19937_64 rng(n);
        while (keys.size() < n) {
            const std::size_t need = n - keys.size();
            for (std::size_t i = 0; i < need; ++i)
                keys.push_back((rng() & ((std::uint64_t{1} << 36) - 1)) | ((rng() & 1) << 63));
            std::sort(keys.begin(), keys.end());
            keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
        }
        std::shuffle(keys.begin(), keys.end(), rng);
    }
    return keys;
}

/// 4M random member keys to query, in random order.
std::vector<std::uint64_t> queries_for(std::size_t n) {
    const auto& keys = keys_for(n);
    std::mt19937_64 rng(n + 1);
    std::vector<std::uint64_t> q(std::size_t{1} << 22);
    for (auto& x : q)
        x = keys[rng() % keys.size()];
    return q;
}

const konane::Mphf& ours_for(std::size_t n) {
    static std::map<std::size_t, konane::Mphf> cache;
    auto it = cache.find(n);
    if (it == cache.end()) it = cache.emplace(n, konane::Mphf::build(keys_for(n))).first;
    return it->second;
}

BBHash& bbhash_for(std::size_t n, double gamma) {
    static std::map<std::pair<std::size_t, double>, std::unique_ptr<BBHash>> cache;
    auto& p = cache[{n, gamma}];
    if (!p) {
        const auto& keys = keys_for(n);
        p = std::make_unique<BBHash>(keys.size(), boomphf::range(keys.begin(), keys.end()), 1,
                                     gamma, false, false, 0.03f);
    }
    return *p;
}

/// Sets items/s and "time_per_query" (seconds per query; printed with an SI suffix, e.g. 17n).
void query_counters(benchmark::State& state, std::size_t queries) {
    const auto total =
        static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(queries);
    state.SetItemsProcessed(total);
    state.counters["time_per_query"] = benchmark::Counter(
        static_cast<double>(total), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// ---- ours ----

void BM_MphfBuild(benchmark::State& state) {
    const auto& keys = keys_for(static_cast<std::size_t>(state.range(0)));
    const int threads = static_cast<int>(state.range(1));
    konane::MphfBuildParams params;
    if (state.range(2)) params.lambda_tenths = static_cast<unsigned>(state.range(2));
    if (state.range(3)) params.slack_den = static_cast<std::uint64_t>(state.range(3));
    double bits = 0;
    for (auto _ : state) {
        konane::Mphf f = konane::Mphf::build(keys, threads, konane::Mphf::kDefaultSeed, params);
        bits = f.bits_per_key();
        benchmark::DoNotOptimize(f.words().data());
    }
    state.counters["keys_per_s"] = benchmark::Counter(
        static_cast<double>(state.iterations() * keys.size()), benchmark::Counter::kIsRate);
    state.counters["bits_per_key"] = bits;
}
// Args: keys, threads, lambda in tenths and slack denominator (0: the defaults, 3.5 and 499).
BENCHMARK(BM_MphfBuild)
    ->Args({1000000, 1, 0, 0})
    ->Args({1000000, 2, 0, 0})
    ->Args({10000000, 1, 0, 0})
    ->Args({10000000, 2, 0, 0})
    ->Args({10000000, 1, 30, 99})
    ->Args({10000000, 1, 25, 99})
    ->Args({10000000, 1, 25, 33})
    ->Args({10000000, 1, 20, 33})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

/// Independent queries (throughput).
void BM_MphfQuery(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const auto f = ours_for(n).view();
    const auto q = queries_for(n);
    for (auto _ : state) {
        std::uint64_t acc = 0;
        for (std::uint64_t k : q)
            acc += f(k);
        benchmark::DoNotOptimize(acc);
    }
    query_counters(state, q.size());
    state.counters["bits_per_key"] = f.bits_per_key();
}
BENCHMARK(BM_MphfQuery)->Arg(1000000)->Arg(10000000)->Unit(benchmark::kMillisecond);

/// Dependent queries (latency): each key depends on the previous result.
void BM_MphfQueryLatency(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const auto f = ours_for(n).view();
    const auto q = queries_for(n);
    for (auto _ : state) {
        std::uint64_t prev = 0;
        for (std::uint64_t k : q)
            prev = f(k ^ (prev >> 63));  // prev < n: a fake dependency
        benchmark::DoNotOptimize(prev);
    }
    query_counters(state, q.size());
}
BENCHMARK(BM_MphfQueryLatency)->Arg(1000000)->Arg(10000000)->Unit(benchmark::kMillisecond);

// ---- BBHash ----

void BM_BBHashBuild(benchmark::State& state) {
    const auto& keys = keys_for(static_cast<std::size_t>(state.range(0)));
    const int threads = static_cast<int>(state.range(1));
    const double gamma = static_cast<double>(state.range(2));
    double bits = 0;
    for (auto _ : state) {
        BBHash f(keys.size(), boomphf::range(keys.begin(), keys.end()), threads, gamma, false,
                 false, 0.03f);
        bits = static_cast<double>(f.totalBitSize()) / static_cast<double>(keys.size());
    }
    state.counters["keys_per_s"] = benchmark::Counter(
        static_cast<double>(state.iterations() * keys.size()), benchmark::Counter::kIsRate);
    state.counters["bits_per_key"] = bits;
}
BENCHMARK(BM_BBHashBuild)
    ->ArgsProduct({{1000000, 10000000}, {1, 2}, {1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

void BM_BBHashQuery(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    BBHash& f = bbhash_for(n, static_cast<double>(state.range(1)));
    const auto q = queries_for(n);
    for (auto _ : state) {
        std::uint64_t acc = 0;
        for (std::uint64_t k : q)
            acc += f.lookup(k);
        benchmark::DoNotOptimize(acc);
    }
    query_counters(state, q.size());
    state.counters["bits_per_key"] = static_cast<double>(f.totalBitSize()) / static_cast<double>(n);
}
BENCHMARK(BM_BBHashQuery)
    ->ArgsProduct({{1000000, 10000000}, {1, 2}})
    ->Unit(benchmark::kMillisecond);

void BM_BBHashQueryLatency(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    BBHash& f = bbhash_for(n, static_cast<double>(state.range(1)));
    const auto q = queries_for(n);
    for (auto _ : state) {
        std::uint64_t prev = 0;
        for (std::uint64_t k : q)
            prev = f.lookup(k ^ (prev >> 63));
        benchmark::DoNotOptimize(prev);
    }
    query_counters(state, q.size());
}
BENCHMARK(BM_BBHashQueryLatency)
    ->ArgsProduct({{1000000, 10000000}, {1, 2}})
    ->Unit(benchmark::kMillisecond);

}  // namespace
