// Internal to konane_format: the canonical Huffman code of a layer's values (FORMAT.md §4.2).
// Source: D. A. Huffman, "A method for the construction of minimum-redundancy codes", 1952;
// canonical codes as in RFC 1951 §3.2.2 (DEFLATE), bits packed least significant first, each
// code written from its first (most significant) bit on.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "format/detail.hpp"

namespace konane::format::detail {

/// Code lengths (0 = symbol absent) of a Huffman code for the histogram, at most
/// kMaxCodeLength bits (frequencies are halved until the code fits). A single present symbol
/// gets length 1. All zero when the histogram is empty.
std::array<std::uint8_t, 256> huffman_lengths(const std::array<std::uint64_t, 256>& hist);

/// Canonical codes for the lengths: code[s] holds the code of s bit-reversed (ready to be
/// written LSB first). Returns "" or what is wrong (over-subscribed, length > kMaxCodeLength).
std::string canonical_codes(const std::array<std::uint8_t, 256>& lengths,
                            std::array<std::uint32_t, 256>& code);

/// Appends bits LSB first to 64-bit words.
class BitWriter {
  public:
    void put(std::uint64_t bits, unsigned n) {  // n <= 32
        acc_ |= bits << fill_;
        fill_ += n;
        if (fill_ >= 64) {
            words_.push_back(acc_);
            fill_ -= 64;
            acc_ = fill_ == 0 ? 0 : bits >> (n - fill_);
        }
        total_ += n;
    }
    std::uint64_t bits() const { return total_; }
    /// The words, the last one zero-padded, then one extra zero word (for 8-byte reads).
    std::vector<std::uint64_t>& finish() {
        if (fill_ > 0) words_.push_back(acc_);
        words_.push_back(0);
        acc_ = 0;
        fill_ = 0;
        return words_;
    }

  private:
    std::vector<std::uint64_t> words_;
    std::uint64_t acc_ = 0, total_ = 0;
    unsigned fill_ = 0;
};

/// Decoder of one layer's canonical code: a table for codes of up to kTableBits bits, the
/// canonical first-code arrays for longer ones.
class HuffmanDecoder {
  public:
    static constexpr unsigned kTableBits = 11;

    /// Builds from code lengths; returns "" or what is wrong with them.
    std::string build(const std::array<std::uint8_t, 256>& lengths);

    /// Decodes one symbol at bit `pos` of `data` (which has 8 readable bytes past every bit
    /// position used); advances pos. Returns -1 for a bit pattern that is no code.
    int decode(const std::uint8_t* data, std::uint64_t& pos) const {
        const std::uint64_t w = load_bits(data, pos);  // at least 57 valid bits
        const std::uint16_t e = table_[w & ((1u << kTableBits) - 1)];
        if (e >> 8 != 0) {
            pos += e >> 8;
            return e & 0xFF;
        }
        // Long code: canonical decoding, one bit at a time.
        std::uint32_t code = 0;
        for (unsigned len = 1; len <= kMaxCodeLength; ++len) {
            code = (code << 1) | static_cast<std::uint32_t>((w >> (len - 1)) & 1);
            if (code >= first_[len] && code - first_[len] < count_[len]) {
                pos += len;
                return sorted_[index_[len] + code - first_[len]];
            }
        }
        return -1;
    }

    /// Skips `m` symbols from bit `pos`, then decodes one: the symbol number m from pos.
    /// Whole runs of short codes are skipped a table look-up at a time (skip_), so a value
    /// in the middle of a 64-value block costs about m / 3 look-ups, not m decodes. Returns
    /// -1 for a bit pattern that is no code, or when it would read past bit `end` (then
    /// nothing past end + 64 bits was read). Same data contract as decode().
    int decode_nth(const std::uint8_t* data, std::uint64_t& pos, std::uint64_t m,
                   std::uint64_t end) const {
        // The bits from pos on are kept in a register (w, `avail` of them valid), reloaded only
        // when fewer than a window's worth are left: one table look-up per step, no load.
        std::uint64_t w = 0;
        unsigned avail = 0;
        while (m > 0) {
            if (pos > end) return -1;
            if (avail < kTableBits) {
                w = load_bits(data, pos);
                avail = 64 - static_cast<unsigned>(pos & 7);
            }
            const std::uint8_t e = skip_[w & ((1u << kTableBits) - 1)];
            if ((e & 15) != 0 && (e & 15u) <= m) {
                const unsigned bits = e >> 4;
                pos += bits;
                w >>= bits;
                avail -= bits;
                m -= e & 15;
                continue;
            }
            if (decode(data, pos) < 0) return -1;
            avail = 0;  // decode() moved pos: reload
            --m;
        }
        if (pos > end) return -1;
        const int v = decode(data, pos);
        return pos > end ? -1 : v;
    }

  private:
    std::uint16_t table_[1u << kTableBits] = {};  // symbol | length << 8; length 0: long code
    // For each kTableBits-bit window: how many whole codes it begins with (low 4 bits) and
    // their total length in bits (high 4 bits); 0 when the first code is longer.
    std::uint8_t skip_[1u << kTableBits] = {};
    std::uint32_t first_[kMaxCodeLength + 1] = {}, count_[kMaxCodeLength + 1] = {},
                                          index_[kMaxCodeLength + 1] = {};
    std::uint8_t sorted_[256] = {};
};

}  // namespace konane::format::detail
