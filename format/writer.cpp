// TableWriter: streams a table through a process::AtomicFile (a temporary file beside the target,
// then fsync, rename and fsync of the directory).
// Layout: format/FORMAT.md.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <system_error>

#include "format/detail.hpp"
#include "format/layer_encoder.hpp"
#include "format/table.hpp"
#include "format/xxh.hpp"
#include "process/atomic_file.hpp"

namespace konane::format {

namespace fs = std::filesystem;
using namespace detail;

namespace {

/// Size of the sequential write buffer: every write(2) but the last is one whole buffer at an
/// offset that is a multiple of it. With 2 MiB, file systems with large folios (ext4 and XFS on
/// Linux 6.x) cache the new table in 2 MiB folios, which a reader's mapping then maps as huge
/// pages: one TLB entry per 2 MiB, so a probe of a large table waits less on page walks
/// (docs/results.md).
constexpr std::size_t kWriteBuffer = std::size_t{2} << 20;

struct XXH3Deleter {
    void operator()(XXH3_state_t* s) const { XXH3_freeState(s); }
};

}  // namespace

struct TableWriter::Impl {
    enum class State { open, failed, committed };

    fs::path final_path;
    std::unique_ptr<process::AtomicFile> file;  // the temporary file, removed unless committed
    fs::path tmp_path;
    TableMeta meta;
    unsigned threads = 1;
    State state = State::open;
    std::uint64_t pos = 0;         // logical bytes written (buffered or not)
    std::uint64_t header_xxh = 0;  // the header's checksum, repeated in the trailer
    std::vector<std::uint8_t> buf;
    std::unique_ptr<XXH3_state_t, XXH3Deleter> file_hash;
    std::vector<std::uint8_t> layer_table;
    std::optional<std::uint32_t> last_pieces;
    std::size_t layer_count = 0;

    ~Impl();

    struct Layer;
    std::unique_ptr<Layer> layer;  // the layer being added (begin_layer .. end_layer)
    /// A layer encoded elsewhere being copied (begin_encoded_layer .. end_encoded_layer).
    struct Encoded {
        LayerInfo info;
        std::vector<std::uint8_t> entry;
        std::uint64_t left = 0;  // bytes still to come
    };
    std::optional<Encoded> encoded;

    void begin(const LayerInfo& info, std::uint64_t last_key,
               const std::array<std::uint64_t, 256>& hist, const fs::path& spill_dir,
               std::size_t spill_chunk);
    void add(std::span<const std::uint64_t> keys, std::span<const std::uint8_t> depth);
    void end();
    /// Throws std::invalid_argument (prefixed by `where`) when no layer of `info` may follow.
    void check_next(const LayerInfo& info, const std::string& where) const;
    void check_open(const char* what) const;
    /// Runs one step of a layer (begin, add, end) under the writer's failure policy: bad input
    /// (std::invalid_argument) drops the layer and leaves the writer usable, since nothing was
    /// written; anything else (an I/O error, std::bad_alloc mid-layer) also discards the file.
    template <class Step>
    void layer_step(Step&& step) {
        try {
            step();
        } catch (const std::invalid_argument&) {
            layer.reset();
            throw;
        } catch (...) {
            layer.reset();
            discard();
            throw;
        }
    }

    /// Closes and removes the temporary file (no-op if there is none). Never throws.
    void discard() noexcept {
        file.reset();  // closes and removes it, unless committed
        if (state == State::open) state = State::failed;
    }

    [[noreturn]] void fail(const std::string& what, int err) {
        discard();
        throw IoError(final_path.string() + ": " + what + ": " + std::strerror(err) +
                      " (temporary file " + tmp_path.string() + " removed)");
    }

    void raw_write(const std::uint8_t* p, std::size_t n) {
        // AtomicFile::write loops over short writes and EINTR; its error keeps this message.
        try {
            file->write(p, n);
        } catch (const process::AtomicFileError& e) {
            fail("write", e.error);
        }
    }

    void flush() {
        if (!buf.empty()) {
            raw_write(buf.data(), buf.size());
            buf.clear();
        }
    }

    /// Appends bytes to the file; updates the whole-file hash.
    void write(const void* data, std::size_t n, bool hash_file = true) {
        const auto* p = static_cast<const std::uint8_t*>(data);
        if (hash_file) XXH3_128bits_update(file_hash.get(), p, n);
        pos += n;
        while (n > 0) {
            const std::size_t take = std::min(n, kWriteBuffer - buf.size());
            buf.insert(buf.end(), p, p + take);
            p += take;
            n -= take;
            if (buf.size() == kWriteBuffer) flush();
        }
    }
};

TableWriter::TableWriter(const fs::path& final_path, const TableMeta& meta, int threads)
    : impl_(std::make_unique<Impl>()) {
    Impl& w = *impl_;
    if (const std::string bad = check_meta(meta); !bad.empty())
        throw std::invalid_argument("TableWriter: " + bad);
    w.final_path = final_path;
    w.meta = meta;
    w.threads = resolve_threads(threads);
    w.file_hash.reset(XXH3_createState());
    if (!w.file_hash) throw std::bad_alloc();
    XXH3_128bits_reset(w.file_hash.get());
    w.buf.reserve(kWriteBuffer);

    if (final_path.empty() || !final_path.has_filename())
        throw FormatError(final_path.string() + ": create: not a file path");
    struct stat st {};
    if (::stat(final_path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        throw FormatError(final_path.string() + ": create: the target is a directory");
    if (::lstat(final_path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
        throw FormatError(final_path.string() +
                          ": create: the target exists and is not a regular file (a device, "
                          "a link, a pipe); it would be replaced");

    try {
        // Registered for removal on a signal, locked against remove_stale_temporaries().
        w.file = std::make_unique<process::AtomicFile>(final_path, 0644);
    } catch (const process::AtomicFileError& e) {
        throw IoError(final_path.string() + ": create temporary file " + e.temporary.string() +
                      ": " + std::strerror(e.error));
    }
    w.tmp_path = w.file->temporary();

    std::array<std::uint8_t, kHeaderSize> h{};
    std::memcpy(h.data() + hdr::magic, kMagic, 8);
    put32(h.data() + hdr::version, kFormatVersion);
    put32(h.data() + hdr::header_size, kHeaderSize);
    h[hdr::rows] = static_cast<std::uint8_t>(meta.rows);
    h[hdr::cols] = static_cast<std::uint8_t>(meta.cols);
    put32(h.data() + hdr::block_buckets, meta.block_buckets);
    put32(h.data() + hdr::value_group, meta.value_group);
    std::memcpy(h.data() + hdr::ruleset, meta.ruleset.data(), meta.ruleset.size());
    std::memcpy(h.data() + hdr::generator, meta.generator.data(), meta.generator.size());
    put64(h.data() + hdr::checksum, xxh3_64(h.data(), hdr::checksum));
    w.header_xxh = le64(h.data() + hdr::checksum);
    // Written now, so that a full disk or a file size limit fails the writer before any work
    // (the solver creates it first for that); then the file offset goes back to 0 and the
    // header is buffered too, so that the buffer's writes start at offset 0 and stay 2 MiB-
    // aligned (the first rewrites these same bytes).
    w.raw_write(h.data(), h.size());
    if (::lseek(w.file->fd(), 0, SEEK_SET) != 0) w.fail("seek", errno);
    w.write(h.data(), h.size());
}

TableWriter::~TableWriter() = default;

std::uint64_t TableWriter::bytes_written() const {
    return impl_->pos;
}

namespace {

/// Blocks whose checks are computed and written at a time (FORMAT.md §4.3).
constexpr std::uint64_t kCheckGroup = 4096;

}  // namespace

/// The layer being added: its encoder (one piece: the whole layer), the encoded blocks (checks
/// left 0) and the directory (two u64 per entry: offset, first element), spilled or not.
struct TableWriter::Impl::Layer {
    std::optional<LayerEncoder> enc;
    SpillBytes blocks, dir;
    std::size_t limit = SIZE_MAX;  // tail bytes that go to the spill files
    LayerInfo info;
    std::string where;
};

TableWriter::Impl::~Impl() {
    discard();
}

void TableWriter::Impl::check_open(const char* what) const {
    if (state == State::committed)
        throw std::logic_error(std::string("TableWriter::") + what + ": table already committed");
    if (state == State::failed)
        throw std::logic_error(std::string("TableWriter::") + what + ": writer failed earlier");
}

void TableWriter::Impl::check_next(const LayerInfo& info, const std::string& where) const {
    if (layer_count >= kMaxLayers) throw std::invalid_argument(where + "more than 64 layers");
    if (last_pieces && info.pieces <= *last_pieces)
        throw std::invalid_argument(where + "piece counts must strictly increase (previous " +
                                    std::to_string(*last_pieces) + ")");
}

void TableWriter::Impl::begin(const LayerInfo& info, std::uint64_t last_key,
                              const std::array<std::uint64_t, 256>& hist, const fs::path& spill_dir,
                              std::size_t spill_chunk) {
    Impl& w = *this;
    auto L = std::make_unique<Layer>();
    L->info = info;
    L->where = "TableWriter::add_layer(" + std::to_string(info.pieces) + " pieces): ";
    w.check_next(info, L->where);
    // The layer's geometry and code (format/layer_encoder.hpp), one piece of every block.
    L->enc.emplace(w.meta, info, last_key, hist, L->where);
    LayerEncoder& enc = *L->enc;
    L->blocks.use_tail(enc.bytes());
    L->dir.use_tail(enc.directory());
    const std::uint64_t n = info.classes;
    if (!spill_dir.empty()) {
        L->blocks.spill(spill_dir);
        L->dir.spill(spill_dir);
        L->limit = spill_chunk;
        L->blocks.tail().reserve(std::min<std::size_t>(spill_chunk, kSpillChunk) +
                                 (std::size_t{1} << 16));
        Layer* l = L.get();
        enc.on_block([l] {
            l->blocks.flush_if(l->limit);
            l->dir.flush_if(l->limit);
        });
    } else {
        L->blocks.tail().reserve(static_cast<std::size_t>(std::min<std::uint64_t>(
            n / 8 * (enc.low_bits() + 7) + 64 * enc.blocks(), std::uint64_t{1} << 32)));
        L->dir.tail().reserve(static_cast<std::size_t>((enc.blocks() + 1) * 16));
    }
    w.layer = std::move(L);
}

void TableWriter::Impl::add(std::span<const std::uint64_t> keys,
                            std::span<const std::uint8_t> depth) {
    layer->enc->add(keys, depth, static_cast<int>(threads));
}

void TableWriter::Impl::end() {
    Impl& w = *this;
    Layer& L = *layer;
    LayerEncoder& enc = *L.enc;
    const std::uint64_t n = L.info.classes;
    if (enc.elements() != n)
        throw std::invalid_argument(L.where + std::to_string(enc.elements()) +
                                    " keys added, expected " + std::to_string(n));
    if (enc.seen() != enc.histogram())
        throw std::invalid_argument(L.where + "the values differ from their histogram");
    if (n > 0 && enc.last_rank() + 1 != enc.universe())
        throw std::invalid_argument(L.where + "the last key differs from the one announced");
    enc.finish();
    if (n > 0) {
        std::uint8_t e[16];
        put64(e, L.blocks.size());
        put64(e + 8, n);
        L.dir.tail().insert(L.dir.tail().end(), e, e + 16);
    }
    const std::uint64_t total = L.blocks.size();
    // The layer's entry (FORMAT.md §5), then the blocks' checks, seeded by its key.
    const LayerLayout lay = enc.layout(enc.totals(), w.pos, w.header_xxh);

    // Write the directory and the blocks, each padded to a multiple of 8 bytes, a group of
    // blocks at a time (read back from the spill files when the layer spilled).
    if (n > 0) {
        const std::uint64_t blocks = enc.blocks(), entries = blocks + 1;
        std::vector<std::uint8_t> raw(static_cast<std::size_t>(kCheckGroup + 1) * 16), out;
        std::vector<std::uint64_t> off, fst;
        const auto read_entries = [&](std::uint64_t j0, std::uint64_t c) {
            L.dir.read(j0 * 16, raw.data(), static_cast<std::size_t>(c * 16));
            off.resize(static_cast<std::size_t>(c));
            fst.resize(static_cast<std::size_t>(c));
            for (std::uint64_t k = 0; k < c; ++k) {
                off[k] = le64(raw.data() + k * 16);
                fst[k] = le64(raw.data() + k * 16 + 8);
            }
        };
        for (std::uint64_t j0 = 0; j0 < entries; j0 += kCheckGroup) {
            read_entries(j0, std::min(kCheckGroup, entries - j0));
            out.clear();
            put_directory(off, fst, lay.width, out);
            w.write(out.data(), out.size());
        }
        out.assign(static_cast<std::size_t>(lay.dir_size - entries * 2 * lay.width), 0);
        w.write(out.data(), out.size());

        for (std::uint64_t j0 = 0; j0 < blocks; j0 += kCheckGroup) {
            const std::uint64_t c = std::min(kCheckGroup, blocks - j0);
            read_entries(j0, c + 1);
            out.resize(static_cast<std::size_t>(off[c] - off[0]));
            L.blocks.read(off[0], out.data(), out.size());
            seal_blocks(lay.key, j0, off, fst, out.data(), static_cast<int>(w.threads));
            w.write(out.data(), out.size());
        }
        out.assign(static_cast<std::size_t>(lay.blocks_size - total), 0);
        w.write(out.data(), out.size());
    }
    w.layer_table.insert(w.layer_table.end(), lay.entry.begin(), lay.entry.end());
    w.last_pieces = L.info.pieces;
    ++w.layer_count;
    layer.reset();
}

void TableWriter::add_layer(const LayerInfo& info, std::span<const std::uint64_t> sorted_keys,
                            std::span<const std::uint8_t> depth_by_rank) {
    Impl& w = *impl_;
    w.check_open("add_layer");
    if (w.layer || w.encoded)
        throw std::logic_error("TableWriter::add_layer: a streamed layer is open");
    const std::string where =
        "TableWriter::add_layer(" + std::to_string(info.pieces) + " pieces): ";
    if (sorted_keys.size() != info.classes)
        throw std::invalid_argument(where + "keys span has " + std::to_string(sorted_keys.size()) +
                                    " entries, expected " + std::to_string(info.classes));
    if (depth_by_rank.size() != info.classes)
        throw std::invalid_argument(where + "values span has " +
                                    std::to_string(depth_by_rank.size()) + " entries, expected " +
                                    std::to_string(info.classes));
    w.layer_step([&] {
        // The depths' histogram, for the layer's Huffman code.
        const std::uint64_t n = info.classes;
        const std::uint64_t per = 1 << 20;
        const std::size_t parts = static_cast<std::size_t>((n + per - 1) / per);
        std::vector<std::array<std::uint64_t, 256>> hists(parts);
        parallel_for(parts, w.threads, [&](std::size_t t, unsigned) {
            auto& h = hists[t];
            h.fill(0);
            const std::uint64_t lo = t * per, hi = std::min(n, lo + per);
            for (std::uint64_t i = lo; i < hi; ++i)
                ++h[depth_by_rank[i]];
        });
        std::array<std::uint64_t, 256> hist{};
        for (const auto& h : hists)
            for (int s = 0; s < 256; ++s)
                hist[s] += h[s];
        w.begin(info, n > 0 ? sorted_keys[n - 1] : 0, hist, {}, 0);
        w.add(sorted_keys, depth_by_rank);
        w.end();
    });
}

void TableWriter::begin_layer(const LayerInfo& info, std::uint64_t last_key,
                              const std::array<std::uint64_t, 256>& value_histogram,
                              const fs::path& spill_dir, std::size_t spill_chunk) {
    Impl& w = *impl_;
    w.check_open("begin_layer");
    if (w.layer || w.encoded)
        throw std::logic_error("TableWriter::begin_layer: a streamed layer is open");
    w.layer_step([&] {
        if (spill_chunk == 0)
            throw std::invalid_argument("TableWriter::begin_layer: spill_chunk 0");
        w.begin(info, last_key, value_histogram, spill_dir, spill_chunk);
    });
}

void TableWriter::add_to_layer(std::span<const std::uint64_t> sorted_keys,
                               std::span<const std::uint8_t> depth_by_rank) {
    Impl& w = *impl_;
    w.check_open("add_to_layer");
    if (!w.layer) throw std::logic_error("TableWriter::add_to_layer: no layer begun");
    w.layer_step([&] { w.add(sorted_keys, depth_by_rank); });
}

void TableWriter::end_layer() {
    Impl& w = *impl_;
    w.check_open("end_layer");
    if (!w.layer) throw std::logic_error("TableWriter::end_layer: no layer begun");
    w.layer_step([&] { w.end(); });
}

std::uint64_t TableWriter::header_checksum() const {
    return impl_->header_xxh;
}

void TableWriter::begin_encoded_layer(const LayerInfo& info, std::span<const std::uint8_t> entry) {
    Impl& w = *impl_;
    w.check_open("begin_encoded_layer");
    if (w.layer || w.encoded)
        throw std::logic_error("TableWriter::begin_encoded_layer: a layer is open");
    const std::string where =
        "TableWriter::begin_encoded_layer(" + std::to_string(info.pieces) + " pieces): ";
    w.check_next(info, where);
    if (entry.size() != kLayerEntrySize)
        throw std::invalid_argument(where + "an entry of " + std::to_string(entry.size()) +
                                    " bytes");
    const std::uint8_t* e = entry.data();
    const std::uint64_t dir_size = le64(e + lte::dir_size);
    if (le32(e + lte::pieces) != info.pieces || le64(e + lte::classes) != info.classes ||
        le64(e + lte::raw) != info.raw || le64(e + lte::dir_offset) != w.pos ||
        le64(e + lte::blocks_offset) != w.pos + dir_size)
        throw std::invalid_argument(where + "the entry does not describe this layer at offset " +
                                    std::to_string(w.pos));
    w.encoded =
        Impl::Encoded{info, {entry.begin(), entry.end()}, dir_size + le64(e + lte::blocks_size)};
}

void TableWriter::append_encoded(std::span<const std::uint8_t> bytes) {
    Impl& w = *impl_;
    w.check_open("append_encoded");
    if (!w.encoded) throw std::logic_error("TableWriter::append_encoded: no encoded layer begun");
    w.layer_step([&] {
        if (bytes.size() > w.encoded->left) {
            w.encoded.reset();
            w.discard();
            throw std::invalid_argument("TableWriter::append_encoded: more bytes than the layer's");
        }
        w.write(bytes.data(), bytes.size());
        w.encoded->left -= bytes.size();
    });
}

void TableWriter::end_encoded_layer() {
    Impl& w = *impl_;
    w.check_open("end_encoded_layer");
    if (!w.encoded)
        throw std::logic_error("TableWriter::end_encoded_layer: no encoded layer begun");
    if (w.encoded->left != 0) {
        const std::uint64_t left = w.encoded->left;
        w.encoded.reset();
        w.discard();
        throw std::invalid_argument("TableWriter::end_encoded_layer: " + std::to_string(left) +
                                    " bytes of the layer missing");
    }
    w.layer_table.insert(w.layer_table.end(), w.encoded->entry.begin(), w.encoded->entry.end());
    w.last_pieces = w.encoded->info.pieces;
    ++w.layer_count;
    w.encoded.reset();
}

void TableWriter::commit() {
    Impl& w = *impl_;
    if (w.state == Impl::State::committed)
        throw std::logic_error("TableWriter::commit: already committed");
    if (w.state == Impl::State::failed)
        throw std::logic_error("TableWriter::commit: writer failed earlier");
    if (w.layer_count == 0) throw std::logic_error("TableWriter::commit: no layer added");
    if (w.layer || w.encoded) throw std::logic_error("TableWriter::commit: a layer is open");

    const std::uint64_t lt_offset = w.pos;
    w.write(w.layer_table.data(), w.layer_table.size());

    std::array<std::uint8_t, kTrailerSize> t{};
    std::memcpy(t.data() + trl::magic, kTrailerMagic, 8);
    put64(t.data() + trl::file_size, w.pos + kTrailerSize);
    put32(t.data() + trl::layer_count, static_cast<std::uint32_t>(w.layer_count));
    put64(t.data() + trl::lt_offset, lt_offset);
    put64(t.data() + trl::lt_size, w.layer_table.size());
    put64(t.data() + trl::lt_xxh, xxh3_64(w.layer_table.data(), w.layer_table.size()));
    put64(t.data() + trl::header_xxh, w.header_xxh);  // binds the header to the rest
    XXH3_128bits_update(w.file_hash.get(), t.data(), trl::file_xxh128_lo);
    const XXH128_hash_t fh = XXH3_128bits_digest(w.file_hash.get());
    put64(t.data() + trl::file_xxh128_lo, fh.low64);
    put64(t.data() + trl::file_xxh128_hi, fh.high64);
    put64(t.data() + trl::checksum, xxh3_64(t.data(), trl::checksum));
    w.write(t.data(), t.size(), false);
    w.flush();

    try {
        w.file->commit();
    } catch (const process::AtomicFileError& e) {
        if (e.step == "fsync directory") {
            // The complete table is already under its final name here.
            w.state = Impl::State::committed;
            throw IoError(std::string(e.what()) +
                          " (the table is complete but the rename may not be durable)");
        }
        if (e.step == "replace") {
            w.discard();
            throw IoError(std::string(e.what()) + " (temporary file " + w.tmp_path.string() +
                          " removed)");
        }
        w.fail(e.step, e.error);
    }
    w.state = Impl::State::committed;
}

}  // namespace konane::format
