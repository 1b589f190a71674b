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

#include "format/block.hpp"
#include "format/detail.hpp"
#include "format/table.hpp"
#include "format/values.hpp"
#include "format/xxh.hpp"
#include "index/colex.hpp"
#include "index/elias_fano.hpp"
#include "process/cleanup.hpp"

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
    std::vector<std::uint8_t> layer_table;
    std::optional<std::uint32_t> last_pieces;
    std::size_t layer_count = 0;
    int cleanup_handle = -1;  // registration for removal on SIGINT/SIGTERM (process/cleanup.hpp)

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
        process::unregister_temporary(cleanup_handle);
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

    for (int attempt = 0;; ++attempt) {
        const fs::path tmp = process::temporary_path(final_path, random_suffix());
        // Registered before it exists, so that a signal right after the open removes it too.
        const int handle = process::register_temporary(tmp);
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
        process::unregister_temporary(handle);
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
    if (::lseek(w.fd, 0, SEEK_SET) != 0) w.fail("seek", errno);
    w.write(h.data(), h.size());
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

    // 1. The layer's geometry: its universe of ranks (index/colex.hpp), low bits, buckets and
    // blocks (FORMAT.md §4.1).
    std::uint64_t universe = 0;
    if (n > 0) {
        check_key(n - 1);
        universe = index::key_rank(keys[n - 1], squares) + 1;
    }
    auto not_ascending = [&](std::uint64_t i) {
        return std::invalid_argument(where + "keys are not ascending and distinct at " +
                                     std::to_string(i));
    };
    if (universe < n) throw not_ascending(n - 1);  // n distinct ranks below u need u >= n
    const LayerGeometry geo =
        LayerGeometry::make(n, universe, w.meta.block_buckets, w.meta.value_group);

    // 2. A canonical Huffman code of the layer's depths (format/values.hpp).
    std::array<std::uint8_t, 256> lengths{};
    std::array<std::uint32_t, 256> codes{};
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
    }

    // 3. The blocks, in order: the keys are ranked in parallel batches, each element goes to
    // the block of its bucket, and a block is encoded once the next element is past it.
    std::vector<std::uint8_t> blocks;
    blocks.reserve(static_cast<std::size_t>(
        std::min<std::uint64_t>(n / 8 * (geo.ef.l + 7) + 64 * geo.blocks, std::uint64_t{1} << 32)));
    std::vector<std::uint64_t> dir_off, dir_first;  // directory entries 0..J
    dir_off.reserve(static_cast<std::size_t>(geo.blocks + 1));
    dir_first.reserve(static_cast<std::size_t>(geo.blocks + 1));
    std::uint64_t value_bits = 0, group_bytes = 0;
    {
        std::vector<std::uint64_t> block_ranks;
        std::vector<std::uint8_t> block_depths, scratch;
        std::uint64_t cur = 0, first = 0;             // the block being filled, its first element
        auto encode_until = [&](std::uint64_t end) {  // blocks cur .. end-1
            for (; cur < end; ++cur) {
                dir_off.push_back(blocks.size());
                dir_first.push_back(first);
                encode_block(geo, cur, block_ranks, block_depths, lengths, codes, blocks, scratch,
                             value_bits, group_bytes);
                first += block_ranks.size();
                block_ranks.clear();
                block_depths.clear();
            }
        };
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
                // Checked before the rank picks a block: an unsorted key past the last one's
                // rank would otherwise ask for blocks past the layer's end.
                if (ranks[i] >= universe ||
                    (b0 + i > 0 &&
                     ranks[i] <= (i > 0 ? ranks[i - 1] : index::key_rank(keys[b0 - 1], squares))))
                    throw not_ascending(b0 + i);
                const std::uint64_t j = (ranks[i] >> geo.ef.l) / geo.q;
                encode_until(j);
                block_ranks.push_back(ranks[i]);
                block_depths.push_back(depth[b0 + i]);
            }
        }
        encode_until(geo.blocks);
        if (n > 0) {
            dir_off.push_back(blocks.size());
            dir_first.push_back(n);
        }
    }
    const std::uint64_t total = blocks.size();
    const std::uint64_t blocks_size = n > 0 ? align8(total + kBlockTail) : 0;
    const unsigned width = n == 0 ? 0
                           : blocks_size <= (std::uint64_t{1} << 32) && n < (std::uint64_t{1} << 32)
                               ? 4
                               : 8;
    const std::uint64_t dir_size = n > 0 ? align8((geo.blocks + 1) * 2 * width) : 0;

    // 4. The layer's entry (FORMAT.md §5), then the blocks' checks, seeded by it.
    std::array<std::uint8_t, kLayerEntrySize> e{};
    put32(e.data() + lte::pieces, info.pieces);
    put32(e.data() + lte::low_bits, geo.ef.l);
    put64(e.data() + lte::classes, info.classes);
    put64(e.data() + lte::raw, info.raw);
    put64(e.data() + lte::universe, universe);
    put64(e.data() + lte::value_bits, value_bits);
    put64(e.data() + lte::group_bytes, group_bytes);
    put32(e.data() + lte::entry_width, width);
    put64(e.data() + lte::dir_offset, w.pos);
    put64(e.data() + lte::dir_size, dir_size);
    put64(e.data() + lte::blocks_offset, w.pos + dir_size);
    put64(e.data() + lte::blocks_size, blocks_size);
    if (n > 0) std::memcpy(e.data() + lte::code, lengths.data(), lengths.size());
    const std::uint64_t layer_key = xxh3_64_seeded(e.data(), e.size(), w.header_xxh);
    parallel_for((geo.blocks + 4095) / 4096, threads, [&](std::size_t t, unsigned) {
        const std::uint64_t lo = t * 4096, hi = std::min(geo.blocks, lo + 4096);
        for (std::uint64_t j = lo; j < hi; ++j) {
            const std::uint64_t seed = block_seed(layer_key, j, dir_off[j], dir_first[j],
                                                  dir_off[j + 1], dir_first[j + 1]);
            std::uint8_t* b = blocks.data() + dir_off[j];
            put32(b, block_check(b, dir_off[j + 1] - dir_off[j], seed));
        }
    });

    // 5. Write the directory and the blocks, each padded to a multiple of 8 bytes.
    if (n > 0) {
        std::vector<std::uint8_t> dir(static_cast<std::size_t>(dir_size), 0);
        for (std::uint64_t j = 0; j <= geo.blocks; ++j) {
            store_le(dir.data() + j * 2 * width, dir_off[j], width);
            store_le(dir.data() + j * 2 * width + width, dir_first[j], width);
        }
        w.write(dir.data(), dir.size());
        blocks.resize(static_cast<std::size_t>(blocks_size), 0);
        w.write(blocks.data(), blocks.size());
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

    if (::fsync(w.fd) != 0) w.fail("fsync", errno);
    const int fd = w.fd;
    w.fd = -1;
    if (::close(fd) != 0) w.fail("close", errno);
    if (::rename(w.tmp_path.c_str(), w.final_path.c_str()) != 0) w.fail("rename", errno);
    w.state = Impl::State::committed;
    process::unregister_temporary(w.cleanup_handle);
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
