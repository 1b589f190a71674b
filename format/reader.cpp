// Table: memory-mapped, validating reader. Each block is checked against its 32-bit check when
// first read. Layout: format/FORMAT.md.
//
// The file may change under the mapping (rewritten or truncated in place by another program).
// Every field that says how to read the file is copied out of the mapping before it is checked
// and used (header, trailer, layer table), every read of a block is bounded by the block
// whatever its bytes hold, and a fault on the mapping (SIGBUS: the file shrank) is absorbed by
// format/fault_guard.hpp and reported as a FormatError by the next check of `faulted`, so a
// table changed while open is reported as damaged, never a signal.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>

#include "format/block.hpp"
#include "format/detail.hpp"
#include "format/fault_guard.hpp"
#include "format/memory.hpp"
#include "format/resident.hpp"
#include "format/table.hpp"
#include "format/values.hpp"
#include "format/xxh.hpp"
#include "index/colex.hpp"

namespace konane::format {

namespace fs = std::filesystem;
using namespace detail;

namespace {

std::string hex64(std::uint64_t v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
    return buf;
}
std::string hex32(std::uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", v);
    return buf;
}

/// Where a layer's parts are, and what its blocks' checks are seeded with.
struct LayerLoc {
    LayerGeometry geo;
    unsigned width = 0;  // bytes of each field of a directory entry: 4 or 8 (0: empty layer)
    std::uint64_t dir_offset = 0, dir_size = 0, blocks_offset = 0, blocks_size = 0;
    std::uint64_t value_bits = 0, group_bytes = 0;
    std::uint64_t total = 0;       // bytes of the blocks (the last directory entry's offset)
    std::uint64_t key = 0;         // the layer's key: seeds its blocks' checks (FORMAT.md §4.3)
    std::uint64_t block_base = 0;  // its block 0's bit in Impl::block_ok
};

/// A block located from its two directory entries: where it is, how long, which elements.
/// Trivial (no default initialisers), so that probe_many's batch of 64 is not zeroed on every
/// call; locate() sets every field.
struct BlockRef {
    const std::uint8_t* p;     // its first byte (the check)
    std::uint64_t off0, off1;  // its directory entries
    std::uint64_t first0, first1;
    BlockParts parts;
    std::uint64_t len() const { return off1 - off0; }
    const std::uint8_t* bits() const { return p + parts.start; }
};

/// Where a key would be in a layer (Table::Impl::spot()): its block, the bucket's index in
/// the block, and the key's low bits.
struct Spot {
    std::uint64_t j, t, lo;
};

/// True when the n bytes at p are all zero.
bool all_zero(const std::uint8_t* p, std::uint64_t n) {
    return std::all_of(p, p + n, [](std::uint8_t c) { return c == 0; });
}

/// Bits [bit, bit + l) of a bit string (l <= 64).
inline std::uint64_t read_field(const std::uint8_t* s, std::uint64_t bit, unsigned l) {
    if (l == 0) return 0;
    std::uint64_t v = load_bits(s, bit);
    if (l > 56) v = (v & ((std::uint64_t{1} << 56) - 1)) | (load_bits(s, bit + 56) << 56);
    return l == 64 ? v : v & ((std::uint64_t{1} << l) - 1);
}

}  // namespace

struct Table::Impl {
    fs::path path;
    std::string name;
    const std::uint8_t* base = nullptr;
    std::uint64_t size = 0;
    // Load::memory: the copy base points into (format/memory.hpp); empty when mapped.
    LoadedFile loaded;
    TableMeta meta;
    unsigned squares = 0;
    std::vector<LayerInfo> layers;
    std::vector<LayerLoc> locs;
    std::uint64_t lt_offset = 0, lt_size = 0, lt_xxh = 0, header_xxh = 0;
    std::uint64_t file_lo = 0, file_hi = 0;
    std::uint64_t total_blocks = 0;
    // Set by the SIGBUS handler when a read of the mapping faulted (the file shrank under it).
    std::atomic<int> faulted{0};
    int guard = -1;  // registration with fault_guard
    // One bit per block of the table (LayerLoc::block_base + j): checked and good.
    std::unique_ptr<std::atomic<std::uint64_t>[]> block_ok;
    // Per layer: the values' Huffman decoder, built at open from the layer table.
    std::unique_ptr<HuffmanDecoder[]> dec;

    ~Impl() {
        unregister_mapping(guard);
        if (loaded.base != nullptr) {
            unload_file(loaded);
        } else if (base != nullptr) {
            ::munmap(const_cast<std::uint8_t*>(base), size);
        }
    }

    /// Throws if a read of the mapping faulted since open: the file was truncated (or could
    /// not be read) while open, and what was read in its place is zeros.
    void check_fault() const {
        if (faulted.load(std::memory_order_relaxed) != 0) [[unlikely]]
            bad("file",
                "changed while open: truncated or unreadable under the mapping (the table "
                "is damaged; open it again once it is whole)");
    }

    [[noreturn]] void bad(const std::string& section, const std::string& what) const {
        throw FormatError(name + ": " + section + ": " + what);
    }

    std::string layer_name(std::size_t i) const {
        return "layer " + std::to_string(i) + " (" + std::to_string(layers[i].pieces) + " pieces)";
    }
    std::string block_name(std::size_t layer, std::uint64_t j) const {
        return layer_name(layer) + ": block " + std::to_string(j);
    }

    void check_layer(std::size_t layer) const {
        if (layer >= layers.size())
            throw std::out_of_range(name + ": layer index " + std::to_string(layer) +
                                    " out of range (" + std::to_string(layers.size()) + " layers)");
    }

    // ---- blocks, checked on first read ------------------------------------------------------
    bool checked(std::uint64_t bit) const {
        return (block_ok[bit >> 6].load(std::memory_order_acquire) >> (bit & 63)) & 1;
    }
    void mark(std::uint64_t bit) const {
        block_ok[bit >> 6].fetch_or(std::uint64_t{1} << (bit & 63), std::memory_order_release);
    }
    /// Field f (0: offset, 1: first element) of directory entry e of a layer.
    std::uint64_t dir_field(const LayerLoc& L, std::uint64_t e, unsigned f) const {
        const std::uint8_t* at = base + L.dir_offset + (2 * e + f) * L.width;
        if (L.width == 4) {
            std::uint32_t v;
            std::memcpy(&v, at, 4);
            return v;
        }
        std::uint64_t v;
        std::memcpy(&v, at, 8);
        return v;
    }
    /// Prefetches the directory entries of block j and the word of its checked bit.
    void prefetch_entries(const LayerLoc& L, std::uint64_t j) const {
        const std::uint8_t* e = base + L.dir_offset + 2 * j * L.width;
        __builtin_prefetch(e);
        __builtin_prefetch(e + 4 * L.width - 1);
        __builtin_prefetch(&block_ok[(L.block_base + j) >> 6]);
    }
    /// Block j of a layer from its directory entries (not checked yet) into r; "" or why the
    /// entries cannot be those of a block.
    std::string locate(std::size_t layer, std::uint64_t j, BlockRef& r) const {
        const LayerLoc& L = locs[layer];
        r.off0 = dir_field(L, j, 0);
        r.first0 = dir_field(L, j, 1);
        r.off1 = dir_field(L, j + 1, 0);
        r.first1 = dir_field(L, j + 1, 1);
        r.p = base + L.blocks_offset + r.off0;
        if (r.off0 < r.off1 && r.off1 <= L.total && r.first0 <= r.first1 &&
            r.first1 <= layers[layer].classes &&
            BlockParts::make(L.geo, j, r.first1 - r.first0, r.off1 - r.off0, r.parts))
            return {};
        check_fault();
        return "its directory entries (offsets " + std::to_string(r.off0) + ".." +
               std::to_string(r.off1) + " in the layer's blocks, elements " +
               std::to_string(r.first0) + ".." + std::to_string(r.first1) +
               ") cannot be those of a block: damaged directory";
    }
    /// Block j of a layer (not checked yet). @throws FormatError for impossible entries
    BlockRef locate(std::size_t layer, std::uint64_t j) const {
        BlockRef r{};
        if (std::string why = locate(layer, j, r); !why.empty()) bad(block_name(layer, j), why);
        return r;
    }
    /// Prefetches the bytes of a block (at most 2 KiB of them), and the 8 after.
    void prefetch_block(const BlockRef& r) const {
        const std::uint64_t len = std::min<std::uint64_t>(r.len(), 2048) + 8;
        const auto a = reinterpret_cast<std::uintptr_t>(r.p);
        for (std::uintptr_t c = a & ~std::uintptr_t{63}; c < a + len; c += 64)
            __builtin_prefetch(reinterpret_cast<const void*>(c));
    }
    /// The problem with block j ("" if none): its check against its bytes and directory entries.
    std::string check_block(std::size_t layer, std::uint64_t j, const BlockRef& r) const {
        const LayerLoc& L = locs[layer];
        const std::uint64_t seed = block_seed(L.key, j, r.off0, r.first0, r.off1, r.first1);
        const std::uint32_t got = block_check(r.p, r.len(), seed);
        const std::uint32_t want = le32(r.p);
        check_fault();  // zeros read in place of a vanished page must not be accepted
        if (got == want) return {};
        const std::uint64_t at = L.blocks_offset + r.off0;
        return "checksum mismatch (bytes " + std::to_string(at) + ".." +
               std::to_string(at + r.len() - 1) + ": stored " + hex32(want) + ", computed " +
               hex32(got) + "): the block or its directory entries are damaged";
    }
    /// Checks block j once. @throws FormatError naming the layer and block
    void ensure(std::size_t layer, std::uint64_t j, const BlockRef& r) const {
        const std::uint64_t bit = locs[layer].block_base + j;
        if (checked(bit)) return;
        if (std::string why = check_block(layer, j, r); !why.empty())
            bad(block_name(layer, j), why);
        mark(bit);
    }
    [[noreturn]] void damaged(std::size_t layer, std::uint64_t j, const std::string& what) const {
        check_fault();  // zeros read in place of a vanished page, not a damaged block
        bad(block_name(layer, j), what);
    }

    /// The index in block j (checked) of the element of bucket j*q + t with low bits lo, or
    /// nullopt. Every read stays inside the block's high and low bits.
    std::optional<std::uint64_t> find_in_block(std::size_t layer, std::uint64_t j,
                                               const BlockRef& r, std::uint64_t t,
                                               std::uint64_t lo) const {
        const std::uint8_t* s = r.bits();
        const std::uint64_t high = r.parts.high, m = r.parts.m;
        const unsigned l = locs[layer].geo.ef.l;
        // The bucket starts one past the block's zero number t - 1.
        std::uint64_t pos = 0;
        for (std::uint64_t need = t; need > 0;) {
            if (pos >= high) damaged(layer, j, "its high bits hold too few buckets");
            const std::uint64_t avail = std::min<std::uint64_t>(56, high - pos);
            const std::uint64_t z = ~load_bits(s, pos) & ((std::uint64_t{1} << avail) - 1);
            const auto c = static_cast<std::uint64_t>(std::popcount(z));
            if (c >= need) {
                pos += index::select64(z, static_cast<unsigned>(need - 1)) + 1;
                break;
            }
            need -= c;
            pos += avail;
        }
        // Its elements: the 1s up to its 0; element i of the block is the 1 at bit i + bucket.
        for (std::uint64_t i = pos - t;; ++pos, ++i) {
            if (pos >= high) damaged(layer, j, "its high bits end inside a bucket");
            if ((load_bits(s, pos) & 1) == 0) return std::nullopt;
            if (i >= m) damaged(layer, j, "its high bits hold more elements than its directory");
            const std::uint64_t v = read_field(s, high + i * l, l);
            if (v == lo) return i;
            if (v > lo) return std::nullopt;
        }
    }
    /// The depth of element i of block j (checked).
    std::uint8_t value_in_block(std::size_t layer, std::uint64_t j, const BlockRef& r,
                                std::uint64_t i) const {
        const LayerGeometry& geo = locs[layer].geo;
        std::uint64_t pos = r.parts.values;
        for (std::uint64_t g = 0; g < i >> geo.v_shift; ++g)
            pos += le16(r.p + kBlockCheckBytes + 2 * g);
        const int d = pos > r.parts.bits
                          ? -1
                          : dec[layer].decode_nth(r.bits(), pos, i & (geo.v - 1), r.parts.bits);
        if (d < 0)
            damaged(layer, j,
                    "its values do not decode (element " + std::to_string(i) + ", bit " +
                        std::to_string(pos) + " of " + std::to_string(r.parts.bits) + ")");
        return static_cast<std::uint8_t>(d);
    }
    /// Walks the high bits of block j (checked), calling each(i, bucket) for its elements in
    /// order, and checks that they hold exactly the directory's m elements and the block's
    /// bucket ends, the last bit a bucket's 0. @throws FormatError naming the block
    template <class Each>
    void scan_high(std::size_t layer, std::uint64_t j, const BlockRef& r, Each&& each) const {
        const std::uint8_t* s = r.bits();
        const LayerGeometry& g = locs[layer].geo;
        const std::uint64_t high = r.parts.high, m = r.parts.m;
        std::uint64_t zeros = 0, i = 0;
        for (std::uint64_t pos = 0; pos < high;) {
            const std::uint64_t avail = std::min<std::uint64_t>(56, high - pos);
            std::uint64_t ones = load_bits(s, pos) & ((std::uint64_t{1} << avail) - 1);
            const auto count = static_cast<std::uint64_t>(std::popcount(ones));
            if (i + count > m)
                damaged(layer, j, "its high bits hold more elements than its directory");
            for (std::uint64_t k = 0; ones != 0; ++k, ++i) {
                const auto b = static_cast<std::uint64_t>(std::countr_zero(ones));
                ones &= ones - 1;
                each(i, j * g.q + zeros + (b - k));  // k ones and b - k zeros before it
            }
            zeros += avail - count;
            pos += avail;
        }
        if (i != m || zeros != g.buckets_in(j) || (load_bits(s, high - 1) & 1) != 0)
            damaged(layer, j,
                    "its high bits hold " + std::to_string(i) + " elements and " +
                        std::to_string(zeros) + " bucket ends, expected " + std::to_string(m) +
                        " and " + std::to_string(g.buckets_in(j)));
    }
    /// The rank of element i of block j, in bucket `bucket`: its bucket and its low bits.
    std::uint64_t rank_in_block(std::size_t layer, const BlockRef& r, std::uint64_t i,
                                std::uint64_t bucket) const {
        const unsigned l = locs[layer].geo.ef.l;
        return (bucket << l) | read_field(r.bits(), r.parts.high + i * l, l);
    }
    /// The ranks of block j's elements (checked) into out[0, m), ascending within the block.
    void block_ranks(std::size_t layer, std::uint64_t j, const BlockRef& r,
                     std::uint64_t* out) const {
        scan_high(layer, j, r, [&](std::uint64_t i, std::uint64_t bucket) {
            out[i] = rank_in_block(layer, r, i, bucket);
        });
        for (std::uint64_t k = 1; k < r.parts.m; ++k)
            if (out[k] <= out[k - 1]) damaged(layer, j, "its elements are not increasing");
    }
    /// The rank of the last element of block j (checked; m > 0), its high bits checked as
    /// block_ranks() does, without holding the block's ranks.
    std::uint64_t last_rank(std::size_t layer, std::uint64_t j, const BlockRef& r) const {
        std::uint64_t last = 0;
        scan_high(layer, j, r, [&](std::uint64_t, std::uint64_t bucket) { last = bucket; });
        return rank_in_block(layer, r, r.parts.m - 1, last);
    }
    /// The depths of block j's elements (checked) into out[0, m); adds its codes' bits.
    void block_values(std::size_t layer, std::uint64_t j, const BlockRef& r, std::uint8_t* out,
                      std::uint64_t& code_bits) const {
        const HuffmanDecoder& d = dec[layer];
        const std::uint64_t v = meta.value_group, m = r.parts.m, end = r.parts.bits;
        std::uint64_t pos = r.parts.values, group_at = pos;
        for (std::uint64_t i = 0; i < m; ++i) {
            if (i > 0 && i % v == 0) {
                const std::uint64_t want = le16(r.p + kBlockCheckBytes + 2 * (i / v - 1));
                if (pos - group_at != want)
                    damaged(layer, j,
                            "value group " + std::to_string(i / v - 1) + " has " +
                                std::to_string(pos - group_at) + " bits, its directory says " +
                                std::to_string(want));
                group_at = pos;
            }
            const int x = d.decode(r.bits(), pos);
            if (x < 0 || pos > end)
                damaged(layer, j, "its values do not decode (element " + std::to_string(i) + ")");
            out[i] = static_cast<std::uint8_t>(x);
        }
        // The codes end in the block's last byte, and the bits after them are zero.
        if (end - pos >= 8 || (end > pos && (load_bits(r.bits(), pos) &
                                             ((std::uint64_t{1} << (end - pos)) - 1)) != 0))
            damaged(layer, j,
                    "its values end at bit " + std::to_string(pos) + " of " + std::to_string(end) +
                        ", not in its last byte followed by zeros");
        code_bits += pos - r.parts.values;
    }

    /// False when `key` cannot be in the layer: squares off the board, or another number of
    /// pieces than the layer's.
    bool may_hold(std::size_t layer, std::uint64_t key) const {
        const std::uint64_t occ = key & ~(std::uint64_t{1} << 63);
        return (occ >> squares) == 0 &&
               static_cast<std::uint32_t>(std::popcount(occ)) == layers[layer].pieces;
    }

    /// Where `key` would be in the layer (FORMAT.md §4.3), or nullopt when the layer cannot
    /// hold it: squares off the board, another number of pieces, a rank past the universe.
    std::optional<Spot> spot(std::size_t layer, std::uint64_t key) const {
        if (!may_hold(layer, key)) return std::nullopt;
        const LayerGeometry& g = locs[layer].geo;
        const std::uint64_t x = index::key_rank(key, squares);
        if (g.ef.n == 0 || x >= g.ef.u) return std::nullopt;
        const std::uint64_t h = x >> g.ef.l;
        return Spot{h >> g.q_shift, h & (g.q - 1), x & ((std::uint64_t{1} << g.ef.l) - 1)};
    }

    void validate(const Expect& expect);
    /// Cheap checks that a layer's blocks are those its layer table entry describes: the
    /// directory's first and last entries, and the last block (checked), whose last element
    /// must be the universe minus one. @throws FormatError
    void check_body(std::size_t layer);
};

void Table::Impl::validate(const Expect& expect) {
    // Everything below reads copies, never the mapping twice: a file rewritten while it is
    // being opened gives a checksum mismatch, not a field that changed after its check.
    std::array<std::uint8_t, kHeaderSize> head{};
    std::memcpy(head.data(), base, std::min<std::uint64_t>(size, kHeaderSize));
    const std::uint8_t* p = head.data();
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
    if (version != kFormatVersion) {
        // Rows, columns and ruleset sit at the same place in every version so far.
        std::string again = "konane generate RxC";
        const char* rs = reinterpret_cast<const char*>(p + hdr::ruleset);
        const std::string ruleset(rs, strnlen(rs, hdr::ruleset_len));
        if (p[hdr::rows] >= 1 && p[hdr::cols] >= 1 && p[hdr::rows] * p[hdr::cols] <= 63 &&
            valid_ruleset(ruleset))
            again = "konane generate " + std::to_string(p[hdr::rows]) + "x" +
                    std::to_string(p[hdr::cols]) + " --rules " + ruleset;
        bad("header",
            "unsupported format version " + std::to_string(version) +
                " (this reader reads version " + std::to_string(kFormatVersion) + " only" +
                (version == 2 || version == 3
                     ? "; the table was written by an older konane: rewrite it as version " +
                           std::to_string(kFormatVersion) + " with `konane upgrade " +
                           path.string() + "`, or regenerate it with `" + again + " -o " +
                           path.string() + "`)"
                 : version < kFormatVersion
                     ? "; the table was written by an older konane: regenerate it "
                       "with `" +
                           again + " -o " + path.string() + "`)"
                     : "; the table was written by a newer konane)"));
    }
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
    if (!all_zero(p + hdr::reserved0, 2) ||
        !all_zero(p + hdr::reserved1, hdr::ruleset - hdr::reserved1) ||
        !all_zero(p + hdr::reserved2, hdr::checksum - hdr::reserved2))
        bad("header", "reserved bytes are not zero");
    auto fixed_string = [&](std::size_t off, std::size_t len, const char* what) {
        const char* s = reinterpret_cast<const char*>(p + off);
        const std::size_t l = strnlen(s, len);
        if (l == len) bad("header", std::string(what) + " is not NUL-terminated");
        if (!all_zero(p + off + l, len - l)) bad("header", std::string(what) + " padding not zero");
        return std::string(s, l);
    };
    meta.rows = p[hdr::rows];
    meta.cols = p[hdr::cols];
    meta.block_buckets = le32(p + hdr::block_buckets);
    meta.value_group = le32(p + hdr::value_group);
    meta.ruleset = fixed_string(hdr::ruleset, hdr::ruleset_len, "ruleset");
    meta.generator = fixed_string(hdr::generator, hdr::generator_len, "generator");
    if (const std::string why = check_meta(meta); !why.empty()) bad("header", why);
    squares = meta.rows * meta.cols;

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
    std::array<std::uint8_t, kTrailerSize> tail{};
    std::memcpy(tail.data(), base + t_off, kTrailerSize);
    const std::uint8_t* t = tail.data();
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
    // The header belongs to this file: the trailer repeats its checksum (a header spliced
    // onto another table's body, or a stale one, is refused here).
    header_xxh = le64(p + hdr::checksum);
    if (le64(t + trl::header_xxh) != header_xxh)
        bad("header", "does not belong to the rest of the file (its checksum " + hex64(header_xxh) +
                          " is not the " + hex64(le64(t + trl::header_xxh)) +
                          " the trailer records): header and body come from different tables");
    if (le64(t + trl::file_size) != size)
        bad("trailer", "declared file size " + std::to_string(le64(t + trl::file_size)) +
                           " bytes, but the file has " + std::to_string(size));
    if (le32(t + trl::reserved) != 0) bad("trailer", "reserved bytes are not zero");
    const std::uint32_t layer_count = le32(t + trl::layer_count);
    lt_offset = le64(t + trl::lt_offset);
    lt_size = le64(t + trl::lt_size);
    lt_xxh = le64(t + trl::lt_xxh);
    file_lo = le64(t + trl::file_xxh128_lo);
    file_hi = le64(t + trl::file_xxh128_hi);
    if (layer_count < 1 || layer_count > kMaxLayers)
        bad("trailer", std::to_string(layer_count) + " layers, expected 1..64");
    if (lt_size != std::uint64_t{layer_count} * kLayerEntrySize)
        bad("trailer", "layer table size " + std::to_string(lt_size) + ", expected " +
                           std::to_string(std::uint64_t{layer_count} * kLayerEntrySize));
    if (lt_size > t_off - kHeaderSize || lt_offset != t_off - lt_size || lt_offset % kAlign != 0)
        bad("trailer", "layer table at " + std::to_string(lt_offset) + "+" +
                           std::to_string(lt_size) + " does not end where the trailer starts (" +
                           std::to_string(t_off) + ")");
    std::vector<std::uint8_t> table(lt_size);
    std::memcpy(table.data(), base + lt_offset, lt_size);
    if (const std::uint64_t h = xxh3_64(table.data(), lt_size); h != lt_xxh)
        bad("layer table",
            "checksum mismatch (trailer says " + hex64(lt_xxh) + ", computed " + hex64(h) + ")");

    // --- layer table: every section exactly where and as large as the canonical layout says ---
    layers.resize(layer_count);
    locs.resize(layer_count);
    dec = std::make_unique<HuffmanDecoder[]>(layer_count);
    std::uint64_t pos = kHeaderSize;
    for (std::size_t i = 0; i < layer_count; ++i) {
        const std::uint8_t* e = table.data() + i * kLayerEntrySize;
        LayerInfo& li = layers[i];
        li.pieces = le32(e + lte::pieces);
        li.classes = le64(e + lte::classes);
        li.raw = le64(e + lte::raw);
        const std::string ln = layer_name(i);
        if (!all_zero(e + lte::reserved0, 4) ||
            !all_zero(e + lte::reserved1, lte::code - lte::reserved1))
            bad(ln, "reserved bytes are not zero");
        if (i > 0 && li.pieces <= layers[i - 1].pieces)
            bad(ln, "piece counts do not increase (previous layer has " +
                        std::to_string(layers[i - 1].pieces) + ")");
        if (li.pieces > squares)
            bad(ln, "more pieces than the " + std::to_string(squares) + " squares");
        const std::uint64_t n = li.classes;
        const std::uint64_t universe = le64(e + lte::universe);
        const std::uint64_t max_universe = 2 * index::binomial(squares, li.pieces);
        // Every position takes at least one bit of the index: n <= 8 * file size (this also
        // keeps the size arithmetic below far from overflow).
        if (n > 8 * size)
            bad(ln,
                std::to_string(n) + " positions in a file of " + std::to_string(size) + " bytes");
        if (li.raw < n || universe < n || universe > max_universe || (n == 0) != (universe == 0))
            bad(ln, "implausible counts: " + std::to_string(n) + " classes, " +
                        std::to_string(li.raw) + " raw positions, universe " +
                        std::to_string(universe));
        LayerLoc& L = locs[i];
        L.geo = LayerGeometry::make(n, universe, meta.block_buckets, meta.value_group);
        if (le32(e + lte::low_bits) != L.geo.ef.l)
            bad(ln, std::to_string(le32(e + lte::low_bits)) + " low bits, expected " +
                        std::to_string(L.geo.ef.l));
        L.value_bits = le64(e + lte::value_bits);
        L.group_bytes = le64(e + lte::group_bytes);
        if (L.value_bits > n * kMaxCodeLength || L.value_bits < n)
            bad(ln, std::to_string(L.value_bits) + " bits of values for " + std::to_string(n) +
                        " positions");
        if (L.group_bytes > 2 * (n / meta.value_group))
            bad(ln, std::to_string(L.group_bytes) + " bytes of group directories for " +
                        std::to_string(n) + " positions");
        L.width = le32(e + lte::entry_width);
        L.dir_offset = le64(e + lte::dir_offset);
        L.dir_size = le64(e + lte::dir_size);
        L.blocks_offset = le64(e + lte::blocks_offset);
        L.blocks_size = le64(e + lte::blocks_size);
        // The blocks: at least their checks, high bits and a bit of code per element, then at
        // least kBlockTail zero bytes, a multiple of 8 in all.
        const std::uint64_t least =
            n == 0 ? 0 : kBlockCheckBytes * L.geo.blocks + (2 * n + L.geo.ef.buckets) / 8;
        if (L.blocks_size % kAlign != 0 || L.blocks_size < least ||
            L.blocks_size > lt_offset - pos || (n == 0) != (L.blocks_size == 0))
            bad(ln, "blocks of " + std::to_string(L.blocks_size) + " bytes for " +
                        std::to_string(n) + " positions");
        const bool narrow =
            L.blocks_size <= (std::uint64_t{1} << 32) && n < (std::uint64_t{1} << 32);
        const unsigned width = n == 0 ? 0 : narrow ? 4 : 8;
        if (L.width != width)
            bad(ln, "directory entries of " + std::to_string(L.width) + "-byte fields, expected " +
                        std::to_string(width));
        const std::uint64_t dir_size = n == 0 ? 0 : align8((L.geo.blocks + 1) * 2 * width);
        if (L.dir_offset != pos || L.dir_size != dir_size)
            bad(ln + ": directory", "at " + std::to_string(L.dir_offset) + "+" +
                                        std::to_string(L.dir_size) + ", expected " +
                                        std::to_string(pos) + "+" + std::to_string(dir_size));
        if (dir_size > lt_offset - pos - L.blocks_size)
            bad(ln + ": directory",
                "runs past the data area (ends at " + std::to_string(lt_offset) + ")");
        pos += dir_size;
        if (L.blocks_offset != pos)
            bad(ln + ": blocks",
                "at " + std::to_string(L.blocks_offset) + ", expected " + std::to_string(pos));
        pos += L.blocks_size;
        std::array<std::uint8_t, 256> lengths{};
        std::memcpy(lengths.data(), e + lte::code, 256);
        if (n == 0) {
            if (!all_zero(lengths.data(), 256)) bad(ln + ": value code", "set for an empty layer");
        } else if (all_zero(lengths.data(), 256)) {
            bad(ln + ": value code",
                "no code for the values of " + std::to_string(n) + " positions");
        } else if (const std::string why = dec[i].build(lengths); !why.empty()) {
            bad(ln + ": value code", why);
        }
        L.key = xxh3_64_seeded(e, kLayerEntrySize, header_xxh);
        L.block_base = total_blocks;
        total_blocks += L.geo.blocks;
    }
    if (pos != lt_offset)
        bad("layer table", "the layers end at " + std::to_string(pos) +
                               ", but the layer table starts at " + std::to_string(lt_offset));
    block_ok.reset(new std::atomic<std::uint64_t>[(total_blocks + 63) / 64 + 1]());
    for (std::size_t i = 0; i < layer_count; ++i)
        check_body(i);
    check_fault();
}

void Table::Impl::check_body(std::size_t layer) {
    const std::uint64_t n = layers[layer].classes;
    if (n == 0) return;
    LayerLoc& L = locs[layer];
    const std::uint64_t J = L.geo.blocks;
    // The directory starts at block 0's first byte and element, and ends with the blocks'
    // length and n, which the padding of the layer table's size leaves.
    const std::uint64_t total = dir_field(L, J, 0);
    if (dir_field(L, 0, 0) != 0 || dir_field(L, 0, 1) != 0 || dir_field(L, J, 1) != n ||
        total + kBlockTail > L.blocks_size || align8(total + kBlockTail) != L.blocks_size) {
        check_fault();
        bad(layer_name(layer) + ": directory",
            "its first and last entries are not those of " + std::to_string(n) + " positions in " +
                std::to_string(L.blocks_size) +
                " bytes of blocks: the layer table does not describe this layer");
    }
    L.total = total;
    // The padding after the directory and after the last block is zero (no block covers it).
    const std::uint64_t dir_used = (J + 1) * 2 * L.width;
    if (!all_zero(base + L.dir_offset + dir_used, L.dir_size - dir_used) ||
        !all_zero(base + L.blocks_offset + total, L.blocks_size - total)) {
        check_fault();
        bad(layer_name(layer), "the padding after its directory or its blocks is not zero");
    }
    // The last block holds the last element, u - 1.
    const BlockRef r = locate(layer, J - 1);
    ensure(layer, J - 1, r);
    if (r.parts.m == 0 || last_rank(layer, J - 1, r) != L.geo.ef.u - 1)
        bad(block_name(layer, J - 1), "the last element is not the universe " +
                                          std::to_string(L.geo.ef.u) +
                                          " minus one: the layer table does not describe "
                                          "this index");
}

Table::Table(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Table::~Table() = default;

const char* load_name(Load load) {
    switch (load) {
        case Load::map:
            return "map";
        case Load::memory:
            return "memory";
        case Load::automatic:
            return "auto";
    }
    return "?";
}

Load parse_load(const std::string& text) {
    if (text == "map") return Load::map;
    if (text == "memory") return Load::memory;
    if (text == "auto") return Load::automatic;
    throw std::invalid_argument("load '" + text + "': expected map, memory or auto");
}

HugePageState huge_page_state() {
    HugePageState h;
    h.anon_mode = thp_mode("enabled");
    h.shmem_mode = thp_mode("shmem_enabled");
    h.anon_huge_pages = meminfo_bytes("AnonHugePages");
    h.file_huge_pages = meminfo_bytes("FileHugePages");
    h.file_pmd_mapped = meminfo_bytes("FilePmdMapped");
    return h;
}

namespace {

/// What Load::automatic means for a file of `size` bytes now (Load's documentation).
Load resolve_load(Load load, std::uint64_t size) {
    if (load != Load::automatic) return load;
    const std::string mode = thp_mode("enabled");
    if (mode != "always" && mode != "madvise") return Load::map;
    const std::int64_t avail = meminfo_bytes("MemAvailable");
    if (avail < 0 || size > static_cast<std::uint64_t>(avail) / 4) return Load::map;
    return Load::memory;
}

}  // namespace

std::shared_ptr<const Table> Table::open(const fs::path& path, const Expect& expect,
                                         const OpenOptions& options) {
    auto impl = std::make_unique<Impl>();
    impl->path = path;
    impl->name = path.string();
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    // A file that cannot be opened, read or mapped is an I/O error (IoError), not a damaged one.
    if (fd < 0) throw IoError(impl->name + ": open: " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        throw IoError(impl->name + ": open: " + std::strerror(err));
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
    if (resolve_load(options.load, impl->size) == Load::memory) {
        // A copy of the file in the process's own memory: no fault guard (the copy cannot
        // shrink under the reads) and nothing to map from the page cache.
        try {
            load_file(fd, impl->size, impl->name, impl->loaded);
        } catch (...) {
            ::close(fd);
            throw;
        }
        ::close(fd);
        impl->base = impl->loaded.base;
        impl->validate(expect);
        return std::shared_ptr<const Table>(new Table(std::move(impl)));
    }
    void* m = ::mmap(nullptr, impl->size, PROT_READ, MAP_PRIVATE, fd, 0);
    const int err = errno;
    struct Closer {  // kept open to the end, for map_resident()
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    if (m == MAP_FAILED) throw IoError(impl->name + ": mmap: " + std::strerror(err));
    impl->base = static_cast<const std::uint8_t*>(m);
    try {
        impl->guard = register_mapping(m, impl->size, &impl->faulted);
    } catch (const std::runtime_error& e) {
        impl->bad("open", e.what());
    }
    ::madvise(m, impl->size, MADV_RANDOM);
    impl->validate(expect);
    // What the page cache holds is mapped now, so that the first probes take no page fault
    // (docs/results.md, "Seen-once probes in two rounds"); what it does not is read on demand.
    map_resident(fd, m, impl->size);
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
MemoryUse Table::memory_use() const {
    MemoryUse m;
    if (impl_->loaded.base == nullptr) return m;
    m.load = Load::memory;
    m.bytes = impl_->loaded.mapped;
    m.huge = anon_huge_bytes(impl_->loaded.base);
    return m;
}

int Table::layer_index(std::uint32_t pieces) const {
    const auto& ls = impl_->layers;
    const auto it =
        std::lower_bound(ls.begin(), ls.end(), pieces,
                         [](const LayerInfo& l, std::uint32_t p) { return l.pieces < p; });
    return it != ls.end() && it->pieces == pieces ? static_cast<int>(it - ls.begin()) : -1;
}

SectionSizes Table::section_sizes(std::size_t layer) const {
    const Impl& t = *impl_;
    t.check_layer(layer);
    const LayerLoc& L = t.locs[layer];
    const std::uint64_t n = t.layers[layer].classes;
    SectionSizes s;
    if (n == 0) return s;
    s.directory = 8 * L.dir_size;
    s.high = n + L.geo.ef.buckets;
    s.low = n * L.geo.ef.l;
    s.code = 8 * 256;
    s.groups = 8 * L.group_bytes;
    s.codes = L.value_bits;
    s.checks = 8 * kBlockCheckBytes * L.geo.blocks;
    const std::uint64_t used = s.high + s.low + s.groups + s.codes + s.checks;
    s.padding = 8 * L.blocks_size - std::min(8 * L.blocks_size, used);
    return s;
}

std::optional<std::uint64_t> Table::find(std::size_t layer, std::uint64_t key) const {
    const Impl& t = *impl_;
    t.check_layer(layer);
    const auto at = t.spot(layer, key);
    if (!at) return std::nullopt;
    const BlockRef r = t.locate(layer, at->j);
    t.ensure(layer, at->j, r);
    const auto i = t.find_in_block(layer, at->j, r, at->t, at->lo);
    t.check_fault();
    if (!i) return std::nullopt;
    return r.first0 + *i;
}

std::uint8_t Table::value(std::size_t layer, std::uint64_t rank) const {
    const Impl& t = *impl_;
    t.check_layer(layer);
    if (rank >= t.layers[layer].classes)
        throw std::out_of_range(t.name + ": " + t.layer_name(layer) + ": rank " +
                                std::to_string(rank) + " out of range (" +
                                std::to_string(t.layers[layer].classes) + " positions)");
    // The block whose elements [first_j, first_j+1) hold the rank: the last entry <= rank.
    const LayerLoc& L = t.locs[layer];
    std::uint64_t lo = 0, hi = L.geo.blocks;  // first_lo <= rank < first_hi
    while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        (t.dir_field(L, mid, 1) <= rank ? lo : hi) = mid;
    }
    const BlockRef r = t.locate(layer, lo);
    t.ensure(layer, lo, r);
    if (rank < r.first0 || rank >= r.first1)
        t.damaged(layer, lo, "the directory does not order the blocks' elements");
    const std::uint8_t v = t.value_in_block(layer, lo, r, rank - r.first0);
    t.check_fault();
    return v;
}

void Table::probe_many(std::span<const Query> queries, std::span<Answer> out) const {
    if (out.size() < queries.size())
        throw std::invalid_argument("probe_many: fewer answers than queries");
    constexpr std::size_t kBatch = 64;
    if (queries.size() > kBatch) {
        for (std::size_t at = 0; at < queries.size(); at += kBatch) {
            const std::size_t m = std::min(kBatch, queries.size() - at);
            probe_many(queries.subspan(at, m), out.subspan(at, m));
        }
        return;
    }
    // Two rounds of memory reads, each overlapped across the queries: the directory entries
    // of each key's block, then the block, whose high bits, low bits and values lie together.
    const Impl& t = *impl_;
    struct State {  // left uninitialised: only live states are read past step 1
        bool live;
        Spot at;
        BlockRef r;
    };
    std::array<State, kBatch> st;  // NOLINT(cppcoreguidelines-pro-type-member-init)
    const std::size_t n = queries.size();
    // 1. The key's rank in the universe, its bucket and block; prefetch the block's entries.
    for (std::size_t i = 0; i < n; ++i) {
        const Query& q = queries[i];
        t.check_layer(q.layer);
        out[i] = Answer{};
        State& e = st[i];
        const auto at = t.spot(q.layer, q.key);
        e.live = at.has_value();
        if (!e.live) continue;
        e.at = *at;
        t.prefetch_entries(t.locs[q.layer], e.at.j);
    }
    // 2. The blocks from their entries; prefetch them.
    for (std::size_t i = 0; i < n; ++i) {
        State& e = st[i];
        if (!e.live) continue;
        e.r = t.locate(queries[i].layer, e.at.j);
        t.prefetch_block(e.r);
    }
    // 3. Check each block once, find the element, decode its value.
    for (std::size_t i = 0; i < n; ++i) {
        const State& e = st[i];
        if (!e.live) continue;
        const std::size_t l = queries[i].layer;
        t.ensure(l, e.at.j, e.r);
        if (const auto k = t.find_in_block(l, e.at.j, e.r, e.at.t, e.at.lo))
            out[i] = Answer{true, t.value_in_block(l, e.at.j, e.r, *k)};
    }
    t.check_fault();
}

namespace {

/// Runs fn(j) for every block of a layer, in parallel, a few thousand blocks per task.
template <class Fn>
void for_blocks(std::uint64_t blocks, Fn&& fn) {
    constexpr std::uint64_t per = 2048;
    parallel_for((blocks + per - 1) / per, resolve_threads(0), [&](std::size_t c, unsigned) {
        for (std::uint64_t j = c * per; j < std::min(blocks, (c + 1) * per); ++j)
            fn(j);
    });
}

}  // namespace

void Table::read_keys(std::size_t layer, std::vector<std::uint64_t>& out) const {
    const Impl& t = *impl_;
    t.check_layer(layer);
    const LayerLoc& L = t.locs[layer];
    const std::uint64_t n = t.layers[layer].classes;
    out.resize(n);
    const unsigned k = t.layers[layer].pieces;
    // Each block's ranks, checked in order within the block; the blocks' buckets are disjoint
    // and increasing, so the whole layer is in order. Then ranks to keys.
    for_blocks(L.geo.blocks, [&](std::uint64_t j) {
        const BlockRef r = t.locate(layer, j);
        t.ensure(layer, j, r);
        std::uint64_t* dst = out.data() + r.first0;
        t.block_ranks(layer, j, r, dst);
        for (std::uint64_t i = 0; i < r.parts.m; ++i) {
            if (dst[i] >= L.geo.ef.u) t.damaged(layer, j, "an element is not below the universe");
            dst[i] = index::key_unrank(dst[i], k, t.squares);
        }
    });
    t.check_fault();
}

void Table::read_values(std::size_t layer, std::vector<std::uint8_t>& out) const {
    const Impl& t = *impl_;
    t.check_layer(layer);
    const LayerLoc& L = t.locs[layer];
    out.resize(t.layers[layer].classes);
    std::atomic<std::uint64_t> code_bits{0}, group_bytes{0};
    for_blocks(L.geo.blocks, [&](std::uint64_t j) {
        const BlockRef r = t.locate(layer, j);
        t.ensure(layer, j, r);
        std::uint64_t bits = 0;
        t.block_values(layer, j, r, out.data() + r.first0, bits);
        code_bits += bits;
        group_bytes += 2 * r.parts.groups;
    });
    t.check_fault();
    if (code_bits != L.value_bits || group_bytes != L.group_bytes)
        t.bad(t.layer_name(layer), "its blocks hold " + std::to_string(code_bits.load()) +
                                       " bits of codes and " + std::to_string(group_bytes.load()) +
                                       " bytes of group directories, the layer "
                                       "table says " +
                                       std::to_string(L.value_bits) + " and " +
                                       std::to_string(L.group_bytes));
}

VerifyReport Table::verify_checksums(int threads) const {
    const Impl& t = *impl_;
    // Tasks: 0 = the whole-file hash and the header, trailer and layer table; then the blocks,
    // kPer per task in table order. Each task writes its own slot.
    constexpr std::uint64_t kPer = 1024;
    const std::uint64_t block_tasks = (t.total_blocks + kPer - 1) / kPer;
    std::vector<std::string> problem(1 + block_tasks);
    std::vector<std::uint64_t> bad_blocks;  // table-wide block numbers that failed
    std::mutex bad_mutex;
    std::string fault;
    try {
        parallel_for(1 + block_tasks, resolve_threads(threads), [&](std::size_t task, unsigned) {
            if (task == 0) {
                const XXH128_hash_t h =
                    XXH3_128bits(t.base, t.size - kTrailerSize + trl::file_xxh128_lo);
                if (h.low64 != t.file_lo || h.high64 != t.file_hi)
                    problem[0] = t.name + ": file: whole-file XXH3-128 mismatch (trailer says " +
                                 hex64(t.file_hi) + hex64(t.file_lo).substr(2) + ", computed " +
                                 hex64(h.high64) + hex64(h.low64).substr(2) + ")";
                auto also = [&](const std::string& what) {
                    problem[0] += (problem[0].empty() ? "" : "\n") + t.name + ": " + what;
                };
                const std::uint8_t* tr = t.base + t.size - kTrailerSize;
                if (xxh3_64(t.base, hdr::checksum) != le64(t.base + hdr::checksum))
                    also("header: checksum mismatch");
                if (le64(tr + trl::header_xxh) != le64(t.base + hdr::checksum))
                    also("header: does not belong to the rest of the file");
                if (xxh3_64(tr, trl::checksum) != le64(tr + trl::checksum))
                    also("trailer: checksum mismatch");
                if (xxh3_64(t.base + t.lt_offset, t.lt_size) != t.lt_xxh)
                    also("layer table: checksum mismatch");
                return;
            }
            const std::uint64_t b0 = (task - 1) * kPer, b1 = std::min(t.total_blocks, b0 + kPer);
            std::size_t layer = 0;
            while (t.locs[layer].block_base + t.locs[layer].geo.blocks <= b0)
                ++layer;
            for (std::uint64_t b = b0; b < b1; ++b) {
                while (b >= t.locs[layer].block_base + t.locs[layer].geo.blocks)
                    ++layer;
                const std::uint64_t j = b - t.locs[layer].block_base;
                BlockRef r{};
                std::string why = t.locate(layer, j, r);
                if (why.empty()) why = t.check_block(layer, j, r);
                if (why.empty()) continue;
                problem[task] += (problem[task].empty() ? "" : "\n") + t.name + ": " +
                                 t.block_name(layer, j) + ": " + why;
                std::lock_guard lock(bad_mutex);
                bad_blocks.push_back(b);
            }
        });
    } catch (const FormatError& e) {  // the file changed under the mapping (check_fault)
        fault = e.what();
    }
    if (fault.empty() && t.faulted.load() != 0) {
        try {
            t.check_fault();
        } catch (const FormatError& e) {
            fault = e.what();
        }
    }
    if (!fault.empty()) problem.push_back(fault);
    // What passed is checked for the probes too, so that they hash nothing. Nothing counts when
    // the file changed during the check: a fault, or a problem with the whole file's hash or
    // its header, trailer and layer table (a rewrite in place shows there).
    if (fault.empty() && problem[0].empty()) {
        std::sort(bad_blocks.begin(), bad_blocks.end());
        for (std::uint64_t b = 0; b < t.total_blocks; ++b)
            if (!std::binary_search(bad_blocks.begin(), bad_blocks.end(), b)) t.mark(b);
    }
    VerifyReport r;
    r.blocks_checked = t.total_blocks;
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
