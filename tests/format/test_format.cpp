// Tests of the tablebase file format (format/table.hpp, format/FORMAT.md): round trips,
// corruption and truncation detection, foreign files, board/ruleset checks and crash-safe
// writing (failing writes leave neither a partial nor a temporary file).
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <xxhash.h>

#include "format/table.hpp"
#include "tests/format/table_bytes.hpp"

namespace fs = std::filesystem;
using namespace konane::format;
using namespace konane::test;

namespace {

/// A fresh directory under the system temp directory, removed with everything in it.
struct TempDir {
    fs::path path;
    TempDir() {
        std::random_device rd;
        path = fs::temp_directory_path() /
               ("konane_format_test_" + std::to_string(::getpid()) + "_" + std::to_string(rd()));
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    fs::path operator/(const std::string& name) const { return path / name; }
    /// Names of all entries in the directory, sorted.
    std::vector<std::string> entries() const {
        std::vector<std::string> v;
        for (const auto& e : fs::directory_iterator(path))
            v.push_back(e.path().filename());
        std::sort(v.begin(), v.end());
        return v;
    }
};

struct SynthLayer {
    LayerInfo info;
    std::vector<std::uint64_t> keys;   ///< sorted, distinct, `pieces` bits on 36 squares
    std::vector<std::uint8_t> values;  ///< by rank
};

/// A layer of n positions of `pieces` pieces on the 6x6 board (random distinct keys, either side
/// to move), with skewed random depths (mostly short, geometric tail).
SynthLayer make_layer(std::uint32_t pieces, std::uint64_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    SynthLayer l;
    l.info = {pieces, n, n * 3 + 1};
    std::vector<int> squares(36);
    for (int i = 0; i < 36; ++i)
        squares[i] = i;
    while (l.keys.size() < n) {
        while (l.keys.size() < n) {
            std::uint64_t k = (rng() & 1) << 63;
            for (std::uint32_t j = 0; j < pieces; ++j) {  // partial Fisher-Yates
                std::swap(squares[j], squares[j + rng() % (36 - j)]);
                k |= std::uint64_t{1} << squares[j];
            }
            l.keys.push_back(k);
        }
        std::sort(l.keys.begin(), l.keys.end());
        l.keys.erase(std::unique(l.keys.begin(), l.keys.end()), l.keys.end());
    }
    std::geometric_distribution<int> depth(0.4);
    l.values.resize(n);
    for (auto& v : l.values)
        v = static_cast<std::uint8_t>(std::min(depth(rng), 255));
    return l;
}

TableMeta base_meta() {
    TableMeta m;
    m.rows = 6;
    m.cols = 6;
    m.ruleset = "brainking";
    m.generator = "konane 0.2.0 (test)";
    return m;
}

void write_table(const fs::path& p, const TableMeta& meta, const std::vector<SynthLayer>& layers,
                 int threads = 0) {
    TableWriter w(p, meta, threads);
    for (const auto& l : layers)
        w.add_layer(l.info, l.keys, l.values);
    w.commit();
}

// Trailer fields (FORMAT.md §7): the trailer is the last 80 bytes.
constexpr std::size_t kTrailer = 80;
/// Where the layer table starts: the end of the data area.
std::size_t lt_offset_of(const std::vector<std::uint8_t>& b) {
    return le64_at(b, b.size() - kTrailer + 24);
}
/// Field `off` (FORMAT.md §5) of layer table entry `layer`.
std::uint64_t entry_field(const std::vector<std::uint8_t>& b, std::size_t layer, std::size_t off,
                          std::size_t bytes = 8) {
    const std::uint64_t v = le64_at(b, lt_offset_of(b) + 416 * layer + off);
    return bytes == 8 ? v : v & ((std::uint64_t{1} << (8 * bytes)) - 1);
}
/// Directory entry e of a layer (FORMAT.md §4.2): {byte offset in the blocks, first element}.
std::pair<std::uint64_t, std::uint64_t> dir_entry(const std::vector<std::uint8_t>& b,
                                                  std::size_t layer, std::uint64_t e) {
    const std::uint64_t w = entry_field(b, layer, 48, 4);
    const std::size_t at = entry_field(b, layer, 56) + 2 * w * e;
    auto field = [&](std::size_t off) {
        std::uint64_t v = 0;
        for (std::size_t i = 0; i < w; ++i)
            v |= std::uint64_t{b[off + i]} << (8 * i);
        return v;
    };
    return {field(at), field(at + w)};
}

/// Up to `count` keys of `pieces` pieces on 6x6 that are not in `l` (random, bounded tries).
std::vector<std::uint64_t> absent_keys(const SynthLayer& l, std::size_t count, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::uint64_t> out;
    for (std::size_t tries = 0; tries < 4 * count && out.size() < count; ++tries) {
        std::uint64_t k = (rng() & 1) << 63;
        while (static_cast<std::uint32_t>(std::popcount(k & ~(1ull << 63))) < l.info.pieces)
            k |= std::uint64_t{1} << (rng() % 36);
        if (!std::binary_search(l.keys.begin(), l.keys.end(), k)) out.push_back(k);
    }
    return out;
}

/// Checks every key, rank and value of `t` against `layers`, by probe and in bulk, and that
/// positions not stored are reported as not stored.
void check_contents(const Table& t, const TableMeta& meta, const std::vector<SynthLayer>& layers) {
    REQUIRE(t.meta() == meta);
    REQUIRE(t.layers().size() == layers.size());
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const SynthLayer& l = layers[i];
        INFO("layer " << i << " n=" << l.info.classes);
        REQUIRE(t.layers()[i] == l.info);
        REQUIRE(t.layer_index(l.info.pieces) == static_cast<int>(i));
        std::vector<std::uint8_t> vals;
        t.read_values(i, vals);
        REQUIRE(vals == l.values);
        std::vector<std::uint64_t> keys;
        t.read_keys(i, keys);
        REQUIRE(keys == l.keys);
        bool all_ok = true;  // one REQUIRE per layer keeps the test fast
        for (std::uint64_t r = 0; r < l.info.classes; ++r) {
            all_ok = all_ok && t.value(i, r) == l.values[r];
            const auto found = t.find(i, l.keys[r]);
            all_ok = all_ok && found && *found == r;
        }
        REQUIRE(all_ok);
        for (std::uint64_t k : absent_keys(l, 200, 1000 + i))
            all_ok = all_ok && !t.find(i, k).has_value();
        REQUIRE(all_ok);
        if (!l.keys.empty()) {
            const std::uint64_t k = l.keys[0];
            REQUIRE_FALSE(t.find(i, k ^ 1ull << 40).has_value());  // off the board
            const std::uint64_t occ = k & ~(1ull << 63);
            const std::uint64_t grown = occ | (std::uint64_t{1} << std::countr_one(occ));
            REQUIRE_FALSE(t.find(i, grown).has_value());  // one piece too many
        }
        const SectionSizes sz = t.section_sizes(i);
        REQUIRE((sz.index() > 0) == (l.info.classes > 0));
        REQUIRE((sz.values() > 0) == (l.info.classes > 0));
        REQUIRE_THROWS_AS(t.value(i, l.info.classes), std::out_of_range);
    }
    REQUIRE_THROWS_AS(t.value(layers.size(), 0), std::out_of_range);
    REQUIRE_THROWS_AS(t.find(layers.size(), 0), std::out_of_range);
    const VerifyReport r = t.verify_checksums(2);
    INFO((r.problems.empty() ? std::string() : r.problems.front()));
    REQUIRE(r.ok);
    REQUIRE(r.problems.empty());
}

/// A small table (small blocks and value groups): many blocks of a few elements.
TableMeta small_meta() {
    TableMeta m = base_meta();
    m.block_buckets = 8;
    m.value_group = 8;
    return m;
}
std::vector<SynthLayer> small_layers() {
    return {make_layer(2, 1, 11), make_layer(3, 63, 12), make_layer(5, 64, 13),
            make_layer(6, 65, 14), make_layer(9, 200, 15)};
}

/// Reads everything in the table; true if a FormatError was thrown somewhere.
bool reading_everything_throws(const Table& t) {
    try {
        for (std::size_t i = 0; i < t.layers().size(); ++i) {
            std::vector<std::uint8_t> v;
            t.read_values(i, v);
            std::vector<std::uint64_t> k;
            t.read_keys(i, k);
        }
    } catch (const FormatError&) {
        return true;
    }
    return false;
}

}  // namespace

TEST_CASE("format: round trip rank by rank across block and group boundaries", "[format]") {
    TempDir dir;
    const TableMeta meta = base_meta();
    // Blocks of 256 buckets (about 128 to 256 positions), groups of 64 values.
    std::vector<SynthLayer> layers;
    std::uint32_t pieces = 4;
    std::uint64_t seed = 100;
    for (std::uint64_t n : {1ull, 63ull, 64ull, 65ull, 1023ull, 1024ull, 1025ull})
        layers.push_back(make_layer(pieces++, n, seed++));
    layers.push_back(make_layer(15, 4097, seed++));
    layers.push_back(make_layer(18, 300000, seed++));
    const fs::path p = dir / "t.kbt";
    write_table(p, meta, layers);
    REQUIRE(dir.entries() == std::vector<std::string>{"t.kbt"});
    const auto t = Table::open(p, Expect{6, 6, "brainking"});
    REQUIRE(t->file_size() == fs::file_size(p));
    REQUIRE(t->layer_index(11) == -1);
    REQUIRE(t->layer_index(0) == -1);
    check_contents(*t, meta, layers);
}

TEST_CASE("format: round trip with other parameters and an empty layer and one value", "[format]") {
    TempDir dir;
    TableMeta meta = small_meta();
    meta.ruleset = "center";
    meta.generator = "";
    std::vector<SynthLayer> layers = {make_layer(0, 0, 1), make_layer(1, 1, 2),
                                      make_layer(2, 600, 3), make_layer(4, 5000, 4)};
    std::fill(layers[2].values.begin(), layers[2].values.end(), 7);  // a single symbol
    layers[3].values[10] = 255;                                      // a rare long code
    const fs::path p = dir / "t.kbt";
    write_table(p, meta, layers, 3);
    check_contents(*Table::open(p), meta, layers);
}

TEST_CASE("format: a layer larger than one ranking batch (2^20 keys)", "[format]") {
    TempDir dir;
    const auto l = make_layer(17, (std::uint64_t{1} << 20) + 4097, 9);
    const fs::path p = dir / "big.kbt";
    write_table(p, base_meta(), {l}, 2);
    const auto t = Table::open(p);
    std::vector<std::uint8_t> v;
    t->read_values(0, v);
    REQUIRE(v == l.values);
    std::vector<std::uint64_t> k;
    t->read_keys(0, k);
    REQUIRE(k == l.keys);
    bool ok = true;
    for (std::uint64_t r : {std::uint64_t{0}, l.info.classes / 2, (std::uint64_t{1} << 20) - 1,
                            std::uint64_t{1} << 20, l.info.classes - 1})
        ok = ok && t->value(0, r) == l.values[r] && t->find(0, l.keys[r]) == r;
    REQUIRE(ok);
    REQUIRE(t->verify_checksums().ok);
}

TEST_CASE("format: output is identical for any thread count", "[format]") {
    TempDir dir;
    const std::vector<SynthLayer> layers = {make_layer(3, 1000, 5), make_layer(9, 70000, 6)};
    write_table(dir / "a.kbt", base_meta(), layers, 1);
    write_table(dir / "b.kbt", base_meta(), layers, 3);
    write_table(dir / "c.kbt", base_meta(), layers, 0);
    const auto a = read_bytes(dir / "a.kbt");
    REQUIRE(a == read_bytes(dir / "b.kbt"));
    REQUIRE(a == read_bytes(dir / "c.kbt"));
}

TEST_CASE("format: concurrent probes check blocks once and agree", "[format][concurrency]") {
    TempDir dir;
    const std::vector<SynthLayer> layers = {make_layer(2, 400, 21), make_layer(10, 60000, 22)};
    write_table(dir / "t.kbt", small_meta(), layers);
    const auto t = Table::open(dir / "t.kbt");
    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    for (int k = 0; k < 6; ++k) {
        threads.emplace_back([&, k] {
            std::mt19937_64 rng(k);
            for (int i = 0; i < 20000; ++i) {
                const std::size_t l = rng() % 2;
                const std::uint64_t r = rng() % layers[l].info.classes;
                if (t->value(l, r) != layers[l].values[r]) ++wrong;
                if (t->find(l, layers[l].keys[r]) != r) ++wrong;
            }
        });
    }
    for (auto& th : threads)
        th.join();
    REQUIRE(wrong == 0);
}

TEST_CASE("format: every byte of header and layer table and trailer is checked on open",
          "[format]") {
    TempDir dir;
    const TableMeta meta = small_meta();
    const auto layers = small_layers();
    const fs::path good = dir / "good.kbt";
    write_table(good, meta, layers);
    const auto bytes = read_bytes(good);
    const std::size_t size = bytes.size();
    // Checked on open: the header, and everything from the layer table on (it and the
    // trailer). The blocks are checked on first use.
    const std::size_t lt = lt_offset_of(bytes);
    REQUIRE(lt < size);
    REQUIRE(256 + (size - lt) < 4096);  // "a few KB at most"
    std::vector<std::size_t> positions;
    for (std::size_t i = 0; i < 256; ++i)
        positions.push_back(i);
    for (std::size_t i = lt; i < size; ++i)
        positions.push_back(i);

    const fs::path bad = dir / "bad.kbt";
    std::size_t refused = 0;
    for (std::size_t pos : positions) {
        for (std::uint8_t mask : {std::uint8_t{0x01}, std::uint8_t{0xFF}}) {
            auto copy = bytes;
            copy[pos] ^= mask;
            write_bytes(bad, copy);
            const std::string err = open_error(bad);
            if (err.empty()) FAIL("byte " << pos << " ^ " << int(mask) << " was not noticed");
            if (err.rfind(bad.string() + ": ", 0) != 0) FAIL("message lacks the file: " << err);
            ++refused;
        }
    }
    REQUIRE(refused == 2 * positions.size());
    // Sanity: the unmodified file still opens.
    REQUIRE(open_error(good).empty());
}

TEST_CASE("format: damage in the data area is caught on first read and by verify", "[format]") {
    TempDir dir;
    const TableMeta meta = small_meta();
    const auto layers = small_layers();
    const fs::path good = dir / "good.kbt";
    write_table(good, meta, layers);
    const auto bytes = read_bytes(good);
    // The data area: [256, layer table), directories and blocks.
    const std::size_t end = lt_offset_of(bytes);
    const fs::path bad = dir / "bad.kbt";
    std::mt19937_64 rng(99);
    std::vector<std::size_t> positions = {256, end - 20, end - 1};
    for (int i = 0; i < 150; ++i)
        positions.push_back(256 + rng() % (end - 256));
    int probes_threw = 0;
    for (std::size_t pos : positions) {
        INFO("byte " << pos);
        auto copy = bytes;
        copy[pos] ^= static_cast<std::uint8_t>(1 + rng() % 255);
        write_bytes(bad, copy);
        // Opening reads only the few bytes that show the layer table agrees with the body (the
        // first and last directory entries, the last block, the padding): damage there is
        // refused at once.
        std::shared_ptr<const Table> t;
        try {
            t = Table::open(bad);
        } catch (const FormatError& e) {
            REQUIRE_THAT(e.what(), Catch::StartsWith(bad.string() + ": "));
            ++probes_threw;
            continue;
        }
        const VerifyReport r = t->verify_checksums(2);
        REQUIRE_FALSE(r.ok);
        REQUIRE_FALSE(r.problems.empty());
        REQUIRE(r.blocks_checked > 0);
        REQUIRE(reading_everything_throws(*t));
        // A fresh open and probing every position and value: never a wrong answer, each
        // either right or a FormatError.
        const auto t2 = Table::open(bad);
        bool threw = false;
        for (std::size_t l = 0; l < layers.size(); ++l) {
            for (std::uint64_t r = 0; r < layers[l].info.classes; ++r) {
                try {
                    if (t2->value(l, r) != layers[l].values[r])
                        FAIL("wrong value at layer " << l << " rank " << r);
                } catch (const FormatError&) {
                    threw = true;
                }
                try {
                    if (t2->find(l, layers[l].keys[r]) != r)
                        FAIL("wrong rank at layer " << l << " rank " << r);
                } catch (const FormatError&) {
                    threw = true;
                }
            }
        }
        probes_threw += threw ? 1 : 0;
    }
    // Probes read nearly every block (a damaged byte a probe never reads is left to verify).
    REQUIRE(probes_threw > static_cast<int>(positions.size()) * 3 / 4);
}

TEST_CASE("format: a damaged block names its layer and block while others still work", "[format]") {
    TempDir dir;
    const std::vector<SynthLayer> layers = {make_layer(7, 3000, 3)};
    const fs::path p = dir / "t.kbt";
    write_table(p, base_meta(), layers);
    auto bytes = read_bytes(p);
    // Block 1 of layer 0, from the layer table and the directory (FORMAT.md §4-5).
    const auto [off1, first1] = dir_entry(bytes, 0, 1);
    const auto [off2, first2] = dir_entry(bytes, 0, 2);
    REQUIRE(first2 > first1);
    REQUIRE(dir_entry(bytes, 0, 3).second < 3000);  // not the last block (open reads that one)
    bytes[entry_field(bytes, 0, 72) + (off1 + off2) / 2] ^= 0x40;
    write_bytes(p, bytes);
    const auto t = Table::open(p);
    REQUIRE_THROWS_WITH(t->value(0, first1), Catch::Contains(p.string()) &&
                                                 Catch::Contains("layer 0 (7 pieces): block 1") &&
                                                 Catch::Contains("checksum mismatch"));
    REQUIRE_THROWS_AS(t->value(0, first2 - 1), FormatError);  // same block, still refused
    REQUIRE_THROWS_AS(t->find(0, layers[0].keys[first1]), FormatError);
    REQUIRE(t->value(0, 0) == layers[0].values[0]);
    REQUIRE(t->find(0, layers[0].keys[0]) == 0);
    REQUIRE(t->value(0, 2999) == layers[0].values[2999]);
    std::vector<std::uint8_t> v;
    REQUIRE_THROWS_AS(t->read_values(0, v), FormatError);
    std::vector<std::uint64_t> k;
    REQUIRE_THROWS_AS(t->read_keys(0, k), FormatError);
    const VerifyReport r = t->verify_checksums();
    REQUIRE_FALSE(r.ok);
    // The block and the whole-file hash.
    REQUIRE(r.problems.size() == 2);
    REQUIRE_THAT(r.problems[1], Catch::Contains("layer 0 (7 pieces): block 1: checksum mismatch"));
    // Every block of the layer was checked: one per 256 buckets.
    std::uint64_t blocks = 0;
    while (dir_entry(bytes, 0, blocks + 1).second < 3000)
        ++blocks;
    REQUIRE(r.blocks_checked == blocks + 1);
}

TEST_CASE("format: truncated and extended files are refused", "[format]") {
    TempDir dir;
    const fs::path good = dir / "good.kbt";
    write_table(good, small_meta(), small_layers());
    const auto bytes = read_bytes(good);
    const fs::path cut = dir / "cut.kbt";
    for (std::size_t len = 0; len < bytes.size(); ++len) {
        write_bytes(cut, std::vector<std::uint8_t>(bytes.begin(), bytes.begin() + len));
        const std::string err = open_error(cut);
        if (err.empty()) FAIL("file cut to " << len << " bytes was accepted");
    }
    REQUIRE_THAT(open_error(cut), Catch::Contains("trailer"));
    for (std::size_t extra : {1u, 8u, 96u, 4096u}) {
        auto longer = bytes;
        longer.resize(bytes.size() + extra, 0);
        write_bytes(cut, longer);
        REQUIRE_FALSE(open_error(cut).empty());
    }
    auto twice = bytes;
    twice.insert(twice.end(), bytes.begin(), bytes.end());
    write_bytes(cut, twice);
    REQUIRE_THAT(open_error(cut), Catch::Contains("trailer") && Catch::Contains("file size"));
}

TEST_CASE("format: empty or random or foreign files and directories are refused clearly",
          "[format]") {
    TempDir dir;
    const fs::path p = dir / "x.kbt";
    REQUIRE_THAT(open_error(dir / "missing.kbt"),
                 Catch::Contains("missing.kbt: open: No such file or directory"));
    write_bytes(p, {});
    REQUIRE_THAT(open_error(p), Catch::Contains(p.string() + ": file: empty file"));
    REQUIRE_THAT(open_error(dir.path), Catch::Contains("is a directory"));
    REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);  // must not block
    REQUIRE_THAT(open_error(dir / "fifo"), Catch::Contains("not a regular file"));

    std::mt19937_64 rng(5);
    std::vector<std::uint8_t> random(4096);
    for (auto& b : random)
        b = static_cast<std::uint8_t>(rng());
    random[0] = 0x00;  // surely not our magic
    write_bytes(p, random);
    REQUIRE_THAT(open_error(p), Catch::Contains(p.string() + ": header: not a Konane tablebase"));

    // A real zstd frame holding "hello" (single segment, one raw block).
    write_bytes(p, {0x28, 0xB5, 0x2F, 0xFD, 0x20, 0x05, 0x29, 0x00, 0x00, 'h', 'e', 'l', 'l', 'o'});
    REQUIRE_THAT(open_error(p), Catch::Contains("not a Konane tablebase") &&
                                    Catch::Contains("zstd-compressed file"));
    // A PNG signature and IHDR chunk start.
    write_bytes(p, {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'});
    REQUIRE_THAT(open_error(p), Catch::Contains("PNG image"));
    write_bytes(p, {'h', 'e', 'l', 'l', 'o', '\n'});
    REQUIRE_THAT(open_error(p), Catch::Contains("text file"));
    write_bytes(p, {0x8B, 'K', 'T'});
    REQUIRE_THAT(open_error(p), Catch::Contains("not a Konane tablebase"));

    // Our magic, then garbage: truncated header; or a future version.
    const fs::path good = dir / "good.kbt";
    write_table(good, small_meta(), small_layers());
    auto bytes = read_bytes(good);
    write_bytes(p, std::vector<std::uint8_t>(bytes.begin(), bytes.begin() + 100));
    REQUIRE_THAT(open_error(p), Catch::Contains("header: file truncated"));
    auto v5 = bytes;
    v5[8] = 5;
    write_bytes(p, v5);
    REQUIRE_THAT(open_error(p), Catch::Contains("header: unsupported format version 5") &&
                                    Catch::Contains("newer"));
    // Versions 3 and 2 (the same data area in other blocks) and 1: older tables, to upgrade or
    // regenerate.
    for (const std::uint8_t version : {3, 2, 1}) {
        auto old = bytes;
        old[8] = version;
        write_bytes(p, old);
        REQUIRE_THAT(open_error(p), Catch::Contains("header: unsupported format version " +
                                                    std::to_string(version)) &&
                                        Catch::Contains("regenerate it with `konane generate 6x6 "
                                                        "--rules brainking -o "));
    }
    // A line-ending conversion (CRLF -> LF) breaks the magic.
    auto lf = bytes;
    lf.erase(lf.begin() + 4);
    write_bytes(p, lf);
    REQUIRE_THAT(open_error(p), Catch::Contains("not a Konane tablebase"));
}

TEST_CASE("format: a table of another board or ruleset is refused when one is asked for",
          "[format]") {
    TempDir dir;
    const fs::path p = dir / "t.kbt";
    write_table(p, small_meta(), small_layers());  // 6x6 brainking
    REQUIRE(open_error(p, Expect{}).empty());
    REQUIRE(open_error(p, Expect{6, 6, "brainking"}).empty());
    REQUIRE(open_error(p, Expect{6, 0, ""}).empty());
    REQUIRE_THAT(open_error(p, Expect{4, 4, "brainking"}),
                 Catch::Contains(p.string() + ": header: table is for a 6x6 board, expected 4x4"));
    REQUIRE_THAT(open_error(p, Expect{0, 5, ""}), Catch::Contains("expected *x5"));
    REQUIRE_THAT(open_error(p, Expect{6, 6, "center"}),
                 Catch::Contains("table is for ruleset 'brainking', expected 'center'"));
}

namespace {

/// Writes `layers` as streamed layers (begin_layer, add_to_layer in pieces of random sizes,
/// zero included, end_layer), spilled to `spill` in chunks of `chunk` bytes.
void write_streamed(const fs::path& p, const TableMeta& meta, const std::vector<SynthLayer>& layers,
                    const fs::path& spill, std::size_t chunk, std::uint64_t seed, int threads = 0) {
    std::mt19937_64 rng(seed);
    TableWriter w(p, meta, threads);
    for (const auto& l : layers) {
        std::array<std::uint64_t, 256> hist{};
        for (const std::uint8_t v : l.values)
            ++hist[v];
        w.begin_layer(l.info, l.keys.empty() ? 0 : l.keys.back(), hist, spill, chunk);
        std::size_t at = 0;
        while (at < l.keys.size()) {
            const std::size_t take = std::min<std::size_t>(l.keys.size() - at, rng() % 3000);
            w.add_to_layer(std::span(l.keys).subspan(at, take),
                           std::span(l.values).subspan(at, take));
            at += take;
        }
        w.end_layer();
    }
    w.commit();
}

}  // namespace

TEST_CASE("format: a layer streamed in pieces and spilled writes add_layer's bytes", "[format]") {
    TempDir dir;
    fs::create_directories(dir / "spill");
    std::vector<SynthLayer> layers = {make_layer(0, 0, 1), make_layer(1, 1, 2),
                                      make_layer(4, 1025, 3), make_layer(9, 70000, 4),
                                      make_layer(18, 300000, 5)};
    layers[2].values.assign(layers[2].values.size(), 3);  // a single symbol
    write_table(dir / "ref.kbt", base_meta(), layers);
    const auto want = read_bytes(dir / "ref.kbt");
    // Spill chunks of one byte (every block to the file at once), of 1000 bytes (blocks split
    // across the file and the memory tail, groups of checks read back across both), of the
    // default, and no spill directory at all.
    std::uint64_t seed = 10;
    for (const std::size_t chunk : {std::size_t{1}, std::size_t{1000}, kSpillChunk}) {
        INFO("spill chunk " << chunk);
        write_streamed(dir / "s.kbt", base_meta(), layers, dir / "spill", chunk, seed++, 2);
        REQUIRE(read_bytes(dir / "s.kbt") == want);
    }
    write_streamed(dir / "s.kbt", base_meta(), layers, {}, kSpillChunk, seed++, 1);
    REQUIRE(read_bytes(dir / "s.kbt") == want);
    check_contents(*Table::open(dir / "s.kbt"), base_meta(), layers);
    // The spill files are gone with their layers.
    REQUIRE(fs::is_empty(dir / "spill"));
}

TEST_CASE("format: streamed layer argument checks", "[format]") {
    TempDir dir;
    fs::create_directories(dir / "spill");
    const auto l = make_layer(5, 3000, 7);
    std::array<std::uint64_t, 256> hist{};
    for (const std::uint8_t v : l.values)
        ++hist[v];
    const fs::path p = dir / "t.kbt";
    TableWriter w(p, base_meta());
    REQUIRE_THROWS_AS(w.add_to_layer(l.keys, l.values), std::logic_error);  // no layer begun
    REQUIRE_THROWS_AS(w.end_layer(), std::logic_error);
    auto wrong = hist;
    ++wrong[0];
    REQUIRE_THROWS_AS(w.begin_layer(l.info, l.keys.back(), wrong, dir / "spill", 100),
                      std::invalid_argument);  // counts one value too many
    REQUIRE_THROWS_AS(w.begin_layer(l.info, l.keys.back(), hist, dir / "nope", 100),
                      FormatError);  // no such spill directory: the writer is gone
    REQUIRE_THROWS_AS(w.commit(), std::logic_error);

    TableWriter v(p, base_meta());
    auto refused = [&](auto add) {
        v.begin_layer(l.info, l.keys.back(), hist, dir / "spill", 100);
        REQUIRE_THROWS_AS(add(), std::invalid_argument);
        REQUIRE_THROWS_AS(v.end_layer(), std::logic_error);  // the layer was dropped
    };
    const std::span keys(l.keys);
    const std::span vals(l.values);
    refused([&] { v.add_to_layer(keys.first(10), vals.first(9)); });
    refused([&] {  // a piece out of order
        v.add_to_layer(keys.subspan(100, 50), vals.subspan(100, 50));
        v.add_to_layer(keys.first(100), vals.first(100));
    });
    refused([&] {  // more keys than the layer's classes
        v.add_to_layer(keys, vals);
        v.add_to_layer(keys.last(1), vals.last(1));
    });
    refused([&] {  // too few keys
        v.add_to_layer(keys.first(2999), vals.first(2999));
        v.end_layer();
    });
    refused([&] {  // other values than the histogram's
        auto other = l.values;
        other[5] ^= 1;
        v.add_to_layer(keys, other);
        v.end_layer();
    });
    // A greater last key announced than the layer's (the greatest key of 5 pieces).
    const std::uint64_t greatest = (std::uint64_t{1} << 63) | (std::uint64_t{0x1F} << 31);
    REQUIRE(greatest > l.keys.back());
    v.begin_layer(l.info, greatest, hist, dir / "spill", 100);
    v.add_to_layer(keys, vals);
    REQUIRE_THROWS_WITH(v.end_layer(), Catch::Contains("last key"));
    v.begin_layer(l.info, l.keys.back(), hist, dir / "spill", 100);
    REQUIRE_THROWS_AS(v.add_layer(l.info, l.keys, l.values), std::logic_error);  // one open
    REQUIRE_THROWS_AS(v.commit(), std::logic_error);
    v.add_to_layer(keys, vals);
    v.end_layer();
    v.commit();
    REQUIRE(fs::is_empty(dir / "spill"));
    write_table(dir / "ref.kbt", base_meta(), {l});
    REQUIRE(read_bytes(p) == read_bytes(dir / "ref.kbt"));
}

TEST_CASE("format: writer argument checks", "[format]") {
    TempDir dir;
    TableMeta bad = base_meta();
    bad.rows = 11;  // 66 squares
    REQUIRE_THROWS_AS(TableWriter(dir / "a.kbt", bad), std::invalid_argument);
    bad = base_meta();
    bad.rows = 0;
    REQUIRE_THROWS_AS(TableWriter(dir / "a.kbt", bad), std::invalid_argument);
    bad = base_meta();
    bad.rows = 1;
    bad.cols = 64;  // one row of 64 squares: no key holds them either
    REQUIRE_THROWS_AS(TableWriter(dir / "a.kbt", bad), std::invalid_argument);
    bad = base_meta();
    bad.rows = 8;
    bad.cols = 8;  // 64 squares: no key holds them
    REQUIRE_THROWS_AS(TableWriter(dir / "a.kbt", bad), std::invalid_argument);
    bad = base_meta();
    bad.ruleset = "Brain King";
    REQUIRE_THROWS_AS(TableWriter(dir / "a.kbt", bad), std::invalid_argument);
    bad = base_meta();
    bad.block_buckets = 1000;
    REQUIRE_THROWS_AS(TableWriter(dir / "a.kbt", bad), std::invalid_argument);
    bad = base_meta();
    bad.block_buckets = 4;
    REQUIRE_THROWS_AS(TableWriter(dir / "a.kbt", bad), std::invalid_argument);
    bad = base_meta();
    bad.value_group = 2048;
    REQUIRE_THROWS_AS(TableWriter(dir / "a.kbt", bad), std::invalid_argument);
    REQUIRE(dir.entries().empty());

    const fs::path p = dir / "t.kbt";
    {
        TableWriter w(p, base_meta());
        REQUIRE_THROWS_AS(w.commit(), std::logic_error);  // no layer yet
        auto l = make_layer(5, 100, 1);
        REQUIRE_THROWS_AS(w.add_layer(l.info, std::span(l.keys).first(99), l.values),
                          std::invalid_argument);
        REQUIRE_THROWS_AS(w.add_layer(l.info, l.keys, std::span(l.values).first(99)),
                          std::invalid_argument);
        // The largest key first: its rank is past the universe the last key gives (the writer
        // must refuse it before it picks a block for it).
        auto largest_first = l.keys;
        std::rotate(largest_first.begin(), largest_first.end() - 1, largest_first.end());
        REQUIRE_THROWS_WITH(w.add_layer(l.info, largest_first, l.values),
                            Catch::Contains("not ascending"));
        auto unsorted = l.keys;
        std::swap(unsorted[10], unsorted[11]);
        REQUIRE_THROWS_AS(w.add_layer(l.info, unsorted, l.values), std::invalid_argument);
        auto twice = l.keys;
        twice[11] = twice[10];
        REQUIRE_THROWS_AS(w.add_layer(l.info, twice, l.values), std::invalid_argument);
        auto six = l.keys;
        six[50] = (six[50] & (std::uint64_t{1} << 63)) | 0x3F;  // 6 pieces
        REQUIRE_THROWS_AS(w.add_layer(l.info, six, l.values), std::invalid_argument);
        auto off = l.keys;
        off.back() = (std::uint64_t{1} << 62) | 0xF;  // a square beyond the 36th
        REQUIRE_THROWS_AS(w.add_layer(l.info, off, l.values), std::invalid_argument);
        LayerInfo too_many = l.info;
        too_many.pieces = 37;
        REQUIRE_THROWS_AS(w.add_layer(too_many, l.keys, l.values), std::invalid_argument);
        w.add_layer(l.info, l.keys, l.values);  // still usable after refusals
        REQUIRE_THROWS_AS(w.add_layer(l.info, l.keys, l.values), std::invalid_argument);
        w.commit();
        REQUIRE_THROWS_AS(w.commit(), std::logic_error);
        REQUIRE_THROWS_AS(w.add_layer(l.info, l.keys, l.values), std::logic_error);
    }
    REQUIRE(dir.entries() == std::vector<std::string>{"t.kbt"});
    REQUIRE(Table::open(p)->layers().size() == 1);
}

TEST_CASE("format: unwritable targets fail cleanly", "[format]") {
    TempDir dir;
    write_bytes(dir / "plain", {1, 2, 3});
    // Parent is a regular file (root cannot write there either).
    REQUIRE_THROWS_WITH(TableWriter(dir / "plain" / "t.kbt", base_meta()),
                        Catch::Contains("t.kbt") && Catch::Contains("Not a directory"));
    // Parent does not exist.
    REQUIRE_THROWS_WITH(TableWriter(dir / "nope" / "t.kbt", base_meta()),
                        Catch::Contains("No such file or directory"));
    // Target is a directory.
    fs::create_directory(dir / "d.kbt");
    REQUIRE_THROWS_WITH(TableWriter(dir / "d.kbt", base_meta()), Catch::Contains("directory"));
    REQUIRE(dir.entries() == std::vector<std::string>{"d.kbt", "plain"});
}

TEST_CASE("format: an abandoned writer leaves nothing and an old table survives", "[format]") {
    TempDir dir;
    const fs::path p = dir / "t.kbt";
    {
        TableWriter w(p, small_meta());
        for (const auto& l : small_layers())
            w.add_layer(l.info, l.keys, l.values);
        REQUIRE(dir.entries().size() == 1);  // the temporary file
        REQUIRE(dir.entries()[0].rfind("t.kbt.tmp.", 0) == 0);
    }
    REQUIRE(dir.entries().empty());

    write_table(p, small_meta(), small_layers());
    const auto old_bytes = read_bytes(p);
    {
        TableWriter w(p, base_meta());
        const auto l = make_layer(3, 10, 1);
        w.add_layer(l.info, l.keys, l.values);
    }
    REQUIRE(read_bytes(p) == old_bytes);
    REQUIRE(dir.entries() == std::vector<std::string>{"t.kbt"});
    // A committed writer replaces the old table atomically.
    const std::vector<SynthLayer> other = {make_layer(3, 10, 1)};
    write_table(p, base_meta(), other);
    check_contents(*Table::open(p), base_meta(), other);
}

namespace {

/// Runs the small table's writer in a forked child with RLIMIT_FSIZE = limit (SIGXFSZ ignored,
/// so write() fails with EFBIG like on a full disk) or killed with SIGKILL before commit.
/// Returns the child's report: "ok", "error: <message>" or "killed".
/// Writes small_layers() to p in a child process under RLIMIT_FSIZE `limit`; returns "ok",
/// "killed", "created" (with `construct_only`: the writer was created, nothing added) or
/// "error: " and the FormatError's message.
std::string write_in_child(const fs::path& p, rlim_t limit, bool kill_before_commit = false,
                           bool construct_only = false) {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        ::close(fds[0]);
        std::string report;
        try {
            ::signal(SIGXFSZ, SIG_IGN);
            const rlimit rl{limit, limit};
            if (::setrlimit(RLIMIT_FSIZE, &rl) != 0) _exit(3);
            TableWriter w(p, small_meta(), 1);
            if (construct_only) {
                report = "created";
                if (::write(fds[1], report.data(), report.size()) < 0) _exit(4);
                _exit(0);
            }
            for (const auto& l : small_layers())
                w.add_layer(l.info, l.keys, l.values);
            if (kill_before_commit) ::raise(SIGKILL);
            w.commit();
            report = "ok";
        } catch (const FormatError& e) {
            report = std::string("error: ") + e.what();
        } catch (...) {
            report = "other exception";
        }
        if (::write(fds[1], report.data(), report.size()) < 0) _exit(4);
        _exit(0);
    }
    ::close(fds[1]);
    std::string report;
    char buf[512];
    for (ssize_t r; (r = ::read(fds[0], buf, sizeof buf)) > 0;)
        report.append(buf, r);
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) return "killed";
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
    return report;
}

}  // namespace

TEST_CASE("format: a full file system fails cleanly at any point", "[format]") {
    TempDir dir;
    const fs::path ref = dir / "ref.kbt";
    write_table(ref, small_meta(), small_layers(), 1);
    const auto ref_bytes = read_bytes(ref);
    const std::size_t size = ref_bytes.size();
    fs::remove(ref);

    const fs::path p = dir / "t.kbt";
    // Fails in the header, in the data, in the checksums and layer table, in the trailer.
    for (std::size_t limit : {std::size_t{0}, std::size_t{100}, std::size_t{256}, std::size_t{1000},
                              size / 2, size - 400, size - 120, size - 1}) {
        INFO("RLIMIT_FSIZE " << limit << " of " << size);
        const std::string report = write_in_child(p, limit);
        REQUIRE_THAT(report, Catch::StartsWith("error: " + p.string() + ": write") &&
                                 Catch::Contains("File too large") && Catch::Contains("removed"));
        REQUIRE(dir.entries().empty());
    }
    // A file system with no room fails the writer as it is created, before any layer is
    // solved or added (the solver creates it first for that).
    REQUIRE_THAT(write_in_child(p, 0, false, true),
                 Catch::StartsWith("error: " + p.string() + ": write"));
    REQUIRE(dir.entries().empty());
    REQUIRE(write_in_child(p, 1000, false, true) == "created");
    for (const auto& name : dir.entries())  // _exit: the destructor did not remove it
        fs::remove(dir / name);
    REQUIRE(write_in_child(p, size) == "ok");
    REQUIRE(read_bytes(p) == ref_bytes);
    fs::remove(p);

    // Killed before commit: never a file under the final name (a stale temp file may remain).
    REQUIRE(write_in_child(p, RLIM_INFINITY, true) == "killed");
    REQUIRE_FALSE(fs::exists(p));
    for (const auto& name : dir.entries())
        REQUIRE(name.rfind("t.kbt.tmp.", 0) == 0);
}

// ---- Load::memory: the file read into memory on huge pages (issue 26) ------------------------

namespace {

/// The message of the FormatError thrown by Table::open with `load`, or "" if it opened.
std::string open_error_with(const fs::path& p, Load load) {
    try {
        Table::open(p, {}, OpenOptions{load});
        return "";
    } catch (const FormatError& e) {
        return e.what();
    }
}

}  // namespace

TEST_CASE("format: a table read into memory holds what was written, and says what it costs",
          "[format][load]") {
    TempDir dir;
    const TableMeta meta = small_meta();
    const auto layers = small_layers();
    const fs::path p = dir / "t.kbt";
    write_table(p, meta, layers);
    const auto t = Table::open(p, {}, OpenOptions{Load::memory});
    // Every key, rank and value against the layers written (not against the mapped reader).
    check_contents(*t, meta, layers);
    const MemoryUse m = t->memory_use();
    REQUIRE(m.load == Load::memory);
    REQUIRE(m.bytes >= t->file_size());
    REQUIRE(m.bytes % (std::uint64_t{2} << 20) == 0);
    REQUIRE(m.bytes - t->file_size() < (std::uint64_t{2} << 20));
    REQUIRE(m.huge <= static_cast<std::int64_t>(m.bytes));  // -1 when smaps cannot tell
    const MemoryUse mapped = Table::open(p)->memory_use();
    REQUIRE(mapped.load == Load::map);
    REQUIRE(mapped.bytes == 0);
    // automatic picks one of the two and says which.
    REQUIRE(Table::open(p, {}, OpenOptions{Load::automatic})->memory_use().load != Load::automatic);
    REQUIRE(parse_load("memory") == Load::memory);
    REQUIRE(std::string(load_name(parse_load("auto"))) == "auto");
    REQUIRE_THROWS_AS(parse_load("huge"), std::invalid_argument);
}

TEST_CASE("format: a damaged file is refused loaded as mapped, with the same message",
          "[format][load]") {
    TempDir dir;
    const TableMeta meta = small_meta();
    const auto layers = small_layers();
    const fs::path good = dir / "good.kbt";
    write_table(good, meta, layers);
    const auto bytes = read_bytes(good);
    const std::size_t lt = lt_offset_of(bytes);
    const fs::path bad = dir / "bad.kbt";
    // The header, layer table and trailer (checked at open), every byte.
    std::vector<std::size_t> positions;
    for (std::size_t i = 0; i < 256; ++i)
        positions.push_back(i);
    for (std::size_t i = lt; i < bytes.size(); ++i)
        positions.push_back(i);
    for (std::size_t pos : positions) {
        auto copy = bytes;
        copy[pos] ^= 0x10;
        write_bytes(bad, copy);
        const std::string want = open_error_with(bad, Load::map);
        const std::string got = open_error_with(bad, Load::memory);
        if (want.empty() || got != want)
            FAIL("byte " << pos << ": mapped '" << want << "', loaded '" << got << "'");
    }
    // Truncated, and empty.
    write_bytes(bad, std::vector<std::uint8_t>(bytes.begin(), bytes.end() - 1));
    REQUIRE_THAT(open_error_with(bad, Load::memory), Catch::Contains("trailer"));
    REQUIRE(open_error_with(bad, Load::memory) == open_error_with(bad, Load::map));
    write_bytes(bad, {});
    REQUIRE(open_error_with(bad, Load::memory) == open_error_with(bad, Load::map));
    // A damaged block: opens, and the probes that read it are refused, naming it, as mapped.
    const std::vector<SynthLayer> one = {make_layer(7, 3000, 3)};
    const fs::path p = dir / "block.kbt";
    write_table(p, base_meta(), one);
    auto b = read_bytes(p);
    const auto [off1, first1] = dir_entry(b, 0, 1);
    const auto [off2, first2] = dir_entry(b, 0, 2);
    b[entry_field(b, 0, 72) + (off1 + off2) / 2] ^= 0x40;
    write_bytes(p, b);
    const auto t = Table::open(p, {}, OpenOptions{Load::memory});
    const auto m = Table::open(p, {}, OpenOptions{Load::map});
    auto message = [](auto&& f) {
        try {
            f();
        } catch (const FormatError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    const auto rank1 = first1;  // a lambda captures no structured binding before clang 16
    const std::string want = message([&] { (void)m->value(0, rank1); });
    REQUIRE_THAT(want, Catch::Contains("layer 0 (7 pieces): block 1") &&
                           Catch::Contains("checksum mismatch"));
    REQUIRE(message([&] { (void)t->value(0, rank1); }) == want);
    REQUIRE_THROWS_AS(t->find(0, one[0].keys[first2 - 1]), FormatError);
    REQUIRE(t->value(0, 0) == one[0].values[0]);
    REQUIRE(t->find(0, one[0].keys[2999]) == 2999);
    const VerifyReport r = t->verify_checksums();
    REQUIRE_FALSE(r.ok);
    REQUIRE(r.problems == m->verify_checksums().problems);
}
