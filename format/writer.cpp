// TableWriter: streams a table to a temporary file beside the target, then fsync + rename.
// Layout: format/FORMAT.md.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <optional>
#include <system_error>

#include "format/cleanup.hpp"
#include "format/detail.hpp"
#include "format/table.hpp"
#include "format/values.hpp"
#include "format/xxh.hpp"
#include "index/colex.hpp"
#include "index/elias_fano.hpp"

namespace konane::format {

namespace fs = std::filesystem;
using namespace detail;

namespace {

/// Keys ranked per parallel batch (bounds the writer's scratch memory: 8 bytes per key).
constexpr std::size_t kRankBatch = std::size_t{1} << 20;
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
    fs::path tmp_path;
    TableMeta meta;
    unsigned threads = 1;
    int fd = -1;
    State state = State::open;
    std::uint64_t pos = 0;         // logical bytes written (buffered or not)
    std::uint64_t header_xxh = 0;  // the header's checksum, repeated in the trailer
    std::vector<std::uint8_t> buf;
    std::unique_ptr<XXH3_state_t, XXH3Deleter> file_hash;
    std::unique_ptr<XXH3_state_t, XXH3Deleter> chunk_hash;
    bool in_data = false;                   // bytes written now belong to the data area (chunked)
    std::uint64_t chunk_fill = 0;           // bytes of the current chunk hashed so far
    std::vector<std::uint64_t> chunk_sums;  // XXH3-64 of every finished data chunk
    std::vector<std::uint8_t> layer_table;
    std::optional<std::uint32_t> last_pieces;
    std::size_t layer_count = 0;
    int cleanup_handle = -1;  // registration for removal on SIGINT/SIGTERM (format/cleanup.hpp)

    ~Impl() { discard(); }

    void append_layer(const LayerInfo& info, std::span<const std::uint64_t> keys,
                      std::span<const std::uint8_t> depth);

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

    /// Feeds data-area bytes to the chunk checksums (one XXH3-64 per chunk_bytes).
    void hash_chunks(const std::uint8_t* p, std::size_t n) {
        while (n > 0) {
            const std::size_t take =
                static_cast<std::size_t>(std::min<std::uint64_t>(n, meta.chunk_bytes - chunk_fill));
            XXH3_64bits_update(chunk_hash.get(), p, take);
            chunk_fill += take;
            p += take;
            n -= take;
            if (chunk_fill == meta.chunk_bytes) end_chunk();
        }
    }
    void end_chunk() {
        if (chunk_fill == 0) return;
        chunk_sums.push_back(XXH3_64bits_digest(chunk_hash.get()));
        XXH3_64bits_reset(chunk_hash.get());
        chunk_fill = 0;
    }

    /// Appends bytes to the file; updates the whole-file hash (and the chunk hashes in the
    /// data area).
    void write(const void* data, std::size_t n, bool hash_file = true) {
        const auto* p = static_cast<const std::uint8_t*>(data);
        if (hash_file) XXH3_128bits_update(file_hash.get(), p, n);
        if (in_data) hash_chunks(p, n);
        pos += n;
        while (n > 0) {
            const std::size_t take = std::min(n, kWriteBuffer - buf.size());
            buf.insert(buf.end(), p, p + take);
            p += take;
            n -= take;
            if (buf.size() == kWriteBuffer) flush();
        }
    }

    void write_words(const std::vector<std::uint64_t>& w) {
        write(w.data(), w.size() * 8);  // little-endian host (detail.hpp)
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
    w.chunk_hash.reset(XXH3_createState());
    if (!w.file_hash || !w.chunk_hash) throw std::bad_alloc();
    XXH3_64bits_reset(w.chunk_hash.get());
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

    for (int attempt = 0;; ++attempt) {
        const fs::path tmp = temporary_path(final_path, random_suffix());
        // Registered before it exists, so that a signal right after the open removes it too.
        const int handle = register_temporary(tmp);
        const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd >= 0) {
            // Held while it is written: remove_stale_temporaries() leaves a locked file.
            ::flock(fd, LOCK_EX | LOCK_NB);
            w.fd = fd;
            w.tmp_path = tmp;
            w.cleanup_handle = handle;
            break;
        }
        const int err = errno;
        unregister_temporary(handle);
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
    put32(h.data() + hdr::chunk_bytes, meta.chunk_bytes);
    put32(h.data() + hdr::sample_zeros, meta.sample_zeros);
    put32(h.data() + hdr::value_block, meta.value_block);
    put32(h.data() + hdr::value_superblock, meta.value_superblock);
    std::memcpy(h.data() + hdr::ruleset, meta.ruleset.data(), meta.ruleset.size());
    std::memcpy(h.data() + hdr::generator, meta.generator.data(), meta.generator.size());
    put64(h.data() + hdr::checksum, xxh3_64(h.data(), hdr::checksum));
    w.header_xxh = le64(h.data() + hdr::checksum);
    // Written now, so that a full disk or a file size limit fails the writer before any work
    // (the solver creates it first for that); then the file offset goes back to 0 and the
    // header is buffered too, so that the buffer's writes start at offset 0 and stay 2 MiB-
    // aligned (the first rewrites these same bytes).
    w.raw_write(h.data(), h.size());
    if (::lseek(w.fd, 0, SEEK_SET) != 0) w.fail("seek", errno);
    w.write(h.data(), h.size());
    w.in_data = true;  // everything from here to the chunk checksums is the data area
}

TableWriter::~TableWriter() = default;

std::uint64_t TableWriter::bytes_written() const {
    return impl_->pos;
}

void TableWriter::add_layer(const LayerInfo& info, std::span<const std::uint64_t> sorted_keys,
                            std::span<const std::uint8_t> depth_by_rank) {
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
    if (sorted_keys.size() != info.classes)
        throw std::invalid_argument(where + "keys span has " + std::to_string(sorted_keys.size()) +
                                    " entries, expected " + std::to_string(info.classes));
    if (depth_by_rank.size() != info.classes)
        throw std::invalid_argument(where + "values span has " +
                                    std::to_string(depth_by_rank.size()) + " entries, expected " +
                                    std::to_string(info.classes));
    try {
        w.append_layer(info, sorted_keys, depth_by_rank);
    } catch (const std::invalid_argument&) {
        throw;  // nothing written: the writer stays usable
    } catch (...) {
        w.discard();  // I/O error (already discarded) or e.g. std::bad_alloc mid-layer
        throw;
    }
}

void TableWriter::Impl::append_layer(const LayerInfo& info, std::span<const std::uint64_t> keys,
                                     std::span<const std::uint8_t> depth) {
    Impl& w = *this;
    const std::string where =
        "TableWriter::add_layer(" + std::to_string(info.pieces) + " pieces): ";
    const unsigned squares = w.meta.rows * w.meta.cols;
    const std::uint64_t n = keys.size();
    const std::uint64_t board = (std::uint64_t{1} << squares) - 1;
    const std::uint64_t side = std::uint64_t{1} << 63;
    auto check_key = [&](std::uint64_t i) {
        const std::uint64_t k = keys[i];
        if ((k & ~side & ~board) != 0 ||
            static_cast<unsigned>(std::popcount(k & ~side)) != info.pieces)
            throw std::invalid_argument(where + "key " + std::to_string(i) + " (" +
                                        std::to_string(k) + ") is not a position of " +
                                        std::to_string(info.pieces) + " pieces on the board");
    };

    // 1. The Elias-Fano set over the keys' ranks (index/colex.hpp), ranked in parallel batches.
    std::uint64_t universe = 0;
    if (n > 0) {
        check_key(n - 1);
        universe = index::key_rank(keys[n - 1], squares) + 1;
    }
    const auto shape = index::EliasFanoShape::make(n, universe, w.meta.sample_zeros);
    index::EliasFanoBuilder ef(shape);
    {
        std::vector<std::uint64_t> ranks(std::min<std::uint64_t>(n, kRankBatch));
        for (std::uint64_t b0 = 0; b0 < n; b0 += kRankBatch) {
            const std::uint64_t nb = std::min<std::uint64_t>(kRankBatch, n - b0);
            const std::uint64_t per = 16384;
            parallel_for((nb + per - 1) / per, threads, [&](std::size_t t, unsigned) {
                const std::uint64_t lo = t * per, hi = std::min(nb, lo + per);
                for (std::uint64_t i = lo; i < hi; ++i) {
                    check_key(b0 + i);
                    ranks[i] = index::key_rank(keys[b0 + i], squares);
                }
            });
            for (std::uint64_t i = 0; i < nb; ++i) {
                if (b0 + i > 0 &&
                    ranks[i] <= (i > 0 ? ranks[i - 1] : index::key_rank(keys[b0 - 1], squares)))
                    throw std::invalid_argument(where + "keys are not ascending and distinct at " +
                                                std::to_string(b0 + i));
                ef.push(ranks[i]);
            }
        }
        ef.finish();
    }

    // 2. The values: a canonical Huffman code of the layer's depths (format/values.hpp), a
    // directory of bit offsets per superblock and block, the bit stream.
    std::array<std::uint8_t, 256> lengths{};
    std::array<std::uint32_t, 256> codes{};
    std::vector<std::uint8_t> dir;
    BitWriter bits;
    if (n > 0) {
        const std::uint64_t per = 1 << 20;
        const std::size_t parts = static_cast<std::size_t>((n + per - 1) / per);
        std::vector<std::array<std::uint64_t, 256>> hists(parts);
        parallel_for(parts, threads, [&](std::size_t t, unsigned) {
            auto& h = hists[t];
            h.fill(0);
            const std::uint64_t lo = t * per, hi = std::min(n, lo + per);
            for (std::uint64_t i = lo; i < hi; ++i)
                ++h[depth[i]];
        });
        std::array<std::uint64_t, 256> hist{};
        for (const auto& h : hists)
            for (int s = 0; s < 256; ++s)
                hist[s] += h[s];
        lengths = huffman_lengths(hist);
        if (const std::string why = canonical_codes(lengths, codes); !why.empty())
            throw std::logic_error("TableWriter: Huffman code: " + why);
        const std::uint64_t sb = w.meta.value_superblock, vb = w.meta.value_block;
        const std::size_t entry = 8 + 2 * (sb / vb - 1);
        dir.assign(static_cast<std::size_t>(align8(((n + sb - 1) / sb) * entry)), 0);
        std::uint64_t base = 0;
        for (std::uint64_t i = 0; i < n; ++i) {
            if (i % sb == 0) {
                base = bits.bits();
                put64(dir.data() + (i / sb) * entry, base);
            } else if (i % vb == 0) {
                store_le(dir.data() + (i / sb) * entry + 8 + 2 * ((i % sb) / vb - 1),
                         bits.bits() - base, 2);
            }
            bits.put(codes[depth[i]], lengths[depth[i]]);
        }
    }
    const std::uint64_t value_bits = bits.bits();

    // 3. Write the six sections, each a multiple of 8 bytes (so each starts 8-aligned).
    std::array<std::uint8_t, kLayerEntrySize> e{};
    put32(e.data() + lte::pieces, info.pieces);
    put32(e.data() + lte::low_bits, shape.l);
    put64(e.data() + lte::classes, info.classes);
    put64(e.data() + lte::raw, info.raw);
    put64(e.data() + lte::universe, universe);
    put64(e.data() + lte::value_bits, value_bits);
    auto section = [&](Sec s, const void* data, std::size_t size) {
        put64(e.data() + lte::sections + 16 * s, w.pos);
        put64(e.data() + lte::sections + 16 * s + 8, size);
        w.write(data, size);
    };
    section(kEfLow, ef.low().data(), ef.low().size() * 8);
    section(kEfHigh, ef.high().data(), ef.high().size() * 8);
    section(kEfSamples, ef.samples().data(), ef.samples().size() * 8);
    section(kValCode, lengths.data(), n > 0 ? lengths.size() : 0);
    section(kValDir, dir.data(), dir.size());
    if (n > 0) {
        const auto& words = bits.finish();
        section(kValData, words.data(), words.size() * 8);
    } else {
        section(kValData, nullptr, 0);
    }
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

    // End of the data area: the last (partial) chunk, then the two levels of checksums.
    w.end_chunk();
    w.in_data = false;
    const std::uint64_t cs1_offset = w.pos;
    w.write_words(w.chunk_sums);
    const std::uint64_t cs1_size = w.pos - cs1_offset;
    std::vector<std::uint64_t> cs2;
    {
        const auto* p = reinterpret_cast<const std::uint8_t*>(w.chunk_sums.data());
        for (std::uint64_t off = 0; off < cs1_size; off += w.meta.chunk_bytes)
            cs2.push_back(xxh3_64(p + off, static_cast<std::size_t>(std::min<std::uint64_t>(
                                               w.meta.chunk_bytes, cs1_size - off))));
    }
    const std::uint64_t cs2_offset = w.pos;
    w.write_words(cs2);
    const std::uint64_t cs2_size = w.pos - cs2_offset;
    const std::uint64_t lt_offset = w.pos;
    w.write(w.layer_table.data(), w.layer_table.size());

    std::array<std::uint8_t, kTrailerSize> t{};
    std::memcpy(t.data() + trl::magic, kTrailerMagic, 8);
    put64(t.data() + trl::file_size, w.pos + kTrailerSize);
    put32(t.data() + trl::layer_count, static_cast<std::uint32_t>(w.layer_count));
    put64(t.data() + trl::cs1_offset, cs1_offset);
    put64(t.data() + trl::cs1_size, cs1_size);
    put64(t.data() + trl::cs2_offset, cs2_offset);
    put64(t.data() + trl::cs2_size, cs2_size);
    put64(t.data() + trl::lt_offset, lt_offset);
    put64(t.data() + trl::lt_size, w.layer_table.size());
    put64(t.data() + trl::lt_xxh, xxh3_64(w.layer_table.data(), w.layer_table.size()));
    put64(t.data() + trl::cs2_xxh, xxh3_64(cs2.data(), cs2.size() * 8));
    put64(t.data() + trl::header_xxh, w.header_xxh);  // binds the header to the rest
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
