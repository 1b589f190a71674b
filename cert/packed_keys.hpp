// Compact exact sets and maps of ProofKeys, for the hundreds of millions of positions of a large
// proof (7x7): a sorted sequence of keys stored as LEB128 differences in blocks of 64, about 3 to
// 5 bytes a key where a hash table takes 20 to 40 (PackedKeys), and a small hash table in front
// of it that is merged into it when full (CompactKeyMap). Used by the certificate builder (won
// and lost positions), by the certificate itself (its entries) and by the checker.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "cert/key_table.hpp"
#include "cert/proof_key.hpp"

namespace konane {

/// A strictly increasing sequence of ProofKeys (order of ProofKey::operator<), each with a byte
/// (a move index; 0 where unused), compressed: the keys in blocks of kBlock, each block's first
/// key in an index (found by a radix directory and a binary search), the others as LEB128
/// differences of occupancy from the previous key (a change of tag is written as a 0 difference,
/// the tag byte, then the occupancy itself). Entry i is the i-th key in order.
class PackedKeys {
  public:
    static constexpr std::size_t kBlock = 64;
    static constexpr std::size_t npos = static_cast<std::size_t>(-1);

    /// Empty; `with_values` false: a set, whose values read 0 and cannot be set (a byte less per
    /// key).
    explicit PackedKeys(bool with_values = true) : with_values_(with_values) {}

    /// Number of keys.
    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    /// Bytes held (capacity of every array).
    std::size_t bytes() const;
    /// Bytes of the key differences alone.
    std::size_t data_bytes() const { return data_.size(); }
    /// Reserves room for `keys` keys and `data_bytes` bytes of differences.
    void reserve(std::size_t keys, std::size_t data_bytes);

    /// Appends k with value v; k must be greater than every key appended so far (else
    /// std::invalid_argument: "keys not sorted and distinct").
    void push_back(const ProofKey& k, std::uint8_t v = 0);
    /// Frees the unused capacity and builds the look-up directory; call after the last push_back
    /// (find works without it, more slowly).
    void seal();
    /// Empties it (and frees its memory).
    void clear();

    /// The entry number of k, or npos.
    std::size_t find(const ProofKey& k) const;
    bool contains(const ProofKey& k) const { return find(k) != npos; }
    /// The key of entry i (decodes its block).
    ProofKey key(std::size_t i) const;
    std::uint8_t value(std::size_t i) const { return with_values_ ? values_[i] : 0; }
    /// Sets entry i's value (a map only).
    void set_value(std::size_t i, std::uint8_t v) { values_[i] = v; }
    bool with_values() const { return with_values_; }

    /// Calls f(key, value) for every entry in increasing order.
    template <class F>
    void for_each(F&& f) const {
        for (std::size_t b = 0; b < heads_.size(); ++b) {
            ProofKey k = heads_[b];
            const std::uint8_t* p = data_.data() + offsets_[b];
            const std::size_t end = std::min(size_, (b + 1) * kBlock);
            for (std::size_t i = b * kBlock;; ++i) {
                f(static_cast<const ProofKey&>(k), with_values_ ? values_[i] : std::uint8_t{0});
                if (i + 1 == end) break;
                p = next(p, k);
            }
        }
    }

    /// The entries as a vector (for tests and small certificates).
    std::vector<ProofEntry> to_vector() const;
    /// From entries sorted by key and distinct (else std::invalid_argument).
    static PackedKeys from_vector(const std::vector<ProofEntry>& entries);

    friend bool operator==(const PackedKeys& a, const PackedKeys& b) {
        return a.size_ == b.size_ && a.heads_ == b.heads_ && a.data_ == b.data_ &&
               a.values_ == b.values_;
    }

  private:
    /// Decodes the key after k from p; returns the byte after it.
    static const std::uint8_t* next(const std::uint8_t* p, ProofKey& k);
    std::size_t block_of(const ProofKey& k) const;
    std::size_t bucket(const ProofKey& k) const;

    std::vector<ProofKey> heads_;         ///< first key of each block
    std::vector<std::uint64_t> offsets_;  ///< where each block's differences start in data_
    std::vector<std::uint8_t> data_;      ///< the differences
    std::vector<std::uint8_t> values_;    ///< one byte per entry (with_values_)
    bool with_values_ = true;
    std::vector<std::uint32_t> directory_;  ///< radix directory over heads_ (seal)
    int shift_ = 0, radix_bits_ = 0;
    std::size_t size_ = 0;
    ProofKey last_{};
};

/// An exact map from ProofKey to a byte (or a set, the byte unused) that grows to hundreds of
/// millions of keys in a few bytes each: new keys go to a hash table (ProofKeyMap) of at most
/// `front_limit` keys, merged into a PackedKeys when full (a linear merge of two sorted
/// sequences). Look-ups check both. The same keys and values as a std::map given the same
/// inserts.
class CompactKeyMap {
  public:
    /// Merges every `front_limit` new keys (at least 1); `with_values` false: a set (values 0).
    explicit CompactKeyMap(std::size_t front_limit = std::size_t{1} << 22, bool with_values = true);

    std::size_t size() const { return front_.size() + packed_.size(); }
    /// Bytes held (hash table and packed keys).
    std::size_t bytes() const { return front_.bytes() + packed_.bytes(); }

    /// The value of k, if present.
    std::optional<std::uint8_t> find(const ProofKey& k) const;
    bool contains(const ProofKey& k) const { return front_.contains(k) || packed_.contains(k); }
    /// Inserts k -> v when k is absent; returns false (and changes nothing) when present.
    bool insert(const ProofKey& k, std::uint8_t v = 0);

    /// Merges the hash table into the packed keys and hands them over (sealed); leaves the map
    /// empty.
    PackedKeys take();
    /// Empties it, freeing its memory.
    void clear();

  private:
    void merge();

    std::size_t front_limit_;
    bool with_values_;
    ProofKeyMap<std::uint8_t> front_;
    PackedKeys packed_;
};

}  // namespace konane
