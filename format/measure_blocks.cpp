// konane_format_measure: the measurement behind the block size and zstd level of the
// tablebase format (format/FORMAT.md, "Block size and compression level").
//
// For synthetic value sections with realistic, skewed depth distributions and for random
// 16-bit fingerprints, it compresses the data in independent zstd frames of several block
// sizes at several levels and prints, per (data, block size, level):
//   ratio      raw bytes / stored bytes (higher is better)
//   comp MB/s  single-thread compression throughput
//   dec us     median time to decode ONE block with a warm ZSTD_DCtx (what a cold probe pays)
//   dec MB/s   single-thread bulk decode throughput (what read_values pays per core)
//
// Usage: konane_format_measure [MiB per data set, default 16] [table.kbt ...]
// Without tables it measures the synthetic data sets below; each table given instead adds a
// data set of real values: all its layers concatenated, cut to the given size.
// Output is deterministic apart from the timings (fixed PRNG seeds).

#include <zstd.h>

#include "format/table.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct DataSet {
    std::string name;
    std::vector<std::uint8_t> bytes;
};

// Depth to end: geometric with parameter p (many short endings, a long tail).
std::vector<std::uint8_t> geometric_depths(std::size_t n, double p, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::geometric_distribution<int> dist(p);
    std::vector<std::uint8_t> v(n);
    for (auto& x : v)
        x = static_cast<std::uint8_t>(std::min(dist(rng), 255));
    return v;
}

// Depth to end: rounded normal (a middle layer of a big board: most positions need
// many plies), with a bias towards one parity (one side wins more often).
std::vector<std::uint8_t> normal_depths(std::size_t n, double mu, double sigma,
                                        std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> dist(mu, sigma);
    std::bernoulli_distribution odd(0.65);
    std::vector<std::uint8_t> v(n);
    for (auto& x : v) {
        int d = static_cast<int>(std::lround(dist(rng)));
        d = std::clamp(d, 0, 254);
        if ((d % 2 == 1) != odd(rng)) d += 1;
        x = static_cast<std::uint8_t>(d);
    }
    return v;
}

// Very skewed: 90% of positions are lost at once (depth 0) or won in one ply.
std::vector<std::uint8_t> skewed_depths(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::discrete_distribution<int> dist({60, 30, 4, 3, 1.5, 1, 0.5});
    std::vector<std::uint8_t> v(n);
    for (auto& x : v)
        x = static_cast<std::uint8_t>(dist(rng));
    return v;
}

std::vector<std::uint8_t> random_fingerprints(std::size_t n_bytes, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::uint8_t> v(n_bytes);
    for (auto& x : v)
        x = static_cast<std::uint8_t>(rng());
    return v;
}

void measure(const DataSet& data, std::size_t block, int level) {
    const std::size_t n = data.bytes.size();
    const std::size_t blocks = (n + block - 1) / block;
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    ZSTD_DCtx* dctx = ZSTD_createDCtx();
    std::vector<std::vector<std::uint8_t>> frames(blocks);
    std::size_t stored = 0;
    auto t0 = Clock::now();
    for (std::size_t b = 0; b < blocks; ++b) {
        const std::size_t len = std::min(block, n - b * block);
        frames[b].resize(ZSTD_compressBound(len));
        const std::size_t r = ZSTD_compressCCtx(cctx, frames[b].data(), frames[b].size(),
                                                data.bytes.data() + b * block, len, level);
        if (ZSTD_isError(r)) {
            std::fprintf(stderr, "compress: %s\n", ZSTD_getErrorName(r));
            std::exit(1);
        }
        frames[b].resize(r);
        stored += r;
    }
    const double comp_s = std::chrono::duration<double>(Clock::now() - t0).count();

    // Bulk decode (all blocks once), then single-block latency: decode a pseudo-random
    // sample of blocks one at a time and take the median.
    std::vector<std::uint8_t> out(block);
    t0 = Clock::now();
    for (std::size_t b = 0; b < blocks; ++b) {
        const std::size_t len = std::min(block, n - b * block);
        const std::size_t r =
            ZSTD_decompressDCtx(dctx, out.data(), len, frames[b].data(), frames[b].size());
        if (r != len) std::exit(2);
    }
    const double dec_s = std::chrono::duration<double>(Clock::now() - t0).count();
    std::vector<double> lat;
    std::mt19937_64 rng(7);
    const std::size_t samples = std::min<std::size_t>(2000, blocks * 4);
    for (std::size_t i = 0; i < samples; ++i) {
        const std::size_t b = rng() % blocks;
        const std::size_t len = std::min(block, n - b * block);
        const auto s = Clock::now();
        const std::size_t r =
            ZSTD_decompressDCtx(dctx, out.data(), len, frames[b].data(), frames[b].size());
        const auto e = Clock::now();
        if (r != len) std::exit(2);
        lat.push_back(std::chrono::duration<double, std::micro>(e - s).count());
    }
    std::nth_element(lat.begin(), lat.begin() + lat.size() / 2, lat.end());
    std::printf("%-12s %7zu %5d %8.3f %10.1f %9.1f %9.0f\n", data.name.c_str(), block, level,
                static_cast<double>(n) / static_cast<double>(stored),
                static_cast<double>(n) / 1e6 / comp_s, lat[lat.size() / 2],
                static_cast<double>(n) / 1e6 / dec_s);
    std::fflush(stdout);
    ZSTD_freeCCtx(cctx);
    ZSTD_freeDCtx(dctx);
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 16;
    const std::size_t n = mib << 20;
    std::vector<DataSet> sets;
    for (int i = 2; i < argc; ++i) {
        const auto t = konane::format::Table::open(argv[i]);
        DataSet real{
            std::to_string(t->meta().rows) + "x" + std::to_string(t->meta().cols) + "-real", {}};
        for (std::size_t l = 0; l < t->layers().size(); ++l) {
            std::vector<std::uint8_t> v;
            t->read_values(l, v);
            real.bytes.insert(real.bytes.end(), v.begin(), v.end());
        }
        if (real.bytes.size() > n) real.bytes.resize(n);
        sets.push_back(std::move(real));
    }
    if (sets.empty()) {  // no table given: the synthetic data sets
        sets.push_back({"geom(0.45)", geometric_depths(n, 0.45, 1)});
        sets.push_back({"normal(14,4)", normal_depths(n, 14.0, 4.0, 2)});
        sets.push_back({"skewed90", skewed_depths(n, 3)});
        sets.push_back({"fp16-random", random_fingerprints(n, 4)});
    }
    std::printf("%-12s %7s %5s %8s %10s %9s %9s\n", "data", "block", "level", "ratio", "comp MB/s",
                "dec us", "dec MB/s");
    for (const auto& s : sets) {
        for (std::size_t block : {4096u, 16384u, 65536u, 262144u}) {
            for (int level : {1, 3, 6, 9, 12, 15, 19}) {
                if (s.name == "fp16-random" && level > 3 && block != 16384) continue;
                measure(s, block, level);
            }
        }
    }
    return 0;
}
