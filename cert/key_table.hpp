// An open-addressing hash map from ProofKey to a small value, for the millions of positions of
// a proof: 9 bytes per slot plus the value, linear probing, doubled at half load. Used by the
// checker (proven positions, entry look-up) and by the certificate builder.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "cert/proof_key.hpp"

namespace konane {

/// Map from ProofKey to V. Not thread-safe. Never shrinks.
template <class V>
class ProofKeyMap {
  public:
    ProofKeyMap() { resize(1024); }

    std::size_t size() const { return size_; }
    /// Bytes of the slots.
    std::size_t bytes() const { return occ_.size() * (sizeof(std::uint64_t) + 1 + sizeof(V)); }

    /// The value of k, or nullptr.
    const V* find(const ProofKey& k) const {
        for (std::size_t i = slot(k);; i = (i + 1) & mask_) {
            if (tag_[i] == 0) return nullptr;
            if (tag_[i] == k.tag + 1 && occ_[i] == k.occ) return &val_[i];
        }
    }
    V* find(const ProofKey& k) {
        return const_cast<V*>(static_cast<const ProofKeyMap*>(this)->find(k));
    }
    bool contains(const ProofKey& k) const { return find(k) != nullptr; }

    /// Inserts k -> v when k is absent; returns false (and changes nothing) when present.
    bool insert(const ProofKey& k, V v) {
        if (2 * (size_ + 1) > occ_.size()) resize(2 * occ_.size());
        for (std::size_t i = slot(k);; i = (i + 1) & mask_) {
            if (tag_[i] == 0) {
                occ_[i] = k.occ;
                tag_[i] = static_cast<std::uint8_t>(k.tag + 1);
                val_[i] = v;
                ++size_;
                return true;
            }
            if (tag_[i] == k.tag + 1 && occ_[i] == k.occ) return false;
        }
    }

    /// Removes every entry, keeping the slots (the next fill does not grow again).
    void clear() {
        std::fill(tag_.begin(), tag_.end(), std::uint8_t{0});
        size_ = 0;
    }
    /// Removes every entry and frees the slots.
    void release() {
        occ_ = {};
        tag_ = {};
        val_ = {};
        resize(1024);
    }

    /// Calls f(key, value) for every entry, in no particular order.
    template <class F>
    void for_each(F&& f) const {
        for (std::size_t i = 0; i < occ_.size(); ++i) {
            if (tag_[i]) f(ProofKey{occ_[i], static_cast<std::uint8_t>(tag_[i] - 1)}, val_[i]);
        }
    }

  private:
    std::size_t slot(const ProofKey& k) const {
        std::uint64_t h =
            (k.occ ^ (std::uint64_t{k.tag} * 0x5bd1e9955bd1e995ull)) * 0x9E3779B97F4A7C15ull;
        return static_cast<std::size_t>(h ^ (h >> 29)) & mask_;
    }
    void resize(std::size_t n) {
        std::vector<std::uint64_t> occ(n);
        std::vector<std::uint8_t> tag(n);
        std::vector<V> val(n);
        std::swap(occ, occ_);
        std::swap(tag, tag_);
        std::swap(val, val_);
        mask_ = n - 1;
        size_ = 0;
        for (std::size_t i = 0; i < occ.size(); ++i) {
            if (tag[i]) insert(ProofKey{occ[i], static_cast<std::uint8_t>(tag[i] - 1)}, val[i]);
        }
    }
    std::vector<std::uint64_t> occ_;
    std::vector<std::uint8_t> tag_;  ///< 0: empty; else the key's tag + 1
    std::vector<V> val_;
    std::size_t mask_ = 0;
    std::size_t size_ = 0;
};

}  // namespace konane
