// The game store's hash-consing memo: a pair of option sets (Left's and Right's game ids) ->
// the game they make. An open-addressing table of 16-byte slots (the key's 64-bit hash, where
// its ids start in one array of all keys' ids, the value), linear probing, doubled at half
// load; the ids of every key are kept once, back to back. It replaces std::unordered_map over
// pairs of vectors, whose two heap blocks a key and node a entry cost a malloc, a free and a
// cache miss or two a look-up (docs/cgt.md "Speed"). Not thread-safe; never shrinks.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "cgt/position_map.hpp"

namespace konane::cgt {

/// Map from a pair of sorted option lists (game ids) to a game id below 0xFFFFFFFF.
class OptionSetMap {
  public:
    using Id = std::uint32_t;

    OptionSetMap() { slots_.resize(1024); }

    /// Keys held.
    std::size_t size() const { return size_; }

    /// The value of the key (left, right), or nullptr.
    const Id* find(std::span<const Id> left, std::span<const Id> right) const {
        const std::uint64_t h = hash(left, right);
        for (std::size_t i = h & mask();; i = (i + 1) & mask()) {
            const Slot& s = slots_[i];
            if (s.value == kEmpty) return nullptr;
            if (s.hash == h && equal(s, left, right)) return &s.value;
        }
    }

    /// Inserts (left, right) -> v when the key is absent (v must not be 0xFFFFFFFF); a present
    /// key keeps its value. Throws std::length_error past 2^32 ids of keys.
    void insert(std::span<const Id> left, std::span<const Id> right, Id v) {
        if (2 * (size_ + 1) > slots_.size()) grow();
        const std::uint64_t h = hash(left, right);
        std::size_t i = h & mask();
        for (;; i = (i + 1) & mask()) {
            const Slot& s = slots_[i];
            if (s.value == kEmpty) break;
            if (s.hash == h && equal(s, left, right)) return;
        }
        if (ids_.size() + left.size() + right.size() + 2 > 0xFFFFFFFFu)
            throw std::length_error("option set memo full (2^32 ids)");
        const auto at = static_cast<std::uint32_t>(ids_.size());
        ids_.push_back(static_cast<Id>(left.size()));
        ids_.push_back(static_cast<Id>(right.size()));
        ids_.insert(ids_.end(), left.begin(), left.end());
        ids_.insert(ids_.end(), right.begin(), right.end());
        slots_[i] = Slot{h, at, v};
        ++size_;
    }

    /// Bytes of the slots and of the keys' ids.
    std::size_t bytes() const {
        return slots_.capacity() * sizeof(Slot) + ids_.capacity() * sizeof(Id);
    }

  private:
    static constexpr Id kEmpty = 0xFFFFFFFFu;
    struct Slot {
        std::uint64_t hash = 0;
        std::uint32_t at = 0;  // the key in ids_: |left|, |right|, left's ids, right's ids
        Id value = kEmpty;
    };

    std::size_t mask() const { return slots_.size() - 1; }

    static std::uint64_t hash(std::span<const Id> left, std::span<const Id> right) {
        std::uint64_t h = 0x9E3779B97F4A7C15ull ^ left.size();
        for (Id g : left)
            h = (h ^ g) * 0x100000001B3ull;
        h = (h ^ 0xFFFFFFFFull) * 0x9E3779B97F4A7C15ull;
        for (Id g : right)
            h = (h ^ g) * 0x100000001B3ull;
        // Finished as PositionMap's keys are, so the low bits, which pick the slot, depend on
        // every id.
        return position_hash(h);
    }

    bool equal(const Slot& s, std::span<const Id> left, std::span<const Id> right) const {
        const Id* k = ids_.data() + s.at;
        if (k[0] != left.size() || k[1] != right.size()) return false;
        return std::equal(left.begin(), left.end(), k + 2) &&
               std::equal(right.begin(), right.end(), k + 2 + left.size());
    }

    void grow() {
        std::vector<Slot> old(slots_.size() * 2);
        old.swap(slots_);
        for (const Slot& s : old) {
            if (s.value == kEmpty) continue;
            std::size_t i = s.hash & mask();
            while (slots_[i].value != kEmpty)
                i = (i + 1) & mask();
            slots_[i] = s;
        }
    }

    std::vector<Slot> slots_;
    std::vector<Id> ids_;
    std::size_t size_ = 0;
};

}  // namespace konane::cgt
