// The table format over tables the generator makes (format/table.hpp, format/upgrade.hpp): a
// table of an older format version upgraded, against the table generated now, and a generated
// table read the same mapped and loaded into memory. The format's tests on synthetic layers are
// in tests/format/test_format.cpp.
#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <xxhash.h>

#include "format/table.hpp"
#include "format/upgrade.hpp"
#include "tests/format/table_bytes.hpp"
#include "tests/table_file.hpp"
#include "tests/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace konane::format;
using konane::test::le64_at;
using konane::test::open_error;
using konane::test::put_le64;
using konane::test::read_bytes;
using konane::test::write_bytes;

namespace {

/// Version 3's trailer: 120 bytes (FORMAT.md §13).
constexpr std::size_t kV3Trailer = 120;

/// The same table in format version 2 (FORMAT.md §13): version 2 in the header, and the trailer
/// of 112 bytes without the header's checksum (whole-file XXH3-128 at 88, checksum at 104).
std::vector<std::uint8_t> as_version_2(const std::vector<std::uint8_t>& v3) {
    std::vector<std::uint8_t> b(v3.begin(), v3.end() - kV3Trailer);
    b[8] = 2;
    put_le64(b, 248, XXH3_64bits(b.data(), 248));
    std::vector<std::uint8_t> t(v3.end() - kV3Trailer, v3.end() - kV3Trailer + 88);
    t.resize(112, 0);
    const std::uint64_t size = b.size() + 112;
    put_le64(t, 8, size);
    b.insert(b.end(), t.begin(), t.end());
    const XXH128_hash_t h = XXH3_128bits(b.data(), size - 24);
    put_le64(b, size - 24, h.low64);
    put_le64(b, size - 16, h.high64);
    put_le64(b, size - 8, XXH3_64bits(b.data() + size - 112, 104));
    return b;
}

}  // namespace

TEST_CASE("format: upgrade rewrites a version-3 or version-2 table with the same contents",
          "[format]") {
    konane::test::TempDir dir("format-upgrade");
    // tests/data/konane-4x4-brainking-v3.kbt: the 4x4 table as konane wrote it in format 3
    // (commit 6b4e829, `konane generate 4x4`).
    const fs::path v3 = fs::path(KONANE_TEST_DATA) / "konane-4x4-brainking-v3.kbt";
    const fs::path v2 = dir / "v2.kbt", up = dir / "up.kbt";
    const auto bytes = read_bytes(v3);
    write_bytes(v2, as_version_2(bytes));
    REQUIRE_THAT(open_error(v3), Catch::Contains("version 3") && Catch::Contains("konane upgrade"));
    REQUIRE_THAT(open_error(v2), Catch::Contains("version 2") && Catch::Contains("konane upgrade"));
    std::size_t calls = 0;
    const std::uint64_t written =
        upgrade_table(v3, up, 2, [&](std::size_t, std::size_t) { ++calls; });
    CHECK(written == fs::file_size(up));
    // The same positions and values, layer by layer, as the table generated now.
    const auto got = Table::open(up, Expect{4, 4, "brainking"});
    const auto want = Table::open(konane::test::table_file(4, 4, konane::Ruleset::Brainking));
    CHECK(calls == got->layers().size());
    REQUIRE(got->layers() == want->layers());
    for (std::size_t l = 0; l < got->layers().size(); ++l) {
        std::vector<std::uint64_t> k1, k2;
        std::vector<std::uint8_t> v1, v2v;
        got->read_keys(l, k1);
        want->read_keys(l, k2);
        got->read_values(l, v1);
        want->read_values(l, v2v);
        CHECK(k1 == k2);
        CHECK(v1 == v2v);
    }
    CHECK(got->verify_checksums().ok);
    // Version 2 (the same data area) gives the same file; in place: replaced once complete,
    // no temporary left.
    CHECK(upgrade_table(v2, v2) == written);
    CHECK(read_bytes(v2) == read_bytes(up));
    for (const auto& e : fs::directory_iterator(dir.path))
        CHECK(e.path().filename().string().find(".tmp.") == std::string::npos);
    // Refused: a current table, a damaged table (nothing written), a missing file.
    CHECK_THROWS_WITH(upgrade_table(up, dir / "again.kbt"),
                      Catch::Contains("already format version 4"));
    auto damaged = bytes;
    damaged[300] ^= 1;
    write_bytes(dir / "bad.kbt", damaged);
    CHECK_THROWS_WITH(upgrade_table(dir / "bad.kbt", dir / "bad-up.kbt"),
                      Catch::Contains("whole-file checksum mismatch"));
    CHECK_FALSE(fs::exists(dir / "bad-up.kbt"));
    CHECK_THROWS_AS(upgrade_table(dir / "missing.kbt", up), IoError);
    // Crafted with every checksum recomputed: a layer table offset that wraps below the file,
    // and a layer's code bits near 2^64 (its values' size would wrap): refused, nothing read
    // outside the file.
    auto reseal_v3 = [](std::vector<std::uint8_t>& b) {
        const std::size_t t = b.size() - kV3Trailer;
        const XXH128_hash_t h = XXH3_128bits(b.data(), b.size() - 24);
        put_le64(b, t + 96, h.low64);
        put_le64(b, t + 104, h.high64);
        put_le64(b, t + 112, XXH3_64bits(b.data() + t, 112));
    };
    auto wrapped = bytes;
    put_le64(wrapped, wrapped.size() - kV3Trailer + 56, ~std::uint64_t{39});
    reseal_v3(wrapped);
    write_bytes(dir / "wrap.kbt", wrapped);
    CHECK_THROWS_WITH(upgrade_table(dir / "wrap.kbt", dir / "wrap-up.kbt"),
                      Catch::Contains("layer table not just before the trailer"));
    auto huge_bits = bytes;
    const std::size_t lt = le64_at(bytes, bytes.size() - kV3Trailer + 56);
    put_le64(huge_bits, lt + 160 * 3 + 32, ~std::uint64_t{0});  // layer 3's code bits
    reseal_v3(huge_bits);
    write_bytes(dir / "bits.kbt", huge_bits);
    CHECK_THROWS_WITH(upgrade_table(dir / "bits.kbt", dir / "bits-up.kbt"),
                      Catch::Contains("layer 3: implausible counts"));
    CHECK_FALSE(fs::exists(dir / "wrap-up.kbt"));
    CHECK_FALSE(fs::exists(dir / "bits-up.kbt"));
}

TEST_CASE("format: every stored position of a generated table reads the same mapped and loaded",
          "[format][load]") {
    const fs::path& f = konane::test::table_file(4, 5, konane::Ruleset::Brainking);
    const auto mapped = Table::open(f, {}, OpenOptions{Load::map});
    const auto loaded = Table::open(f, {}, OpenOptions{Load::memory});
    REQUIRE(loaded->memory_use().load == Load::memory);
    REQUIRE(loaded->layers() == mapped->layers());
    std::mt19937_64 rng(26);
    std::uint64_t n = 0;
    for (std::size_t l = 0; l < mapped->layers().size(); ++l) {
        std::vector<std::uint64_t> keys, keys2;
        std::vector<std::uint8_t> values, values2;
        mapped->read_keys(l, keys);
        mapped->read_values(l, values);
        loaded->read_keys(l, keys2);
        loaded->read_values(l, values2);
        REQUIRE(keys2 == keys);
        REQUIRE(values2 == values);
        // One by one, then in batches (probe_many), and keys one square away (mostly absent).
        bool same = true;
        std::vector<Table::Query> qs;
        for (std::uint64_t r = 0; r < keys.size(); ++r) {
            const std::uint64_t other = keys[r] ^ (std::uint64_t{3} << (rng() % 19));
            same = same && loaded->find(l, keys[r]) == mapped->find(l, keys[r]) &&
                   loaded->find(l, keys[r]) == std::optional<std::uint64_t>(r) &&
                   loaded->value(l, r) == mapped->value(l, r) &&
                   loaded->find(l, other) == mapped->find(l, other);
            qs.push_back({l, keys[r]});
            qs.push_back({l, other});
        }
        REQUIRE(same);
        std::vector<Table::Answer> a(qs.size()), b(qs.size());
        mapped->probe_many(qs, a);
        loaded->probe_many(qs, b);
        for (std::size_t i = 0; i < qs.size(); ++i)
            same = same && a[i].stored == b[i].stored && a[i].depth == b[i].depth;
        REQUIRE(same);
        n += keys.size();
    }
    std::uint64_t classes = 0;
    for (const auto& l : mapped->layers())
        classes += l.classes;
    REQUIRE(n == classes);  // the whole table: every layer, every position
    REQUIRE(n > 1000);
    REQUIRE(loaded->verify_checksums(2).ok);
}
