// Table: memory-mapped, validating reader with a small sharded cache of decoded blocks.
// Layout: format/FORMAT.md.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "format/detail.hpp"
#include "format/table.hpp"

namespace konane::format {

namespace fs = std::filesystem;
using namespace detail;

namespace {

std::string hex64(std::uint64_t v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
    return buf;
}

struct DCtxDeleter {
    void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};

ZSTD_DCtx* thread_dctx() {
    thread_local std::unique_ptr<ZSTD_DCtx, DCtxDeleter> dctx(ZSTD_createDCtx());
    if (!dctx) throw std::bad_alloc();
    return dctx.get();
}

struct BlockEntry {
    std::uint64_t offset = 0;
    std::uint32_t stored = 0;
    std::uint32_t raw = 0;
    std::uint64_t xxh = 0;
};

struct Section {
    std::uint64_t offset = 0, size = 0, first = 0, count = 0, xxh = 0;
    std::uint32_t per_block = 1;  // slots per block
    unsigned shift = 0;           // log2(per_block)
    unsigned width = 0;           // bytes per slot (0 = no section)
};

struct LayerLoc {
    std::uint64_t mphf_offset = 0, mphf_size = 0, mphf_xxh = 0;
    Section fp, val;
};

/// Bounded, thread-safe cache of decoded blocks: kShards shards, each with its own mutex and
/// kWays entries replaced least-recently-used. A hit copies the requested slot out under the
/// shard lock (no allocation, no reference counting).
class BlockCache {
  public:
    static constexpr std::size_t kShards = 16;
    static constexpr std::size_t kWays = 4;

    /// If block `key` is cached, copies `width` bytes at `at` into out and returns true.
    bool get(std::uint64_t key, std::size_t at, unsigned width, std::uint8_t* out) {
        Shard& s = shard(key);
        std::lock_guard lock(s.m);
        for (auto& e : s.e) {
            if (e.key == key) {
                e.stamp = ++s.clock;
                std::memcpy(out, e.data.data() + at, width);
                return true;
            }
        }
        return false;
    }

    /// Inserts a decoded block (evicting the least recently used entry of its shard).
    void put(std::uint64_t key, std::vector<std::uint8_t>&& data) {
        Shard& s = shard(key);
        std::lock_guard lock(s.m);
        Entry* victim = &s.e[0];
        for (auto& e : s.e) {
            if (e.key == key) return;  // another thread was faster
            if (e.stamp < victim->stamp) victim = &e;
        }
        victim->key = key;
        victim->stamp = ++s.clock;
        victim->data.swap(data);
    }

  private:
    struct Entry {
        std::uint64_t key = ~std::uint64_t{0};
        std::uint64_t stamp = 0;
        std::vector<std::uint8_t> data;
    };
    struct alignas(64) Shard {
        std::mutex m;
        std::uint64_t clock = 0;
        std::array<Entry, kWays> e;
    };
    Shard& shard(std::uint64_t key) {
        return shards_[(key * 0x9E3779B97F4A7C15ull) >> 60 & (kShards - 1)];
    }
    std::array<Shard, kShards> shards_;
};

}  // namespace

struct Table::Impl {
    fs::path path;
    std::string name;
    const std::uint8_t* base = nullptr;
    std::uint64_t size = 0;
    TableMeta meta;
    std::vector<LayerInfo> layers;
    std::vector<LayerLoc> locs;
    std::vector<BlockEntry> blocks;
    std::uint64_t lt_offset = 0, lt_size = 0, bi_offset = 0, bi_size = 0, lt_xxh = 0, bi_xxh = 0;
    std::uint64_t file_lo = 0, file_hi = 0;
    // Per layer: the MPHF blob checksum is computed once (mphf_once), its result kept here.
    std::unique_ptr<std::once_flag[]> mphf_once;
    std::unique_ptr<bool[]> mphf_good;
    mutable BlockCache cache;

    ~Impl() {
        if (base != nullptr) ::munmap(const_cast<std::uint8_t*>(base), size);
    }

    [[noreturn]] void bad(const std::string& section, const std::string& what) const {
        throw FormatError(name + ": " + section + ": " + what);
    }

    std::string layer_name(std::size_t i) const {
        return "layer " + std::to_string(i) + " (" + std::to_string(layers[i].pieces) + " pieces)";
    }
    std::string block_name(std::size_t layer, const Section& s, std::uint64_t b) const {
        return layer_name(layer) + ": " + (&s == &locs[layer].val ? "values" : "fingerprints") +
               " block " + std::to_string(b);
    }

    void check_layer(std::size_t layer) const {
        if (layer >= layers.size())
            throw std::out_of_range(name + ": layer index " + std::to_string(layer) +
                                    " out of range (" + std::to_string(layers.size()) + " layers)");
    }
    void check_slot(std::size_t layer, std::uint64_t slot) const {
        check_layer(layer);
        if (slot >= layers[layer].classes)
            throw std::out_of_range(name + ": " + layer_name(layer) + ": slot " +
                                    std::to_string(slot) + " out of range (" +
                                    std::to_string(layers[layer].classes) + " slots)");
    }

    /// Checks and decodes block b of section s of `layer` into dst (exactly e.raw bytes).
    void decode(std::size_t layer, const Section& s, std::uint64_t b, std::uint8_t* dst) const {
        const BlockEntry& e = blocks[s.first + b];
        const std::uint8_t* src = base + e.offset;
        const std::uint64_t h = xxh3_64(src, e.stored);
        if (h != e.xxh)
            bad(block_name(layer, s, b), "checksum mismatch (index says " + hex64(e.xxh) +
                                             ", data hashes to " + hex64(h) + ")");
        const unsigned long long fcs = ZSTD_getFrameContentSize(src, e.stored);
        if (fcs != e.raw)
            bad(block_name(layer, s, b), fcs == ZSTD_CONTENTSIZE_ERROR
                                             ? std::string("not a zstd frame")
                                         : fcs == ZSTD_CONTENTSIZE_UNKNOWN
                                             ? std::string("zstd frame without content size")
                                             : "zstd frame holds " + std::to_string(fcs) +
                                                   " bytes, expected " + std::to_string(e.raw));
        const std::size_t fsz = ZSTD_findFrameCompressedSize(src, e.stored);
        if (ZSTD_isError(fsz) || fsz != e.stored)
            bad(block_name(layer, s, b),
                "zstd frame size does not match the block length " + std::to_string(e.stored));
        const std::size_t r = ZSTD_decompressDCtx(thread_dctx(), dst, e.raw, src, e.stored);
        if (ZSTD_isError(r))
            bad(block_name(layer, s, b), std::string("zstd: ") + ZSTD_getErrorName(r));
        if (r != e.raw)
            bad(block_name(layer, s, b),
                "decoded " + std::to_string(r) + " bytes, expected " + std::to_string(e.raw));
    }

    /// Reads `s.width` bytes of one slot through the cache.
    std::uint16_t probe(std::size_t layer, const Section& s, std::uint64_t slot) const {
        const std::uint64_t b = slot >> s.shift;
        const std::size_t at = static_cast<std::size_t>(slot & (s.per_block - 1)) * s.width;
        const std::uint64_t key = s.first + b;  // global block number: unique per block
        std::uint8_t out[2] = {0, 0};
        if (!cache.get(key, at, s.width, out)) {
            std::vector<std::uint8_t> data(blocks[key].raw);
            decode(layer, s, b, data.data());
            std::memcpy(out, data.data() + at, s.width);
            cache.put(key, std::move(data));
        }
        return static_cast<std::uint16_t>(out[0] | (out[1] << 8));
    }

    /// Decodes a whole section into dst (n * width bytes), in parallel.
    void read_section(std::size_t layer, const Section& s, std::uint8_t* dst) const {
        parallel_for(s.count, resolve_threads(0), [&](std::size_t b, unsigned) {
            decode(layer, s, b, dst + (static_cast<std::uint64_t>(b) << s.shift) * s.width);
        });
    }

    void validate(const Expect& expect);
    void validate_section(std::size_t layer, Section& s, const std::uint8_t* e,
                          std::size_t off_offset, std::size_t off_size, std::size_t off_first,
                          std::size_t off_count, std::size_t off_xxh, std::uint64_t& pos,
                          std::uint64_t& next_block);
};

void Table::Impl::validate_section(std::size_t layer, Section& s, const std::uint8_t* e,
                                   std::size_t off_offset, std::size_t off_size,
                                   std::size_t off_first, std::size_t off_count,
                                   std::size_t off_xxh, std::uint64_t& pos,
                                   std::uint64_t& next_block) {
    const bool is_val = &s == &locs[layer].val;
    const std::string sec = layer_name(layer) + ": " + (is_val ? "values" : "fingerprints");
    s.offset = le64(e + off_offset);
    s.size = le64(e + off_size);
    s.first = le64(e + off_first);
    s.count = le64(e + off_count);
    s.xxh = le64(e + off_xxh);
    const std::uint64_t n = layers[layer].classes;
    const std::uint64_t want_count = s.width == 0 ? 0 : block_count(n, s.per_block);
    if (s.count != want_count)
        bad(sec, std::to_string(s.count) + " blocks, expected " + std::to_string(want_count) +
                     " for " + std::to_string(n) + " slots");
    if (s.first != next_block)
        bad(sec,
            "first block " + std::to_string(s.first) + ", expected " + std::to_string(next_block));
    if (s.count > blocks.size() - next_block)
        bad(sec, "blocks " + std::to_string(s.first) + "+" + std::to_string(s.count) +
                     " beyond the block index (" + std::to_string(blocks.size()) + " blocks)");
    if (s.offset != pos)
        bad(sec, "offset " + std::to_string(s.offset) + ", expected " + std::to_string(pos));
    std::uint64_t cursor = pos;
    for (std::uint64_t b = 0; b < s.count; ++b) {
        const BlockEntry& be = blocks[s.first + b];
        const std::string bn = sec + " block " + std::to_string(b);
        const std::uint64_t slots = std::min<std::uint64_t>(s.per_block, n - b * s.per_block);
        if (be.raw != slots * s.width)
            bad(bn, "raw size " + std::to_string(be.raw) + ", expected " +
                        std::to_string(slots * s.width));
        if (be.offset != cursor)
            bad(bn, "offset " + std::to_string(be.offset) + ", expected " + std::to_string(cursor));
        if (be.stored == 0 || be.stored > lt_offset - cursor)
            bad(bn, "stored length " + std::to_string(be.stored) + " at offset " +
                        std::to_string(cursor) + " runs past the data area (ends at " +
                        std::to_string(lt_offset) + ")");
        cursor += be.stored;
    }
    if (s.size != cursor - pos)
        bad(sec, "size " + std::to_string(s.size) + ", but its blocks add up to " +
                     std::to_string(cursor - pos));
    pos = cursor;
    next_block += s.count;
}

void Table::Impl::validate(const Expect& expect) {
    const std::uint8_t* p = base;
    // --- header ---
    if (size < 8 || std::memcmp(p, kMagic, 8) != 0) {
        const std::string foreign = sniff_foreign({p, std::min<std::size_t>(size, 64)});
        bad("header", "not a Konane tablebase (bad magic" +
                          (foreign.empty() ? std::string(")") : "; looks like " + foreign + ")"));
    }
    if (size < kHeaderSize)
        bad("header", "file truncated: " + std::to_string(size) + " bytes, the header alone is " +
                          std::to_string(kHeaderSize));
    const std::uint32_t version = le32(p + hdr::version);
    if (version != kFormatVersion)
        bad("header", "unsupported format version " + std::to_string(version) +
                          " (this reader reads version " + std::to_string(kFormatVersion) + ")");
    if (le32(p + hdr::header_size) != kHeaderSize)
        bad("header", "header size " + std::to_string(le32(p + hdr::header_size)) + ", expected " +
                          std::to_string(kHeaderSize));
    {
        const std::uint64_t stored = le64(p + hdr::checksum);
        const std::uint64_t computed = xxh3_64(p, hdr::checksum);
        if (stored != computed)
            bad("header", "checksum mismatch (stored " + hex64(stored) + ", computed " +
                              hex64(computed) + ")");
    }
    auto zeros = [](const std::uint8_t* q, std::size_t n) {
        return std::all_of(q, q + n, [](std::uint8_t c) { return c == 0; });
    };
    if (p[hdr::reserved0] != 0 || !zeros(p + hdr::reserved1, 4) ||
        !zeros(p + hdr::reserved2, hdr::checksum - hdr::reserved2))
        bad("header", "reserved bytes are not zero");
    auto fixed_string = [&](std::size_t off, std::size_t len, const char* what) {
        const char* s = reinterpret_cast<const char*>(p + off);
        const std::size_t l = strnlen(s, len);
        if (l == len) bad("header", std::string(what) + " is not NUL-terminated");
        if (!zeros(p + off + l, len - l)) bad("header", std::string(what) + " padding not zero");
        return std::string(s, l);
    };
    meta.rows = p[hdr::rows];
    meta.cols = p[hdr::cols];
    meta.fingerprint_bits = p[hdr::fp_bits];
    meta.value_block_slots = le32(p + hdr::value_block_slots);
    meta.fingerprint_block_slots = le32(p + hdr::fp_block_slots);
    meta.value_level = static_cast<std::int32_t>(le32(p + hdr::value_level));
    meta.fingerprint_level = static_cast<std::int32_t>(le32(p + hdr::fp_level));
    meta.ruleset = fixed_string(hdr::ruleset, hdr::ruleset_len, "ruleset");
    meta.generator = fixed_string(hdr::generator, hdr::generator_len, "generator");
    if (const std::string why = check_meta(meta); !why.empty()) bad("header", why);

    // --- what the caller asked for ---
    if ((expect.rows != 0 && expect.rows != meta.rows) ||
        (expect.cols != 0 && expect.cols != meta.cols)) {
        auto dim = [](unsigned v) { return v == 0 ? std::string("*") : std::to_string(v); };
        bad("header", "table is for a " + std::to_string(meta.rows) + "x" +
                          std::to_string(meta.cols) + " board, expected " + dim(expect.rows) + "x" +
                          dim(expect.cols));
    }
    if (!expect.ruleset.empty() && expect.ruleset != meta.ruleset)
        bad("header",
            "table is for ruleset '" + meta.ruleset + "', expected '" + expect.ruleset + "'");

    // --- trailer ---
    const std::uint64_t min_size = kHeaderSize + kTrailerSize;
    if (size < min_size)
        bad("trailer", "file truncated: " + std::to_string(size) + " bytes, a table has at least " +
                           std::to_string(min_size));
    const std::uint64_t t_off = size - kTrailerSize;
    const std::uint8_t* t = p + t_off;
    if (std::memcmp(t + trl::magic, kTrailerMagic, 8) != 0)
        bad("trailer", "no trailer at the end of the file (offset " + std::to_string(t_off) +
                           "): file truncated, extended or not completely written");
    {
        const std::uint64_t stored = le64(t + trl::checksum);
        const std::uint64_t computed = xxh3_64(t, trl::checksum);
        if (stored != computed)
            bad("trailer", "checksum mismatch (stored " + hex64(stored) + ", computed " +
                               hex64(computed) + ")");
    }
    if (le64(t + trl::file_size) != size)
        bad("trailer", "declared file size " + std::to_string(le64(t + trl::file_size)) +
                           " bytes, but the file has " + std::to_string(size));
    if (le32(t + trl::reserved) != 0) bad("trailer", "reserved bytes are not zero");
    const std::uint32_t layer_count = le32(t + trl::layer_count);
    lt_offset = le64(t + trl::lt_offset);
    lt_size = le64(t + trl::lt_size);
    bi_offset = le64(t + trl::bi_offset);
    bi_size = le64(t + trl::bi_size);
    lt_xxh = le64(t + trl::lt_xxh);
    bi_xxh = le64(t + trl::bi_xxh);
    file_lo = le64(t + trl::file_xxh128_lo);
    file_hi = le64(t + trl::file_xxh128_hi);
    if (layer_count < 1 || layer_count > kMaxLayers)
        bad("trailer", std::to_string(layer_count) + " layers, expected 1..64");
    if (lt_size != std::uint64_t{layer_count} * kLayerEntrySize)
        bad("trailer", "layer table size " + std::to_string(lt_size) + ", expected " +
                           std::to_string(std::uint64_t{layer_count} * kLayerEntrySize));
    // The directory (layer table, block index) lies between the data area and the trailer.
    if (bi_size % kBlockEntrySize != 0 || bi_size > t_off - kHeaderSize ||
        bi_offset != t_off - bi_size)
        bad("trailer", "block index at " + std::to_string(bi_offset) + "+" +
                           std::to_string(bi_size) + " does not end where the trailer starts (" +
                           std::to_string(t_off) + ")");
    if (lt_size > bi_offset - kHeaderSize || lt_offset != bi_offset - lt_size ||
        lt_offset % kAlign != 0)
        bad("trailer", "layer table at " + std::to_string(lt_offset) + "+" +
                           std::to_string(lt_size) +
                           " does not end where the block index starts (" +
                           std::to_string(bi_offset) + ") or is not 8-aligned");
    if (const std::uint64_t h = xxh3_64(p + lt_offset, lt_size); h != lt_xxh)
        bad("layer table",
            "checksum mismatch (trailer says " + hex64(lt_xxh) + ", computed " + hex64(h) + ")");
    if (const std::uint64_t h = xxh3_64(p + bi_offset, bi_size); h != bi_xxh)
        bad("block index",
            "checksum mismatch (trailer says " + hex64(bi_xxh) + ", computed " + hex64(h) + ")");

    // --- block index (copied: the probe never re-reads directory bytes from the mapping) ---
    const std::uint64_t nblocks = bi_size / kBlockEntrySize;
    blocks.resize(nblocks);
    for (std::uint64_t i = 0; i < nblocks; ++i) {
        const std::uint8_t* e = p + bi_offset + i * kBlockEntrySize;
        blocks[i] = {le64(e + bie::offset), le32(e + bie::stored), le32(e + bie::raw),
                     le64(e + bie::xxh)};
    }

    // --- layer table: every section must sit exactly where the canonical layout puts it ---
    layers.resize(layer_count);
    locs.resize(layer_count);
    std::uint64_t pos = kHeaderSize;
    std::uint64_t next_block = 0;
    const unsigned squares = meta.rows * meta.cols;
    for (std::size_t i = 0; i < layer_count; ++i) {
        const std::uint8_t* e = p + lt_offset + i * kLayerEntrySize;
        LayerInfo& li = layers[i];
        li.pieces = le32(e + lte::pieces);
        li.classes = le64(e + lte::classes);
        li.raw = le64(e + lte::raw);
        const std::string ln = layer_name(i);
        if (le32(e + lte::reserved) != 0) bad(ln, "reserved bytes are not zero");
        if (i > 0 && li.pieces <= layers[i - 1].pieces)
            bad(ln, "piece counts do not increase (previous layer has " +
                        std::to_string(layers[i - 1].pieces) + ")");
        if (li.pieces > squares)
            bad(ln, "more pieces than the " + std::to_string(squares) + " squares");
        if (li.classes > (std::uint64_t{1} << 48) || li.raw < li.classes)
            bad(ln, "implausible counts: " + std::to_string(li.classes) + " classes, " +
                        std::to_string(li.raw) + " raw positions");
        LayerLoc& L = locs[i];
        L.mphf_offset = le64(e + lte::mphf_offset);
        L.mphf_size = le64(e + lte::mphf_size);
        L.mphf_xxh = le64(e + lte::mphf_xxh);
        if (L.mphf_offset != pos)
            bad(ln + ": MPHF",
                "offset " + std::to_string(L.mphf_offset) + ", expected " + std::to_string(pos));
        if (L.mphf_size % kAlign != 0 || L.mphf_size > lt_offset - pos)
            bad(ln + ": MPHF", "size " + std::to_string(L.mphf_size) +
                                   " is not a multiple of 8 or runs past the data area");
        pos += L.mphf_size;
        L.fp.width = fp_bytes(meta.fingerprint_bits);
        L.fp.per_block = meta.fingerprint_block_slots;
        L.fp.shift = log2u(L.fp.per_block);
        validate_section(i, L.fp, e, lte::fp_offset, lte::fp_size, lte::fp_first, lte::fp_count,
                         lte::fp_xxh, pos, next_block);
        L.val.width = 1;
        L.val.per_block = meta.value_block_slots;
        L.val.shift = log2u(L.val.per_block);
        validate_section(i, L.val, e, lte::val_offset, lte::val_size, lte::val_first,
                         lte::val_count, lte::val_xxh, pos, next_block);
        const std::uint64_t padded = align8(pos);
        if (padded > lt_offset || !zeros(p + pos, padded - pos))
            bad(ln, "padding after the values section is not zero or runs past the data area");
        pos = padded;
    }
    if (pos != lt_offset)
        bad("layer table", "sections end at " + std::to_string(pos) +
                               ", but the layer table starts at " + std::to_string(lt_offset));
    if (next_block != nblocks)
        bad("block index",
            std::to_string(nblocks) + " blocks, but the layers use " + std::to_string(next_block));
    mphf_once = std::make_unique<std::once_flag[]>(layer_count);
    mphf_good = std::make_unique<bool[]>(layer_count);
}

Table::Table(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Table::~Table() = default;

std::shared_ptr<const Table> Table::open(const fs::path& path, const Expect& expect) {
    auto impl = std::make_unique<Impl>();
    impl->path = path;
    impl->name = path.string();
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) impl->bad("open", std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        impl->bad("open", std::strerror(err));
    }
    if (S_ISDIR(st.st_mode)) {
        ::close(fd);
        impl->bad("open", "is a directory, not a table file");
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        impl->bad("open", "not a regular file");
    }
    if (st.st_size == 0) {
        ::close(fd);
        impl->bad("file", "empty file (0 bytes)");
    }
    impl->size = static_cast<std::uint64_t>(st.st_size);
    void* m = ::mmap(nullptr, impl->size, PROT_READ, MAP_PRIVATE, fd, 0);
    const int err = errno;
    ::close(fd);
    if (m == MAP_FAILED) impl->bad("mmap", std::strerror(err));
    impl->base = static_cast<const std::uint8_t*>(m);
    ::madvise(m, impl->size, MADV_RANDOM);
    impl->validate(expect);
    return std::shared_ptr<const Table>(new Table(std::move(impl)));
}

const fs::path& Table::path() const {
    return impl_->path;
}
const TableMeta& Table::meta() const {
    return impl_->meta;
}
const std::vector<LayerInfo>& Table::layers() const {
    return impl_->layers;
}
std::uint64_t Table::file_size() const {
    return impl_->size;
}

int Table::layer_index(std::uint32_t pieces) const {
    const auto& ls = impl_->layers;
    const auto it =
        std::lower_bound(ls.begin(), ls.end(), pieces,
                         [](const LayerInfo& l, std::uint32_t p) { return l.pieces < p; });
    return it != ls.end() && it->pieces == pieces ? static_cast<int>(it - ls.begin()) : -1;
}

SectionSizes Table::section_sizes(std::size_t layer) const {
    impl_->check_layer(layer);
    const LayerLoc& L = impl_->locs[layer];
    return {L.mphf_size, L.fp.size, L.val.size};
}

std::span<const std::uint8_t> Table::mphf_blob(std::size_t layer) const {
    const Impl& t = *impl_;
    t.check_layer(layer);
    const LayerLoc& L = t.locs[layer];
    std::call_once(t.mphf_once[layer], [&] {
        t.mphf_good[layer] = xxh3_64(t.base + L.mphf_offset, L.mphf_size) == L.mphf_xxh;
    });
    if (!t.mphf_good[layer])
        t.bad(t.layer_name(layer) + ": MPHF",
              "checksum mismatch (layer table says " + hex64(L.mphf_xxh) + ")");
    return {t.base + L.mphf_offset, static_cast<std::size_t>(L.mphf_size)};
}

std::uint16_t Table::fingerprint(std::size_t layer, std::uint64_t slot) const {
    const Impl& t = *impl_;
    t.check_slot(layer, slot);
    const Section& s = t.locs[layer].fp;
    if (s.width == 0) return 0;
    return t.probe(layer, s, slot);
}

std::uint8_t Table::value(std::size_t layer, std::uint64_t slot) const {
    const Impl& t = *impl_;
    t.check_slot(layer, slot);
    return static_cast<std::uint8_t>(t.probe(layer, t.locs[layer].val, slot));
}

void Table::read_values(std::size_t layer, std::vector<std::uint8_t>& out) const {
    const Impl& t = *impl_;
    t.check_layer(layer);
    out.resize(t.layers[layer].classes);
    t.read_section(layer, t.locs[layer].val, out.data());
}

void Table::read_fingerprints(std::size_t layer, std::vector<std::uint16_t>& out) const {
    const Impl& t = *impl_;
    t.check_layer(layer);
    const Section& s = t.locs[layer].fp;
    const std::uint64_t n = t.layers[layer].classes;
    if (s.width == 0) {
        out.assign(n, 0);
        return;
    }
    out.resize(n);
    if (s.width == 2) {
        std::vector<std::uint8_t> bytes(n * 2);
        t.read_section(layer, s, bytes.data());
        for (std::uint64_t i = 0; i < n; ++i)
            out[i] = le16(bytes.data() + 2 * i);
    } else {
        std::vector<std::uint8_t> bytes(n);
        t.read_section(layer, s, bytes.data());
        std::copy(bytes.begin(), bytes.end(), out.begin());
    }
}

VerifyReport Table::verify_checksums(int threads) const {
    const Impl& t = *impl_;
    // Tasks: 0 = whole-file hash, then per layer the MPHF and the two section hashes, then
    // every block. Each task writes its problem (if any) to its own slot: deterministic order.
    const std::size_t nl = t.layers.size();
    const std::size_t fixed = 1 + 3 * nl;
    const std::size_t ntasks = fixed + t.blocks.size();
    std::vector<std::string> problem(ntasks);
    // Which layer and section each block belongs to.
    std::vector<std::pair<std::uint32_t, bool>> owner(t.blocks.size());
    for (std::size_t l = 0; l < nl; ++l) {
        for (std::uint64_t b = 0; b < t.locs[l].fp.count; ++b)
            owner[t.locs[l].fp.first + b] = {l, false};
        for (std::uint64_t b = 0; b < t.locs[l].val.count; ++b)
            owner[t.locs[l].val.first + b] = {l, true};
    }
    parallel_for(ntasks, resolve_threads(threads), [&](std::size_t task, unsigned) {
        if (task == 0) {
            const XXH128_hash_t h =
                XXH3_128bits(t.base, t.size - kTrailerSize + trl::file_xxh128_lo);
            if (h.low64 != t.file_lo || h.high64 != t.file_hi)
                problem[task] = t.name + ": file: whole-file XXH3-128 mismatch (trailer says " +
                                hex64(t.file_hi) + hex64(t.file_lo).substr(2) + ", computed " +
                                hex64(h.high64) + hex64(h.low64).substr(2) + ")";
            // The header and directory checksums were checked on open; re-check them here so
            // that verify alone vouches for every byte.
            auto also = [&](const std::string& what) {
                problem[task] += (problem[task].empty() ? "" : "\n") + t.name + ": " + what;
            };
            const std::uint8_t* tr = t.base + t.size - kTrailerSize;
            if (xxh3_64(t.base, hdr::checksum) != le64(t.base + hdr::checksum))
                also("header: checksum mismatch");
            if (xxh3_64(tr, trl::checksum) != le64(tr + trl::checksum))
                also("trailer: checksum mismatch");
            if (xxh3_64(t.base + t.lt_offset, t.lt_size) != t.lt_xxh)
                also("layer table: checksum mismatch");
            if (xxh3_64(t.base + t.bi_offset, t.bi_size) != t.bi_xxh)
                also("block index: checksum mismatch");
        } else if (task < fixed) {
            const std::size_t l = (task - 1) / 3;
            const std::size_t which = (task - 1) % 3;
            const LayerLoc& L = t.locs[l];
            std::uint64_t off = L.mphf_offset, len = L.mphf_size, want = L.mphf_xxh;
            const char* what = "MPHF";
            if (which == 1)
                off = L.fp.offset, len = L.fp.size, want = L.fp.xxh, what = "fingerprints";
            if (which == 2) off = L.val.offset, len = L.val.size, want = L.val.xxh, what = "values";
            const std::uint64_t h = xxh3_64(t.base + off, len);
            if (h != want)
                problem[task] = t.name + ": " + t.layer_name(l) + ": " + what +
                                ": section checksum mismatch (layer table says " + hex64(want) +
                                ", computed " + hex64(h) + ")";
        } else {
            const std::size_t g = task - fixed;
            const auto [l, is_val] = owner[g];
            const Section& s = is_val ? t.locs[l].val : t.locs[l].fp;
            thread_local std::vector<std::uint8_t> scratch;
            scratch.resize(t.blocks[g].raw);
            try {
                t.decode(l, s, g - s.first, scratch.data());
            } catch (const FormatError& e) {
                problem[task] = e.what();
            }
        }
    });
    VerifyReport r;
    r.blocks_checked = t.blocks.size();
    for (auto& p : problem) {
        if (p.empty()) continue;
        std::size_t start = 0;
        for (;;) {  // a task may report several lines
            const std::size_t nl_pos = p.find('\n', start);
            r.problems.push_back(p.substr(start, nl_pos - start));
            if (nl_pos == std::string::npos) break;
            start = nl_pos + 1;
        }
    }
    r.ok = r.problems.empty();
    return r;
}

}  // namespace konane::format
