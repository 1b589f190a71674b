// LayerEncoder: a layer's blocks in pieces (format/layer_encoder.hpp). Layout: FORMAT.md §4.
#include "format/layer_encoder.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>

#include "format/block.hpp"
#include "format/detail.hpp"
#include "format/values.hpp"
#include "index/colex.hpp"

namespace konane::format {

namespace fs = std::filesystem;
using namespace detail;

namespace {
/// Keys ranked per parallel batch (bounds the encoder's scratch memory: 8 bytes per key).
constexpr std::size_t kRankBatch = std::size_t{1} << 20;
}  // namespace

struct LayerEncoder::Impl {
    TableMeta meta;
    LayerInfo info;
    std::string where;
    LayerGeometry geo;
    std::uint64_t universe = 0;
    std::array<std::uint8_t, 256> lengths{};
    std::array<std::uint32_t, 256> codes{};
    std::array<std::uint64_t, 256> hist{}, seen{};
    // The piece: its blocks, the next block to encode, its elements so far.
    std::uint64_t end_block = 0, cur = 0, first = 0, added = 0, first_element = 0;
    std::uint64_t prev_rank = 0;
    EncodedTotals totals;
    std::vector<std::uint64_t> block_ranks, ranks;
    std::vector<std::uint8_t> block_depths, scratch, bytes, dir;
    std::function<void()> hook;

    std::invalid_argument not_ascending(std::uint64_t i) const {
        return std::invalid_argument(where + "keys are not ascending and distinct at " +
                                     std::to_string(i));
    }
    void check_key(std::uint64_t i, std::uint64_t k, unsigned squares) const {
        const std::uint64_t board = (std::uint64_t{1} << squares) - 1;
        const std::uint64_t side = std::uint64_t{1} << 63;
        if ((k & ~side & ~board) != 0 ||
            static_cast<unsigned>(std::popcount(k & ~side)) != info.pieces)
            throw std::invalid_argument(where + "key " + std::to_string(i) + " (" +
                                        std::to_string(k) + ") is not a position of " +
                                        std::to_string(info.pieces) + " pieces on the board");
    }
    // Encodes blocks cur .. end-1 (the elements gathered are those of block cur).
    void encode_until(std::uint64_t end) {
        for (; cur < end; ++cur) {
            std::uint8_t e[16];
            put64(e, totals.bytes);
            put64(e + 8, first);
            dir.insert(dir.end(), e, e + 16);
            const std::size_t before = bytes.size();
            encode_block(geo, cur, block_ranks, block_depths, lengths, codes, bytes, scratch,
                         totals.value_bits, totals.group_bytes);
            totals.bytes += bytes.size() - before;
            first += block_ranks.size();
            block_ranks.clear();
            block_depths.clear();
            if (hook) hook();
        }
    }
};

LayerEncoder::LayerEncoder(const TableMeta& meta, const LayerInfo& info, std::uint64_t last_key,
                           const std::array<std::uint64_t, 256>& hist, std::string where)
    : impl_(std::make_unique<Impl>()) {
    Impl& L = *impl_;
    L.meta = meta;
    L.info = info;
    L.where = std::move(where);
    L.hist = hist;
    if (info.pieces > meta.rows * meta.cols)
        throw std::invalid_argument(L.where + "more pieces than squares");
    if (info.raw < info.classes) throw std::invalid_argument(L.where + "raw count < classes");
    std::uint64_t total = 0;
    for (const std::uint64_t h : hist)
        total += h;
    if (total != info.classes)
        throw std::invalid_argument(L.where + "the values' histogram counts " +
                                    std::to_string(total) + " values, expected " +
                                    std::to_string(info.classes));
    const unsigned squares = meta.rows * meta.cols;
    const std::uint64_t n = info.classes;
    // The layer's geometry: its universe of ranks (index/colex.hpp), low bits, buckets and
    // blocks (FORMAT.md §4.1).
    if (n > 0) {
        L.check_key(n - 1, last_key, squares);
        L.universe = index::key_rank(last_key, squares) + 1;
    }
    if (L.universe < n) throw L.not_ascending(n - 1);  // n distinct ranks below u need u >= n
    L.geo = LayerGeometry::make(n, L.universe, meta.block_buckets, meta.value_group);
    // A canonical Huffman code of the layer's depths (format/values.hpp).
    if (n > 0) {
        L.lengths = huffman_lengths(hist);
        if (const std::string why = canonical_codes(L.lengths, L.codes); !why.empty())
            throw std::logic_error("LayerEncoder: Huffman code: " + why);
    }
    start(0, L.geo.blocks, 0);
}

LayerEncoder::~LayerEncoder() = default;

std::uint64_t LayerEncoder::blocks() const {
    return impl_->geo.blocks;
}

std::uint64_t LayerEncoder::block_of(std::uint64_t key) const {
    const Impl& L = *impl_;
    return (index::key_rank(key, L.meta.rows * L.meta.cols) >> L.geo.ef.l) / L.geo.q;
}

void LayerEncoder::start(std::uint64_t first_block, std::uint64_t end_block,
                         std::uint64_t first_element) {
    Impl& L = *impl_;
    if (first_block > end_block || end_block > L.geo.blocks || first_element > L.info.classes)
        throw std::invalid_argument(L.where + "a piece of blocks [" + std::to_string(first_block) +
                                    ", " + std::to_string(end_block) + ") from element " +
                                    std::to_string(first_element) + " of a layer of " +
                                    std::to_string(L.geo.blocks) + " blocks");
    L.cur = first_block;
    L.end_block = end_block;
    L.first = L.first_element = first_element;
    L.added = 0;
    L.prev_rank = 0;
    L.totals = {};
    L.seen.fill(0);
    L.block_ranks.clear();
    L.block_depths.clear();
    L.bytes.clear();
    L.dir.clear();
}

void LayerEncoder::add(std::span<const std::uint64_t> keys, std::span<const std::uint8_t> depth,
                       int threads) {
    Impl& L = *impl_;
    const unsigned squares = L.meta.rows * L.meta.cols;
    const unsigned nthreads = resolve_threads(threads);
    if (keys.size() != depth.size())
        throw std::invalid_argument(L.where + std::to_string(keys.size()) + " keys and " +
                                    std::to_string(depth.size()) + " values");
    if (keys.size() > L.info.classes - L.first_element - L.added)
        throw std::invalid_argument(L.where + "more keys than the layer's " +
                                    std::to_string(L.info.classes) + " classes");
    // The keys are ranked in parallel batches, each element goes to the block of its bucket,
    // and a block is encoded once the next element is past it.
    const std::uint64_t n = keys.size();
    const std::uint64_t base = L.first_element + L.added;
    L.ranks.resize(static_cast<std::size_t>(std::min<std::uint64_t>(n, kRankBatch)));
    for (std::uint64_t b0 = 0; b0 < n; b0 += kRankBatch) {
        const std::uint64_t nb = std::min<std::uint64_t>(kRankBatch, n - b0);
        const std::uint64_t per = 16384;
        parallel_for((nb + per - 1) / per, nthreads, [&](std::size_t t, unsigned) {
            const std::uint64_t lo = t * per, hi = std::min(nb, lo + per);
            for (std::uint64_t i = lo; i < hi; ++i) {
                L.check_key(base + b0 + i, keys[b0 + i], squares);
                L.ranks[i] = index::key_rank(keys[b0 + i], squares);
            }
        });
        for (std::uint64_t i = 0; i < nb; ++i) {
            // Checked before the rank picks a block: an unsorted key past the last one's
            // rank would otherwise ask for blocks past the layer's end.
            const std::uint64_t at = base + b0 + i;
            if (L.ranks[i] >= L.universe || (L.added + b0 + i > 0 && L.ranks[i] <= L.prev_rank))
                throw L.not_ascending(at);
            L.prev_rank = L.ranks[i];
            const std::uint64_t j = (L.ranks[i] >> L.geo.ef.l) / L.geo.q;
            if (j < L.cur || j >= L.end_block)
                throw std::invalid_argument(
                    L.where + "key " + std::to_string(at) + " falls in block " + std::to_string(j) +
                    ", outside the piece's blocks [" + std::to_string(L.cur) + ", " +
                    std::to_string(L.end_block) + ")");
            L.encode_until(j);
            L.block_ranks.push_back(L.ranks[i]);
            L.block_depths.push_back(depth[b0 + i]);
            ++L.seen[depth[b0 + i]];
        }
    }
    L.added += n;
}

void LayerEncoder::finish() {
    Impl& L = *impl_;
    L.encode_until(L.end_block);
}

void LayerEncoder::on_block(std::function<void()> hook) {
    impl_->hook = std::move(hook);
}

std::vector<std::uint8_t>& LayerEncoder::bytes() {
    return impl_->bytes;
}
std::vector<std::uint8_t>& LayerEncoder::directory() {
    return impl_->dir;
}
const EncodedTotals& LayerEncoder::totals() const {
    return impl_->totals;
}
std::uint64_t LayerEncoder::elements() const {
    return impl_->added;
}
const std::array<std::uint64_t, 256>& LayerEncoder::seen() const {
    return impl_->seen;
}
const std::array<std::uint64_t, 256>& LayerEncoder::histogram() const {
    return impl_->hist;
}
unsigned LayerEncoder::low_bits() const {
    return impl_->geo.ef.l;
}
std::uint64_t LayerEncoder::last_rank() const {
    return impl_->prev_rank;
}
std::uint64_t LayerEncoder::universe() const {
    return impl_->universe;
}

LayerLayout LayerEncoder::layout(const EncodedTotals& t, std::uint64_t dir_offset,
                                 std::uint64_t header_checksum) const {
    const Impl& L = *impl_;
    const LayerInfo& info = L.info;
    const std::uint64_t n = info.classes;
    LayerLayout out;
    out.blocks_size = n > 0 ? align8(t.bytes + kBlockTail) : 0;
    out.width = n == 0                                                                        ? 0
                : out.blocks_size <= (std::uint64_t{1} << 32) && n < (std::uint64_t{1} << 32) ? 4
                                                                                              : 8;
    out.dir_size = n > 0 ? align8((L.geo.blocks + 1) * 2 * out.width) : 0;
    // The layer's entry (FORMAT.md §5) and its key, which seeds the blocks' checks.
    std::vector<std::uint8_t>& e = out.entry;
    e.assign(kLayerEntrySize, 0);
    put32(e.data() + lte::pieces, info.pieces);
    put32(e.data() + lte::low_bits, L.geo.ef.l);
    put64(e.data() + lte::classes, info.classes);
    put64(e.data() + lte::raw, info.raw);
    put64(e.data() + lte::universe, L.universe);
    put64(e.data() + lte::value_bits, t.value_bits);
    put64(e.data() + lte::group_bytes, t.group_bytes);
    put32(e.data() + lte::entry_width, out.width);
    put64(e.data() + lte::dir_offset, dir_offset);
    put64(e.data() + lte::dir_size, out.dir_size);
    put64(e.data() + lte::blocks_offset, dir_offset + out.dir_size);
    put64(e.data() + lte::blocks_size, out.blocks_size);
    if (n > 0) std::memcpy(e.data() + lte::code, L.lengths.data(), L.lengths.size());
    out.key = xxh3_64_seeded(e.data(), e.size(), header_checksum);
    return out;
}

void seal_blocks(std::uint64_t layer_key, std::uint64_t j0, std::span<const std::uint64_t> off,
                 std::span<const std::uint64_t> fst, std::uint8_t* blocks, int threads) {
    if (off.size() != fst.size() || off.empty())
        throw std::invalid_argument("seal_blocks: offsets and firsts must be c + 1 entries");
    const std::uint64_t c = off.size() - 1;
    parallel_for((c + 255) / 256, resolve_threads(threads), [&](std::size_t t, unsigned) {
        const std::uint64_t lo = t * 256, hi = std::min(c, lo + 256);
        for (std::uint64_t k = lo; k < hi; ++k) {
            const std::uint64_t seed =
                block_seed(layer_key, j0 + k, off[k], fst[k], off[k + 1], fst[k + 1]);
            std::uint8_t* b = blocks + (off[k] - off[0]);
            put32(b, block_check(b, off[k + 1] - off[k], seed));
        }
    });
}

void put_directory(std::span<const std::uint64_t> off, std::span<const std::uint64_t> fst,
                   unsigned width, std::vector<std::uint8_t>& out) {
    const std::size_t at = out.size();
    out.resize(at + off.size() * 2 * width);
    for (std::size_t k = 0; k < off.size(); ++k) {
        store_le(out.data() + at + k * 2 * width, off[k], width);
        store_le(out.data() + at + k * 2 * width + width, fst[k], width);
    }
}

SpillBytes::SpillBytes() : tail_(&own_) {}

SpillBytes::~SpillBytes() {
    if (fd_ >= 0) ::close(fd_);
}

void SpillBytes::spill(const fs::path& dir) {
    for (int attempt = 0;; ++attempt) {
        const fs::path p = dir / (".konane-layer-spill." + random_suffix());
        const int fd = ::open(p.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd >= 0) {
            ::unlink(p.c_str());
            fd_ = fd;
            dir_ = dir;
            return;
        }
        const int err = errno;
        if (err == EEXIST && attempt < 8) continue;
        throw IoError(dir.string() + ": create a layer's spill file: " + std::strerror(err));
    }
}

void SpillBytes::use_tail(std::vector<std::uint8_t>& v) {
    tail_ = &v;
}

std::vector<std::uint8_t>& SpillBytes::tail() {
    return *tail_;
}

std::uint64_t SpillBytes::size() const {
    return in_file_ + tail_->size();
}

void SpillBytes::flush_if(std::size_t limit) {
    std::vector<std::uint8_t>& tail = *tail_;
    if (fd_ < 0 || tail.size() < limit) return;
    std::size_t done = 0;
    while (done < tail.size()) {
        const ssize_t w = ::pwrite(fd_, tail.data() + done, tail.size() - done,
                                   static_cast<off_t>(in_file_ + done));
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            throw IoError(dir_.string() +
                          ": write a layer's spill file: " + std::strerror(w < 0 ? errno : ENOSPC));
        }
        done += static_cast<std::size_t>(w);
    }
    in_file_ += tail.size();
    tail.clear();
}

void SpillBytes::read(std::uint64_t at, std::uint8_t* out, std::size_t n) const {
    while (n > 0 && at < in_file_) {
        const std::size_t take =
            static_cast<std::size_t>(std::min<std::uint64_t>(n, in_file_ - at));
        const ssize_t r = ::pread(fd_, out, take, static_cast<off_t>(at));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            throw IoError(dir_.string() + ": read a layer's spill file: " +
                          (r < 0 ? std::strerror(errno) : "unexpected end"));
        }
        at += static_cast<std::uint64_t>(r);
        out += r;
        n -= static_cast<std::size_t>(r);
    }
    if (n > 0) std::memcpy(out, tail_->data() + (at - in_file_), n);
}

}  // namespace konane::format
