// Reading the data area of format versions 2 and 3 (FORMAT.md §13), to write it again in the
// current version. Version 3's layout, for this reader alone:
//   header: as today, but bytes 20..35 hold u32 chunk bytes, select sample interval Q, value
//           block V and value superblock S;
//   data area from byte 256: per layer, six sections (index low bits, high bits, samples, value
//           code (256 bytes), value directory, values), then chunk checksums;
//   layer table: 160-byte entries: u32 pieces, u32 low bits, u64 n, raw, universe, value bits,
//           24 reserved bytes, then six (u64 offset, u64 size) in the order above;
//   trailer: 120 bytes (version 2: 112), the layer table's offset at 56 and size at 64, the
//           whole-file XXH3-128 of bytes [0, size - 24) at 96 (version 2: at 88).
// The Elias-Fano arrays are those of index/elias_fano.hpp; the values a canonical Huffman code
// (format/values.hpp) in rank order from bit 0.
#include "format/upgrade.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "format/detail.hpp"
#include "format/fault_guard.hpp"
#include "format/table.hpp"
#include "format/values.hpp"
#include "format/xxh.hpp"
#include "index/colex.hpp"
#include "index/elias_fano.hpp"

namespace konane::format {

namespace {

using namespace detail;

namespace v3 {
constexpr std::size_t kEntry = 160, kSample = 24, kTrailer = 120, kLtOffset = 56, kLtSize = 64;
constexpr std::size_t kV2Trailer = 112;
enum Sec { kLow = 0, kHigh, kSamples, kCode, kDir, kValues };
}  // namespace v3

/// The input's mapping, registered with format/fault_guard.hpp: a file truncated under it
/// sets `faulted` (reads then see zeros) instead of raising SIGBUS.
struct Mapping {
    const std::uint8_t* p = nullptr;
    std::uint64_t size = 0;
    std::atomic<int> faulted{0};
    int guard = -1;
    ~Mapping() {
        unregister_mapping(guard);
        if (p != nullptr) ::munmap(const_cast<std::uint8_t*>(p), size);
    }
};

}  // namespace

std::uint64_t upgrade_table(const std::filesystem::path& input, const std::filesystem::path& output,
                            int threads,
                            const std::function<void(std::size_t, std::size_t)>& progress) {
    const std::string in_name = input.string();
    auto bad = [&](const std::string& what) { return FormatError(in_name + ": " + what); };
    Mapping m;
    mode_t mode = 0644;  // the input's permissions, given to the output
    {
        // O_NONBLOCK: a FIFO is refused below rather than waited on.
        const int fd = ::open(input.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0) throw IoError(in_name + ": open: " + std::strerror(errno));
        struct stat st {};
        if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            ::close(fd);
            throw bad("open: not a regular file");
        }
        m.size = static_cast<std::uint64_t>(st.st_size);
        mode = st.st_mode & 07777;
        if (m.size < kHeaderSize + v3::kV2Trailer) {
            ::close(fd);
            throw bad("file: too short for a table");
        }
        void* a = ::mmap(nullptr, m.size, PROT_READ, MAP_PRIVATE, fd, 0);
        const int err = errno;
        ::close(fd);
        if (a == MAP_FAILED) throw IoError(in_name + ": mmap: " + std::strerror(err));
        m.p = static_cast<const std::uint8_t*>(a);
        ::madvise(a, m.size, MADV_SEQUENTIAL);
        try {
            m.guard = register_mapping(a, m.size, &m.faulted);
        } catch (const std::runtime_error& e) {
            throw bad(std::string("open: ") + e.what());
        }
    }
    // Whatever was read is thrown away if the file shrank under the mapping meanwhile.
    auto check_fault = [&] {
        if (m.faulted.load() != 0) throw bad("file: changed while read (truncated)");
    };
    const std::uint8_t* h = m.p;
    if (std::memcmp(h + hdr::magic, kMagic, 8) != 0) throw bad("header: not a konane table");
    const std::uint32_t version = le32(h + hdr::version);
    if (version == kFormatVersion)
        throw bad("header: already format version " + std::to_string(kFormatVersion));
    if (version != 2 && version != 3)
        throw bad("header: format version " + std::to_string(version) +
                  ": only versions 2 and 3 can be upgraded (regenerate the table)");
    if (le64(h + hdr::checksum) != xxh3_64(h, hdr::checksum))
        throw bad("header: checksum mismatch");
    const std::uint64_t trailer = version == 2 ? v3::kV2Trailer : v3::kTrailer;
    const std::uint8_t* t = m.p + m.size - trailer;
    if (std::memcmp(t, kTrailerMagic, 8) != 0) throw bad("trailer: bad magic");
    if (le64(t + trailer - 8) != xxh3_64(t, trailer - 8)) throw bad("trailer: checksum mismatch");
    if (le64(t + 8) != m.size) throw bad("trailer: declared size differs from the file's");
    {
        const XXH128_hash_t fh = XXH3_128bits(m.p, m.size - 24);
        const std::uint8_t* want = t + trailer - 24;
        check_fault();
        if (fh.low64 != le64(want) || fh.high64 != le64(want + 8))
            throw bad("file: whole-file checksum mismatch: the table is damaged");
    }
    const std::uint32_t layers = le32(t + 16);
    const std::uint64_t lt_off = le64(t + v3::kLtOffset), lt_size = le64(t + v3::kLtSize);
    if (layers < 1 || layers > kMaxLayers || lt_size != layers * v3::kEntry ||
        lt_size > m.size - trailer - kHeaderSize || lt_off != m.size - trailer - lt_size)
        throw bad("trailer: layer table not just before the trailer");

    TableMeta meta;
    meta.rows = h[hdr::rows];
    meta.cols = h[hdr::cols];
    const char* rs = reinterpret_cast<const char*>(h + hdr::ruleset);
    meta.ruleset.assign(rs, strnlen(rs, hdr::ruleset_len));
    const char* gen = reinterpret_cast<const char*>(h + hdr::generator);
    meta.generator.assign(gen, strnlen(gen, hdr::generator_len));
    if (const std::string why = check_meta(meta); !why.empty()) throw bad("header: " + why);
    const std::uint32_t q = le32(h + v3::kSample);
    if (!is_pow2(q)) throw bad("header: sample interval is not a power of two");
    const unsigned squares = meta.rows * meta.cols;

    TableWriter w(output, meta, threads);
    std::vector<std::uint64_t> keys;
    std::vector<std::uint8_t> values;
    for (std::uint32_t i = 0; i < layers; ++i) {
        const std::uint8_t* e = m.p + lt_off + i * v3::kEntry;
        const std::string ln = "layer " + std::to_string(i) + ": ";
        LayerInfo info;
        info.pieces = le32(e);
        info.classes = le64(e + 8);
        info.raw = le64(e + 16);
        const std::uint64_t n = info.classes, u = le64(e + 24), value_bits = le64(e + 32);
        auto sec = [&](v3::Sec s) {
            const std::uint64_t off = le64(e + 64 + 16 * s), sz = le64(e + 72 + 16 * s);
            if (off < kHeaderSize || off > lt_off || sz > lt_off - off)
                throw bad(ln + "section outside the data area");
            return std::pair{m.p + off, sz};
        };
        if (info.pieces > squares || n > 8 * m.size || u < n ||
            u > 2 * index::binomial(squares, info.pieces) ||
            (n > 0 && (value_bits < n || value_bits > kMaxCodeLength * n)))
            throw bad(ln + "implausible counts");
        const auto shape = index::EliasFanoShape::make(n, u, q);
        keys.assign(n, 0);
        values.assign(n, 0);
        if (n > 0) {
            const auto [low, low_size] = sec(v3::kLow);
            const auto [high, high_size] = sec(v3::kHigh);
            if (low_size < 8 * shape.low_words() || high_size < 8 * shape.high_words())
                throw bad(ln + "index sections too short");
            std::vector<std::uint64_t> lw(shape.low_words()), hw(shape.high_words());
            std::memcpy(lw.data(), low, 8 * lw.size());
            std::memcpy(hw.data(), high, 8 * hw.size());
            try {
                index::ef_decode_all(shape, lw.data(), hw.data(), keys.data());
            } catch (const std::runtime_error& err) {
                throw bad(ln + err.what());
            }
            for (std::uint64_t k = 0, prev = 0; k < n; ++k) {
                const std::uint64_t x = keys[k];
                if ((k > 0 && x <= prev) || x >= u)
                    throw bad(ln + "ranks not increasing below the universe");
                prev = x;
                keys[k] = index::key_unrank(x, info.pieces, squares);
            }
            const auto [code, code_size] = sec(v3::kCode);
            const auto [data, data_size] = sec(v3::kValues);
            if (code_size != 256 || data_size < (value_bits + 7) / 8 + 8)
                throw bad(ln + "value sections of the wrong size");
            std::array<std::uint8_t, 256> lengths{};
            std::memcpy(lengths.data(), code, 256);
            HuffmanDecoder dec;
            if (const std::string why = dec.build(lengths); !why.empty())
                throw bad(ln + "value code: " + why);
            std::uint64_t pos = 0;
            for (std::uint64_t k = 0; k < n; ++k) {
                const int v = dec.decode(data, pos);
                if (v < 0 || pos > value_bits) throw bad(ln + "the values do not decode");
                values[k] = static_cast<std::uint8_t>(v);
            }
            if (pos != value_bits) throw bad(ln + "the values do not end where declared");
        }
        check_fault();
        try {
            w.add_layer(info, keys, values);
        } catch (const std::invalid_argument& e) {  // e.g. piece counts out of order
            throw bad(ln + e.what());
        }
        if (progress) progress(i + 1, layers);
    }
    w.commit();
    // The writer creates files 0644 & ~umask; an upgrade keeps the table's own permissions
    // (a table upgraded in place must not become readable by more users than before).
    if (::chmod(output.c_str(), mode) != 0)
        throw IoError(output.string() + ": chmod: " + std::strerror(errno) +
                      " (the table is written, with the writer's permissions)");
    return w.bytes_written();
}

}  // namespace konane::format
