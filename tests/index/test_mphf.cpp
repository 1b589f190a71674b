// Tests for the minimal perfect hash function (index/mphf.hpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>
#include <unordered_set>
#include <vector>

#include "index/mphf.hpp"

using konane::Mphf;
using konane::MphfView;

namespace {

std::vector<std::uint64_t> random_keys(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::uint64_t> keys;
    keys.reserve(n);
    std::unordered_set<std::uint64_t> seen;
    while (keys.size() < n) {
        const std::uint64_t k = rng();
        if (seen.insert(k).second) keys.push_back(k);
    }
    return keys;
}

/// Occupancy-mask-like keys: up to 36 low bits, bit 63 a side flag.
std::vector<std::uint64_t> mask_keys(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::uint64_t> keys;
    keys.reserve(n);
    std::unordered_set<std::uint64_t> seen;
    while (keys.size() < n) {
        const std::uint64_t k = (rng() & ((std::uint64_t{1} << 36) - 1)) | (rng() & 1) << 63;
        if (seen.insert(k).second) keys.push_back(k);
    }
    return keys;
}

/// Every member maps into [0, n) and every slot is hit exactly once.
void check_bijection(const MphfView& f, const std::vector<std::uint64_t>& keys) {
    REQUIRE(f.size() == keys.size());
    std::vector<std::uint8_t> hit(keys.size(), 0);
    std::size_t bad = 0;
    for (std::uint64_t k : keys) {
        const std::uint64_t s = f(k);
        if (s >= keys.size() || hit[s]++) ++bad;
    }
    REQUIRE(bad == 0);
}

/// An 8-byte aligned copy of a blob (optionally at a byte offset, to misalign it).
struct AlignedBuf {
    std::unique_ptr<std::uint64_t[]> storage;
    std::span<const std::uint8_t> span;
    AlignedBuf(std::span<const std::uint8_t> bytes, std::size_t shift = 0)
        : storage(new std::uint64_t[bytes.size() / 8 + 2]()) {
        auto* p = reinterpret_cast<std::uint8_t*>(storage.get()) + shift;
        if (!bytes.empty()) std::memcpy(p, bytes.data(), bytes.size());
        span = {p, bytes.size()};
    }
    std::uint8_t* data() { return reinterpret_cast<std::uint8_t*>(storage.get()); }
};

}  // namespace

TEST_CASE("mphf: tiny and random key sets are bijections", "[mphf]") {
    for (std::size_t n : {0, 1, 2, 3, 4, 5, 7, 100, 1000, 10000}) {
        CAPTURE(n);
        const auto keys = random_keys(n, 1000 + n);
        const Mphf f = Mphf::build(keys, 2);
        check_bijection(f.view(), keys);
        REQUIRE(f.bytes().size() == f.size_bytes());
        REQUIRE(f.bytes().size() % 8 == 0);
        REQUIRE(f.words().size() * 8 == f.size_bytes());
    }
    const Mphf empty = Mphf::build({}, 1);
    REQUIRE(empty.size() == 0);
    REQUIRE(empty(12345) == 0);
    REQUIRE(Mphf()(7) == 0);
}

TEST_CASE("mphf: one million random keys and under 3 bits per key", "[mphf]") {
    const auto keys = random_keys(1000000, 7);
    const Mphf f = Mphf::build(keys);
    check_bijection(f.view(), keys);
    REQUIRE(f.bits_per_key() < 3.0);
}

TEST_CASE("mphf: every construction parameter in range gives a bijection", "[mphf]") {
    const auto keys = random_keys(300000, 11);
    for (konane::MphfBuildParams q :
         {konane::kFastBuild, konane::MphfBuildParams{10, 8}, konane::MphfBuildParams{40, 1000}}) {
        CAPTURE(q.lambda_tenths, q.slack_den);
        const Mphf f = Mphf::build(keys, 2, Mphf::kDefaultSeed, q);
        check_bijection(f.view(), keys);
        // Serialized, it reads back the same (the shape, not the parameters, is stored).
        const Mphf g = Mphf::from_words(f.words());
        for (std::size_t i = 0; i < keys.size(); i += 97)
            REQUIRE(g(keys[i]) == f(keys[i]));
    }
    const Mphf fast = Mphf::build(keys, 2, Mphf::kDefaultSeed, konane::kFastBuild);
    CHECK(fast.bits_per_key() > Mphf::build(keys, 2).bits_per_key());
    CHECK_THROWS_AS(Mphf::build(keys, 2, Mphf::kDefaultSeed, konane::MphfBuildParams{5, 499}),
                    std::invalid_argument);
    CHECK_THROWS_AS(Mphf::build(keys, 2, Mphf::kDefaultSeed, konane::MphfBuildParams{35, 2}),
                    std::invalid_argument);
    CHECK_THROWS_AS(Mphf::build(keys, 2, Mphf::kDefaultSeed, konane::MphfBuildParams{80, 499}),
                    std::invalid_argument);
}

TEST_CASE("mphf: structured keys", "[mphf]") {
    SECTION("consecutive integers") {
        std::vector<std::uint64_t> keys(200000);
        for (std::size_t i = 0; i < keys.size(); ++i)
            keys[i] = i;
        check_bijection(Mphf::build(keys).view(), keys);
        for (auto& k : keys)
            k += 0xFFFFFFFFFFF00000ull;  // wrapping near 2^64
        check_bijection(Mphf::build(keys).view(), keys);
    }
    SECTION("keys with few bits set") {
        std::vector<std::uint64_t> keys{0};
        for (int a = 0; a < 64; ++a) {
            keys.push_back(std::uint64_t{1} << a);
            for (int b = a + 1; b < 64; ++b) {
                keys.push_back((std::uint64_t{1} << a) | (std::uint64_t{1} << b));
                for (int c = b + 1; c < 64; ++c)
                    keys.push_back((std::uint64_t{1} << a) | (std::uint64_t{1} << b) |
                                   (std::uint64_t{1} << c));
            }
        }
        check_bijection(Mphf::build(keys).view(), keys);
    }
    SECTION("occupancy masks with a side bit") {
        const auto keys = mask_keys(300000, 11);
        check_bijection(Mphf::build(keys).view(), keys);
        std::vector<std::uint64_t> both;  // every mask of 18 squares, both sides
        for (std::uint64_t m = 0; m < (1u << 18); ++m) {
            both.push_back(m << 9);
            both.push_back((m << 9) | (std::uint64_t{1} << 63));
        }
        check_bijection(Mphf::build(both).view(), both);
    }
}

TEST_CASE("mphf: serialized bytes depend only on the key set and the seed", "[mphf]") {
    auto keys = mask_keys(300000, 3);
    const Mphf a = Mphf::build(keys, 1);
    std::shuffle(keys.begin(), keys.end(), std::mt19937_64(99));
    const Mphf b = Mphf::build(keys, 2);
    std::reverse(keys.begin(), keys.end());
    const Mphf c = Mphf::build(keys, 3);
    REQUIRE(a.words() == b.words());
    REQUIRE(a.words() == c.words());
    const Mphf d = Mphf::build(keys, 2, 12345);
    REQUIRE(d.words() != a.words());
    check_bijection(d.view(), keys);
    for (std::size_t n : {1, 2, 3, 50}) {
        std::vector<std::uint64_t> small(keys.begin(), keys.begin() + n);
        const Mphf s1 = Mphf::build(small, 1);
        std::reverse(small.begin(), small.end());
        REQUIRE(Mphf::build(small, 2).words() == s1.words());
    }
}

TEST_CASE("mphf: view over copied bytes answers identically", "[mphf]") {
    const auto keys = random_keys(50000, 5);
    const Mphf f = Mphf::build(keys);
    AlignedBuf buf(f.bytes());
    const MphfView v = MphfView::from_bytes(buf.span);
    REQUIRE(v.size() == f.size());
    REQUIRE(v.size_bytes() == f.size_bytes());
    REQUIRE(v.bits_per_key() == f.bits_per_key());
    for (std::uint64_t k : keys)
        REQUIRE(v(k) == f(k));
    std::mt19937_64 rng(8);
    for (int i = 0; i < 10000; ++i) {
        const std::uint64_t k = rng();
        REQUIRE(v(k) == f(k));
    }
    // Copies and moves keep working.
    Mphf g = f;
    Mphf h = std::move(g);
    for (std::size_t i = 0; i < 1000; ++i)
        REQUIRE(h(keys[i]) == f(keys[i]));
    g = h;
    REQUIRE(g.words() == f.words());
}

TEST_CASE("mphf: from_bytes rejects bad blobs without crashing", "[mphf]") {
    const auto keys = random_keys(5000, 9);
    const Mphf f = Mphf::build(keys);
    const auto bytes = f.bytes();

    SECTION("truncated") {
        for (std::size_t len : {std::size_t{0}, std::size_t{8}, std::size_t{64}, std::size_t{72},
                                bytes.size() - 8, bytes.size() - 16}) {
            AlignedBuf buf(bytes.first(len));
            REQUIRE_THROWS_AS(MphfView::from_bytes(buf.span), std::runtime_error);
        }
        AlignedBuf buf(bytes.first(bytes.size() - 3));  // not a multiple of 8
        REQUIRE_THROWS_AS(MphfView::from_bytes(buf.span), std::runtime_error);
    }
    SECTION("extended") {
        std::vector<std::uint8_t> longer(bytes.begin(), bytes.end());
        longer.resize(longer.size() + 8, 0);
        AlignedBuf buf(longer);
        REQUIRE_THROWS_AS(MphfView::from_bytes(buf.span), std::runtime_error);
    }
    SECTION("misaligned") {
        AlignedBuf buf(bytes, 4);
        REQUIRE_THROWS_AS(MphfView::from_bytes(buf.span), std::runtime_error);
    }
    SECTION("corrupted header and body") {
        std::mt19937_64 rng(17);
        for (std::size_t pos = 0; pos < 9 * 8; ++pos) {  // every header byte
            AlignedBuf buf(bytes);
            buf.data()[pos] ^= static_cast<std::uint8_t>(1 + rng() % 255);
            REQUIRE_THROWS_AS(MphfView::from_bytes(buf.span), std::runtime_error);
        }
        for (int i = 0; i < 200; ++i) {  // random body bytes
            AlignedBuf buf(bytes);
            buf.data()[72 + rng() % (bytes.size() - 72)] ^=
                static_cast<std::uint8_t>(1 << (rng() % 8));
            REQUIRE_THROWS_AS(MphfView::from_bytes(buf.span), std::runtime_error);
        }
    }
    SECTION("random garbage") {
        std::mt19937_64 rng(23);
        for (int i = 0; i < 300; ++i) {
            std::vector<std::uint8_t> junk(8 * (rng() % 64));
            for (auto& b : junk)
                b = static_cast<std::uint8_t>(rng());
            if (i % 2 == 0 && junk.size() >= 16) {  // plausible magic and version
                std::memcpy(junk.data(), bytes.data(), 16);
            }
            AlignedBuf buf(junk);
            REQUIRE_THROWS_AS(MphfView::from_bytes(buf.span), std::runtime_error);
        }
    }
}

TEST_CASE("mphf: duplicate keys throw", "[mphf]") {
    REQUIRE_THROWS_AS(Mphf::build(std::vector<std::uint64_t>{5, 5}), std::invalid_argument);
    auto keys = random_keys(100000, 13);
    keys.push_back(keys[777]);
    REQUIRE_THROWS_AS(Mphf::build(keys, 2), std::invalid_argument);
}

TEST_CASE("mphf: non-member queries stay in range", "[mphf]") {
    std::mt19937_64 rng(31);
    for (std::size_t n : {1, 2, 3, 100, 100000}) {
        const auto keys = random_keys(n, 40 + n);
        const Mphf f = Mphf::build(keys);
        for (int i = 0; i < 200000; ++i)
            REQUIRE(f(rng()) < n);
    }
}

TEST_CASE("mphf: a build from a key source in chunks gives build()'s bytes", "[mphf]") {
    const auto keys = mask_keys(400000, 5);
    const Mphf whole = Mphf::build(keys, 2, Mphf::kDefaultSeed, konane::kFastBuild);
    // Chunks of one key, of a prime size, of the 2^16 keys past the parallel threshold, and one
    // chunk of everything; 1 to 3 threads.
    for (std::size_t chunk : {std::size_t{1}, std::size_t{7919}, std::size_t{70000}, keys.size()}) {
        int calls = 0;
        const Mphf::KeySource source = [&](const auto& sink) {
            ++calls;
            for (std::size_t i = 0; i < keys.size(); i += chunk)
                sink(std::span<const std::uint64_t>(keys).subspan(
                    i, std::min(chunk, keys.size() - i)));
        };
        for (int threads : {1, 2, 3}) {
            INFO("chunk " << chunk << ", threads " << threads);
            calls = 0;
            const Mphf s = Mphf::build_streamed(keys.size(), source, threads, Mphf::kDefaultSeed,
                                                konane::kFastBuild);
            CHECK(s.words() == whole.words());
            CHECK(calls == 2);  // read twice, no retry for this key set
        }
    }
    check_bijection(whole.view(), keys);
    // An empty source: the empty function.
    const Mphf empty = Mphf::build_streamed(
        0, [](const auto&) {}, 1);
    CHECK(empty.size() == 0);
}

TEST_CASE("mphf: a key source that gives other keys than announced is refused", "[mphf]") {
    const auto keys = mask_keys(100000, 6);
    const Mphf::KeySource source = [&](const auto& sink) { sink(keys); };
    CHECK_THROWS_AS(Mphf::build_streamed(keys.size() + 1, source, 2), std::invalid_argument);
    CHECK_THROWS_AS(Mphf::build_streamed(keys.size() - 1, source, 2), std::invalid_argument);
    // Other keys the second time (the same count): caught by the partitions' counts.
    int call = 0;
    const auto other = mask_keys(100000, 7);
    const Mphf::KeySource changing = [&](const auto& sink) { sink(call++ == 0 ? keys : other); };
    CHECK_THROWS_AS(Mphf::build_streamed(keys.size(), changing, 2), std::invalid_argument);
}
