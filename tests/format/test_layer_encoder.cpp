// The layer encoder (format/layer_encoder.hpp): a layer encoded in 1 to k pieces of consecutive
// blocks, put side by side, checked (seal_blocks) and copied into a table
// (TableWriter::begin_encoded_layer), gives the bytes of TableWriter::add_layer of the layer
// whole, which the format's own tests check against FORMAT.md.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "format/layer_encoder.hpp"
#include "format/table.hpp"

namespace fs = std::filesystem;
using namespace konane::format;

namespace {

struct Layer {
    LayerInfo info;
    std::vector<std::uint64_t> keys;
    std::vector<std::uint8_t> depth;
    std::array<std::uint64_t, 256> hist{};
};

Layer random_layer(std::mt19937_64& rng, unsigned squares, unsigned pieces, std::size_t n) {
    Layer l;
    std::set<std::uint64_t> keys;
    while (keys.size() < n) {
        std::uint64_t k = (rng() & 1) << 63;
        while (static_cast<unsigned>(std::popcount(k & ((std::uint64_t{1} << squares) - 1))) <
               pieces)
            k |= std::uint64_t{1} << (rng() % squares);
        keys.insert(k);
    }
    l.keys.assign(keys.begin(), keys.end());
    for (std::size_t i = 0; i < l.keys.size(); ++i) {
        l.depth.push_back(static_cast<std::uint8_t>(std::min<int>(rng() % 7 * (rng() % 5), 30)));
        ++l.hist[l.depth.back()];
    }
    l.info = {pieces, l.keys.size(), l.keys.size() * 3};
    return l;
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

std::uint64_t u64(const std::uint8_t* p) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

}  // namespace

TEST_CASE("layer encoder: a layer in 1 to k pieces gives the bytes of the whole layer",
          "[format][encoder]") {
    const fs::path dir =
        fs::temp_directory_path() / ("konane-encoder-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::mt19937_64 rng(7);
    for (const std::uint32_t buckets : {8u, 256u}) {
        TableMeta meta;
        meta.rows = 4;
        meta.cols = 5;
        meta.ruleset = "brainking";
        meta.generator = "test";
        meta.block_buckets = buckets;
        std::vector<Layer> layers = {random_layer(rng, 20, 3, 1), random_layer(rng, 20, 9, 3000),
                                     random_layer(rng, 20, 12, 7000)};
        {
            TableWriter w(dir / "whole.kbt", meta, 1);
            for (const Layer& l : layers)
                w.add_layer(l.info, l.keys, l.depth);
            w.commit();
        }
        const std::string want = slurp(dir / "whole.kbt");
        for (int pieces = 1; pieces <= 5; ++pieces) {
            INFO(buckets << " buckets a block, " << pieces << " pieces");
            TableWriter w(dir / "pieces.kbt", meta, 1);
            for (const Layer& l : layers) {
                LayerEncoder enc(meta, l.info, l.keys.back(), l.hist);
                const std::uint64_t J = enc.blocks();
                // Piece boundaries: random blocks, empty pieces allowed.
                std::vector<std::uint64_t> cuts = {0, J};
                for (int p = 1; p < pieces; ++p)
                    cuts.push_back(rng() % (J + 1));
                std::sort(cuts.begin(), cuts.end());
                std::vector<std::uint8_t> blocks;
                std::vector<std::uint64_t> off, fst;
                EncodedTotals layer;
                std::size_t at = 0;
                for (std::size_t p = 0; p + 1 < cuts.size(); ++p) {
                    std::size_t end = at;
                    while (end < l.keys.size() && enc.block_of(l.keys[end]) < cuts[p + 1])
                        ++end;
                    enc.start(cuts[p], cuts[p + 1], at);
                    // Keys in two calls, to cross add() boundaries too.
                    const std::size_t mid = at + (end - at) / 2;
                    enc.add({l.keys.data() + at, mid - at}, {l.depth.data() + at, mid - at});
                    enc.add({l.keys.data() + mid, end - mid}, {l.depth.data() + mid, end - mid});
                    enc.finish();
                    CHECK(enc.elements() == end - at);
                    CHECK(enc.directory().size() == (cuts[p + 1] - cuts[p]) * 16);
                    for (std::size_t k = 0; k < enc.directory().size(); k += 16) {
                        off.push_back(layer.bytes + u64(enc.directory().data() + k));
                        fst.push_back(u64(enc.directory().data() + k + 8));
                    }
                    blocks.insert(blocks.end(), enc.bytes().begin(), enc.bytes().end());
                    layer += enc.totals();
                    at = end;
                }
                REQUIRE(at == l.keys.size());
                REQUIRE(layer.bytes == blocks.size());
                off.push_back(layer.bytes);
                fst.push_back(l.info.classes);
                const LayerLayout lay = enc.layout(layer, w.bytes_written(), w.header_checksum());
                seal_blocks(lay.key, 0, off, fst, blocks.data(), 2);
                std::vector<std::uint8_t> out;
                put_directory(off, fst, lay.width, out);
                out.resize(static_cast<std::size_t>(lay.dir_size), 0);
                out.insert(out.end(), blocks.begin(), blocks.end());
                out.resize(static_cast<std::size_t>(lay.dir_size + lay.blocks_size), 0);
                w.begin_encoded_layer(l.info, lay.entry);
                w.append_encoded({out.data(), 5});
                w.append_encoded({out.data() + 5, out.size() - 5});
                w.end_encoded_layer();
            }
            w.commit();
            CHECK(slurp(dir / "pieces.kbt") == want);
            CHECK(Table::open(dir / "pieces.kbt")->verify_checksums().ok);
        }
    }
    fs::remove_all(dir);
}

TEST_CASE("layer encoder: keys outside the piece, and an encoded layer of the wrong size",
          "[format][encoder]") {
    TableMeta meta;
    meta.rows = 4;
    meta.cols = 5;
    meta.ruleset = "brainking";
    meta.generator = "test";
    meta.block_buckets = 8;
    std::mt19937_64 rng(3);
    const Layer l = random_layer(rng, 20, 9, 500);
    LayerEncoder enc(meta, l.info, l.keys.back(), l.hist, "here: ");
    REQUIRE(enc.blocks() > 2);
    enc.start(1, 2, 0);
    CHECK_THROWS_WITH(enc.add({l.keys.data(), 1}, {l.depth.data(), 1}),
                      Catch::Contains("here: ") && Catch::Contains("outside the piece's blocks"));
    CHECK_THROWS_AS(enc.start(2, enc.blocks() + 1, 0), std::invalid_argument);

    const fs::path dir =
        fs::temp_directory_path() / ("konane-encoder-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    {
        TableWriter w(dir / "bad.kbt", meta, 1);
        enc.start(0, enc.blocks(), 0);
        enc.add(l.keys, l.depth);
        enc.finish();
        const LayerLayout lay = enc.layout(enc.totals(), w.bytes_written(), w.header_checksum());
        // An entry for another offset is refused; the writer stays usable.
        const LayerLayout moved = enc.layout(enc.totals(), w.bytes_written() + 8, 0);
        CHECK_THROWS_AS(w.begin_encoded_layer(l.info, moved.entry), std::invalid_argument);
        w.begin_encoded_layer(l.info, lay.entry);
        const std::vector<std::uint8_t> some(16, 0);
        w.append_encoded(some);
        CHECK_THROWS_WITH(w.end_encoded_layer(), Catch::Contains("bytes of the layer missing"));
        CHECK_THROWS_AS(w.commit(), std::logic_error);
    }
    CHECK_FALSE(fs::exists(dir / "bad.kbt"));
    fs::remove_all(dir);
}
