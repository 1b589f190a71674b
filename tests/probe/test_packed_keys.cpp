// The compact key sets of the certificate builder and checker (cert/packed_keys.hpp) against
// std::map on random keys, with merges, duplicates and look-ups; and the certificate writer,
// which streams them, against the published certificates' bytes.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <zstd.h>
#include <catch2/catch.hpp>

#include "cert/certificate.hpp"
#include "cert/check.hpp"
#include "cert/packed_keys.hpp"
#include "tests/temp_dir.hpp"

namespace {

using namespace konane;
using konane::test::TempDir;
namespace fs = std::filesystem;

/// A random key: occupancies drawn from a few bits (many duplicates) or the full 64 bits, so
/// that differences of every varint length and runs of one tag occur.
ProofKey random_key(std::mt19937_64& rng, int bits) {
    const std::uint64_t mask = bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
    return ProofKey{rng() & mask, static_cast<std::uint8_t>(rng() % 4)};
}

std::string file_bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("packed keys: the same keys and values as std::map, across merges",
          "[certificate][packed]") {
    for (const auto& [front, bits, n] :
         {std::tuple{std::size_t{1}, 8, 600}, std::tuple{std::size_t{7}, 12, 5000},
          std::tuple{std::size_t{100}, 20, 20000}, std::tuple{std::size_t{1000}, 64, 30000},
          std::tuple{std::size_t{1} << 22, 16, 20000}}) {
        INFO("front " << front << ", " << bits << " bits, " << n << " inserts");
        std::mt19937_64 rng(front * 131 + static_cast<std::size_t>(bits));
        CompactKeyMap m(front);
        CompactKeyMap set(front, false);  // the same keys, no values
        std::map<ProofKey, std::uint8_t> want;
        for (int i = 0; i < n; ++i) {
            const ProofKey k = random_key(rng, bits);
            const auto v = static_cast<std::uint8_t>(rng());
            const bool fresh = want.emplace(k, v).second;
            REQUIRE(m.insert(k, v) == fresh);  // a duplicate changes nothing
            REQUIRE(set.insert(k, v) == fresh);
            REQUIRE(m.size() == want.size());
            // Look-ups of keys present and absent, between merges.
            if (i % 17 == 0) {
                const ProofKey q = random_key(rng, bits);
                const auto it = want.find(q);
                const auto got = m.find(q);
                REQUIRE(got.has_value() == (it != want.end()));
                REQUIRE(set.contains(q) == (it != want.end()));
                if (got) REQUIRE(*got == it->second);
                REQUIRE(m.contains(k));
                REQUIRE(*m.find(k) == want[k]);
            }
        }
        for (const auto& [k, v] : want)
            REQUIRE(m.find(k) == std::optional<std::uint8_t>(v));
        const PackedKeys p = m.take();
        CHECK(m.size() == 0);
        REQUIRE(p.size() == want.size());
        std::vector<ProofEntry> expected;
        for (const auto& [k, v] : want)
            expected.push_back({k, v});
        const std::vector<ProofEntry> got = p.to_vector();
        REQUIRE(got.size() == expected.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
            REQUIRE(got[i].key == expected[i].key);
            REQUIRE(got[i].move == expected[i].move);
        }
        // Entry numbers: find and key agree with the order.
        for (std::size_t i = 0; i < expected.size(); i += 1 + expected.size() / 500) {
            REQUIRE(p.find(expected[i].key) == i);
            REQUIRE(p.key(i) == expected[i].key);
            REQUIRE(p.value(i) == expected[i].move);
        }
        // Keys absent: before the first, after the last, between.
        for (int i = 0; i < 2000; ++i) {
            const ProofKey q = random_key(rng, bits);
            CHECK(p.contains(q) == want.contains(q));
        }
        CHECK(!p.contains(ProofKey{~std::uint64_t{0}, 3}) ==
              !want.contains(ProofKey{~std::uint64_t{0}, 3}));
        CHECK(PackedKeys::from_vector(expected) == p);
        const PackedKeys keys = set.take();
        REQUIRE(keys.size() == want.size());
        CHECK(!keys.with_values());
        std::size_t i = 0;
        keys.for_each([&](const ProofKey& k, std::uint8_t v) {
            REQUIRE(k == expected[i++].key);
            REQUIRE(v == 0);
        });
        CHECK(keys.bytes() < p.bytes());
    }
}

TEST_CASE("packed keys: unsorted or repeated keys are refused", "[certificate][packed]") {
    PackedKeys p;
    p.push_back(ProofKey{5, 0});
    CHECK_THROWS_AS(p.push_back(ProofKey{5, 0}), std::invalid_argument);
    CHECK_THROWS_AS(p.push_back(ProofKey{4, 0}), std::invalid_argument);
    p.push_back(ProofKey{1, 1});  // a higher tag comes after every occupancy of a lower one
    CHECK_THROWS_AS(p.push_back(ProofKey{9, 0}), std::invalid_argument);
    CHECK(p.size() == 2);
    CHECK(p.key(1) == ProofKey{1, 1});
}

TEST_CASE("certificate: the published certificates are rewritten byte for byte",
          "[certificate][packed]") {
    // Read, then written again by the streaming writer: the same bytes (the same entries in the
    // same encoding, zstd level 19 below kLevel19Bytes).
    TempDir dir("cert-bytes");
    int n = 0;
    for (const auto& e : fs::directory_iterator(KONANE_PROOFS_DIR)) {
        if (e.path().extension() != ".proof") continue;
        INFO(e.path().filename().string());
        const Certificate c = read_certificate(e.path());
        const fs::path out = dir.path / e.path().filename();
        write_certificate(out, c);
        CHECK(file_bytes(out) == file_bytes(e.path()));
        ++n;
    }
    CHECK(n >= 13);
    CHECK(certificate_zstd_level(kLevel19Bytes) == 19);
    CHECK(certificate_zstd_level(kLevel19Bytes + 1) < 19);
}

TEST_CASE("certificate: the streamed form of large certificates reads back the same entries",
          "[certificate][packed]") {
    // Above kLevel19Bytes the entries are streamed into zstd at level 9: other bytes, the same
    // certificate.
    TempDir dir("cert-stream");
    for (const char* name : {"4x5-brainking.proof", "6x6-brainking.proof"}) {
        INFO(name);
        const Certificate c = read_certificate(fs::path(KONANE_PROOFS_DIR) / name);
        const fs::path out = dir.path / name;
        write_certificate(out, c, 0);
        const Certificate back = read_certificate(out);
        CHECK(back.entries == c.entries);
        CHECK(back.roots.size() == c.roots.size());
        CHECK(back.generator == c.generator);
        CHECK(check_certificate(back).board_winner.has_value());
    }
}

TEST_CASE("certificate: the raw bytes are docs/certificate.md's worked example",
          "[certificate][packed]") {
    // One entry of tag 0 (occupancy 5, move 2), two of tag 1 (occupancies 3 and 300, moves 0
    // and 1): the occupancies of every tag (LEB128 differences from the previous one of the
    // same tag), then the move bytes, in the order of the entries.
    Certificate c;
    c.board = Board::make(4, 5);
    c.entries.push_back(ProofKey{5, 0}, 2);
    c.entries.push_back(ProofKey{3, 1}, 0);
    c.entries.push_back(ProofKey{300, 1}, 1);
    c.entries.seal();
    TempDir dir("cert-example");
    const fs::path out = dir.path / "example.proof";
    write_certificate(out, c);
    const std::string file = file_bytes(out);
    CHECK(file.find("\nentries 1 2 0 0\n") != std::string::npos);
    const std::size_t data = file.find("\ndata 7 ");
    REQUIRE(data != std::string::npos);
    const std::size_t end = file.find("\nend\n", data);
    REQUIRE(end != std::string::npos);
    const std::size_t packed = std::stoul(file.substr(data + 8, end - data - 8));
    REQUIRE(end + 5 + packed + 8 == file.size());  // the frame, then the 8-byte checksum
    std::string raw(7, '\0');
    CHECK(ZSTD_decompress(raw.data(), raw.size(), file.data() + end + 5, packed) == 7);
    CHECK(raw == std::string("\x05\x03\xa9\x02\x02\x00\x01", 7));
}
