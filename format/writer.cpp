// TableWriter: streams a table to a temporary file beside the target, then fsync + rename.
// Layout: format/FORMAT.md.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
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

    ~Impl();

    struct Layer;
    std::unique_ptr<Layer> layer;  // the layer being added (begin_layer .. end_layer)

    void begin(const LayerInfo& info, std::uint64_t last_key,
               const std::array<std::uint64_t, 256>& hist, const fs::path& spill_dir,
               std::size_t spill_chunk);
    void add(std::span<const std::uint64_t> keys, std::span<const std::uint8_t> depth);
    void end();
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

namespace {

/// Bytes appended in order and read back in order once: with a spill file (spill()), all but
/// the last `limit` or so live in an anonymous file (unlinked as soon as it is created, so no
/// exit leaves it behind); without one, all of them stay in memory.
class SpillBytes {
  public:
    SpillBytes() = default;
    SpillBytes(const SpillBytes&) = delete;
    SpillBytes& operator=(const SpillBytes&) = delete;
    ~SpillBytes() {
        if (fd_ >= 0) ::close(fd_);
    }

    /// Spills to an anonymous file in `dir` from now on. Throws IoError naming `dir`.
    void spill(const fs::path& dir) {
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
    /// The bytes not yet spilled; append to it, then call flush_if().
    std::vector<std::uint8_t>& tail() { return tail_; }
    /// Bytes appended so far.
    std::uint64_t size() const { return in_file_ + tail_.size(); }
    /// Moves the tail to the file once it holds `limit` bytes or more (no-op without a file).
    void flush_if(std::size_t limit) {
        if (fd_ < 0 || tail_.size() < limit) return;
        std::size_t done = 0;
        while (done < tail_.size()) {
            const ssize_t w = ::pwrite(fd_, tail_.data() + done, tail_.size() - done,
                                       static_cast<off_t>(in_file_ + done));
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) {
                throw IoError(dir_.string() + ": write a layer's spill file: " +
                              std::strerror(w < 0 ? errno : ENOSPC));
            }
            done += static_cast<std::size_t>(w);
        }
        in_file_ += tail_.size();
        tail_.clear();
    }
    /// Copies bytes [at, at + n) to `out`.
    void read(std::uint64_t at, std::uint8_t* out, std::size_t n) const {
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
        if (n > 0) std::memcpy(out, tail_.data() + (at - in_file_), n);
    }

  private:
    int fd_ = -1;
    fs::path dir_;
    std::uint64_t in_file_ = 0;
    std::vector<std::uint8_t> tail_;
};

/// Blocks whose checks are computed and written at a time (FORMAT.md §4.3).
constexpr std::uint64_t kCheckGroup = 4096;

}  // namespace

/// The layer being added: its geometry and code, the block being filled, the encoded blocks
/// (checks left 0) and the directory (two u64 per entry: offset, first element).
struct TableWriter::Impl::Layer {
    LayerInfo info;
    std::string where;
    LayerGeometry geo;
    std::uint64_t universe = 0;
    std::array<std::uint8_t, 256> lengths{};
    std::array<std::uint32_t, 256> codes{};
    std::array<std::uint64_t, 256> hist{}, seen{};
    std::uint64_t added = 0;           // elements added so far
    std::uint64_t prev_rank = 0;       // the last one's rank
    std::uint64_t cur = 0, first = 0;  // the block being filled, its first element
    std::vector<std::uint64_t> block_ranks, ranks;
    std::vector<std::uint8_t> block_depths, scratch;
    std::uint64_t value_bits = 0, group_bytes = 0;
    SpillBytes blocks, dir;
    std::size_t limit = SIZE_MAX;  // tail bytes that go to the spill files

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
            put64(e, blocks.size());
            put64(e + 8, first);
            dir.tail().insert(dir.tail().end(), e, e + 16);
            encode_block(geo, cur, block_ranks, block_depths, lengths, codes, blocks.tail(),
                         scratch, value_bits, group_bytes);
            first += block_ranks.size();
            block_ranks.clear();
            block_depths.clear();
            blocks.flush_if(limit);
            dir.flush_if(limit);
        }
    }
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

void TableWriter::Impl::begin(const LayerInfo& info, std::uint64_t last_key,
                              const std::array<std::uint64_t, 256>& hist, const fs::path& spill_dir,
                              std::size_t spill_chunk) {
    Impl& w = *this;
    auto L = std::make_unique<Layer>();
    L->info = info;
    L->where = "TableWriter::add_layer(" + std::to_string(info.pieces) + " pieces): ";
    const std::string& where = L->where;
    if (w.layer_count >= kMaxLayers) throw std::invalid_argument(where + "more than 64 layers");
    if (w.last_pieces && info.pieces <= *w.last_pieces)
        throw std::invalid_argument(where + "piece counts must strictly increase (previous " +
                                    std::to_string(*w.last_pieces) + ")");
    if (info.pieces > w.meta.rows * w.meta.cols)
        throw std::invalid_argument(where + "more pieces than squares");
    if (info.raw < info.classes) throw std::invalid_argument(where + "raw count < classes");
    std::uint64_t total = 0;
    for (const std::uint64_t h : hist)
        total += h;
    if (total != info.classes)
        throw std::invalid_argument(where + "the values' histogram counts " +
                                    std::to_string(total) + " values, expected " +
                                    std::to_string(info.classes));
    const unsigned squares = w.meta.rows * w.meta.cols;
    const std::uint64_t n = info.classes;

    // 1. The layer's geometry: its universe of ranks (index/colex.hpp), low bits, buckets and
    // blocks (FORMAT.md §4.1).
    if (n > 0) {
        L->check_key(n - 1, last_key, squares);
        L->universe = index::key_rank(last_key, squares) + 1;
    }
    if (L->universe < n) throw L->not_ascending(n - 1);  // n distinct ranks below u need u >= n
    L->geo = LayerGeometry::make(n, L->universe, w.meta.block_buckets, w.meta.value_group);

    // 2. A canonical Huffman code of the layer's depths (format/values.hpp).
    L->hist = hist;
    if (n > 0) {
        L->lengths = huffman_lengths(hist);
        if (const std::string why = canonical_codes(L->lengths, L->codes); !why.empty())
            throw std::logic_error("TableWriter: Huffman code: " + why);
    }
    if (!spill_dir.empty()) {
        L->blocks.spill(spill_dir);
        L->dir.spill(spill_dir);
        L->limit = spill_chunk;
        L->blocks.tail().reserve(std::min<std::size_t>(spill_chunk, kSpillChunk) +
                                 (std::size_t{1} << 16));
    } else {
        L->blocks.tail().reserve(static_cast<std::size_t>(std::min<std::uint64_t>(
            n / 8 * (L->geo.ef.l + 7) + 64 * L->geo.blocks, std::uint64_t{1} << 32)));
        L->dir.tail().reserve(static_cast<std::size_t>((L->geo.blocks + 1) * 16));
    }
    w.layer = std::move(L);
}

void TableWriter::Impl::add(std::span<const std::uint64_t> keys,
                            std::span<const std::uint8_t> depth) {
    Layer& L = *layer;
    const unsigned squares = meta.rows * meta.cols;
    if (keys.size() != depth.size())
        throw std::invalid_argument(L.where + std::to_string(keys.size()) + " keys and " +
                                    std::to_string(depth.size()) + " values");
    if (keys.size() > L.info.classes - L.added)
        throw std::invalid_argument(L.where + "more keys than the layer's " +
                                    std::to_string(L.info.classes) + " classes");
    // 3. The blocks, in order: the keys are ranked in parallel batches, each element goes to
    // the block of its bucket, and a block is encoded once the next element is past it.
    const std::uint64_t n = keys.size();
    L.ranks.resize(static_cast<std::size_t>(std::min<std::uint64_t>(n, kRankBatch)));
    for (std::uint64_t b0 = 0; b0 < n; b0 += kRankBatch) {
        const std::uint64_t nb = std::min<std::uint64_t>(kRankBatch, n - b0);
        const std::uint64_t per = 16384;
        parallel_for((nb + per - 1) / per, threads, [&](std::size_t t, unsigned) {
            const std::uint64_t lo = t * per, hi = std::min(nb, lo + per);
            for (std::uint64_t i = lo; i < hi; ++i) {
                L.check_key(L.added + b0 + i, keys[b0 + i], squares);
                L.ranks[i] = index::key_rank(keys[b0 + i], squares);
            }
        });
        for (std::uint64_t i = 0; i < nb; ++i) {
            // Checked before the rank picks a block: an unsorted key past the last one's
            // rank would otherwise ask for blocks past the layer's end.
            const std::uint64_t at = L.added + b0 + i;
            if (L.ranks[i] >= L.universe || (at > 0 && L.ranks[i] <= L.prev_rank))
                throw L.not_ascending(at);
            L.prev_rank = L.ranks[i];
            const std::uint64_t j = (L.ranks[i] >> L.geo.ef.l) / L.geo.q;
            L.encode_until(j);
            L.block_ranks.push_back(L.ranks[i]);
            L.block_depths.push_back(depth[b0 + i]);
            ++L.seen[depth[b0 + i]];
        }
    }
    L.added += n;
}

void TableWriter::Impl::end() {
    Impl& w = *this;
    Layer& L = *layer;
    const LayerInfo& info = L.info;
    const std::uint64_t n = info.classes;
    const LayerGeometry& geo = L.geo;
    if (L.added != n)
        throw std::invalid_argument(L.where + std::to_string(L.added) + " keys added, expected " +
                                    std::to_string(n));
    if (L.seen != L.hist)
        throw std::invalid_argument(L.where + "the values differ from their histogram");
    if (n > 0 && L.prev_rank + 1 != L.universe)
        throw std::invalid_argument(L.where + "the last key differs from the one announced");
    L.encode_until(geo.blocks);
    if (n > 0) {
        std::uint8_t e[16];
        put64(e, L.blocks.size());
        put64(e + 8, n);
        L.dir.tail().insert(L.dir.tail().end(), e, e + 16);
    }
    const std::uint64_t total = L.blocks.size();
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
    put64(e.data() + lte::universe, L.universe);
    put64(e.data() + lte::value_bits, L.value_bits);
    put64(e.data() + lte::group_bytes, L.group_bytes);
    put32(e.data() + lte::entry_width, width);
    put64(e.data() + lte::dir_offset, w.pos);
    put64(e.data() + lte::dir_size, dir_size);
    put64(e.data() + lte::blocks_offset, w.pos + dir_size);
    put64(e.data() + lte::blocks_size, blocks_size);
    if (n > 0) std::memcpy(e.data() + lte::code, L.lengths.data(), L.lengths.size());
    const std::uint64_t layer_key = xxh3_64_seeded(e.data(), e.size(), w.header_xxh);

    // 5. Write the directory and the blocks, each padded to a multiple of 8 bytes, a group of
    // blocks at a time (read back from the spill files when the layer spilled).
    if (n > 0) {
        const std::uint64_t entries = geo.blocks + 1;
        std::vector<std::uint8_t> raw(static_cast<std::size_t>(kCheckGroup + 1) * 16), out;
        for (std::uint64_t j0 = 0; j0 < entries; j0 += kCheckGroup) {
            const std::uint64_t c = std::min(kCheckGroup, entries - j0);
            L.dir.read(j0 * 16, raw.data(), static_cast<std::size_t>(c * 16));
            out.assign(static_cast<std::size_t>(c * 2 * width), 0);
            for (std::uint64_t k = 0; k < c; ++k) {
                store_le(out.data() + k * 2 * width, le64(raw.data() + k * 16), width);
                store_le(out.data() + k * 2 * width + width, le64(raw.data() + k * 16 + 8), width);
            }
            w.write(out.data(), out.size());
        }
        out.assign(static_cast<std::size_t>(dir_size - entries * 2 * width), 0);
        w.write(out.data(), out.size());

        std::vector<std::uint64_t> off, fst;
        for (std::uint64_t j0 = 0; j0 < geo.blocks; j0 += kCheckGroup) {
            const std::uint64_t c = std::min(kCheckGroup, geo.blocks - j0);
            L.dir.read(j0 * 16, raw.data(), static_cast<std::size_t>((c + 1) * 16));
            off.resize(static_cast<std::size_t>(c + 1));
            fst.resize(static_cast<std::size_t>(c + 1));
            for (std::uint64_t k = 0; k <= c; ++k) {
                off[k] = le64(raw.data() + k * 16);
                fst[k] = le64(raw.data() + k * 16 + 8);
            }
            out.resize(static_cast<std::size_t>(off[c] - off[0]));
            L.blocks.read(off[0], out.data(), out.size());
            parallel_for((c + 255) / 256, threads, [&](std::size_t t, unsigned) {
                const std::uint64_t lo = t * 256, hi = std::min(c, lo + 256);
                for (std::uint64_t k = lo; k < hi; ++k) {
                    const std::uint64_t seed =
                        block_seed(layer_key, j0 + k, off[k], fst[k], off[k + 1], fst[k + 1]);
                    std::uint8_t* b = out.data() + (off[k] - off[0]);
                    put32(b, block_check(b, off[k + 1] - off[k], seed));
                }
            });
            w.write(out.data(), out.size());
        }
        out.assign(static_cast<std::size_t>(blocks_size - total), 0);
        w.write(out.data(), out.size());
    }
    w.layer_table.insert(w.layer_table.end(), e.begin(), e.end());
    w.last_pieces = info.pieces;
    ++w.layer_count;
    layer.reset();
}

void TableWriter::add_layer(const LayerInfo& info, std::span<const std::uint64_t> sorted_keys,
                            std::span<const std::uint8_t> depth_by_rank) {
    Impl& w = *impl_;
    w.check_open("add_layer");
    if (w.layer) throw std::logic_error("TableWriter::add_layer: a streamed layer is open");
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
    if (w.layer) throw std::logic_error("TableWriter::begin_layer: a streamed layer is open");
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

void TableWriter::commit() {
    Impl& w = *impl_;
    if (w.state == Impl::State::committed)
        throw std::logic_error("TableWriter::commit: already committed");
    if (w.state == Impl::State::failed)
        throw std::logic_error("TableWriter::commit: writer failed earlier");
    if (w.layer_count == 0) throw std::logic_error("TableWriter::commit: no layer added");
    if (w.layer) throw std::logic_error("TableWriter::commit: a streamed layer is open");

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
