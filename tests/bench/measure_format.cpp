// konane_format_measure: the measurements behind table format 2's choices (format/FORMAT.md
// §10), on the keys and values of a real table. JSON on stdout.
//
//   konane_format_measure rewrite IN OUT [--block-buckets Q] [--value-group V]
//       writes IN's layers again with other writer parameters (to time probes against them);
//   konane_format_measure index IN
//       bits per key of the alternatives for the index: Elias-Fano over raw keys, over the
//       colex rank (what the file stores), partitioned Elias-Fano over the rank;
//   konane_format_measure values IN [--samples N]
//       bits per value and single-block decode time of the alternatives for the values, in
//       rank order: the canonical Huffman code the file stores, zstd blocks of several sizes
//       and levels, zstd blocks with a dictionary trained on the table, fixed-width blocks;
//       beside the per-layer order-0 and order-1 entropies.
#include <zdict.h>
#include <zstd.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "format/table.hpp"
#include "index/colex.hpp"
#include "index/elias_fano.hpp"

namespace {

using json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;
using namespace konane;

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
}

int run_rewrite(const std::string& in, const std::string& out, const format::TableMeta& params) {
    const auto t = format::Table::open(in);
    format::TableMeta m = t->meta();
    m.block_buckets = params.block_buckets;
    m.value_group = params.value_group;
    format::TableWriter w(out, m);
    std::vector<std::uint64_t> keys;
    std::vector<std::uint8_t> values;
    const auto t0 = Clock::now();
    for (std::size_t l = 0; l < t->layers().size(); ++l) {
        t->read_keys(l, keys);
        t->read_values(l, values);
        w.add_layer(t->layers()[l], keys, values);
    }
    w.commit();
    json j;
    j["out"] = out;
    j["seconds"] = std::chrono::duration<double>(Clock::now() - t0).count();
    j["bytes"] = w.bytes_written();
    std::printf("%s\n", j.dump().c_str());
    return 0;
}

/// Elias-Fano bits (without samples) of n elements below u.
double ef_bits(std::uint64_t n, std::uint64_t u) {
    if (n == 0) return 0;
    const auto s = index::EliasFanoShape::make(n, std::max(u, n), 1);
    return static_cast<double>(n * s.l + s.n + s.buckets);
}

int run_index(const std::string& in) {
    const auto t = format::Table::open(in);
    const unsigned squares = t->meta().rows * t->meta().cols;
    json j;
    j["table"] = in;
    std::uint64_t n_all = 0;
    double raw_bits = 0, rank_bits = 0, part_bits[3] = {0, 0, 0}, stored = 0;
    const std::uint64_t parts[3] = {128, 256, 1024};
    std::vector<std::uint64_t> keys;
    for (std::size_t l = 0; l < t->layers().size(); ++l) {
        t->read_keys(l, keys);
        const std::uint64_t n = keys.size();
        n_all += n;
        stored += 8.0 * static_cast<double>(t->section_sizes(l).index());
        if (n == 0) continue;
        // Raw keys: the occupancy with the side to move as bit `squares`.
        auto raw = [&](std::uint64_t k) { return (k & ~(1ull << 63)) | ((k >> 63) << squares); };
        raw_bits += ef_bits(n, raw(keys.back()) + 1);
        std::vector<std::uint64_t> r(n);
        for (std::uint64_t i = 0; i < n; ++i)
            r[i] = index::key_rank(keys[i], squares);
        rank_bits += ef_bits(n, r.back() + 1);
        // Partitioned: each part of P keys its own Elias-Fano over [first, last], plus a
        // 64-bit first element and a 64-bit bit offset per part.
        for (int p = 0; p < 3; ++p) {
            for (std::uint64_t a = 0; a < n; a += parts[p]) {
                const std::uint64_t b = std::min(n, a + parts[p]);
                part_bits[p] += 128 + ef_bits(b - a, r[b - 1] - r[a] + 1);
            }
        }
    }
    const double per = 1.0 / static_cast<double>(n_all);
    j["positions"] = n_all;
    j["bits_per_key"] = {{"stored (colex rank, samples included)", stored * per},
                         {"ef raw keys", raw_bits * per},
                         {"ef colex rank", rank_bits * per},
                         {"partitioned ef colex rank, 128", part_bits[0] * per},
                         {"partitioned ef colex rank, 256", part_bits[1] * per},
                         {"partitioned ef colex rank, 1024", part_bits[2] * per}};
    std::printf("%s\n", j.dump().c_str());
    return 0;
}

double entropy(const std::map<std::uint64_t, std::uint64_t>& h, std::uint64_t n) {
    double e = 0;
    for (const auto& [v, c] : h) {
        const double p = static_cast<double>(c) / static_cast<double>(n);
        e -= static_cast<double>(c) * std::log2(p);
    }
    return e;  // bits in all
}

int run_values(const std::string& in, std::size_t samples) {
    const auto t = format::Table::open(in);
    json j;
    j["table"] = in;
    std::vector<std::vector<std::uint8_t>> layers;
    std::uint64_t n_all = 0;
    double h0 = 0, h1 = 0, stored = 0;
    for (std::size_t l = 0; l < t->layers().size(); ++l) {
        layers.emplace_back();
        t->read_values(l, layers.back());
        const auto& v = layers.back();
        n_all += v.size();
        stored += 8.0 * static_cast<double>(t->section_sizes(l).values());
        std::map<std::uint64_t, std::uint64_t> c0, c1, prev;
        for (std::size_t i = 0; i < v.size(); ++i) {
            ++c0[v[i]];
            const std::uint64_t p = i ? v[i - 1] : 256;
            ++c1[p * 256 + v[i]];
            ++prev[p];
        }
        h0 += entropy(c0, v.size());
        h1 += entropy(c1, v.size()) - entropy(prev, v.size());  // H(X_i | X_{i-1})
    }
    const double per = 1.0 / static_cast<double>(n_all);
    j["positions"] = n_all;
    j["stored_huffman_bits"] = stored * per;
    j["entropy_order0_bits"] = h0 * per;
    j["entropy_order1_bits"] = h1 * per;

    // zstd blocks (values of a layer cut into blocks of B), with and without a dictionary.
    std::mt19937_64 rng(7);
    ZSTD_CCtx* cc = ZSTD_createCCtx();
    ZSTD_DCtx* dc = ZSTD_createDCtx();
    j["zstd"] = json::array();
    for (std::size_t block : {256u, 1024u, 4096u, 16384u}) {
        // A dictionary trained on a sample of this block size (110 KiB, zstd's default).
        std::vector<std::uint8_t> dict;
        if (block <= 4096) {
            std::vector<std::uint8_t> train;
            std::vector<std::size_t> sizes;
            for (int s = 0; s < 4000; ++s) {
                const auto& v = layers[rng() % layers.size()];
                if (v.size() < block) continue;
                const std::size_t a = (rng() % (v.size() / block)) * block;
                train.insert(train.end(), v.begin() + a, v.begin() + a + block);
                sizes.push_back(block);
            }
            dict.resize(112640);
            const std::size_t r = ZDICT_trainFromBuffer(dict.data(), dict.size(), train.data(),
                                                        sizes.data(), sizes.size());
            dict.resize(ZDICT_isError(r) ? 0 : r);
        }
        for (int level : {3, 12, 19}) {
            for (int use_dict = 0; use_dict < (dict.empty() ? 1 : 2); ++use_dict) {
                ZSTD_CDict* cd =
                    use_dict ? ZSTD_createCDict(dict.data(), dict.size(), level) : nullptr;
                ZSTD_DDict* dd = use_dict ? ZSTD_createDDict(dict.data(), dict.size()) : nullptr;
                std::uint64_t bytes = 0, nblocks = 0;
                std::vector<std::vector<std::uint8_t>> some;  // frames to time decoding
                std::vector<std::uint8_t> dst(ZSTD_compressBound(block));
                for (const auto& v : layers) {
                    for (std::size_t a = 0; a < v.size(); a += block) {
                        const std::size_t len = std::min(block, v.size() - a);
                        const std::size_t r =
                            use_dict ? ZSTD_compress_usingCDict(cc, dst.data(), dst.size(),
                                                                v.data() + a, len, cd)
                                     : ZSTD_compressCCtx(cc, dst.data(), dst.size(), v.data() + a,
                                                         len, level);
                        bytes += r;
                        ++nblocks;
                        if (len == block && some.size() < samples && rng() % 64 == 0)
                            some.emplace_back(dst.begin(), dst.begin() + r);
                    }
                }
                std::vector<double> ns;
                std::vector<std::uint8_t> out(block);
                for (const auto& f : some) {
                    const auto t0 = Clock::now();
                    const std::size_t r =
                        use_dict ? ZSTD_decompress_usingDDict(dc, out.data(), block, f.data(),
                                                              f.size(), dd)
                                 : ZSTD_decompressDCtx(dc, out.data(), block, f.data(), f.size());
                    ns.push_back(
                        std::chrono::duration<double, std::nano>(Clock::now() - t0).count());
                    if (ZSTD_isError(r)) return 1;
                }
                // + 8 bytes of offset per block to find it (the index a file would need).
                const double bits =
                    8.0 * static_cast<double>(bytes + 8 * nblocks + (use_dict ? dict.size() : 0));
                j["zstd"].push_back({{"block_values", block},
                                     {"level", level},
                                     {"dictionary_bytes", use_dict ? dict.size() : 0},
                                     {"bits_per_value", bits * per},
                                     {"decode_ns_median", median(ns)}});
                ZSTD_freeCDict(cd);
                ZSTD_freeDDict(dd);
            }
        }
    }
    ZSTD_freeCCtx(cc);
    ZSTD_freeDCtx(dc);

    // Fixed width per block of 64: min value (8 bits) + width (5 bits) + 64 * width bits.
    double fixed = 0;
    for (const auto& v : layers)
        for (std::size_t a = 0; a < v.size(); a += 64) {
            const std::size_t b = std::min(v.size(), a + 64);
            const auto [mn, mx] = std::minmax_element(v.begin() + a, v.begin() + b);
            fixed += 13 + static_cast<double>(b - a) * std::bit_width(unsigned(*mx - *mn));
        }
    j["fixed_width_64_bits_per_value"] = fixed * per;
    std::printf("%s\n", j.dump().c_str());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"konane_format_measure: measurements behind table format 2 (JSON on stdout)"};
    app.require_subcommand(1);
    std::string in, out;
    std::size_t samples = 2000;
    format::TableMeta p;
    auto* rw = app.add_subcommand("rewrite", "Rewrite a table with other writer parameters");
    rw->add_option("IN", in)->required();
    rw->add_option("OUT", out)->required();
    rw->add_option("--block-buckets", p.block_buckets, "Buckets of the high bits per block");
    rw->add_option("--value-group", p.value_group, "Values per group of a block");
    auto* ix = app.add_subcommand("index", "Bits per key of the index alternatives");
    ix->add_option("IN", in)->required();
    auto* va = app.add_subcommand("values", "Bits per value and decode time of alternatives");
    va->add_option("IN", in)->required();
    va->add_option("--samples", samples, "Blocks whose decoding is timed");
    CLI11_PARSE(app, argc, argv);
    try {
        if (*rw) return run_rewrite(in, out, p);
        if (*ix) return run_index(in);
        if (*va) return run_values(in, samples);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "konane_format_measure: %s\n", e.what());
        return 1;
    }
    return 0;
}
