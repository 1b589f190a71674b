// Bitboards: the 64-bit word of boards of up to 64 squares and WideBits<N>, N words for larger
// boards, behind one set of operations, so that the rules (core/rules_generic.hpp) are written
// once for both.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace konane {

/// A set of squares of a board of up to 64*N squares: bit i of the set is bit (i % 64) of word
/// i / 64 (word 0 the lowest). Shifts, &, |, ^, ~ act as on one (64*N)-bit unsigned number;
/// operator< is that number's order. Shifts by n >= 64*N give the empty set; n must be >= 0.
template <int N>
struct WideBits {
    static_assert(N >= 1, "at least one word");
    static constexpr int kBits = 64 * N;
    std::array<std::uint64_t, N> w{};

    // Word by word (the defaulted comparison of the array calls memcmp, which costs more
    // than the comparison of a few words).
    friend constexpr bool operator==(const WideBits& a, const WideBits& b) {
        std::uint64_t diff = 0;
        for (int i = 0; i < N; ++i)
            diff |= a.w[i] ^ b.w[i];
        return diff == 0;
    }
    friend constexpr bool operator<(const WideBits& a, const WideBits& b) {
        for (int i = N - 1; i >= 0; --i)
            if (a.w[i] != b.w[i]) return a.w[i] < b.w[i];
        return false;
    }
    /// True when any bit is set.
    explicit constexpr operator bool() const {
        std::uint64_t any = 0;
        for (std::uint64_t x : w)
            any |= x;
        return any != 0;
    }
    constexpr WideBits& operator&=(const WideBits& o) {
        for (int i = 0; i < N; ++i)
            w[i] &= o.w[i];
        return *this;
    }
    constexpr WideBits& operator|=(const WideBits& o) {
        for (int i = 0; i < N; ++i)
            w[i] |= o.w[i];
        return *this;
    }
    constexpr WideBits& operator^=(const WideBits& o) {
        for (int i = 0; i < N; ++i)
            w[i] ^= o.w[i];
        return *this;
    }
    friend constexpr WideBits operator&(WideBits a, const WideBits& b) { return a &= b; }
    friend constexpr WideBits operator|(WideBits a, const WideBits& b) { return a |= b; }
    friend constexpr WideBits operator^(WideBits a, const WideBits& b) { return a ^= b; }
    friend constexpr WideBits operator~(WideBits a) {
        for (int i = 0; i < N; ++i)
            a.w[i] = ~a.w[i];
        return a;
    }
    /// Towards the low bits: bit i of the result is bit i + n of a.
    friend constexpr WideBits operator>>(const WideBits& a, int n) {
        WideBits r;
        const int q = n >> 6, s = n & 63;
        if (q == 0 && s != 0) {
            // The usual shift (a step or two along a line): word by word without branches.
            for (int i = 0; i + 1 < N; ++i)
                r.w[i] = (a.w[i] >> s) | (a.w[i + 1] << (64 - s));
            r.w[N - 1] = a.w[N - 1] >> s;
            return r;
        }
        for (int i = 0; i + q < N; ++i) {
            std::uint64_t v = a.w[i + q] >> s;
            if (s && i + q + 1 < N) v |= a.w[i + q + 1] << (64 - s);
            r.w[i] = v;
        }
        return r;
    }
    /// Towards the high bits: bit i + n of the result is bit i of a.
    friend constexpr WideBits operator<<(const WideBits& a, int n) {
        WideBits r;
        const int q = n >> 6, s = n & 63;
        if (q == 0 && s != 0) {
            for (int i = N - 1; i > 0; --i)
                r.w[i] = (a.w[i] << s) | (a.w[i - 1] >> (64 - s));
            r.w[0] = a.w[0] << s;
            return r;
        }
        for (int i = N - 1; i >= q; --i) {
            std::uint64_t v = a.w[i - q] << s;
            if (s && i - q - 1 >= 0) v |= a.w[i - q - 1] >> (64 - s);
            r.w[i] = v;
        }
        return r;
    }
};

/// The operations the rules need beyond &, |, ^, ~ and shifts, for a bitboard type B
/// (std::uint64_t or WideBits<N>): the set {i}, membership, the lowest member, its removal, the
/// number of members. i is a square index, 0 <= i < kBits.
template <class B>
struct BitOps;

template <>
struct BitOps<std::uint64_t> {
    static constexpr int kBits = 64;
    static constexpr std::uint64_t one(int i) { return std::uint64_t{1} << i; }
    static constexpr bool test(std::uint64_t x, int i) { return (x >> i) & 1; }
    static constexpr int lowest(std::uint64_t x) { return std::countr_zero(x); }
    static constexpr void pop_lowest(std::uint64_t& x) { x &= x - 1; }
    static constexpr int count(std::uint64_t x) { return std::popcount(x); }
    static constexpr void set(std::uint64_t& x, int i) { x |= one(i); }
    static constexpr void reset(std::uint64_t& x, int i) { x &= ~one(i); }
};

template <int N>
struct BitOps<WideBits<N>> {
    using B = WideBits<N>;
    static constexpr int kBits = B::kBits;
    static constexpr B one(int i) {
        B r;
        r.w[static_cast<std::size_t>(i >> 6)] = std::uint64_t{1} << (i & 63);
        return r;
    }
    static constexpr bool test(const B& x, int i) {
        return (x.w[static_cast<std::size_t>(i >> 6)] >> (i & 63)) & 1;
    }
    /// The lowest member; kBits when x is empty.
    static constexpr int lowest(const B& x) {
        for (int i = 0; i < N; ++i)
            if (x.w[i]) return 64 * i + std::countr_zero(x.w[i]);
        return kBits;
    }
    static constexpr void pop_lowest(B& x) {
        for (int i = 0; i < N; ++i) {
            if (x.w[i]) {
                x.w[i] &= x.w[i] - 1;
                return;
            }
        }
    }
    static constexpr int count(const B& x) {
        int n = 0;
        for (std::uint64_t v : x.w)
            n += std::popcount(v);
        return n;
    }
    static constexpr void set(B& x, int i) {
        x.w[static_cast<std::size_t>(i >> 6)] |= std::uint64_t{1} << (i & 63);
    }
    static constexpr void reset(B& x, int i) {
        x.w[static_cast<std::size_t>(i >> 6)] &= ~(std::uint64_t{1} << (i & 63));
    }
};

/// x shifted by s square indices towards the low bits (s > 0) or -s towards the high bits
/// (s < 0): bit i of the result is bit i + s of x. |s| must be below the type's width.
template <class B>
constexpr B shift_back(const B& x, int s) {
    return s > 0 ? x >> s : x << -s;
}

/// Hash of a WideBits (for unordered containers): the words mixed by a 64-bit multiply.
struct WideBitsHash {
    template <int N>
    std::size_t operator()(const WideBits<N>& x) const {
        std::uint64_t h = 0x9E3779B97F4A7C15ULL;
        for (std::uint64_t v : x.w) {
            h ^= v;
            h *= 0xBF58476D1CE4E5B9ULL;
            h ^= h >> 31;
        }
        return static_cast<std::size_t>(h);
    }
};

}  // namespace konane
