// The canonical Huffman code of the values (format/values.hpp, FORMAT.md §4.2).
#include "format/values.hpp"

#include <algorithm>
#include <queue>
#include <utility>

namespace konane::format::detail {

namespace {

/// Huffman code lengths without a length limit (0 for absent symbols).
std::array<unsigned, 256> plain_lengths(const std::array<std::uint64_t, 256>& w) {
    std::array<unsigned, 256> len{};
    // Nodes 0..255 are leaves, 256.. internal; parent links give the depths.
    std::vector<int> parent(512, -1);
    using Item = std::pair<std::uint64_t, int>;  // weight, node (ties by node: deterministic)
    std::priority_queue<Item, std::vector<Item>, std::greater<>> q;
    for (int s = 0; s < 256; ++s)
        if (w[s] > 0) q.push({w[s], s});
    if (q.empty()) return len;
    if (q.size() == 1) {
        len[q.top().second] = 1;
        return len;
    }
    int next = 256;
    while (q.size() > 1) {
        const Item a = q.top();
        q.pop();
        const Item b = q.top();
        q.pop();
        parent[a.second] = parent[b.second] = next;
        q.push({a.first + b.first, next++});
    }
    for (int s = 0; s < 256; ++s) {
        if (w[s] == 0) continue;
        unsigned d = 0;
        for (int x = s; parent[x] >= 0; x = parent[x])
            ++d;
        len[s] = d;
    }
    return len;
}

std::uint32_t reverse_bits(std::uint32_t v, unsigned n) {
    std::uint32_t r = 0;
    for (unsigned i = 0; i < n; ++i)
        r |= ((v >> i) & 1) << (n - 1 - i);
    return r;
}

}  // namespace

std::array<std::uint8_t, 256> huffman_lengths(const std::array<std::uint64_t, 256>& hist) {
    std::array<std::uint64_t, 256> w = hist;
    for (;;) {
        const auto len = plain_lengths(w);
        if (*std::max_element(len.begin(), len.end()) <= kMaxCodeLength) {
            std::array<std::uint8_t, 256> out{};
            for (int s = 0; s < 256; ++s)
                out[s] = static_cast<std::uint8_t>(len[s]);
            return out;
        }
        for (auto& x : w)  // flatten the distribution and try again
            if (x > 0) x = x / 2 + 1;
    }
}

std::string canonical_codes(const std::array<std::uint8_t, 256>& lengths,
                            std::array<std::uint32_t, 256>& code) {
    std::uint32_t count[kMaxCodeLength + 1] = {};
    for (std::uint8_t l : lengths) {
        if (l > kMaxCodeLength)
            return "code length " + std::to_string(l) + " over " + std::to_string(kMaxCodeLength);
        if (l > 0) ++count[l];
    }
    std::uint32_t next[kMaxCodeLength + 2] = {};
    std::uint64_t c = 0;
    for (unsigned l = 1; l <= kMaxCodeLength; ++l) {
        c = (c + (l > 1 ? count[l - 1] : 0)) << (l > 1 ? 1 : 0);
        if (l == 1) c = 0;
        next[l] = static_cast<std::uint32_t>(c);
        if (c + count[l] > (std::uint64_t{1} << l)) return "over-subscribed code lengths";
    }
    code.fill(0);
    for (int s = 0; s < 256; ++s) {
        const unsigned l = lengths[s];
        if (l > 0) code[s] = reverse_bits(next[l]++, l);
    }
    return {};
}

std::string HuffmanDecoder::build(const std::array<std::uint8_t, 256>& lengths) {
    std::array<std::uint32_t, 256> code{};
    if (std::string why = canonical_codes(lengths, code); !why.empty()) return why;
    std::fill(std::begin(table_), std::end(table_), std::uint16_t{0});
    std::fill(std::begin(count_), std::end(count_), 0u);
    for (std::uint8_t l : lengths)
        if (l > 0) ++count_[l];
    // Canonical first codes (MSB-first values) and where each length starts in sorted_.
    std::uint32_t c = 0, idx = 0;
    for (unsigned l = 1; l <= kMaxCodeLength; ++l) {
        if (l > 1) c = (c + count_[l - 1]) << 1;
        first_[l] = c;
        index_[l] = idx;
        idx += count_[l];
    }
    std::uint32_t fill[kMaxCodeLength + 1] = {};
    for (int s = 0; s < 256; ++s) {
        const unsigned l = lengths[s];
        if (l == 0) continue;
        sorted_[index_[l] + fill[l]++] = static_cast<std::uint8_t>(s);
        if (l <= kTableBits) {
            for (std::uint32_t k = code[s]; k < (1u << kTableBits); k += 1u << l)
                table_[k] = static_cast<std::uint16_t>(s | (l << 8));
        }
    }
    // A code whose bits all lie in the window decodes the same whatever follows it (the code
    // is prefix-free), so the window's whole codes are known from its bits alone.
    for (std::uint32_t w = 0; w < (1u << kTableBits); ++w) {
        unsigned pos = 0, count = 0;
        for (;;) {
            const unsigned len = table_[w >> pos] >> 8;
            if (len == 0 || pos + len > kTableBits) break;
            pos += len;
            ++count;
        }
        skip_[w] = static_cast<std::uint8_t>(count | (pos << 4));
    }
    return {};
}

}  // namespace konane::format::detail
