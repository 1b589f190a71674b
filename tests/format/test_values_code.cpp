// The values' canonical Huffman code (format/values.hpp): the skipping decoder decode_nth()
// against symbol-by-symbol decode(), on codes with short and long (> kTableBits) lengths.
#include <array>
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <vector>

#include "format/values.hpp"

using namespace konane::format::detail;

namespace {

/// A stream of `count` symbols drawn from the histogram's shape, encoded with its code.
struct Encoded {
    std::vector<int> symbols;
    std::vector<std::uint64_t> words;
    std::uint64_t bits = 0;
};

Encoded encode(const std::array<std::uint8_t, 256>& lengths, const std::vector<int>& alphabet,
               std::size_t count, std::mt19937_64& rng) {
    std::array<std::uint32_t, 256> code{};
    REQUIRE(canonical_codes(lengths, code).empty());
    Encoded e;
    BitWriter w;
    for (std::size_t i = 0; i < count; ++i) {
        // Mostly the first symbols (short codes), sometimes any (long codes).
        const int s = (rng() % 8 != 0) ? alphabet[rng() % std::min<std::size_t>(3, alphabet.size())]
                                       : alphabet[rng() % alphabet.size()];
        e.symbols.push_back(s);
        w.put(code[static_cast<std::size_t>(s)], lengths[static_cast<std::size_t>(s)]);
    }
    e.bits = w.bits();
    e.words = w.finish();
    return e;
}

}  // namespace

TEST_CASE("values code: decode_nth skips to the same symbol as decoding one at a time",
          "[format]") {
    std::mt19937_64 rng(11);
    for (int trial = 0; trial < 40; ++trial) {
        // A skewed histogram over up to 60 depths: frequencies from 2^30 down to 1, so that
        // some codes are longer than the decoder's table (kTableBits) and some are 1 bit long.
        std::array<std::uint64_t, 256> hist{};
        std::vector<int> alphabet;
        const int symbols = 1 + static_cast<int>(rng() % 60);
        for (int i = 0; i < symbols; ++i) {
            const int s = static_cast<int>(rng() % 256);
            if (hist[static_cast<std::size_t>(s)] != 0) continue;
            hist[static_cast<std::size_t>(s)] = std::uint64_t{1} << (30 - (i * 30) / symbols);
            alphabet.push_back(s);
        }
        const auto lengths = huffman_lengths(hist);
        HuffmanDecoder d;
        REQUIRE(d.build(lengths).empty());
        const Encoded e = encode(lengths, alphabet, 300, rng);
        const auto* data = reinterpret_cast<const std::uint8_t*>(e.words.data());
        // Every (start, m) pair of the first 100 starts: the same symbol and end bit.
        std::uint64_t start = 0;
        int wrong = 0;
        for (std::size_t from = 0; from < 100; ++from) {
            std::uint64_t seq = start;
            for (std::size_t m = 0; from + m < e.symbols.size(); ++m) {
                const int want = d.decode(data, seq);
                std::uint64_t pos = start;
                const int got = d.decode_nth(data, pos, m, e.bits);
                if (got != want || got != e.symbols[from + m] || pos != seq) ++wrong;
            }
            (void)d.decode(data, start);
        }
        CHECK(wrong == 0);
        // Past the end bit: refused, not read on.
        std::uint64_t pos = 0;
        CHECK(d.decode_nth(data, pos, e.symbols.size(), e.bits) == -1);
    }
}
