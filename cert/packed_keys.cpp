#include "cert/packed_keys.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>

namespace konane {

namespace {

void put_varint(std::vector<std::uint8_t>& out, std::uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<std::uint8_t>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<std::uint8_t>(v));
}

const std::uint8_t* get_varint(const std::uint8_t* p, std::uint64_t& v) {
    v = 0;
    for (int shift = 0;; shift += 7) {
        const std::uint8_t b = *p++;
        v |= std::uint64_t{b & 0x7fu} << shift;
        if (!(b & 0x80)) return p;
    }
}

/// Shrinks v's capacity when more than a sixteenth of it is unused.
template <class T>
void trim(std::vector<T>& v) {
    if (v.capacity() - v.size() > v.size() / 16) v.shrink_to_fit();
}

}  // namespace

std::size_t PackedKeys::bytes() const {
    return heads_.capacity() * sizeof(ProofKey) + offsets_.capacity() * sizeof(std::uint64_t) +
           data_.capacity() + values_.capacity() + directory_.capacity() * sizeof(std::uint32_t);
}

void PackedKeys::reserve(std::size_t keys, std::size_t data_bytes) {
    heads_.reserve(keys / kBlock + 1);
    offsets_.reserve(keys / kBlock + 1);
    if (with_values_) values_.reserve(keys);
    data_.reserve(data_bytes);
}

void PackedKeys::push_back(const ProofKey& k, std::uint8_t v) {
    if (size_ > 0 && !(last_ < k)) throw std::invalid_argument("keys not sorted and distinct");
    if (!directory_.empty()) directory_ = {};
    if (size_ % kBlock == 0) {
        heads_.push_back(k);
        offsets_.push_back(data_.size());
    } else if (k.tag == last_.tag) {
        put_varint(data_, k.occ - last_.occ);
    } else {
        data_.push_back(0);
        data_.push_back(k.tag);
        put_varint(data_, k.occ);
    }
    if (with_values_) values_.push_back(v);
    last_ = k;
    ++size_;
}

void PackedKeys::seal() {
    trim(heads_);
    trim(offsets_);
    trim(data_);
    trim(values_);
    directory_ = {};
    if (heads_.size() < 64) return;  // a binary search over a few blocks is as quick
    std::uint64_t top = 0;
    for (const ProofKey& h : heads_)
        top = std::max(top, h.occ);
    radix_bits_ = std::clamp(static_cast<int>(std::bit_width(heads_.size())), 1, 20);
    shift_ = std::max(0, static_cast<int>(std::bit_width(top)) - radix_bits_);
    const std::size_t buckets = std::size_t{4} << radix_bits_;
    directory_.assign(buckets + 1, 0);
    // directory_[b]: the first block whose head's bucket is b or more.
    std::size_t blk = 0;
    for (std::size_t b = 0; b <= buckets; ++b) {
        while (blk < heads_.size() && bucket(heads_[blk]) < b)
            ++blk;
        directory_[b] = static_cast<std::uint32_t>(blk);
    }
}

std::size_t PackedKeys::bucket(const ProofKey& k) const {
    const std::uint64_t top = (std::uint64_t{1} << radix_bits_) - 1;
    return (std::size_t{static_cast<std::uint8_t>(k.tag & 3)} << radix_bits_) |
           static_cast<std::size_t>(std::min(k.occ >> shift_, top));
}

void PackedKeys::clear() {
    *this = PackedKeys(with_values_);
}

const std::uint8_t* PackedKeys::next(const std::uint8_t* p, ProofKey& k) {
    std::uint64_t d = 0;
    p = get_varint(p, d);
    if (d != 0) {
        k.occ += d;
        return p;
    }
    k.tag = *p++;
    return get_varint(p, k.occ);
}

std::size_t PackedKeys::block_of(const ProofKey& k) const {
    auto lo = heads_.begin(), hi = heads_.end();
    if (!directory_.empty() && k.tag < 4) {
        const std::size_t b = bucket(k);
        lo = heads_.begin() + directory_[b];
        hi = heads_.begin() + directory_[b + 1];
    }
    const auto it = std::upper_bound(lo, hi, k);
    if (it == heads_.begin()) return npos;
    return static_cast<std::size_t>(it - heads_.begin()) - 1;
}

std::size_t PackedKeys::find(const ProofKey& k) const {
    const std::size_t b = block_of(k);
    if (b == npos) return npos;
    ProofKey cur = heads_[b];
    if (cur == k) return b * kBlock;
    const std::uint8_t* p = data_.data() + offsets_[b];
    const std::size_t end = std::min(size_, (b + 1) * kBlock);
    for (std::size_t i = b * kBlock + 1; i < end; ++i) {
        p = next(p, cur);
        if (cur == k) return i;
        if (k < cur) return npos;
    }
    return npos;
}

ProofKey PackedKeys::key(std::size_t i) const {
    const std::size_t b = i / kBlock;
    ProofKey cur = heads_[b];
    const std::uint8_t* p = data_.data() + offsets_[b];
    for (std::size_t j = b * kBlock; j < i; ++j)
        p = next(p, cur);
    return cur;
}

std::vector<ProofEntry> PackedKeys::to_vector() const {
    std::vector<ProofEntry> out;
    out.reserve(size_);
    for_each([&](const ProofKey& k, std::uint8_t v) { out.push_back({k, v}); });
    return out;
}

PackedKeys PackedKeys::from_vector(const std::vector<ProofEntry>& entries) {
    PackedKeys out(true);
    for (const ProofEntry& e : entries)
        out.push_back(e.key, e.move);
    out.seal();
    return out;
}

CompactKeyMap::CompactKeyMap(std::size_t front_limit, bool with_values)
    : front_limit_(std::max<std::size_t>(front_limit, 1)),
      with_values_(with_values),
      packed_(with_values) {}

std::optional<std::uint8_t> CompactKeyMap::find(const ProofKey& k) const {
    if (const std::uint8_t* v = front_.find(k)) return *v;
    const std::size_t i = packed_.find(k);
    if (i == PackedKeys::npos) return std::nullopt;
    return packed_.value(i);
}

bool CompactKeyMap::insert(const ProofKey& k, std::uint8_t v) {
    if (packed_.contains(k) || !front_.insert(k, v)) return false;
    if (front_.size() >= front_limit_) merge();
    return true;
}

void CompactKeyMap::merge() {
    if (front_.size() == 0) return;
    std::vector<ProofEntry> fresh;
    fresh.reserve(front_.size());
    front_.for_each([&](const ProofKey& k, std::uint8_t v) { fresh.push_back({k, v}); });
    front_.clear();
    std::sort(fresh.begin(), fresh.end(),
              [](const ProofEntry& a, const ProofEntry& b) { return a.key < b.key; });
    PackedKeys out(with_values_);
    const std::size_t n = packed_.size() + fresh.size();
    const std::size_t per_key = packed_.empty() ? 4 : packed_.data_bytes() / packed_.size() + 1;
    out.reserve(n, packed_.data_bytes() + fresh.size() * per_key + 64);
    std::size_t j = 0;
    packed_.for_each([&](const ProofKey& k, std::uint8_t v) {
        while (j < fresh.size() && fresh[j].key < k) {
            out.push_back(fresh[j].key, fresh[j].move);
            ++j;
        }
        out.push_back(k, v);
    });
    for (; j < fresh.size(); ++j)
        out.push_back(fresh[j].key, fresh[j].move);
    fresh = {};
    packed_ = PackedKeys(with_values_);  // freed before out is trimmed
    out.seal();
    packed_ = std::move(out);
}

PackedKeys CompactKeyMap::take() {
    merge();
    front_.release();
    PackedKeys out = std::move(packed_);
    packed_ = PackedKeys(with_values_);
    out.seal();
    return out;
}

void CompactKeyMap::clear() {
    front_.release();
    packed_ = PackedKeys(with_values_);
}

}  // namespace konane
