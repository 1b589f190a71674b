// Minimal perfect hash function (MPHF) over 64-bit keys.
//
// Algorithm: partitioned PTHash-style "hash-and-displace" with 8-bit pilots and cuckoo-like
// eviction during the pilot search, i.e. the PtrHash variant of PTHash:
//   - G. E. Pibiri, R. Trani, "PTHash: Revisiting FCH Minimal Perfect Hashing", SIGIR 2021
//     (pilots, skewed bucket assignment, alpha < 1 with a remap array for minimality);
//   - G. E. Pibiri, R. Trani, "Parallel and External-Memory Construction of Minimal Perfect Hash
//     Functions with PTHash", TKDE 2023 (partitioning by hash for a parallel build);
//   - S. Hermann, H.-P. Lehmann, G. E. Pibiri, P. Sanders, S. Walzer, "PHOBIC: Perfect Hashing
//     with Optimized Bucket sizes and Interleaved Coding", ESA 2024 (optimal skewed bucket shape);
//   - R. Groot Koerkamp, "PtrHash: Minimal Perfect Hashing at RAM Throughput", SEA 2025 (fixed
//     8-bit pilots made feasible by evicting buckets during the search; the cubic bucket map).
//
// Query (all arithmetic on uint64, mulhi(a,b) = (a*b)>>64 on 128-bit products):
//   h1    = mix13(key * 0x9E3779B97F4A7C15 + seed)          (bijective in key)
//   part  = mulhi(h1, P);  frac = low 64 bits of h1 * P     (frac is uniform within the part)
//   bkt   = mulhi(cubic_eps(frac), B)                        (skewed: low buckets are large)
//   pilot = pilots[part * B + bkt]                           (one byte)
//   h2    = fmix64(h1 ^ 0x6A09E667F3BCC909)                  (independent of part/bkt)
//   slot  = off[part] + mulhi(slot_mix(h2 ^ pilot * 0x9E3779B97F4A7C15), off[part+1]-off[part])
//   result = slot < n ? slot : remap[slot - n]
// Every partition p has m_p = n_p + max(1, ceil(n_p / 499)) slots by default (load factor alpha ~
// 0.998); keys landing in slots >= n are sent through the remap array to the free slots < n.
// Construction (not needed to query; P, B and the offsets are stored): P = max(1, round(n/2^16))
// partitions, B = ceil(n / (lambda P)) buckets per partition (lambda = 3.5 keys per bucket by
// default; MphfBuildParams), each
// partition built by one OpenMP thread: buckets placed in decreasing size order, first pilot in
// 0..255 whose slots are all free; if none, the pilot whose colliding buckets have the least
// sum of squared sizes is taken and those buckets are evicted and re-queued (PtrHash).
// Measured: ~2.35 bits/key for n >= 10^4 (pilots 8/3.5 = 2.29, offsets + remap ~0.06).
// The exact mixing functions are defined in mphf_detail below and are part of the format.
//
// Serialized form: a sequence of little-endian uint64 words, 8-byte aligned.
//   word 0  magic   = bytes "KNMPHF\x01\x01" (0x01014648504D4E4B)
//   word 1  version (bits 0..31, = 1) | header_words (bits 32..63, = 9)
//   word 2  n       number of keys
//   word 3  seed    hash seed actually used (after deterministic retries)
//   word 4  P       number of partitions (0 iff n == 0)
//   word 5  B       buckets per partition (0 iff n == 0)
//   word 6  M       total slots = sum of m_p (M >= n; 0 iff n == 0)
//   word 7  W       remap entry width in bytes: 4 if n <= 2^32, else 8 (0 bits 8..63)
//   word 8  checksum = XXH3_64bits(words 0..7 ++ [XXH3_64bits(bytes of words 9..end)])
//   then    off[0..P]        P+1 words: slot offsets, off[0] = 0, strictly increasing, off[P] = M
//   then    pilots[0..P*B)   one byte per bucket, zero-padded to a multiple of 8 bytes
//   then    remap[0..M-n)    W-byte little-endian entries, each < n, zero-padded to 8 bytes
// Total size: 8 * (9 + (P+1) + ceil(P*B/8) + ceil((M-n)*W/8)) bytes.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <vector>

namespace konane {

namespace mphf_detail {

static_assert(std::endian::native == std::endian::little, "little-endian hosts only");

inline constexpr std::uint64_t kMagic = 0x0101464850'4D4E4Bull;  // "KNMPHF\x01\x01"
inline constexpr std::uint64_t kVersion = 1;
inline constexpr std::uint64_t kHeaderWords = 9;
inline constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ull;

/// High 64 bits of the 128-bit product a*b.
inline std::uint64_t mulhi(std::uint64_t a, std::uint64_t b) {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
}

/// Stafford's Mix13 (the splitmix64 finalizer); a bijection on uint64.
inline std::uint64_t mix13(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/// MurmurHash3's fmix64; a bijection on uint64.
inline std::uint64_t fmix64(std::uint64_t z) {
    z = (z ^ (z >> 33)) * 0xFF51AFD7ED558CCDull;
    z = (z ^ (z >> 33)) * 0xC4CEB9FE1A85EC53ull;
    return z ^ (z >> 33);
}

/// First key hash: partition and bucket come from it. Bijective in key for a fixed seed.
inline std::uint64_t hash1(std::uint64_t key, std::uint64_t seed) {
    return mix13(key * kGolden + seed);
}

/// Second key hash (slot position), derived from hash1.
inline std::uint64_t hash2(std::uint64_t h1) {
    return fmix64(h1 ^ 0x6A09E667F3BCC909ull);
}

/// Slot of a key with second hash h2 under pilot `pilot`, in [0, m).
inline std::uint64_t slot_in_part(std::uint64_t h2, std::uint64_t pilot, std::uint64_t m) {
    std::uint64_t v = h2 ^ (pilot * kGolden);
    v = (v ^ (v >> 32)) * 0xD6E8FEB86659FD93ull;
    v = (v ^ (v >> 32)) * 0xD6E8FEB86659FD93ull;
    return mulhi(v, m);
}

/// Skewed bucket map on a 64-bit fraction x: f(x) = x^2 (1+x)/2 * 255/256 + x/256 (PtrHash's
/// "CubicEps", a cheap approximation of PHOBIC's optimal x + (1-x) ln(1-x)). Monotone, < 2^64.
inline std::uint64_t bucket_map(std::uint64_t x) {
    return mulhi(mulhi(x, x), (x >> 1) | (std::uint64_t{1} << 63)) / 256 * 255 + x / 256;
}

}  // namespace mphf_detail

/// Construction parameters of an MPHF (not part of its layout: the shape is stored). The
/// defaults give the smallest function (~2.35 bits/key); a build that only lives in memory for
/// a while (the solve's) may trade space for build time with kFastBuild.
struct MphfBuildParams {
    unsigned lambda_tenths = 35;    ///< keys per bucket, in tenths (10..80): fewer, faster build
    std::uint64_t slack_den = 499;  ///< extra slots: one per slack_den keys (>= 8): fewer, faster
};

/// Parameters for a fast build: lambda 2.0, one extra slot per 33 keys. Measured on 10M keys,
/// one thread: 3.2x less CPU than the defaults, 4.97 bits/key instead of 2.35 (bench_mphf).
inline constexpr MphfBuildParams kFastBuild{20, 33};

/// A read-only view of a serialized MPHF (layout in the header comment of index/mphf.hpp).
/// Does not own the bytes: works zero-copy over e.g. a memory-mapped file. Cheap to copy.
class MphfView {
  public:
    MphfView() = default;

    /// Validates `blob` (alignment, magic, version, header fields and section lengths consistent
    /// with the blob size, checksum, slot offsets strictly increasing and ending at M, every
    /// remap entry < n) and returns a view referencing it. The blob must be 8-byte aligned, a
    /// multiple of 8 bytes long, and outlive the view. Cost: one pass over the blob (checksum).
    /// Throws std::runtime_error with a message naming the first problem found.
    static MphfView from_bytes(std::span<const std::uint8_t> blob);

    /// Number of keys n.
    std::uint64_t size() const { return n_; }

    /// A query cut in two, so that a batch of queries can overlap their cache misses: start()
    /// hashes the key and prefetches the pilot byte and the part's offset (its likely cache
    /// misses), finish() reads them and returns the slot, operator()(key) for the same key.
    struct Query {
        std::uint64_t h1;    ///< hash1(key, seed)
        std::uint64_t part;  ///< the key's partition
        std::uint64_t at;    ///< index of its bucket's pilot byte
    };
    Query start(std::uint64_t key) const {
        using namespace mphf_detail;
        if (n_ == 0) return {};
        const std::uint64_t h1 = hash1(key, seed_);
        const unsigned __int128 t = static_cast<unsigned __int128>(h1) * num_parts_;
        const std::uint64_t part = static_cast<std::uint64_t>(t >> 64);
        const std::uint64_t at =
            part * buckets_per_part_ +
            mulhi(bucket_map(static_cast<std::uint64_t>(t)), buckets_per_part_);
        __builtin_prefetch(pilots_ + at);
        __builtin_prefetch(offsets_ + part);
        return {h1, part, at};
    }
    /// The slot of a started query (see start()).
    std::uint64_t finish(const Query& q) const {
        using namespace mphf_detail;
        if (n_ == 0) return 0;
        const std::uint64_t off = offsets_[q.part];
        const std::uint64_t m = offsets_[q.part + 1] - off;
        const std::uint64_t slot = off + slot_in_part(hash2(q.h1), pilots_[q.at], m);
        if (slot < n_) return slot;
        return remap_at(slot - n_);
    }

    /// Prefetches what a query of `key` reads first (start() without its result).
    void prefetch(std::uint64_t key) const { (void)start(key); }

    /// Slot of `key`: a bijection from the member keys onto [0, n). For a non-member key, some
    /// value in [0, n) (never out of range, never a crash). Returns 0 when n == 0 (or for a
    /// default-constructed view).
    std::uint64_t operator()(std::uint64_t key) const { return finish(start(key)); }

    /// Serialized size in bytes (a multiple of 8).
    std::size_t size_bytes() const { return num_words_ * 8; }

    /// Serialized size in bits divided by n (0 when n == 0).
    double bits_per_key() const {
        return n_ == 0 ? 0.0 : static_cast<double>(size_bytes()) * 8.0 / static_cast<double>(n_);
    }

    /// Hash seed recorded in the blob (the build seed, or a deterministic derivative of it).
    std::uint64_t seed() const { return seed_; }

  private:
    std::uint64_t remap_at(std::uint64_t i) const {
        if (remap_width_ == 4) {
            std::uint32_t v;
            std::memcpy(&v, remap_ + i * 4, 4);
            return v;
        }
        std::uint64_t v;
        std::memcpy(&v, remap_ + i * 8, 8);
        return v;
    }

    const std::uint64_t* words_ = nullptr;
    std::size_t num_words_ = 0;
    std::uint64_t n_ = 0;
    std::uint64_t seed_ = 0;
    std::uint64_t num_parts_ = 0;
    std::uint64_t buckets_per_part_ = 0;
    const std::uint64_t* offsets_ = nullptr;
    const std::uint8_t* pilots_ = nullptr;
    const std::uint8_t* remap_ = nullptr;
    std::uint64_t remap_width_ = 4;
};

/// An owning MPHF: the serialized words plus a view over them.
class Mphf {
  public:
    /// Default build seed.
    static constexpr std::uint64_t kDefaultSeed = 0x4B6F6E616E654D50ull;

    /// Empty MPHF (n == 0).
    Mphf();

    /// Builds an MPHF over `keys` (distinct, any order) with OpenMP using `threads` threads
    /// (<= 0: OpenMP default). The serialized bytes are a pure function of the key set and
    /// `seed`: independent of input order and thread count. If the pilot search fails for a
    /// seed, the build retries with deterministically derived seeds (recorded in the blob).
    /// Memory: about 8 bytes per key beyond the input, plus small per-thread scratch.
    /// Throws std::invalid_argument on duplicate keys; std::runtime_error if every retry fails
    /// (not expected to happen); std::bad_alloc on memory exhaustion.
    /// `params`: construction parameters (MphfBuildParams); throws std::invalid_argument when
    /// they are out of range.
    static Mphf build(std::span<const std::uint64_t> keys, int threads = 0,
                      std::uint64_t seed = kDefaultSeed, const MphfBuildParams& params = {});

    /// A source of a build's keys: each call passes every key once to `sink`, in chunks of any
    /// size, the same keys in the same order each time (a build reads them twice, and twice
    /// again for each retry with another seed).
    using KeySource =
        std::function<void(const std::function<void(std::span<const std::uint64_t>)>& sink)>;

    /// build() over `n` keys read from `source` instead of held in memory, for a key set larger
    /// than the memory left beside the build (a layer read from its key file): the same bytes as
    /// build() of the same keys. Memory: about 8 bytes per key (their hashes) and the source's
    /// chunk. Throws what build() throws, and std::invalid_argument when the source gives other
    /// than `n` keys or other keys the second time; lets the source's exceptions through.
    static Mphf build_streamed(std::uint64_t n, const KeySource& source, int threads = 0,
                               std::uint64_t seed = kDefaultSeed,
                               const MphfBuildParams& params = {});

    /// An MPHF from its serialized words (as words() returned them), validated as
    /// MphfView::from_bytes() does. Throws std::runtime_error naming the first problem.
    static Mphf from_words(std::vector<std::uint64_t> words) { return Mphf(std::move(words)); }

    Mphf(const Mphf& other);
    Mphf& operator=(const Mphf& other);
    Mphf(Mphf&& other) noexcept;
    Mphf& operator=(Mphf&& other) noexcept;
    ~Mphf() = default;

    /// View over this object's own storage (valid while *this lives and is not modified).
    MphfView view() const { return view_; }
    /// The serialized form as little-endian 64-bit words.
    const std::vector<std::uint64_t>& words() const { return words_; }
    /// The serialized form as bytes (size a multiple of 8).
    std::span<const std::uint8_t> bytes() const {
        return {reinterpret_cast<const std::uint8_t*>(words_.data()), words_.size() * 8};
    }
    /// Number of keys n.
    std::uint64_t size() const { return view_.size(); }
    /// Same as view()(key).
    std::uint64_t operator()(std::uint64_t key) const { return view_(key); }
    /// Serialized size in bytes.
    std::size_t size_bytes() const { return view_.size_bytes(); }
    /// Serialized bits per key.
    double bits_per_key() const { return view_.bits_per_key(); }

  private:
    explicit Mphf(std::vector<std::uint64_t> words);
    std::vector<std::uint64_t> words_;
    MphfView view_;
};

}  // namespace konane
