// TableWriter: streams a table to a temporary file beside the target, then fsync + rename.
// Layout: format/FORMAT.md.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <optional>
#include <random>
#include <system_error>

#include "format/cleanup.hpp"
#include "format/detail.hpp"
#include "format/table.hpp"

namespace konane::format {

namespace fs = std::filesystem;
using namespace detail;

namespace {

/// Raw bytes handed to the compressor per batch (bounds the writer's extra memory).
constexpr std::size_t kBatchRawBytes = std::size_t{32} << 20;
/// Size of the sequential write buffer.
constexpr std::size_t kWriteBuffer = std::size_t{1} << 20;

std::string random_suffix() {
    std::random_device rd;
    const std::uint64_t r = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
    char buf[17];
    static const char* hex = "0123456789abcdef";
    for (int i = 0; i < 16; ++i)
        buf[i] = hex[(r >> (4 * i)) & 15];
    buf[16] = 0;
    return buf;
}

struct CCtxDeleter {
    void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};
struct XXH3Deleter {
    void operator()(XXH3_state_t* s) const { XXH3_freeState(s); }
};

}  // namespace

struct TableWriter::Impl {
    enum class State { open, failed, committed };

    fs::path final_path;
    fs::path tmp_path;
    TableMeta meta;
    unsigned threads = 1;
    int fd = -1;
    State state = State::open;
    std::uint64_t pos = 0;  // logical bytes written (buffered or not)
    std::vector<std::uint8_t> buf;
    std::unique_ptr<XXH3_state_t, XXH3Deleter> file_hash;
    std::unique_ptr<XXH3_state_t, XXH3Deleter> section_hash;
    std::vector<std::uint8_t> layer_table;
    std::vector<std::uint8_t> block_index;
    std::uint64_t blocks = 0;
    std::optional<std::uint32_t> last_pieces;
    std::size_t layer_count = 0;
    std::vector<std::unique_ptr<ZSTD_CCtx, CCtxDeleter>> cctx;
    int cleanup_handle = -1;  // registration for removal on SIGINT/SIGTERM (format/cleanup.hpp)

    ~Impl() { discard(); }

    void append_layer(const LayerInfo& info, std::span<const std::uint8_t> mphf_blob,
                      std::span<const std::uint16_t> fingerprints,
                      std::span<const std::uint8_t> values);

    /// Closes and removes the temporary file (no-op if there is none). Never throws.
    void discard() noexcept {
        if (fd >= 0) {
            ::close(fd);
            fd = -1;
        }
        if (state == State::open && !tmp_path.empty()) ::unlink(tmp_path.c_str());
        if (state == State::open) state = State::failed;
        unregister_temporary(cleanup_handle);
        cleanup_handle = -1;
    }

    [[noreturn]] void fail(const std::string& what, int err) {
        discard();
        throw IoError(final_path.string() + ": " + what + ": " + std::strerror(err) +
                      " (temporary file " + tmp_path.string() + " removed)");
    }

    void raw_write(const std::uint8_t* p, std::size_t n) {
        while (n > 0) {
            const ssize_t w = ::write(fd, p, std::min<std::size_t>(n, std::size_t{1} << 30));
            if (w < 0) {
                if (errno == EINTR) continue;
                fail("write", errno);
            }
            if (w == 0) fail("write", ENOSPC);
            p += w;
            n -= static_cast<std::size_t>(w);
        }
    }

    void flush() {
        if (!buf.empty()) {
            raw_write(buf.data(), buf.size());
            buf.clear();
        }
    }

    /// Appends bytes to the file; updates the whole-file hash (and the section hash if asked).
    void write(const void* data, std::size_t n, bool hash_file = true, bool hash_section = false) {
        const auto* p = static_cast<const std::uint8_t*>(data);
        if (hash_file) XXH3_128bits_update(file_hash.get(), p, n);
        if (hash_section) XXH3_64bits_update(section_hash.get(), p, n);
        if (buf.size() + n > kWriteBuffer) flush();
        if (n >= kWriteBuffer) {
            raw_write(p, n);
        } else {
            buf.insert(buf.end(), p, p + n);
        }
        pos += n;
    }

    void pad8() {
        static const std::uint8_t zeros[8] = {};
        write(zeros, align8(pos) - pos);
    }

    struct Section {
        std::uint64_t offset = 0, size = 0, first = 0, count = 0, xxh = 0;
    };

    /// Compresses `n` slots of `width` bytes each, produced by get(slot_begin, slot_end, dst),
    /// in blocks of `per_block` slots, and writes them. Parallel in batches; the output does
    /// not depend on the thread count.
    template <class Get>
    Section write_section(std::uint64_t n, unsigned width, std::uint32_t per_block, int level,
                          Get&& get) {
        Section s;
        s.offset = pos;
        s.first = blocks;
        s.count = width == 0 ? 0 : block_count(n, per_block);
        XXH3_64bits_reset(section_hash.get());
        if (s.count == 0) {
            s.xxh = XXH3_64bits_digest(section_hash.get());
            return s;
        }
        const std::size_t block_bytes = std::size_t{per_block} * width;
        const std::size_t batch = std::max<std::size_t>(threads, kBatchRawBytes / block_bytes);
        const std::size_t cap = ZSTD_compressBound(block_bytes);
        std::vector<std::vector<std::uint8_t>> out(std::min<std::uint64_t>(batch, s.count));
        std::vector<std::uint64_t> out_xxh(out.size());
        std::vector<std::vector<std::uint8_t>> scratch(threads);
        for (std::uint64_t b0 = 0; b0 < s.count; b0 += batch) {
            const std::size_t nb =
                static_cast<std::size_t>(std::min<std::uint64_t>(batch, s.count - b0));
            parallel_for(nb, threads, [&](std::size_t i, unsigned w) {
                const std::uint64_t b = b0 + i;
                const std::uint64_t lo = b * per_block;
                const std::uint64_t hi = std::min<std::uint64_t>(n, lo + per_block);
                const std::size_t len = static_cast<std::size_t>(hi - lo) * width;
                auto& src = scratch[w];
                src.resize(block_bytes);
                const std::uint8_t* in = get(lo, hi, src.data());
                auto& dst = out[i];
                dst.resize(cap);
                const std::size_t r =
                    ZSTD_compressCCtx(cctx[w].get(), dst.data(), dst.size(), in, len, level);
                if (ZSTD_isError(r))
                    throw FormatError(final_path.string() + ": compress: " + ZSTD_getErrorName(r));
                dst.resize(r);
                out_xxh[i] = xxh3_64(dst.data(), dst.size());
            });
            for (std::size_t i = 0; i < nb; ++i) {
                const std::uint64_t b = b0 + i;
                const std::uint64_t lo = b * per_block;
                const std::uint64_t hi = std::min<std::uint64_t>(n, lo + per_block);
                std::array<std::uint8_t, kBlockEntrySize> e{};
                put64(e.data() + bie::offset, pos);
                put32(e.data() + bie::stored, static_cast<std::uint32_t>(out[i].size()));
                put32(e.data() + bie::raw, static_cast<std::uint32_t>((hi - lo) * width));
                put64(e.data() + bie::xxh, out_xxh[i]);
                block_index.insert(block_index.end(), e.begin(), e.end());
                ++blocks;
                write(out[i].data(), out[i].size(), true, true);
                s.size += out[i].size();
            }
        }
        s.xxh = XXH3_64bits_digest(section_hash.get());
        return s;
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
    w.section_hash.reset(XXH3_createState());
    if (!w.file_hash || !w.section_hash) throw std::bad_alloc();
    XXH3_128bits_reset(w.file_hash.get());
    for (unsigned i = 0; i < w.threads; ++i) {
        w.cctx.emplace_back(ZSTD_createCCtx());
        if (!w.cctx.back()) throw std::bad_alloc();
    }
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

    for (int attempt = 0;; ++attempt) {
        fs::path tmp = final_path;
        tmp += ".tmp." + random_suffix();
        const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd >= 0) {
            w.fd = fd;
            w.tmp_path = tmp;
            w.cleanup_handle = register_temporary(tmp);
            break;
        }
        const int err = errno;
        if (err == EEXIST && attempt < 8) continue;
        throw IoError(final_path.string() + ": create temporary file " + tmp.string() + ": " +
                      std::strerror(err));
    }

    std::array<std::uint8_t, kHeaderSize> h{};
    std::memcpy(h.data() + hdr::magic, kMagic, 8);
    put32(h.data() + hdr::version, kFormatVersion);
    put32(h.data() + hdr::header_size, kHeaderSize);
    h[hdr::rows] = static_cast<std::uint8_t>(meta.rows);
    h[hdr::cols] = static_cast<std::uint8_t>(meta.cols);
    h[hdr::fp_bits] = static_cast<std::uint8_t>(meta.fingerprint_bits);
    put32(h.data() + hdr::value_block_slots, meta.value_block_slots);
    put32(h.data() + hdr::fp_block_slots, meta.fingerprint_block_slots);
    put32(h.data() + hdr::value_level, static_cast<std::uint32_t>(meta.value_level));
    put32(h.data() + hdr::fp_level, static_cast<std::uint32_t>(meta.fingerprint_level));
    std::memcpy(h.data() + hdr::ruleset, meta.ruleset.data(), meta.ruleset.size());
    std::memcpy(h.data() + hdr::generator, meta.generator.data(), meta.generator.size());
    put64(h.data() + hdr::checksum, xxh3_64(h.data(), hdr::checksum));
    w.write(h.data(), h.size());
    w.flush();
}

TableWriter::~TableWriter() = default;

std::uint64_t TableWriter::bytes_written() const {
    return impl_->pos;
}

void TableWriter::add_layer(const LayerInfo& info, std::span<const std::uint8_t> mphf_blob,
                            std::span<const std::uint16_t> fingerprints,
                            std::span<const std::uint8_t> values) {
    Impl& w = *impl_;
    if (w.state == Impl::State::committed)
        throw std::logic_error("TableWriter::add_layer: table already committed");
    if (w.state == Impl::State::failed)
        throw std::logic_error("TableWriter::add_layer: writer failed earlier");
    const std::string where =
        "TableWriter::add_layer(" + std::to_string(info.pieces) + " pieces): ";
    if (w.layer_count >= kMaxLayers) throw std::invalid_argument(where + "more than 64 layers");
    if (w.last_pieces && info.pieces <= *w.last_pieces)
        throw std::invalid_argument(where + "piece counts must strictly increase (previous " +
                                    std::to_string(*w.last_pieces) + ")");
    if (info.pieces > w.meta.rows * w.meta.cols)
        throw std::invalid_argument(where + "more pieces than squares");
    if (info.raw < info.classes) throw std::invalid_argument(where + "raw count < classes");
    if (info.classes > (std::uint64_t{1} << 48))
        throw std::invalid_argument(where + "more than 2^48 classes");
    if (values.size() != info.classes)
        throw std::invalid_argument(where + "values span has " + std::to_string(values.size()) +
                                    " entries, expected " + std::to_string(info.classes));
    const std::uint64_t want_fp = w.meta.fingerprint_bits == 0 ? 0 : info.classes;
    if (fingerprints.size() != want_fp)
        throw std::invalid_argument(where + "fingerprints span has " +
                                    std::to_string(fingerprints.size()) + " entries, expected " +
                                    std::to_string(want_fp));
    if (mphf_blob.size() % 8 != 0)
        throw std::invalid_argument(where + "MPHF blob size is not a multiple of 8");
    if (w.meta.fingerprint_bits == 8 && std::any_of(fingerprints.begin(), fingerprints.end(),
                                                    [](std::uint16_t f) { return f > 255; }))
        throw std::invalid_argument(where + "fingerprint does not fit in 8 bits");

    try {
        w.append_layer(info, mphf_blob, fingerprints, values);
    } catch (...) {
        w.discard();  // I/O error (already discarded) or e.g. std::bad_alloc mid-layer
        throw;
    }
}

void TableWriter::Impl::append_layer(const LayerInfo& info, std::span<const std::uint8_t> mphf_blob,
                                     std::span<const std::uint16_t> fingerprints,
                                     std::span<const std::uint8_t> values) {
    Impl& w = *this;
    const std::uint64_t want_fp = w.meta.fingerprint_bits == 0 ? 0 : info.classes;
    std::array<std::uint8_t, kLayerEntrySize> e{};
    put32(e.data() + lte::pieces, info.pieces);
    put64(e.data() + lte::classes, info.classes);
    put64(e.data() + lte::raw, info.raw);

    // MPHF blob: uncompressed, at an 8-aligned offset (pos is kept 8-aligned between layers).
    put64(e.data() + lte::mphf_offset, w.pos);
    put64(e.data() + lte::mphf_size, mphf_blob.size());
    put64(e.data() + lte::mphf_xxh, xxh3_64(mphf_blob.data(), mphf_blob.size()));
    w.write(mphf_blob.data(), mphf_blob.size());

    const unsigned width = fp_bytes(w.meta.fingerprint_bits);
    const auto fp = w.write_section(
        want_fp, width, w.meta.fingerprint_block_slots, w.meta.fingerprint_level,
        [&](std::uint64_t lo, std::uint64_t hi, std::uint8_t* dst) -> const std::uint8_t* {
            for (std::uint64_t i = lo; i < hi; ++i)
                store_le(dst + (i - lo) * width, fingerprints[i], width);
            return dst;
        });
    put64(e.data() + lte::fp_offset, fp.offset);
    put64(e.data() + lte::fp_size, fp.size);
    put64(e.data() + lte::fp_first, fp.first);
    put64(e.data() + lte::fp_count, fp.count);
    put64(e.data() + lte::fp_xxh, fp.xxh);

    const auto val = w.write_section(
        info.classes, 1, w.meta.value_block_slots, w.meta.value_level,
        [&](std::uint64_t lo, std::uint64_t, std::uint8_t*) { return values.data() + lo; });
    put64(e.data() + lte::val_offset, val.offset);
    put64(e.data() + lte::val_size, val.size);
    put64(e.data() + lte::val_first, val.first);
    put64(e.data() + lte::val_count, val.count);
    put64(e.data() + lte::val_xxh, val.xxh);

    w.pad8();
    w.layer_table.insert(w.layer_table.end(), e.begin(), e.end());
    w.last_pieces = info.pieces;
    ++w.layer_count;
}

void TableWriter::commit() {
    Impl& w = *impl_;
    if (w.state == Impl::State::committed)
        throw std::logic_error("TableWriter::commit: already committed");
    if (w.state == Impl::State::failed)
        throw std::logic_error("TableWriter::commit: writer failed earlier");
    if (w.layer_count == 0) throw std::logic_error("TableWriter::commit: no layer added");

    const std::uint64_t lt_offset = w.pos;  // 8-aligned
    w.write(w.layer_table.data(), w.layer_table.size());
    const std::uint64_t bi_offset = w.pos;
    w.write(w.block_index.data(), w.block_index.size());

    std::array<std::uint8_t, kTrailerSize> t{};
    std::memcpy(t.data() + trl::magic, kTrailerMagic, 8);
    put64(t.data() + trl::file_size, w.pos + kTrailerSize);
    put32(t.data() + trl::layer_count, static_cast<std::uint32_t>(w.layer_count));
    put64(t.data() + trl::lt_offset, lt_offset);
    put64(t.data() + trl::lt_size, w.layer_table.size());
    put64(t.data() + trl::bi_offset, bi_offset);
    put64(t.data() + trl::bi_size, w.block_index.size());
    put64(t.data() + trl::lt_xxh, xxh3_64(w.layer_table.data(), w.layer_table.size()));
    put64(t.data() + trl::bi_xxh, xxh3_64(w.block_index.data(), w.block_index.size()));
    XXH3_128bits_update(w.file_hash.get(), t.data(), trl::file_xxh128_lo);
    const XXH128_hash_t fh = XXH3_128bits_digest(w.file_hash.get());
    put64(t.data() + trl::file_xxh128_lo, fh.low64);
    put64(t.data() + trl::file_xxh128_hi, fh.high64);
    put64(t.data() + trl::checksum, xxh3_64(t.data(), trl::checksum));
    w.write(t.data(), t.size(), false);
    w.flush();

    if (::fsync(w.fd) != 0) w.fail("fsync", errno);
    const int fd = w.fd;
    w.fd = -1;
    if (::close(fd) != 0) w.fail("close", errno);
    if (::rename(w.tmp_path.c_str(), w.final_path.c_str()) != 0) w.fail("rename", errno);
    w.state = Impl::State::committed;
    unregister_temporary(w.cleanup_handle);
    w.cleanup_handle = -1;

    // Make the rename durable. The complete table is already under its final name here.
    fs::path dir = w.final_path.parent_path();
    if (dir.empty()) dir = ".";
    const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        const int r = ::fsync(dfd);
        const int err = errno;
        ::close(dfd);
        if (r != 0 && err != EINVAL && err != EROFS)
            throw IoError(w.final_path.string() + ": fsync directory " + dir.string() + ": " +
                          std::strerror(err) +
                          " (the table is complete but the rename may not be durable)");
    }
}

}  // namespace konane::format
