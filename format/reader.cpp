// Table: memory-mapped, validating reader. Data chunks are checked against their XXH3-64 when
// first read. Layout: format/FORMAT.md.
//
// The file may change under the mapping (rewritten or truncated in place by another program).
// Every field that says how to read the file is copied out of the mapping before it is checked
// and used (header, trailer, layer table, second-level checksums), every read of the data area
// is bounded by its section whatever the bytes hold, and a fault on the mapping (SIGBUS: the
// file shrank) is absorbed by format/fault_guard.hpp and reported as a FormatError by the next
// check of `faulted`, so a table changed while open is reported as damaged, never a signal.
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
#include <tuple>

#include "format/detail.hpp"
#include "format/fault_guard.hpp"
#include "format/table.hpp"
#include "format/values.hpp"
#include "format/xxh.hpp"
#include "index/colex.hpp"
#include "index/elias_fano.hpp"

namespace konane::format {

namespace fs = std::filesystem;
using namespace detail;

namespace {

std::string hex64(std::uint64_t v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
    return buf;
}

struct SectionLoc {
    std::uint64_t offset = 0, size = 0;
};

struct LayerLoc {
    std::array<SectionLoc, kSections> sec;
    index::EliasFanoShape shape;
    std::uint64_t value_bits = 0;
};

}  // namespace

struct Table::Impl {
    fs::path path;
    std::string name;
    const std::uint8_t* base = nullptr;
    std::uint64_t size = 0;
    TableMeta meta;
    unsigned squares = 0;
    unsigned chunk_shift = 0;
    std::vector<LayerInfo> layers;
    std::vector<LayerLoc> locs;
    std::uint64_t data_end = 0;  // = cs1_offset
    std::uint64_t cs1_offset = 0, cs1_size = 0, cs2_offset = 0, cs2_size = 0;
    std::uint64_t lt_offset = 0, lt_size = 0, lt_xxh = 0, cs2_xxh = 0;
    std::uint64_t file_lo = 0, file_hi = 0;
    std::uint64_t data_chunks = 0, cs1_chunks = 0;
    // The second-level checksums, copied at open (checked against the trailer).
    std::vector<std::uint64_t> cs2;
    // Set by the SIGBUS handler when a read of the mapping faulted (the file shrank under it).
    std::atomic<int> faulted{0};
    int guard = -1;  // registration with fault_guard
    // One bit per data chunk and per chunk of the first-level checksums: checked and good.
    std::unique_ptr<std::atomic<std::uint64_t>[]> data_ok, cs1_ok;
    // Per layer: the values' Huffman decoder, built on first use.
    std::unique_ptr<std::once_flag[]> dec_once;
    std::unique_ptr<HuffmanDecoder[]> dec;
    std::unique_ptr<std::string[]> dec_error;

    ~Impl() {
        unregister_mapping(guard);
        if (base != nullptr) ::munmap(const_cast<std::uint8_t*>(base), size);
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
    std::string section_name(std::size_t layer, Sec s) const {
        return layer_name(layer) + ": " + kSectionNames[s];
    }

    void check_layer(std::size_t layer) const {
        if (layer >= layers.size())
            throw std::out_of_range(name + ": layer index " + std::to_string(layer) +
                                    " out of range (" + std::to_string(layers.size()) + " layers)");
    }

    // ---- checksums, checked on first read -----------------------------------------------------
    static bool test(const std::atomic<std::uint64_t>* bits, std::uint64_t i) {
        return (bits[i >> 6].load(std::memory_order_acquire) >> (i & 63)) & 1;
    }
    static void mark(std::atomic<std::uint64_t>* bits, std::uint64_t i) {
        bits[i >> 6].fetch_or(std::uint64_t{1} << (i & 63), std::memory_order_release);
    }
    std::uint64_t chunk_len(std::uint64_t c, std::uint64_t area_start,
                            std::uint64_t area_end) const {
        const std::uint64_t lo = area_start + (c << chunk_shift);
        return std::min<std::uint64_t>(meta.chunk_bytes, area_end - lo);
    }
    /// The problem with data chunk c ("" if none), checking its first-level checksum's chunk
    /// against the second level on the way.
    std::string check_data_chunk(std::uint64_t c) const {
        const std::uint64_t d = (c * 8) >> chunk_shift;  // chunk of cs1 holding entry c
        if (!test(cs1_ok.get(), d)) {
            if (std::string why = check_cs1_chunk(d); !why.empty()) return why;
            mark(cs1_ok.get(), d);
        }
        const std::uint64_t lo = kHeaderSize + (c << chunk_shift);
        const std::uint64_t h = xxh3_64(base + lo, chunk_len(c, kHeaderSize, data_end));
        const std::uint64_t want = le64(base + cs1_offset + 8 * c);
        check_fault();  // zeros read in place of a vanished page must not be accepted
        if (h != want)
            return "checksum mismatch in chunk " + std::to_string(c) + " (bytes " +
                   std::to_string(lo) + ".." +
                   std::to_string(lo + chunk_len(c, kHeaderSize, data_end) - 1) + ": stored " +
                   hex64(want) + ", computed " + hex64(h) + ")";
        return {};
    }
    std::string check_cs1_chunk(std::uint64_t d) const {
        const std::uint64_t lo = cs1_offset + (d << chunk_shift);
        const std::uint64_t h = xxh3_64(base + lo, chunk_len(d, cs1_offset, cs1_offset + cs1_size));
        const std::uint64_t want = cs2[d];
        check_fault();
        if (h != want)
            return "the checksums of its chunks are damaged (checksum chunk " + std::to_string(d) +
                   ": stored " + hex64(want) + ", computed " + hex64(h) + ")";
        return {};
    }
    /// Checks (once) every data chunk overlapping bytes [off, off + len) of section s of a
    /// layer. @throws FormatError naming the layer and section
    void ensure(std::uint64_t off, std::uint64_t len, std::size_t layer, Sec s) const {
        if (len == 0) return;
        const std::uint64_t c0 = (off - kHeaderSize) >> chunk_shift;
        const std::uint64_t c1 = (off + len - 1 - kHeaderSize) >> chunk_shift;
        for (std::uint64_t c = c0; c <= c1; ++c) {
            if (test(data_ok.get(), c)) continue;
            if (std::string why = check_data_chunk(c); !why.empty())
                bad(section_name(layer, s), why);
            mark(data_ok.get(), c);
        }
    }
    void ensure_section(std::size_t layer, Sec s) const {
        const SectionLoc& L = locs[layer].sec[s];
        ensure(L.offset, L.size, layer, s);
    }
    /// Prefetches bytes [byte, byte + len) of section s of a layer (clipped to the section) and,
    /// for each chunk there not checked yet, the whole chunk and its first-level checksums'
    /// chunk, which its check will hash: a first read then waits for one round of memory, not
    /// for a hash that streams the chunk in line by line. Reads nothing; never throws.
    void prefetch_checked(std::size_t layer, Sec s, std::uint64_t byte, std::uint64_t len) const {
        const SectionLoc& L = locs[layer].sec[s];
        if (byte >= L.size || len == 0) return;
        const std::uint64_t off = L.offset + byte, end = L.offset + std::min(L.size, byte + len);
        prefetch_lines(off, end);
        const std::uint64_t c0 = (off - kHeaderSize) >> chunk_shift;
        const std::uint64_t c1 = (end - 1 - kHeaderSize) >> chunk_shift;
        for (std::uint64_t c = c0; c <= c1; ++c) {
            if (test(data_ok.get(), c)) continue;
            const std::uint64_t lo = kHeaderSize + (c << chunk_shift);
            prefetch_lines(lo, lo + chunk_len(c, kHeaderSize, data_end));
            __builtin_prefetch(base + cs1_offset + 8 * c);  // the sum it is compared with
            const std::uint64_t d = (c * 8) >> chunk_shift;
            if (test(cs1_ok.get(), d)) continue;
            const std::uint64_t dlo = cs1_offset + (d << chunk_shift);
            prefetch_lines(dlo, dlo + chunk_len(d, cs1_offset, cs1_offset + cs1_size));
        }
    }
    /// Prefetches every cache line of bytes [from, to) of the file.
    void prefetch_lines(std::uint64_t from, std::uint64_t to) const {
        for (std::uint64_t a = from & ~std::uint64_t{63}; a < to; a += 64)
            __builtin_prefetch(base + a);
    }
    /// Word i of section s (checked, bounded). @throws FormatError past the section's end
    std::uint64_t word(std::size_t layer, Sec s, std::uint64_t i) const {
        const SectionLoc& L = locs[layer].sec[s];
        if (i >= L.size / 8)
            bad(section_name(layer, s), "read past the end of the section (damaged index)");
        const std::uint64_t off = L.offset + 8 * i;
        ensure(off, 8, layer, s);
        std::uint64_t v;
        std::memcpy(&v, base + off, 8);
        return v;
    }

    const HuffmanDecoder& decoder(std::size_t layer) const {
        std::call_once(dec_once[layer], [&] {
            ensure_section(layer, kValCode);
            std::array<std::uint8_t, 256> lengths{};
            std::memcpy(lengths.data(), base + locs[layer].sec[kValCode].offset, 256);
            dec_error[layer] = dec[layer].build(lengths);
        });
        if (!dec_error[layer].empty()) bad(section_name(layer, kValCode), dec_error[layer]);
        return dec[layer];
    }

    /// Decodes `count` values starting at bit `pos` of the layer's value stream, checking that
    /// every bit read lies before `end` (the next block's start). Calls out(value) each.
    template <class Out>
    std::uint64_t decode_values(std::size_t layer, std::uint64_t pos, std::uint64_t end,
                                std::uint64_t count, Out&& out) const {
        const HuffmanDecoder& d = decoder(layer);
        const std::uint8_t* data = base + locs[layer].sec[kValData].offset;
        for (std::uint64_t k = 0; k < count; ++k) {
            const int v = d.decode(data, pos);
            if (v < 0 || pos > end)
                bad(section_name(layer, kValData),
                    "the value stream does not decode (bit " + std::to_string(pos) + ")");
            out(static_cast<std::uint8_t>(v));
        }
        return pos;
    }

    /// Bit offsets [start, end) of directory block `b` of a layer (checked chunks).
    std::pair<std::uint64_t, std::uint64_t> block_bits(std::size_t layer, std::uint64_t b) const {
        const LayerLoc& L = locs[layer];
        const std::uint64_t per = meta.value_superblock / meta.value_block;
        const std::uint64_t entry = 8 + 2 * (per - 1);
        const std::uint64_t nblocks =
            (layers[layer].classes + meta.value_block - 1) / meta.value_block;
        auto start_of = [&](std::uint64_t blk) -> std::uint64_t {
            if (blk >= nblocks) return L.value_bits;
            const std::uint64_t off = L.sec[kValDir].offset + (blk / per) * entry;
            const std::uint64_t j = blk % per;
            ensure(off, j == 0 ? 8 : 10 + 2 * (j - 1), layer, kValDir);
            const std::uint64_t sb = le64(base + off);
            return j == 0 ? sb : sb + le16(base + off + 8 + 2 * (j - 1));
        };
        const std::uint64_t a = start_of(b), z = start_of(b + 1);
        if (a > z || z > L.value_bits) {
            check_fault();  // zeros read in place of a vanished page, not a damaged directory
            bad(section_name(layer, kValDir), "block " + std::to_string(b) + " has bit offsets " +
                                                  std::to_string(a) + ".." + std::to_string(z) +
                                                  " outside the value stream of " +
                                                  std::to_string(L.value_bits) + " bits");
        }
        return {a, z};
    }

    /// False when `key` cannot be in the layer: squares off the board, or another number of
    /// pieces than the layer's.
    bool may_hold(std::size_t layer, std::uint64_t key) const {
        const std::uint64_t occ = key & ~(std::uint64_t{1} << 63);
        return (occ >> squares) == 0 &&
               static_cast<std::uint32_t>(std::popcount(occ)) == layers[layer].pieces;
    }
    /// Checks a rank the index gave: one past the layer's count comes only from bytes changed
    /// after their check (the file rewritten under us). @throws FormatError
    void check_found_rank(std::size_t layer, std::uint64_t r) const {
        if (r < layers[layer].classes) return;
        check_fault();
        bad(section_name(layer, kEfHigh), "rank " + std::to_string(r) + " out of range (" +
                                              std::to_string(layers[layer].classes) +
                                              " positions): damaged index");
    }
    /// The value of rank `rank`, whose directory block spans bits [a, z) of the value stream
    /// (block_bits()); the bytes read (the block's, and 8 past its last) are checked first.
    std::uint8_t value_at(std::size_t layer, std::uint64_t a, std::uint64_t z,
                          std::uint64_t rank) const {
        ensure(locs[layer].sec[kValData].offset + (a >> 3), ((z + 7) >> 3) - (a >> 3) + 8, layer,
               kValData);
        std::uint64_t pos = a;
        const int v = decoder(layer).decode_nth(base + locs[layer].sec[kValData].offset, pos,
                                                rank % meta.value_block, z);
        if (v < 0) {
            check_fault();  // zeros read in place of a vanished page, not a damaged stream
            bad(section_name(layer, kValData),
                "the value stream does not decode (bit " + std::to_string(pos) + ")");
        }
        return static_cast<std::uint8_t>(v);
    }

    void validate(const Expect& expect);
    /// Cheap checks that a layer's sections hold what its layer table entry says (the ends of
    /// the index, the start of the value directory, the value code). @throws FormatError
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
                (version == 2 ? "; the table was written by an older konane: rewrite it as "
                                "version 3 with `konane upgrade " +
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
    auto zeros = [](const std::uint8_t* q, std::size_t n) {
        return std::all_of(q, q + n, [](std::uint8_t c) { return c == 0; });
    };
    if (!zeros(p + hdr::reserved0, 2) || !zeros(p + hdr::reserved1, 4) ||
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
    meta.chunk_bytes = le32(p + hdr::chunk_bytes);
    meta.sample_zeros = le32(p + hdr::sample_zeros);
    meta.value_block = le32(p + hdr::value_block);
    meta.value_superblock = le32(p + hdr::value_superblock);
    meta.ruleset = fixed_string(hdr::ruleset, hdr::ruleset_len, "ruleset");
    meta.generator = fixed_string(hdr::generator, hdr::generator_len, "generator");
    if (const std::string why = check_meta(meta); !why.empty()) bad("header", why);
    squares = meta.rows * meta.cols;
    chunk_shift = log2u(meta.chunk_bytes);

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
    if (const std::uint64_t h = le64(p + hdr::checksum); le64(t + trl::header_xxh) != h)
        bad("header", "does not belong to the rest of the file (its checksum " + hex64(h) +
                          " is not the " + hex64(le64(t + trl::header_xxh)) +
                          " the trailer records): header and body come from different tables");
    if (le64(t + trl::file_size) != size)
        bad("trailer", "declared file size " + std::to_string(le64(t + trl::file_size)) +
                           " bytes, but the file has " + std::to_string(size));
    if (le32(t + trl::reserved) != 0) bad("trailer", "reserved bytes are not zero");
    const std::uint32_t layer_count = le32(t + trl::layer_count);
    cs1_offset = le64(t + trl::cs1_offset);
    cs1_size = le64(t + trl::cs1_size);
    cs2_offset = le64(t + trl::cs2_offset);
    cs2_size = le64(t + trl::cs2_size);
    lt_offset = le64(t + trl::lt_offset);
    lt_size = le64(t + trl::lt_size);
    lt_xxh = le64(t + trl::lt_xxh);
    cs2_xxh = le64(t + trl::cs2_xxh);
    file_lo = le64(t + trl::file_xxh128_lo);
    file_hi = le64(t + trl::file_xxh128_hi);
    if (layer_count < 1 || layer_count > kMaxLayers)
        bad("trailer", std::to_string(layer_count) + " layers, expected 1..64");
    if (lt_size != std::uint64_t{layer_count} * kLayerEntrySize)
        bad("trailer", "layer table size " + std::to_string(lt_size) + ", expected " +
                           std::to_string(std::uint64_t{layer_count} * kLayerEntrySize));
    // Between the data area and the trailer: cs1, cs2, layer table, back to back.
    if (lt_size > t_off - kHeaderSize || lt_offset != t_off - lt_size)
        bad("trailer", "layer table at " + std::to_string(lt_offset) + "+" +
                           std::to_string(lt_size) + " does not end where the trailer starts (" +
                           std::to_string(t_off) + ")");
    if (cs2_size % 8 != 0 || cs2_size > lt_offset - kHeaderSize ||
        cs2_offset != lt_offset - cs2_size)
        bad("trailer", "second-level checksums at " + std::to_string(cs2_offset) + "+" +
                           std::to_string(cs2_size) + " do not end where the layer table starts");
    if (cs1_size % 8 != 0 || cs1_size > cs2_offset - kHeaderSize ||
        cs1_offset != cs2_offset - cs1_size || cs1_offset % kAlign != 0)
        bad("trailer", "chunk checksums at " + std::to_string(cs1_offset) + "+" +
                           std::to_string(cs1_size) +
                           " do not end where the second-level checksums start or are not "
                           "8-aligned");
    data_end = cs1_offset;
    data_chunks = (data_end - kHeaderSize + meta.chunk_bytes - 1) >> chunk_shift;
    cs1_chunks = (cs1_size + meta.chunk_bytes - 1) >> chunk_shift;
    if (cs1_size != 8 * data_chunks)
        bad("trailer", std::to_string(cs1_size / 8) + " chunk checksums for " +
                           std::to_string(data_chunks) + " chunks of data");
    if (cs2_size != 8 * cs1_chunks)
        bad("trailer", std::to_string(cs2_size / 8) + " second-level checksums for " +
                           std::to_string(cs1_chunks) + " chunks of checksums");
    std::vector<std::uint8_t> table(lt_size);
    std::memcpy(table.data(), base + lt_offset, lt_size);
    if (const std::uint64_t h = xxh3_64(table.data(), lt_size); h != lt_xxh)
        bad("layer table",
            "checksum mismatch (trailer says " + hex64(lt_xxh) + ", computed " + hex64(h) + ")");
    cs2.resize(cs2_size / 8);
    std::memcpy(cs2.data(), base + cs2_offset, cs2_size);
    if (const std::uint64_t h = xxh3_64(cs2.data(), cs2_size); h != cs2_xxh)
        bad("checksums", "second-level checksum table damaged (trailer says " + hex64(cs2_xxh) +
                             ", computed " + hex64(h) + ")");

    // --- layer table: every section exactly where and as large as the canonical layout says ---
    layers.resize(layer_count);
    locs.resize(layer_count);
    std::uint64_t pos = kHeaderSize;
    for (std::size_t i = 0; i < layer_count; ++i) {
        const std::uint8_t* e = table.data() + i * kLayerEntrySize;
        LayerInfo& li = layers[i];
        li.pieces = le32(e + lte::pieces);
        li.classes = le64(e + lte::classes);
        li.raw = le64(e + lte::raw);
        const std::string ln = layer_name(i);
        if (!zeros(e + lte::reserved, lte::sections - lte::reserved))
            bad(ln, "reserved bytes are not zero");
        if (i > 0 && li.pieces <= layers[i - 1].pieces)
            bad(ln, "piece counts do not increase (previous layer has " +
                        std::to_string(layers[i - 1].pieces) + ")");
        if (li.pieces > squares)
            bad(ln, "more pieces than the " + std::to_string(squares) + " squares");
        const std::uint64_t universe = le64(e + lte::universe);
        const std::uint64_t max_universe = 2 * index::binomial(squares, li.pieces);
        // Every position takes at least one bit of the index: n <= 8 * file size (this also
        // keeps the size arithmetic below far from overflow).
        if (li.classes > 8 * size)
            bad(ln, std::to_string(li.classes) + " positions in a file of " + std::to_string(size) +
                        " bytes");
        if (li.raw < li.classes || universe < li.classes || universe > max_universe ||
            (li.classes == 0) != (universe == 0))
            bad(ln, "implausible counts: " + std::to_string(li.classes) + " classes, " +
                        std::to_string(li.raw) + " raw positions, universe " +
                        std::to_string(universe));
        LayerLoc& L = locs[i];
        L.shape = index::EliasFanoShape::make(li.classes, universe, meta.sample_zeros);
        if (le32(e + lte::low_bits) != L.shape.l)
            bad(ln, std::to_string(le32(e + lte::low_bits)) + " low bits, expected " +
                        std::to_string(L.shape.l));
        L.value_bits = le64(e + lte::value_bits);
        const std::uint64_t n = li.classes;
        if (L.value_bits > n * kMaxCodeLength || (n > 0 && L.value_bits < n))
            bad(ln, std::to_string(L.value_bits) + " bits of values for " + std::to_string(n) +
                        " positions");
        const std::uint64_t sb = meta.value_superblock, vb = meta.value_block;
        const std::uint64_t want[kSections] = {
            8 * L.shape.low_words(),
            8 * L.shape.high_words(),
            8 * L.shape.sample_words(),
            n > 0 ? 256u : 0u,
            align8(((n + sb - 1) / sb) * (8 + 2 * (sb / vb - 1))),
            n > 0 ? 8 * ((L.value_bits + 63) / 64 + 1) : 0};
        for (std::size_t s = 0; s < kSections; ++s) {
            SectionLoc& S = L.sec[s];
            S.offset = le64(e + lte::sections + 16 * s);
            S.size = le64(e + lte::sections + 16 * s + 8);
            const std::string sn = ln + ": " + kSectionNames[s];
            if (S.offset != pos)
                bad(sn, "offset " + std::to_string(S.offset) + ", expected " + std::to_string(pos));
            if (S.size != want[s])
                bad(sn, "size " + std::to_string(S.size) + ", expected " + std::to_string(want[s]));
            if (S.size > data_end - pos)
                bad(sn, "runs past the data area (ends at " + std::to_string(data_end) + ")");
            pos += S.size;
        }
    }
    if (pos != data_end)
        bad("layer table", "sections end at " + std::to_string(pos) +
                               ", but the chunk checksums start at " + std::to_string(data_end));
    data_ok.reset(new std::atomic<std::uint64_t>[(data_chunks + 63) / 64 + 1]());
    cs1_ok.reset(new std::atomic<std::uint64_t>[(cs1_chunks + 63) / 64 + 1]());
    dec_once = std::make_unique<std::once_flag[]>(layer_count);
    dec = std::make_unique<HuffmanDecoder[]>(layer_count);
    dec_error = std::make_unique<std::string[]>(layer_count);
    for (std::size_t i = 0; i < layer_count; ++i)
        check_body(i);
    check_fault();
}

void Table::Impl::check_body(std::size_t layer) {
    const std::uint64_t n = layers[layer].classes;
    if (n == 0) return;
    const LayerLoc& L = locs[layer];
    const index::EliasFanoShape& sh = L.shape;
    // The high bits end with the last element's 1 at bit n + B - 2, then its bucket's 0, then
    // nothing: the count and the universe of the layer table are those of the stored set.
    const std::uint64_t last_one = n + sh.buckets - 2;
    const std::uint64_t wi = last_one >> 6;
    const std::uint64_t w = word(layer, kEfHigh, wi);
    bool ok = (w >> (last_one & 63)) == 1;
    for (std::uint64_t k = wi + 1; k < sh.high_words(); ++k)
        ok = ok && word(layer, kEfHigh, k) == 0;
    if (!ok)
        bad(section_name(layer, kEfHigh),
            "the last element is not where the layer table's count and universe put it (bit " +
                std::to_string(last_one) + "): the layer table does not describe this index");
    // ... and the last element is u - 1.
    auto low = [&](std::uint64_t i) { return word(layer, kEfLow, i); };
    const std::uint64_t mask = sh.l == 0 ? 0 : (std::uint64_t{1} << sh.l) - 1;
    if (index::read_bits(low, (n - 1) * sh.l, sh.l) != ((sh.u - 1) & mask))
        bad(section_name(layer, kEfLow), "the last element is not the universe " +
                                             std::to_string(sh.u) +
                                             " minus one: the layer table does not describe "
                                             "this index");
    // The value stream: the first block starts at bit 0, the code is a valid prefix code.
    if (block_bits(layer, 0).first != 0)
        bad(section_name(layer, kValDir), "the first block does not start at bit 0");
    decoder(layer);
}

Table::Table(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Table::~Table() = default;

std::shared_ptr<const Table> Table::open(const fs::path& path, const Expect& expect) {
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
    void* m = ::mmap(nullptr, impl->size, PROT_READ, MAP_PRIVATE, fd, 0);
    const int err = errno;
    ::close(fd);
    if (m == MAP_FAILED) throw IoError(impl->name + ": mmap: " + std::strerror(err));
    impl->base = static_cast<const std::uint8_t*>(m);
    try {
        impl->guard = register_mapping(m, impl->size, &impl->faulted);
    } catch (const std::runtime_error& e) {
        impl->bad("open", e.what());
    }
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
    const auto& s = impl_->locs[layer].sec;
    return {s[kEfLow].size,   s[kEfHigh].size, s[kEfSamples].size,
            s[kValCode].size, s[kValDir].size, s[kValData].size};
}

std::optional<std::uint64_t> Table::find(std::size_t layer, std::uint64_t key) const {
    const Impl& t = *impl_;
    t.check_layer(layer);
    if (!t.may_hold(layer, key)) return std::nullopt;
    const std::uint64_t rank = index::key_rank(key, t.squares);
    auto low = [&](std::uint64_t i) { return t.word(layer, kEfLow, i); };
    auto high = [&](std::uint64_t i) { return t.word(layer, kEfHigh, i); };
    auto sample = [&](std::uint64_t i) { return t.word(layer, kEfSamples, i); };
    const auto r = index::ef_find(t.locs[layer].shape, low, high, sample, rank);
    t.check_fault();
    if (r) t.check_found_rank(layer, *r);
    return r;
}

std::uint8_t Table::value(std::size_t layer, std::uint64_t rank) const {
    const Impl& t = *impl_;
    t.check_layer(layer);
    if (rank >= t.layers[layer].classes)
        throw std::out_of_range(t.name + ": " + t.layer_name(layer) + ": rank " +
                                std::to_string(rank) + " out of range (" +
                                std::to_string(t.layers[layer].classes) + " positions)");
    const auto [a, z] = t.block_bits(layer, rank / t.meta.value_block);
    const std::uint8_t v = t.value_at(layer, a, z, rank);
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
    // Three rounds of memory reads instead of the five of find() then value(): the select
    // sample bounds where the key's bucket starts in the high bits (between two samples), which
    // bounds its element index and so its low bits and value directory entry; all three are
    // prefetched together from the sample, and the value stream once the directory is read.
    // Each prefetch also fetches the chunks its first check will hash (prefetch_checked()).
    const Impl& t = *impl_;
    struct State {  // left uninitialised: only live states are read past step 1
        bool live;
        std::uint64_t h, lo, rank, a, z;
    };
    std::array<State, kBatch> st;  // NOLINT(cppcoreguidelines-pro-type-member-init)
    const std::size_t n = queries.size();
    const std::uint64_t vb = t.meta.value_block, sb = t.meta.value_superblock;
    const std::uint64_t entry = 8 + 2 * (sb / vb - 1);
    // 1. The key's rank in the universe; prefetch the samples on either side of its bucket.
    for (std::size_t i = 0; i < n; ++i) {
        const Query& q = queries[i];
        t.check_layer(q.layer);
        out[i] = Answer{};
        State& e = st[i];
        e.live = false;
        if (!t.may_hold(q.layer, q.key)) continue;
        const index::EliasFanoShape& shape = t.locs[q.layer].shape;
        const std::uint64_t x = index::key_rank(q.key, t.squares);
        if (shape.n == 0 || x >= shape.u) continue;
        e.live = true;
        e.h = x >> shape.l;
        e.lo = shape.l == 0 ? 0 : x & ((std::uint64_t{1} << shape.l) - 1);
        if (e.h > 0) t.prefetch_checked(q.layer, kEfSamples, 8 * ((e.h - 1) / shape.q), 16);
    }
    // 2. From the samples, the bits of the high bits that hold the bucket's start, and the range
    //    of element indices it can have: prefetch those high bits, the low bits where the
    //    start is expected (interpolated between the samples) and the value directory entries
    //    of the index range.
    for (std::size_t i = 0; i < n; ++i) {
        const State& e = st[i];
        if (!e.live) continue;
        const std::size_t l = queries[i].layer;
        const index::EliasFanoShape& shape = t.locs[l].shape;
        std::uint64_t bit0 = 0, bit1 = shape.high_bits(), i0 = 0, i1 = shape.n, frac = 0;
        if (e.h > 0) {
            const std::uint64_t s = (e.h - 1) / shape.q;
            bit0 = t.word(l, kEfSamples, s);  // zero number s * q
            i0 = std::min(bit0 - std::min(bit0, s * shape.q), shape.n);
            // The next sample bounds the search; read it only from the chunk just checked
            // (a bound is a hint for the prefetches, not worth a check of its own).
            const std::uint64_t at = t.locs[l].sec[kEfSamples].offset + 8 * s - kHeaderSize;
            if (s + 1 < shape.sample_words() &&
                (at >> t.chunk_shift) == ((at + 8) >> t.chunk_shift)) {
                bit1 = std::max(t.word(l, kEfSamples, s + 1), bit0);
                i1 = std::clamp(bit1 - std::min(bit1, (s + 1) * shape.q), i0, shape.n);
            }
            frac = (e.h - 1) % shape.q;
        }
        constexpr std::uint64_t kMostBytes = 512;  // prefetched per section and query
        const std::uint64_t hb0 = bit0 >> 3, hb1 = (bit1 >> 3) + 8;
        t.prefetch_checked(l, kEfHigh, hb0, std::min(hb1 - hb0, kMostBytes));
        // The low bits of the whole index range, or of kMostBytes about the interpolated
        // index when the range is longer.
        const std::uint64_t lb0 = i0 * shape.l / 8, lb1 = (i1 * shape.l + 63) / 8 + 8;
        const std::uint64_t guess = i0 + (i1 - i0) * frac / shape.q;
        const std::uint64_t lg = guess * shape.l / 8;
        const std::uint64_t lfrom = std::clamp(lg - std::min(lg, kMostBytes / 2), lb0,
                                               std::max(lb0, lb1 - std::min(lb1, kMostBytes)));
        t.prefetch_checked(l, kEfLow, lfrom, std::min(lb1 - lfrom, kMostBytes));
        const std::uint64_t d0 = (i0 / sb) * entry, d1 = (i1 / sb + 1) * entry;
        const std::uint64_t dg = (guess / sb) * entry;
        if (d1 - d0 <= kMostBytes)
            t.prefetch_checked(l, kValDir, d0, d1 - d0);
        else
            t.prefetch_checked(l, kValDir, dg, entry);
    }
    // 3. The element and its rank, then its directory block's bits; prefetch the block.
    for (std::size_t i = 0; i < n; ++i) {
        State& e = st[i];
        if (!e.live) continue;
        const std::size_t l = queries[i].layer;
        const index::EliasFanoShape& shape = t.locs[l].shape;
        auto low = [&](std::uint64_t w) { return t.word(l, kEfLow, w); };
        auto high = [&](std::uint64_t w) { return t.word(l, kEfHigh, w); };
        auto sample = [&](std::uint64_t w) { return t.word(l, kEfSamples, w); };
        const std::uint64_t pos = index::ef_bucket_start(shape, high, sample, e.h);
        const auto r = index::ef_bucket_find(shape, low, high, pos, e.h, e.lo);
        if (!r) {
            e.live = false;
            continue;
        }
        t.check_found_rank(l, *r);
        e.rank = *r;
        std::tie(e.a, e.z) = t.block_bits(l, e.rank / vb);
        t.prefetch_checked(l, kValData, e.a >> 3, ((e.z + 7) >> 3) - (e.a >> 3) + 8);
    }
    // 4. Decode.
    for (std::size_t i = 0; i < n; ++i) {
        const State& e = st[i];
        if (!e.live) continue;
        out[i] = Answer{true, t.value_at(queries[i].layer, e.a, e.z, e.rank)};
    }
    t.check_fault();
}

void Table::read_keys(std::size_t layer, std::vector<std::uint64_t>& out) const {
    const Impl& t = *impl_;
    t.check_layer(layer);
    const LayerLoc& L = t.locs[layer];
    const std::uint64_t n = t.layers[layer].classes;
    t.ensure_section(layer, kEfLow);
    t.ensure_section(layer, kEfHigh);
    out.resize(n);
    if (n == 0) return;
    const auto* low = reinterpret_cast<const std::uint64_t*>(t.base + L.sec[kEfLow].offset);
    const auto* high = reinterpret_cast<const std::uint64_t*>(t.base + L.sec[kEfHigh].offset);
    try {
        index::ef_decode_all(L.shape, low, high, out.data());
    } catch (const std::runtime_error& e) {
        t.check_fault();
        t.bad(t.section_name(layer, kEfHigh), e.what());
    }
    t.check_fault();
    for (std::uint64_t i = 0; i < n; ++i)
        if ((i > 0 && out[i] <= out[i - 1]) || out[i] >= L.shape.u)
            t.bad(t.section_name(layer, kEfLow),
                  "the ranks are not increasing below the universe "
                  "at position " +
                      std::to_string(i));
    // The select samples must point at every q-th zero of the high bits.
    t.ensure_section(layer, kEfSamples);
    {
        const auto* samples =
            reinterpret_cast<const std::uint64_t*>(t.base + L.sec[kEfSamples].offset);
        std::uint64_t zeros = 0, next = 0;
        const std::uint64_t bits = L.shape.high_bits();
        for (std::uint64_t w = 0; w < L.shape.high_words(); ++w) {
            std::uint64_t z = ~high[w];
            if ((w + 1) * 64 > bits) z &= (std::uint64_t{1} << (bits - w * 64)) - 1;
            const auto c = static_cast<std::uint64_t>(std::popcount(z));
            while (next * L.shape.q < zeros + c) {
                const std::uint64_t at =
                    w * 64 + index::select64(z, static_cast<unsigned>(next * L.shape.q - zeros));
                if (next >= L.shape.sample_words() || samples[next] != at)
                    t.bad(t.section_name(layer, kEfSamples), "sample " + std::to_string(next) +
                                                                 " does not point at zero " +
                                                                 std::to_string(next * L.shape.q));
                ++next;
            }
            zeros += c;
        }
        if (zeros != L.shape.buckets || next != L.shape.sample_words())
            t.bad(t.section_name(layer, kEfHigh), "the high bits hold " + std::to_string(zeros) +
                                                      " bucket ends, expected " +
                                                      std::to_string(L.shape.buckets));
    }
    // Ranks to keys, in parallel.
    const std::uint64_t per = 1 << 16;
    const unsigned k = t.layers[layer].pieces;
    parallel_for((n + per - 1) / per, resolve_threads(0), [&](std::size_t c, unsigned) {
        const std::uint64_t lo = c * per, hi = std::min(n, lo + per);
        for (std::uint64_t i = lo; i < hi; ++i)
            out[i] = index::key_unrank(out[i], k, t.squares);
    });
    t.check_fault();
}

void Table::read_values(std::size_t layer, std::vector<std::uint8_t>& out) const {
    const Impl& t = *impl_;
    t.check_layer(layer);
    const std::uint64_t n = t.layers[layer].classes;
    out.resize(n);
    if (n == 0) return;
    t.ensure_section(layer, kValDir);
    t.ensure_section(layer, kValData);
    t.decoder(layer);
    const std::uint64_t sb = t.meta.value_superblock, vb = t.meta.value_block;
    const std::uint64_t nsb = (n + sb - 1) / sb;
    std::atomic<std::uint64_t> last_end{0};
    parallel_for(nsb, resolve_threads(0), [&](std::size_t s, unsigned) {
        const std::uint64_t lo = s * sb, hi = std::min(n, lo + sb);
        for (std::uint64_t b = lo / vb; b * vb < hi; ++b) {
            const auto [a, z] = t.block_bits(layer, b);
            const std::uint64_t cnt = std::min(hi, (b + 1) * vb) - b * vb;
            std::uint8_t* dst = out.data() + b * vb;
            const std::uint64_t end =
                t.decode_values(layer, a, z, cnt, [&](std::uint8_t v) { *dst++ = v; });
            if (end != z)
                t.bad(t.section_name(layer, kValDir),
                      "block " + std::to_string(b) + " ends at bit " + std::to_string(end) +
                          ", the directory says " + std::to_string(z));
            if (b * vb + cnt == n) last_end = end;
        }
    });
    t.check_fault();
    if (last_end != t.locs[layer].value_bits)
        t.bad(t.section_name(layer, kValData), "the value stream does not end where declared");
}

VerifyReport Table::verify_checksums(int threads) const {
    const Impl& t = *impl_;
    // Tasks: 0 = whole-file hash and the directory checksums, then every chunk of the
    // first-level checksums, then every data chunk. Each task writes its own slot.
    const std::size_t fixed = 1 + static_cast<std::size_t>(t.cs1_chunks);
    const std::size_t ntasks = fixed + static_cast<std::size_t>(t.data_chunks);
    std::vector<std::string> problem(ntasks);
    // Which section a data offset falls in, for messages.
    auto where = [&](std::uint64_t off) -> std::string {
        for (std::size_t l = 0; l < t.layers.size(); ++l)
            for (std::size_t s = 0; s < kSections; ++s) {
                const SectionLoc& S = t.locs[l].sec[s];
                if (off >= S.offset && off < S.offset + S.size)
                    return t.section_name(l, static_cast<Sec>(s));
            }
        return "data";
    };
    std::string fault;
    try {
        parallel_for(ntasks, resolve_threads(threads), [&](std::size_t task, unsigned) {
            if (task == 0) {
                const XXH128_hash_t h =
                    XXH3_128bits(t.base, t.size - kTrailerSize + trl::file_xxh128_lo);
                if (h.low64 != t.file_lo || h.high64 != t.file_hi)
                    problem[task] = t.name + ": file: whole-file XXH3-128 mismatch (trailer says " +
                                    hex64(t.file_hi) + hex64(t.file_lo).substr(2) + ", computed " +
                                    hex64(h.high64) + hex64(h.low64).substr(2) + ")";
                auto also = [&](const std::string& what) {
                    problem[task] += (problem[task].empty() ? "" : "\n") + t.name + ": " + what;
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
                if (xxh3_64(t.base + t.cs2_offset, t.cs2_size) != t.cs2_xxh)
                    also("checksums: second-level checksum table mismatch");
            } else if (task < fixed) {
                if (std::string why = t.check_cs1_chunk(task - 1); !why.empty())
                    problem[task] = t.name + ": checksums: " + why;
            } else {
                const std::uint64_t c = task - fixed;
                const std::uint64_t lo = kHeaderSize + (c << t.chunk_shift);
                const std::uint64_t h =
                    xxh3_64(t.base + lo, t.chunk_len(c, kHeaderSize, t.data_end));
                const std::uint64_t want = le64(t.base + t.cs1_offset + 8 * c);
                if (h != want)
                    problem[task] = t.name + ": " + where(lo) + ": checksum mismatch in chunk " +
                                    std::to_string(c) + " (stored " + hex64(want) + ", computed " +
                                    hex64(h) + ")";
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
    // the file changed during the check: a fault, or any problem with the whole file's hash,
    // its directory or the first level of checksums (a rewrite in place shows there).
    const bool whole_ok =
        fault.empty() && std::all_of(problem.begin(), problem.begin() + fixed,
                                     [](const std::string& p) { return p.empty(); });
    if (whole_ok) {
        for (std::uint64_t d = 0; d < t.cs1_chunks; ++d)
            Impl::mark(t.cs1_ok.get(), d);
        for (std::uint64_t c = 0; c < t.data_chunks; ++c)
            if (problem[fixed + c].empty()) Impl::mark(t.data_ok.get(), c);
    }
    VerifyReport r;
    r.blocks_checked = t.data_chunks + t.cs1_chunks;
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
