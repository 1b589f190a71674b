// Tests of the tablebase file format (format/table.hpp, format/FORMAT.md): round trips,
// corruption and truncation detection, foreign files, board/ruleset checks and crash-safe
// writing (failing writes leave neither a partial nor a temporary file).
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
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

#include "format/table.hpp"

namespace fs = std::filesystem;
using namespace konane::format;

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
    std::vector<std::uint8_t> blob;
    std::vector<std::uint16_t> fp;
    std::vector<std::uint8_t> values;
};

/// A layer of n slots: random blob (multiple of 8 bytes), random fingerprints of `fp_bits`
/// bits, skewed random depths (mostly short, geometric tail).
SynthLayer make_layer(std::uint32_t pieces, std::uint64_t n, unsigned fp_bits, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    SynthLayer l;
    l.info = {pieces, n, n * 3 + 1};
    l.blob.resize(8 * (1 + rng() % 64));
    for (auto& b : l.blob)
        b = static_cast<std::uint8_t>(rng());
    if (fp_bits > 0) {
        l.fp.resize(n);
        const std::uint32_t mask = (1u << fp_bits) - 1;
        for (auto& f : l.fp)
            f = static_cast<std::uint16_t>(rng() & mask);
    }
    std::geometric_distribution<int> depth(0.4);
    l.values.resize(n);
    for (auto& v : l.values)
        v = static_cast<std::uint8_t>(std::min(depth(rng), 255));
    return l;
}

TableMeta base_meta(unsigned fp_bits = 16) {
    TableMeta m;
    m.rows = 4;
    m.cols = 4;
    m.ruleset = "brainking";
    m.generator = "konane 0.1.0 (test)";
    m.fingerprint_bits = fp_bits;
    return m;
}

void write_table(const fs::path& p, const TableMeta& meta, const std::vector<SynthLayer>& layers,
                 int threads = 0) {
    TableWriter w(p, meta, threads);
    for (const auto& l : layers)
        w.add_layer(l.info, l.blob, l.fp, l.values);
    w.commit();
}

std::vector<std::uint8_t> read_bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Replaces p by a new file holding `bytes`. Removing first avoids ext4's flush-on-truncate
/// (auto_da_alloc), which makes thousands of rewrites slow.
void write_bytes(const fs::path& p, const std::vector<std::uint8_t>& bytes) {
    std::error_code ec;
    fs::remove(p, ec);
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
}

std::uint64_t le64_at(const std::vector<std::uint8_t>& b, std::size_t off) {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
        v |= std::uint64_t{b[off + i]} << (8 * i);
    return v;
}

/// The message of the FormatError thrown by Table::open, or "" if it opened.
std::string open_error(const fs::path& p, const Expect& expect = {}) {
    try {
        Table::open(p, expect);
        return "";
    } catch (const FormatError& e) {
        return e.what();
    }
}

/// Checks every value, fingerprint and blob of `t` against `layers`, by probe and in bulk.
void check_contents(const Table& t, const TableMeta& meta, const std::vector<SynthLayer>& layers) {
    REQUIRE(t.meta() == meta);
    REQUIRE(t.layers().size() == layers.size());
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const SynthLayer& l = layers[i];
        INFO("layer " << i << " n=" << l.info.classes);
        REQUIRE(t.layers()[i] == l.info);
        REQUIRE(t.layer_index(l.info.pieces) == static_cast<int>(i));
        const auto blob = t.mphf_blob(i);
        REQUIRE(reinterpret_cast<std::uintptr_t>(blob.data()) % 8 == 0);
        REQUIRE(std::equal(blob.begin(), blob.end(), l.blob.begin(), l.blob.end()));
        std::vector<std::uint8_t> vals;
        t.read_values(i, vals);
        REQUIRE(vals == l.values);
        std::vector<std::uint16_t> fps;
        t.read_fingerprints(i, fps);
        if (meta.fingerprint_bits == 0) {
            REQUIRE(fps == std::vector<std::uint16_t>(l.info.classes, 0));
        } else {
            REQUIRE(fps == l.fp);
        }
        bool all_ok = true;  // one REQUIRE per layer keeps the test fast
        for (std::uint64_t s = 0; s < l.info.classes; ++s) {
            all_ok = all_ok && t.value(i, s) == l.values[s];
            const std::uint16_t want = meta.fingerprint_bits == 0 ? 0 : l.fp[s];
            all_ok = all_ok && t.fingerprint(i, s) == want;
        }
        REQUIRE(all_ok);
        const SectionSizes sz = t.section_sizes(i);
        REQUIRE(sz.mphf == l.blob.size());
        REQUIRE((sz.values > 0) == (l.info.classes > 0));
        REQUIRE((sz.fingerprints > 0) == (l.info.classes > 0 && meta.fingerprint_bits > 0));
        REQUIRE_THROWS_AS(t.value(i, l.info.classes), std::out_of_range);
        REQUIRE_THROWS_AS(t.fingerprint(i, l.info.classes), std::out_of_range);
    }
    REQUIRE_THROWS_AS(t.value(layers.size(), 0), std::out_of_range);
    REQUIRE_THROWS_AS(t.mphf_blob(layers.size()), std::out_of_range);
    const VerifyReport r = t.verify_checksums(2);
    INFO((r.problems.empty() ? std::string() : r.problems.front()));
    REQUIRE(r.ok);
    REQUIRE(r.problems.empty());
}

/// A small table (tiny blocks) whose header + layer table + block index + trailer are ~2 KB.
TableMeta small_meta() {
    TableMeta m = base_meta(16);
    m.value_block_slots = 64;
    m.fingerprint_block_slots = 64;
    return m;
}
std::vector<SynthLayer> small_layers() {
    return {make_layer(2, 1, 16, 11), make_layer(3, 63, 16, 12), make_layer(5, 64, 16, 13),
            make_layer(6, 65, 16, 14), make_layer(9, 200, 16, 15)};
}

/// Reads everything in the table; true if a FormatError was thrown somewhere.
bool reading_everything_throws(const Table& t) {
    try {
        for (std::size_t i = 0; i < t.layers().size(); ++i) {
            t.mphf_blob(i);
            std::vector<std::uint8_t> v;
            t.read_values(i, v);
            std::vector<std::uint16_t> f;
            t.read_fingerprints(i, f);
        }
    } catch (const FormatError&) {
        return true;
    }
    return false;
}

}  // namespace

TEST_CASE("format: round trip value by value with 16-bit fingerprints", "[format]") {
    TempDir dir;
    const TableMeta meta = base_meta(16);
    // Block boundaries: values blocks hold 16384 slots, fingerprint blocks 8192.
    std::vector<SynthLayer> layers;
    std::uint32_t pieces = 1;
    std::uint64_t seed = 100;
    for (std::uint64_t n : {1ull, 8191ull, 8192ull, 8193ull, 16383ull, 16384ull})
        layers.push_back(make_layer(pieces++, n, 16, seed++));
    layers.push_back(make_layer(15, 16385, 16, seed++));
    layers.push_back(make_layer(16, 300000, 16, seed++));
    const fs::path p = dir / "t.kbt";
    write_table(p, meta, layers);
    REQUIRE(dir.entries() == std::vector<std::string>{"t.kbt"});
    const auto t = Table::open(p, Expect{4, 4, "brainking"});
    REQUIRE(t->file_size() == fs::file_size(p));
    REQUIRE(t->layer_index(7) == -1);
    REQUIRE(t->layer_index(0) == -1);
    check_contents(*t, meta, layers);
}

TEST_CASE("format: round trip with 8-bit or no fingerprints and an empty layer", "[format]") {
    TempDir dir;
    for (unsigned bits : {0u, 8u}) {
        INFO("fingerprint bits " << bits);
        TableMeta meta = base_meta(bits);
        meta.value_block_slots = 1024;
        meta.fingerprint_block_slots = 512;
        meta.value_level = 3;
        meta.ruleset = "center";
        meta.generator = "";
        std::vector<SynthLayer> layers = {make_layer(0, 0, bits, 1), make_layer(1, 1, bits, 2),
                                          make_layer(2, 1023, bits, 3),
                                          make_layer(4, 5000, bits, 4)};
        const fs::path p = dir / ("t" + std::to_string(bits) + ".kbt");
        write_table(p, meta, layers, 3);
        check_contents(*Table::open(p), meta, layers);
    }
}

TEST_CASE("format: a layer larger than one writer batch (32 MiB raw)", "[format]") {
    TempDir dir;
    TableMeta meta = base_meta(8);
    meta.value_level = 1;  // keep the test fast; the layout does not depend on the level
    meta.fingerprint_level = 1;
    const std::uint64_t n = (std::uint64_t{32} << 20) + 16384 * 3 + 17;
    SynthLayer l;
    l.info = {9, n, n};
    l.blob.assign(64, 0xA5);
    l.values.resize(n);
    l.fp.resize(n);
    std::uint64_t x = 88172645463325252ull;  // xorshift64: cheap, skewed values
    for (std::uint64_t i = 0; i < n; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        l.values[i] = static_cast<std::uint8_t>(std::countr_zero(x | (1ull << 40)));
        l.fp[i] = static_cast<std::uint16_t>(x >> 56);
    }
    const fs::path p = dir / "big.kbt";
    write_table(p, meta, {l}, 2);
    const auto t = Table::open(p);
    std::vector<std::uint8_t> v;
    t->read_values(0, v);
    REQUIRE(v == l.values);
    std::vector<std::uint16_t> f;
    t->read_fingerprints(0, f);
    REQUIRE(f == l.fp);
    bool ok = true;
    for (std::uint64_t s :
         {std::uint64_t{0}, n / 2, (std::uint64_t{32} << 20) - 1, std::uint64_t{32} << 20, n - 1})
        ok = ok && t->value(0, s) == l.values[s] && t->fingerprint(0, s) == l.fp[s];
    REQUIRE(ok);
    REQUIRE(t->verify_checksums().ok);
}

TEST_CASE("format: output is identical for any thread count", "[format]") {
    TempDir dir;
    TableMeta meta = base_meta(16);
    meta.value_block_slots = 256;
    meta.fingerprint_block_slots = 128;
    const std::vector<SynthLayer> layers = {make_layer(3, 1000, 16, 5),
                                            make_layer(4, 70000, 16, 6)};
    write_table(dir / "a.kbt", meta, layers, 1);
    write_table(dir / "b.kbt", meta, layers, 3);
    write_table(dir / "c.kbt", meta, layers, 0);
    const auto a = read_bytes(dir / "a.kbt");
    REQUIRE(a == read_bytes(dir / "b.kbt"));
    REQUIRE(a == read_bytes(dir / "c.kbt"));
}

TEST_CASE("format: concurrent probes through the block cache", "[format][concurrency]") {
    TempDir dir;
    TableMeta meta = base_meta(16);
    meta.value_block_slots = 256;  // many blocks: the cache evicts constantly
    meta.fingerprint_block_slots = 128;
    const std::vector<SynthLayer> layers = {make_layer(2, 777, 16, 21),
                                            make_layer(3, 60000, 16, 22)};
    write_table(dir / "t.kbt", meta, layers);
    const auto t = Table::open(dir / "t.kbt");
    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    for (int k = 0; k < 6; ++k) {
        threads.emplace_back([&, k] {
            std::mt19937_64 rng(k);
            for (int i = 0; i < 20000; ++i) {
                const std::size_t l = rng() % 2;
                const std::uint64_t s = rng() % layers[l].info.classes;
                if (t->value(l, s) != layers[l].values[s]) ++wrong;
                if (t->fingerprint(l, s) != layers[l].fp[s]) ++wrong;
                if (i % 1000 == 0 && t->mphf_blob(l).size() != layers[l].blob.size()) ++wrong;
            }
        });
    }
    for (auto& th : threads)
        th.join();
    REQUIRE(wrong == 0);
}

TEST_CASE(
    "format: every byte of header and layer table and block index and trailer is checked on open",
    "[format]") {
    TempDir dir;
    const TableMeta meta = small_meta();
    const auto layers = small_layers();
    const fs::path good = dir / "good.kbt";
    write_table(good, meta, layers);
    const auto bytes = read_bytes(good);
    const std::size_t size = bytes.size();
    // The directory (layer table + block index) starts at the layer table offset, which the
    // trailer (last 96 bytes) holds at offset 24.
    const std::size_t lt_offset = le64_at(bytes, size - 96 + 24);
    REQUIRE(lt_offset < size);
    REQUIRE(256 + (size - lt_offset) < 4096);  // "a few KB at most"
    std::vector<std::size_t> positions;
    for (std::size_t i = 0; i < 256; ++i)
        positions.push_back(i);
    for (std::size_t i = lt_offset; i < size; ++i)
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

TEST_CASE("format: damage in the data area is caught on decode and by verify", "[format]") {
    TempDir dir;
    const TableMeta meta = small_meta();
    const auto layers = small_layers();
    const fs::path good = dir / "good.kbt";
    write_table(good, meta, layers);
    const auto bytes = read_bytes(good);
    const std::size_t lt_offset = le64_at(bytes, bytes.size() - 96 + 24);
    const fs::path bad = dir / "bad.kbt";
    std::mt19937_64 rng(99);
    std::vector<std::size_t> positions = {256, lt_offset - 1};
    for (int i = 0; i < 150; ++i)
        positions.push_back(256 + rng() % (lt_offset - 256));
    int caught_on_open = 0;
    for (std::size_t pos : positions) {
        INFO("byte " << pos);
        auto copy = bytes;
        copy[pos] ^= static_cast<std::uint8_t>(1 + rng() % 255);
        write_bytes(bad, copy);
        std::shared_ptr<const Table> t;
        try {
            t = Table::open(bad);
        } catch (const FormatError&) {
            ++caught_on_open;  // e.g. alignment padding, which must be zero
            continue;
        }
        const VerifyReport r = t->verify_checksums(2);
        REQUIRE_FALSE(r.ok);
        REQUIRE_FALSE(r.problems.empty());
        REQUIRE(r.blocks_checked > 0);
        REQUIRE(reading_everything_throws(*t));
        // A fresh open and probing every slot also throws (or the byte was in an MPHF blob).
        const auto t2 = Table::open(bad);
        bool probe_threw = false;
        try {
            for (std::size_t l = 0; l < layers.size(); ++l) {
                t2->mphf_blob(l);
                for (std::uint64_t s = 0; s < layers[l].info.classes; ++s) {
                    // never a wrong answer: each value read is either right or throws
                    const auto v = t2->value(l, s);
                    const auto f = t2->fingerprint(l, s);
                    if (v != layers[l].values[s] || f != layers[l].fp[s])
                        FAIL("wrong answer at layer " << l << " slot " << s);
                }
            }
        } catch (const FormatError&) {
            probe_threw = true;
        }
        REQUIRE(probe_threw);
    }
    REQUIRE(caught_on_open < static_cast<int>(positions.size()));
}

TEST_CASE("format: a damaged block names layer and section and block while others still work",
          "[format]") {
    TempDir dir;
    TableMeta meta = base_meta(16);
    meta.value_block_slots = 64;
    meta.fingerprint_block_slots = 64;
    const std::vector<SynthLayer> layers = {make_layer(7, 300, 16, 3)};
    const fs::path p = dir / "t.kbt";
    write_table(p, meta, layers);
    auto bytes = read_bytes(p);
    const auto sizes = Table::open(p)->section_sizes(0);
    // Canonical layout: header (256), MPHF, fingerprints, values.
    const std::size_t values_at = 256 + sizes.mphf + sizes.fingerprints;
    bytes[values_at + 3] ^= 0x40;  // inside values block 0
    bytes[256 + 1] ^= 0x01;        // inside the MPHF blob
    write_bytes(p, bytes);
    const auto t = Table::open(p);
    REQUIRE_THROWS_WITH(t->value(0, 0), Catch::Contains(p.string()) &&
                                            Catch::Contains("layer 0 (7 pieces): values block 0") &&
                                            Catch::Contains("checksum mismatch"));
    REQUIRE_THROWS_AS(t->value(0, 63), FormatError);  // same block, still refused
    REQUIRE(t->value(0, 64) == layers[0].values[64]);
    REQUIRE(t->fingerprint(0, 0) == layers[0].fp[0]);
    REQUIRE_THROWS_WITH(t->mphf_blob(0), Catch::Contains("MPHF") && Catch::Contains("checksum"));
    REQUIRE_THROWS_AS(t->mphf_blob(0), FormatError);  // every call, not just the first
    std::vector<std::uint8_t> v;
    REQUIRE_THROWS_AS(t->read_values(0, v), FormatError);
    const VerifyReport r = t->verify_checksums();
    REQUIRE_FALSE(r.ok);
    // MPHF section, values section, values block 0 and the whole-file hash.
    REQUIRE(r.problems.size() == 4);
    REQUIRE(r.blocks_checked == 5 + 5);
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
    auto v2 = bytes;
    v2[8] = 2;
    write_bytes(p, v2);
    REQUIRE_THAT(open_error(p), Catch::Contains("header: unsupported format version 2"));
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
    write_table(p, small_meta(), small_layers());  // 4x4 brainking
    REQUIRE(open_error(p, Expect{}).empty());
    REQUIRE(open_error(p, Expect{4, 4, "brainking"}).empty());
    REQUIRE(open_error(p, Expect{4, 0, ""}).empty());
    REQUIRE_THAT(open_error(p, Expect{6, 6, "brainking"}),
                 Catch::Contains(p.string() + ": header: table is for a 4x4 board, expected 6x6"));
    REQUIRE_THAT(open_error(p, Expect{0, 5, ""}), Catch::Contains("expected *x5"));
    REQUIRE_THAT(open_error(p, Expect{4, 4, "center"}),
                 Catch::Contains("table is for ruleset 'brainking', expected 'center'"));
}

TEST_CASE("format: writer argument checks", "[format]") {
    TempDir dir;
    TableMeta bad = base_meta();
    bad.rows = 9;
    REQUIRE_THROWS_AS(TableWriter(dir / "a.kbt", bad), std::invalid_argument);
    bad = base_meta();
    bad.ruleset = "Brain King";
    REQUIRE_THROWS_AS(TableWriter(dir / "a.kbt", bad), std::invalid_argument);
    bad = base_meta();
    bad.fingerprint_bits = 12;
    REQUIRE_THROWS_AS(TableWriter(dir / "a.kbt", bad), std::invalid_argument);
    bad = base_meta();
    bad.value_block_slots = 1000;
    REQUIRE_THROWS_AS(TableWriter(dir / "a.kbt", bad), std::invalid_argument);
    REQUIRE(dir.entries().empty());

    const fs::path p = dir / "t.kbt";
    {
        TableWriter w(p, base_meta(8));
        REQUIRE_THROWS_AS(w.commit(), std::logic_error);  // no layer yet
        auto l = make_layer(5, 100, 8, 1);
        auto odd_blob = l.blob;
        odd_blob.push_back(0);
        REQUIRE_THROWS_AS(w.add_layer(l.info, odd_blob, l.fp, l.values), std::invalid_argument);
        REQUIRE_THROWS_AS(w.add_layer(l.info, l.blob, std::span(l.fp).first(99), l.values),
                          std::invalid_argument);
        REQUIRE_THROWS_AS(w.add_layer(l.info, l.blob, l.fp, std::span(l.values).first(99)),
                          std::invalid_argument);
        auto wide = l.fp;
        wide[7] = 256;
        REQUIRE_THROWS_AS(w.add_layer(l.info, l.blob, wide, l.values), std::invalid_argument);
        LayerInfo too_many = l.info;
        too_many.pieces = 17;
        REQUIRE_THROWS_AS(w.add_layer(too_many, l.blob, l.fp, l.values), std::invalid_argument);
        w.add_layer(l.info, l.blob, l.fp, l.values);  // still usable after refusals
        REQUIRE_THROWS_AS(w.add_layer(l.info, l.blob, l.fp, l.values), std::invalid_argument);
        w.commit();
        REQUIRE_THROWS_AS(w.commit(), std::logic_error);
        REQUIRE_THROWS_AS(w.add_layer(l.info, l.blob, l.fp, l.values), std::logic_error);
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
            w.add_layer(l.info, l.blob, l.fp, l.values);
        REQUIRE(dir.entries().size() == 1);  // the temporary file
        REQUIRE(dir.entries()[0].rfind("t.kbt.tmp.", 0) == 0);
    }
    REQUIRE(dir.entries().empty());

    write_table(p, small_meta(), small_layers());
    const auto old_bytes = read_bytes(p);
    {
        TableWriter w(p, base_meta());
        const auto l = make_layer(3, 10, 16, 1);
        w.add_layer(l.info, l.blob, l.fp, l.values);
    }
    REQUIRE(read_bytes(p) == old_bytes);
    REQUIRE(dir.entries() == std::vector<std::string>{"t.kbt"});
    // A committed writer replaces the old table atomically.
    const std::vector<SynthLayer> other = {make_layer(3, 10, 16, 1)};
    write_table(p, base_meta(), other);
    check_contents(*Table::open(p), base_meta(), other);
}

namespace {

/// Runs the small table's writer in a forked child with RLIMIT_FSIZE = limit (SIGXFSZ ignored,
/// so write() fails with EFBIG like on a full disk) or killed with SIGKILL before commit.
/// Returns the child's report: "ok", "error: <message>" or "killed".
std::string write_in_child(const fs::path& p, rlim_t limit, bool kill_before_commit = false) {
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
            for (const auto& l : small_layers())
                w.add_layer(l.info, l.blob, l.fp, l.values);
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
    // Fails in the header, in the data, in the directory, in the trailer.
    for (std::size_t limit : {std::size_t{0}, std::size_t{100}, std::size_t{256}, std::size_t{1000},
                              size / 2, size - 200, size - 96, size - 1}) {
        INFO("RLIMIT_FSIZE " << limit << " of " << size);
        const std::string report = write_in_child(p, limit);
        REQUIRE_THAT(report, Catch::StartsWith("error: " + p.string() + ": write") &&
                                 Catch::Contains("File too large") && Catch::Contains("removed"));
        REQUIRE(dir.entries().empty());
    }
    REQUIRE(write_in_child(p, size) == "ok");
    REQUIRE(read_bytes(p) == ref_bytes);
    fs::remove(p);

    // Killed before commit: never a file under the final name (a stale temp file may remain).
    REQUIRE(write_in_child(p, RLIM_INFINITY, true) == "killed");
    REQUIRE_FALSE(fs::exists(p));
    for (const auto& name : dir.entries())
        REQUIRE(name.rfind("t.kbt.tmp.", 0) == 0);
}
