// The valuer's memo: an open-addressing hash map from a set of squares (a position's
// occupancy, 64-bit or wide) to a game, linear probing, doubled at half load; the game store's
// memo of comparisons and sums uses it with 64-bit keys (two games' ids). It replaces
// std::unordered_map, whose node per entry and pointer chase cost a cache miss or two a look-up
// (18% of the valuer's time on konjecture's STAIR(9); docs/cgt.md "Speed").
//
// A key's home slot is the top bits of its hash, so the slots hold their keys nearly in order
// of hash, and a doubling moves the key of old slot i to new slot 2i or 2i + 1 (or a little
// past, by probing): the rehash writes the new array front to back instead of at random, and
// the growing arrays ask for transparent huge pages (fewer page faults as they are first
// touched). Both measured on STAIR(9) in docs/cgt.md "Speed".
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/bitboard.hpp"
#include "process/huge_pages.hpp"

namespace konane::cgt {

/// A 64-bit hash of a set of squares B (std::uint64_t or WideBits<N>) whose top bits depend on
/// every bit of the set: splitmix64's finaliser for 64 bits, WideBitsHash for wide sets. Tables
/// of 2^k slots take the top k bits as the home slot (PositionMap, the exact reach's small
/// table in cgt/konane_generic.hpp).
template <class B>
std::uint64_t position_hash(const B& k) {
    if constexpr (std::is_same_v<B, std::uint64_t>) {
        std::uint64_t h = k;
        h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
        h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
        return h ^ (h >> 31);
    } else {
        return WideBitsHash{}(k);
    }
}

/// Map from a set of squares B (std::uint64_t or WideBits<N>) to a 32-bit value below
/// 0xFFFFFFFF (a GameId, or a flag). Not thread-safe; never shrinks.
template <class B>
class PositionMap {
  public:
    using Value = std::uint32_t;
    PositionMap() { resize(256); }

    std::size_t size() const { return size_; }

    /// The value of key k, or nullptr.
    const Value* find(const B& k) const {
        for (std::size_t i = slot(k);; i = (i + 1) & mask_) {
            const Slot& s = slots_[i];
            if (s.value == kEmpty) return nullptr;
            if (s.key == k) return &s.value;
        }
    }

    /// Asks for the cache line of k's home slot (a look-up soon after then waits less).
    void prefetch(const B& k) const { __builtin_prefetch(&slots_[slot(k)]); }

    /// Inserts k -> v when k is absent (v must not be kEmpty); a present k keeps its value.
    void insert(const B& k, Value v) {
        if (2 * (size_ + 1) > slots_.size()) resize(2 * slots_.size());
        for (std::size_t i = slot(k);; i = (i + 1) & mask_) {
            Slot& s = slots_[i];
            if (s.value == kEmpty) {
                s.key = k;
                s.value = v;
                ++size_;
                return;
            }
            if (s.key == k) return;
        }
    }

    /// Bytes of the slots.
    std::size_t bytes() const { return slots_.capacity() * sizeof(Slot); }

  private:
    /// No game of a store has this id (GameStore stops at 2^32 - 16 games).
    static constexpr Value kEmpty = 0xFFFFFFFFu;
    struct Slot {
        B key{};
        Value value = kEmpty;
    };

    std::size_t slot(const B& k) const {
        return static_cast<std::size_t>(position_hash(k) >> shift_);
    }

    /// n slots (a power of two, at least 2).
    void resize(std::size_t n) {
        std::vector<Slot> old;
        old.swap(slots_);
        slots_ = process::empty_huge<Slot>(n);
        slots_.assign(n, Slot{});
        mask_ = n - 1;
        shift_ = 64 - std::countr_zero(n);
        size_ = 0;
        for (const Slot& s : old)
            if (s.value != kEmpty) insert(s.key, s.value);
    }

    std::vector<Slot> slots_;
    std::size_t mask_ = 0;
    int shift_ = 64;
    std::size_t size_ = 0;
};

}  // namespace konane::cgt
