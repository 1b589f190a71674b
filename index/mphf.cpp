// Minimal perfect hash function: construction and validation. See index/mphf.hpp for the
// algorithm, the query and the serialized layout.
#include "index/mphf.hpp"

#include "process/huge_pages.hpp"

#include <omp.h>
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <queue>
#include <stdexcept>
#include <string>

namespace konane {

namespace {

using namespace mphf_detail;

// ---- Construction parameters (not part of the format: B and the offsets are stored). ----
constexpr std::uint64_t kPartKeys = std::uint64_t{1} << 16;  // target keys per partition
constexpr int kMaxAttempts = 32;
constexpr std::size_t kRecent = 16;  // recently placed buckets that may not be evicted
constexpr std::uint64_t kNumPilots = 256;

/// Slots of a partition holding np keys: np / slack_den more, at least one free slot.
/// (The eviction search makes a tight fill cheap: at 1/499, 30M keys evict ~1.5% of buckets.)
std::uint64_t slots_for(std::uint64_t np, const MphfBuildParams& q) {
    return np + std::max<std::uint64_t>(1, (np + q.slack_den - 1) / q.slack_den);
}

struct Shape {
    std::uint64_t parts = 0;
    std::uint64_t buckets = 0;
};

Shape shape_for(std::uint64_t n, const MphfBuildParams& q) {
    if (n == 0) return {};
    const std::uint64_t p = std::max<std::uint64_t>(1, (n + kPartKeys / 2) / kPartKeys);
    const unsigned __int128 num = static_cast<unsigned __int128>(n) * 10;
    const unsigned __int128 den = static_cast<unsigned __int128>(p) * q.lambda_tenths;
    const auto b = static_cast<std::uint64_t>((num + den - 1) / den);
    return {p, std::max<std::uint64_t>(1, b)};
}

std::uint64_t checksum(const std::uint64_t* w, std::size_t nw) {
    std::uint64_t buf[kHeaderWords];
    std::memcpy(buf, w, 8 * (kHeaderWords - 1));
    buf[kHeaderWords - 1] = XXH3_64bits(w + kHeaderWords, (nw - kHeaderWords) * 8);
    return XXH3_64bits(buf, sizeof(buf));
}

std::uint64_t words_for_bytes(unsigned __int128 bytes) {
    return static_cast<std::uint64_t>((bytes + 7) / 8);
}

enum class PartStatus { kOk, kFail, kDuplicate };

/// Per-thread scratch for building one partition.
struct Workspace {
    std::vector<std::uint64_t> h;       // keys' hashes grouped by bucket (h1, then h2)
    std::vector<std::uint32_t> bucket;  // bucket of each input hash
    std::vector<std::uint32_t> bstart;  // B+1 bucket boundaries into h
    std::vector<std::uint32_t> owner;   // per slot: bucket+1, or 0 when free
    std::vector<std::uint32_t> order;   // buckets by decreasing size
    std::vector<std::uint32_t> size_cnt;
    std::vector<std::uint64_t> slots;  // scratch, one per key of a bucket
    std::vector<std::uint64_t> slots2;
    std::vector<std::uint32_t> owners;  // scratch: distinct colliding buckets
};

/// Builds partition `part`: hashes src[0..np) (h1 values of its keys, any order), B buckets,
/// m slots. Writes B pilots to `pilots` and appends the free slots (global index, off + local)
/// to `free_out`. Deterministic in the set {src}.
PartStatus build_partition(const std::uint64_t* src, std::uint64_t np, std::uint64_t num_parts,
                           std::uint64_t B, std::uint64_t m, std::uint64_t off,
                           std::uint8_t* pilots, Workspace& ws,
                           std::vector<std::uint64_t>& free_out) {
    // 1. Counting sort by bucket, then order each bucket by hash (and detect duplicates).
    ws.bucket.resize(np);
    ws.bstart.assign(B + 1, 0);
    for (std::uint64_t i = 0; i < np; ++i) {
        const std::uint64_t frac = src[i] * num_parts;
        const auto b = static_cast<std::uint32_t>(mulhi(bucket_map(frac), B));
        ws.bucket[i] = b;
        ++ws.bstart[b + 1];
    }
    std::uint32_t max_size = 0;
    for (std::uint64_t b = 0; b < B; ++b) {
        max_size = std::max(max_size, ws.bstart[b + 1]);
        ws.bstart[b + 1] += ws.bstart[b];
    }
    ws.h.resize(np);
    {
        std::vector<std::uint32_t>& pos = ws.order;  // reuse as cursor array
        pos.assign(ws.bstart.begin(), ws.bstart.end() - 1);
        for (std::uint64_t i = 0; i < np; ++i)
            ws.h[pos[ws.bucket[i]]++] = src[i];
    }
    for (std::uint64_t b = 0; b < B; ++b) {
        std::uint64_t* first = ws.h.data() + ws.bstart[b];
        std::uint64_t* last = ws.h.data() + ws.bstart[b + 1];
        if (last - first > 24) {
            std::sort(first, last);
        } else {
            for (std::uint64_t* i = first + 1; i < last; ++i) {  // insertion sort
                const std::uint64_t v = *i;
                std::uint64_t* j = i;
                while (j > first && *(j - 1) > v) {
                    *j = *(j - 1);
                    --j;
                }
                *j = v;
            }
        }
        for (std::uint64_t* i = first + 1; i < last; ++i)
            if (*i == *(i - 1)) return PartStatus::kDuplicate;
        for (std::uint64_t* i = first; i < last; ++i)
            *i = hash2(*i);
    }

    // 2. Buckets by decreasing size (ties: increasing index).
    ws.size_cnt.assign(max_size + 2, 0);
    for (std::uint64_t b = 0; b < B; ++b)
        ++ws.size_cnt[ws.bstart[b + 1] - ws.bstart[b]];
    {
        std::uint32_t acc = 0;  // prefix sums from the largest size down
        for (std::uint64_t s = max_size + 1; s-- > 0;) {
            const std::uint32_t c = ws.size_cnt[s];
            ws.size_cnt[s] = acc;
            acc += c;
        }
    }
    ws.order.resize(B);
    for (std::uint64_t b = 0; b < B; ++b)
        ws.order[ws.size_cnt[ws.bstart[b + 1] - ws.bstart[b]]++] = static_cast<std::uint32_t>(b);

    // 3. Pilot search with eviction.
    ws.owner.assign(m, 0);
    std::fill(pilots, pilots + B, 0);
    ws.slots.resize(max_size + 1);
    ws.slots2.resize(max_size + 1);
    ws.owners.resize(max_size + 1);
    std::uint32_t* owner = ws.owner.data();
    const std::uint64_t* h = ws.h.data();
    const std::uint32_t* bstart = ws.bstart.data();
    auto bsize = [&](std::uint32_t b) { return bstart[b + 1] - bstart[b]; };

    std::priority_queue<std::uint64_t> heap;  // (size << 32) | ~bucket: largest, lowest first
    std::uint32_t recent[kRecent];
    std::fill(recent, recent + kRecent, ~std::uint32_t{0});
    std::size_t recent_pos = 0;
    std::uint64_t evictions = 0;
    const std::uint64_t max_evictions = 20 * np + 10000;

    auto place = [&](std::uint32_t b) -> bool {
        const std::uint32_t k = bsize(b);
        const std::uint64_t* hb = h + bstart[b];
        const std::uint32_t tag = b + 1;
        std::uint64_t* s = ws.slots.data();
        // Fast path: a pilot whose slots are all free and distinct.
        for (std::uint64_t p = 0; p < kNumPilots; ++p) {
            std::uint32_t i = 0;
            for (; i < k; ++i) {
                const std::uint64_t sl = slot_in_part(hb[i], p, m);
                if (owner[sl] != 0) break;
                owner[sl] = tag;
                s[i] = sl;
            }
            if (i == k) {
                pilots[b] = static_cast<std::uint8_t>(p);
                return true;
            }
            for (std::uint32_t j = 0; j < i; ++j)
                owner[s[j]] = 0;
        }
        // Slow path: evict the cheapest set of other buckets (sum of squared sizes). Recently
        // placed buckets are protected against eviction cycles, unless no pilot avoids them.
        if (++evictions > max_evictions) return false;
        const std::uint64_t start = mix13(b ^ (evictions << 32)) % kNumPilots;
        std::uint64_t best_p = kNumPilots;
        std::uint64_t* t = ws.slots2.data();
        std::uint32_t* owners = ws.owners.data();
        for (int protect = 1; protect >= 0 && best_p == kNumPilots; --protect) {
            std::uint64_t best_score = ~std::uint64_t{0};
            for (std::uint64_t j = 0; j < kNumPilots; ++j) {
                const std::uint64_t p = (start + j) % kNumPilots;
                for (std::uint32_t i = 0; i < k; ++i)
                    t[i] = slot_in_part(hb[i], p, m);
                std::sort(t, t + k);
                if (std::adjacent_find(t, t + k) != t + k) continue;  // internal collision
                std::uint64_t score = 0;
                std::uint32_t nown = 0;
                bool ok = true;
                for (std::uint32_t i = 0; i < k && ok; ++i) {
                    const std::uint32_t o = owner[t[i]];
                    if (o == 0) continue;
                    bool seen = false;
                    for (std::uint32_t q = 0; q < nown; ++q)
                        seen |= owners[q] == o;
                    if (seen) continue;
                    if (protect)
                        for (std::size_t q = 0; q < kRecent; ++q)
                            ok &= recent[q] != o - 1;
                    if (!ok) break;
                    owners[nown++] = o;
                    const std::uint64_t os = bsize(o - 1);
                    score += os * os;
                    if (score >= best_score) ok = false;
                }
                if (ok && score < best_score) {
                    best_score = score;
                    best_p = p;
                }
            }
        }
        if (best_p == kNumPilots) return false;
        for (std::uint32_t i = 0; i < k; ++i) {
            const std::uint64_t sl = slot_in_part(hb[i], best_p, m);
            const std::uint32_t o = owner[sl];
            if (o != 0) {  // evict bucket o-1 entirely
                const std::uint32_t ob = o - 1;
                const std::uint64_t* ho = h + bstart[ob];
                for (std::uint32_t q = 0; q < bsize(ob); ++q)
                    owner[slot_in_part(ho[q], pilots[ob], m)] = 0;
                heap.push((static_cast<std::uint64_t>(bsize(ob)) << 32) | ~ob);
            }
        }
        for (std::uint32_t i = 0; i < k; ++i)
            owner[slot_in_part(hb[i], best_p, m)] = tag;
        pilots[b] = static_cast<std::uint8_t>(best_p);
        return true;
    };

    for (std::uint64_t i = 0; i < B; ++i) {
        const std::uint32_t b0 = ws.order[i];
        if (bsize(b0) == 0) break;
        heap.push((static_cast<std::uint64_t>(bsize(b0)) << 32) | ~b0);
        while (!heap.empty()) {
            const auto b = ~static_cast<std::uint32_t>(heap.top());
            heap.pop();
            if (!place(b)) return PartStatus::kFail;
            recent[recent_pos] = b;
            recent_pos = (recent_pos + 1) % kRecent;
        }
    }

    for (std::uint64_t sl = 0; sl < m; ++sl)
        if (owner[sl] == 0) free_out.push_back(off + sl);
    return PartStatus::kOk;
}

struct BuildFailed {};

/// One build attempt with a given seed. Throws BuildFailed if a partition's search fails.
std::vector<std::uint64_t> build_attempt(std::uint64_t n, const Mphf::KeySource& source,
                                         int threads, std::uint64_t seed,
                                         const MphfBuildParams& q) {
    const Shape shape = shape_for(n, q);
    const std::uint64_t P = shape.parts;
    const std::uint64_t B = shape.buckets;

    // Phase 1: partition sizes and a scatter of hash1 grouped by partition, within a partition
    // in the keys' order. Each chunk of the source is cut into one slice per thread; local
    // holds a count per slice and partition, then the slice's write cursors.
    const auto T = static_cast<std::uint64_t>(threads);
    std::vector<std::uint64_t> local(T * P, 0), part_count(P, 0);
    std::uint64_t chunks = 0, seen = 0;
    const auto count_chunk = [&](std::span<const std::uint64_t> keys) {
        const std::uint64_t m = keys.size();
        const auto slice = [&](std::uint64_t c) { return m * c / T; };
        std::fill(local.begin(), local.end(), 0);
#pragma omp parallel for num_threads(threads) schedule(static, 1) if (m > 65536)
        for (std::uint64_t c = 0; c < T; ++c) {
            std::uint64_t* cnt = local.data() + c * P;
            for (std::uint64_t i = slice(c); i < slice(c + 1); ++i)
                ++cnt[mulhi(hash1(keys[i], seed), P)];
        }
    };
    source([&](std::span<const std::uint64_t> keys) {
        count_chunk(keys);
        for (std::uint64_t c = 0; c < T; ++c)
            for (std::uint64_t p = 0; p < P; ++p)
                part_count[p] += local[c * P + p];
        ++chunks;
        seen += keys.size();
    });
    if (seen != n) {
        throw std::invalid_argument("Mphf::build: the key source gave " + std::to_string(seen) +
                                    " keys, " + std::to_string(n) + " expected");
    }
    std::vector<std::uint64_t> part_begin(P + 1, 0);
    std::vector<std::uint64_t> offsets(P + 1, 0);
    for (std::uint64_t p = 0; p < P; ++p) {
        part_begin[p + 1] = part_begin[p] + part_count[p];
        offsets[p + 1] = offsets[p] + slots_for(part_count[p], q);
    }
    const std::uint64_t M = offsets[P];
    std::unique_ptr<std::uint64_t[]> hashes(new std::uint64_t[n > 0 ? n : 1]);
    std::vector<std::uint64_t>& cursor = part_count;  // next free place of each partition
    std::copy(part_begin.begin(), part_begin.end() - 1, cursor.begin());
    std::uint64_t placed = 0;
    source([&](std::span<const std::uint64_t> keys) {
        // One chunk in all: its counts are still in local (the source gave the same keys).
        if (chunks > 1) count_chunk(keys);
        for (std::uint64_t p = 0; p < P; ++p) {
            for (std::uint64_t c = 0; c < T; ++c) {
                const std::uint64_t v = local[c * P + p];
                local[c * P + p] = cursor[p];
                cursor[p] += v;
            }
        }
        const std::uint64_t m = keys.size();
        const auto slice = [&](std::uint64_t c) { return m * c / T; };
#pragma omp parallel for num_threads(threads) schedule(static, 1) if (m > 65536)
        for (std::uint64_t c = 0; c < T; ++c) {
            std::uint64_t* cur = local.data() + c * P;
            for (std::uint64_t i = slice(c); i < slice(c + 1); ++i) {
                const std::uint64_t h1 = hash1(keys[i], seed);
                hashes[cur[mulhi(h1, P)]++] = h1;
            }
        }
        placed += m;
    });
    bool same = placed == n;
    for (std::uint64_t p = 0; p < P; ++p)
        same = same && cursor[p] == part_begin[p + 1];
    if (!same)
        throw std::invalid_argument("Mphf::build: the key source gave other keys the second time");
    local = {};
    part_count = {};

    // Phase 2: build partitions independently.
    std::vector<std::uint8_t> pilots;
    process::assign_huge(pilots, P * B + 8);
    std::vector<std::vector<std::uint64_t>> free_slots(P);
    std::atomic<int> status{0};  // 0 ok, 1 fail, 2 duplicate
    std::exception_ptr error;
    std::mutex error_mutex;
#pragma omp parallel num_threads(threads) if (P > 1)
    {
        Workspace ws;
#pragma omp for schedule(dynamic, 1)
        for (std::uint64_t p = 0; p < P; ++p) {
            if (status.load(std::memory_order_relaxed) != 0) continue;
            try {
                const std::uint64_t np = part_begin[p + 1] - part_begin[p];
                const PartStatus st = build_partition(hashes.get() + part_begin[p], np, P, B,
                                                      offsets[p + 1] - offsets[p], offsets[p],
                                                      pilots.data() + p * B, ws, free_slots[p]);
                if (st == PartStatus::kDuplicate) status.store(2);
                if (st == PartStatus::kFail) {
                    int expected = 0;
                    status.compare_exchange_strong(expected, 1);
                }
            } catch (...) {
                std::lock_guard<std::mutex> lock(error_mutex);
                if (!error) error = std::current_exception();
                status.store(3);
            }
        }
    }
    if (error) std::rethrow_exception(error);
    if (status.load() == 2) throw std::invalid_argument("Mphf::build: duplicate keys");
    if (status.load() == 1) throw BuildFailed{};
    hashes.reset();

    // Phase 3: remap occupied slots >= n onto free slots < n, both in increasing order.
    const std::uint64_t R = M - n;
    const std::uint64_t W = n <= (std::uint64_t{1} << 32) ? 4 : 8;
    const std::uint64_t off_words = P + 1;
    const std::uint64_t pilot_words = words_for_bytes(static_cast<unsigned __int128>(P) * B);
    const std::uint64_t remap_words = words_for_bytes(static_cast<unsigned __int128>(R) * W);
    const std::uint64_t total = kHeaderWords + off_words + pilot_words + remap_words;
    std::vector<std::uint64_t> words;
    process::assign_huge(words, total);
    std::uint8_t* remap =
        reinterpret_cast<std::uint8_t*>(words.data() + kHeaderWords + off_words + pilot_words);
    {
        std::vector<std::uint64_t> free_lo;
        std::vector<std::uint64_t> free_hi;
        for (auto& v : free_slots) {
            for (std::uint64_t s : v)
                (s < n ? free_lo : free_hi).push_back(s);
            v = {};
        }
        if (free_lo.size() + free_hi.size() != R)
            throw std::logic_error("Mphf::build: free slot count mismatch");
        std::uint64_t j = 0, fh = 0;
        for (std::uint64_t s = n; s < M; ++s) {
            if (fh < free_hi.size() && free_hi[fh] == s) {
                ++fh;
                continue;  // unused slot: entry stays 0 (reached only by non-members)
            }
            const std::uint64_t target = free_lo.at(j++);
            std::memcpy(remap + (s - n) * W, &target, W);
        }
        if (j != free_lo.size()) throw std::logic_error("Mphf::build: remap mismatch");
    }

    // Phase 4: header and sections.
    words[0] = kMagic;
    words[1] = kVersion | (kHeaderWords << 32);
    words[2] = n;
    words[3] = seed;
    words[4] = P;
    words[5] = B;
    words[6] = M;
    words[7] = W;
    std::memcpy(words.data() + kHeaderWords, offsets.data(), off_words * 8);
    if (P * B > 0) std::memcpy(words.data() + kHeaderWords + off_words, pilots.data(), P * B);
    words[8] = checksum(words.data(), words.size());
    return words;
}

[[noreturn]] void bad_blob(const std::string& what) {
    throw std::runtime_error("MphfView::from_bytes: " + what);
}

}  // namespace

MphfView MphfView::from_bytes(std::span<const std::uint8_t> blob) {
    if (reinterpret_cast<std::uintptr_t>(blob.data()) % 8 != 0)
        bad_blob("blob is not 8-byte aligned");
    if (blob.size() % 8 != 0) bad_blob("blob size is not a multiple of 8 bytes");
    const std::size_t nw = blob.size() / 8;
    if (nw < kHeaderWords + 1) bad_blob("blob too short for the header");
    const auto* w = reinterpret_cast<const std::uint64_t*>(blob.data());
    if (w[0] != kMagic) bad_blob("bad magic");
    if ((w[1] & 0xFFFFFFFFu) != kVersion) bad_blob("unsupported version");
    if ((w[1] >> 32) != kHeaderWords) bad_blob("bad header length");
    const std::uint64_t n = w[2], P = w[4], B = w[5], M = w[6], W = w[7];
    if (n == 0) {
        if (P != 0 || B != 0 || M != 0) bad_blob("empty MPHF with nonzero shape");
    } else {
        if (P == 0 || B == 0) bad_blob("zero partitions or buckets");
        if (P > n) bad_blob("more partitions than keys");
        if (B > 0xFFFFFFFFu) bad_blob("too many buckets per partition");
        if (M < n || M - n > n + P) bad_blob("total slot count inconsistent with n");
    }
    if (W != (n <= (std::uint64_t{1} << 32) ? 4u : 8u)) bad_blob("bad remap width");
    const unsigned __int128 expect = static_cast<unsigned __int128>(kHeaderWords) + P + 1 +
                                     words_for_bytes(static_cast<unsigned __int128>(P) * B) +
                                     words_for_bytes(static_cast<unsigned __int128>(M - n) * W);
    if (expect != nw) bad_blob("blob size does not match the header");
    if (w[8] != checksum(w, nw)) bad_blob("checksum mismatch");
    const std::uint64_t* off = w + kHeaderWords;
    if (off[0] != 0) bad_blob("first slot offset is not 0");
    for (std::uint64_t p = 0; p < P; ++p)
        if (off[p + 1] <= off[p]) bad_blob("slot offsets not strictly increasing");
    if (off[P] != M) bad_blob("last slot offset differs from the slot count");

    MphfView v;
    v.words_ = w;
    v.num_words_ = nw;
    v.n_ = n;
    v.seed_ = w[3];
    v.num_parts_ = P;
    v.buckets_per_part_ = B;
    v.offsets_ = off;
    v.pilots_ = reinterpret_cast<const std::uint8_t*>(off + P + 1);
    v.remap_ = v.pilots_ + words_for_bytes(static_cast<unsigned __int128>(P) * B) * 8;
    v.remap_width_ = W;
    for (std::uint64_t i = 0; i < M - n; ++i)
        if (v.remap_at(i) >= n) bad_blob("remap entry out of range");
    return v;
}

Mphf::Mphf() : Mphf(build({}, 1)) {}

Mphf::Mphf(std::vector<std::uint64_t> words) : words_(std::move(words)) {
    view_ = MphfView::from_bytes(bytes());
}

Mphf::Mphf(const Mphf& other) : Mphf(other.words_) {}

Mphf& Mphf::operator=(const Mphf& other) {
    if (this != &other) {
        words_ = other.words_;
        view_ = MphfView::from_bytes(bytes());
    }
    return *this;
}

// Moving a std::vector keeps its buffer, so the moved view stays valid.
Mphf::Mphf(Mphf&& other) noexcept : words_(std::move(other.words_)), view_(other.view_) {
    other.view_ = MphfView();
}

Mphf& Mphf::operator=(Mphf&& other) noexcept {
    words_ = std::move(other.words_);
    view_ = other.view_;
    other.view_ = MphfView();
    return *this;
}

Mphf Mphf::build(std::span<const std::uint64_t> keys, int threads, std::uint64_t seed,
                 const MphfBuildParams& params) {
    return build_streamed(
        keys.size(),
        [&](const std::function<void(std::span<const std::uint64_t>)>& sink) { sink(keys); },
        threads, seed, params);
}

Mphf Mphf::build_streamed(std::uint64_t n, const KeySource& source, int threads, std::uint64_t seed,
                          const MphfBuildParams& params) {
    // Past lambda 4 or one free slot per 1000 keys, 8-bit pilots may find no placement.
    if (params.lambda_tenths < 10 || params.lambda_tenths > 40 || params.slack_den < 8 ||
        params.slack_den > 1000) {
        throw std::invalid_argument("Mphf::build: lambda must be 1.0..4.0, slack_den 8..1000");
    }
    if (threads <= 0) threads = omp_get_max_threads();
    threads = std::max(1, threads);
    std::uint64_t s = seed;
    for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
        try {
            return Mphf(build_attempt(n, source, threads, s, params));
        } catch (const BuildFailed&) {
            s = mix13(seed + static_cast<std::uint64_t>(attempt + 1) * kGolden);
        }
    }
    throw std::runtime_error("Mphf::build: pilot search failed for every derived seed");
}

}  // namespace konane
