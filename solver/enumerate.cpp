#include "solver/enumerate.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "core/movegen.hpp"
#include "solver/radix_sort.hpp"

namespace konane::solver {

namespace {

constexpr std::uint64_t kFlagMask = 3;  // bit 0: reached with Black to move, bit 1: with White

// Enumeration entries pack a canonical key with two flag bits so that numeric order is the
// order of the keys and equal keys are adjacent: bits 0..1 the sides to move the class was
// reached with, bits 2..S+1 the occupancy (S squares), bit S+2 the side to move of the key.
struct Packing {
    int squares;
    int bits() const { return squares + 3; }
    std::uint64_t pack(std::uint64_t key, std::uint64_t flags) const {
        return ((key >> 63) << (squares + 2)) | ((key & ~(std::uint64_t{1} << 63)) << 2) | flags;
    }
    std::uint64_t key(std::uint64_t e) const {
        const std::uint64_t side = e >> (squares + 2);
        return (side << 63) | ((e & ((std::uint64_t{1} << (squares + 2)) - 1)) >> 2);
    }
};

inline std::uint64_t swap_sides(std::uint64_t flags) {
    return ((flags & 1) << 1) | (flags >> 1);
}

// Sorts entries (radix sort) and merges equal keys, OR-ing their flags.
void compact(std::vector<std::uint64_t>& v, std::vector<std::uint64_t>& scratch, int bits,
             int threads) {
    radix_sort(v, scratch, bits, threads);
    std::size_t j = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (j > 0 && (v[j - 1] & ~kFlagMask) == (v[i] & ~kFlagMask)) {
            v[j - 1] |= v[i] & kFlagMask;
        } else {
            v[j++] = v[i];
        }
    }
    v.resize(j);
}

}  // namespace

std::vector<Position> opening_positions(const Board& b, Ruleset r) {
    std::vector<Position> out;
    for (const auto& first : legal_moves(b, r, b.start())) {
        for (const auto& second : legal_moves(b, r, first.child))
            out.push_back(second.child);
    }
    return out;
}

std::vector<EnumeratedLayer> enumerate(const Board& b, Ruleset r, int threads,
                                       const ProgressFn& progress, const LayerSink& sink) {
    if (b.squares() > kMaxGenerateSquares) {
        throw std::invalid_argument("board " + b.name() + " has " + std::to_string(b.squares()) +
                                    " squares: tablebases are generated for at most " +
                                    std::to_string(kMaxGenerateSquares));
    }
    if (threads <= 0) threads = omp_get_max_threads();
    const SymmetryGroup group(b);
    const int top = first_layer_pieces(b);
    std::vector<EnumeratedLayer> layers;
    if (top < 0) return layers;

    // pending[n]: entries of layer n found so far, not yet compacted.
    std::vector<std::vector<std::uint64_t>> pending(static_cast<std::size_t>(top) + 1);
    const Packing pk{b.squares()};
    for (const Position& p : opening_positions(b, r)) {
        pending[top].push_back(pk.pack(group.canonical_key(p), 1u << static_cast<int>(p.to_move)));
    }
    std::vector<std::uint64_t> scratch;

    // Entries per thread-local buffer: sorted and deduplicated before they join the layer's.
    constexpr std::size_t kFlush = std::size_t{1} << 20;
    constexpr int kMaxCapture = 4;  // (8 - 1) / 2 + 1 > longest jump chain

    for (int n = top; n >= 0; --n) {
        const auto start = std::chrono::steady_clock::now();
        std::vector<std::uint64_t> entries = std::move(pending[n]);
        pending[n] = {};
        compact(entries, scratch, pk.bits(), threads);
        scratch = {};
        if (entries.empty()) continue;

        EnumeratedLayer layer;
        layer.pieces = n;
        const auto count = static_cast<std::int64_t>(entries.size());
        std::uint64_t raw = 0;
        std::uint64_t done = 0;

#pragma omp parallel num_threads(threads) if (count > 8192) reduction(+ : raw)
        {
            std::vector<std::uint64_t> local[kMaxCapture + 1];
            std::vector<std::uint64_t> local_scratch;
            auto flush = [&](int cap) {
                compact(local[cap], local_scratch, pk.bits(), 1);
#pragma omp critical(konane_enumerate_pending)
                {
                    auto& dst = pending[n - cap];
                    dst.insert(dst.end(), local[cap].begin(), local[cap].end());
                }
                local[cap].clear();
            };
#pragma omp for schedule(dynamic, 4096)
            for (std::int64_t i = 0; i < count; ++i) {
                const std::uint64_t e = entries[i];
                const std::uint64_t flags = e & kFlagMask;
                const Position p = position_of_key(pk.key(e));
                raw += static_cast<std::uint64_t>(group.preserving_orbit_size(p)) *
                       static_cast<std::uint64_t>(std::popcount(flags));
                const std::uint64_t child_flags = swap_sides(flags);
                for_each_jump(b, p, [&](Move, Position c) {
                    const int cap = n - std::popcount(c.occ);
                    local[cap].push_back(pk.pack(group.canonical_key(c), child_flags));
                    if (local[cap].size() >= kFlush) flush(cap);
                });
                if ((i & 0xffff) == 0 && progress) {
#pragma omp critical(konane_enumerate_progress)
                    {
                        done += 0x10000;
                        if (omp_get_thread_num() == 0) {
                            progress("enumerate", n, std::min<std::uint64_t>(done, count), count);
                        }
                    }
                }
            }
            for (int cap = 1; cap <= kMaxCapture; ++cap) {
                if (!local[cap].empty()) flush(cap);
            }
        }

        layer.raw = raw;
        layer.keys.resize(entries.size());
#pragma omp parallel for num_threads(threads) if (count > 65536) schedule(static)
        for (std::int64_t i = 0; i < count; ++i)
            layer.keys[i] = pk.key(entries[i]);
        layer.seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        layer.classes = layer.keys.size();
        if (progress) progress("enumerate", n, layer.classes, layer.classes);
        if (sink) sink(layer);
        layers.push_back(std::move(layer));
    }
    return layers;
}

}  // namespace konane::solver
