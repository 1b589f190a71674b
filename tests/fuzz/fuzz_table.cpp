// libFuzzer target: the table reader (format/table.hpp Table::open and its reads) and the probe
// library over it (probe/probe.hpp Tablebase), on any bytes as a table file.
// Each input is opened twice from an in-memory file: as it is, and "sealed", with every
// checksum recomputed (header and its copy in the trailer, every block's check, layer table,
// whole file, trailer) so that mutations reach the structural checks and the decoders
// behind the checksums. Whatever opens is probed: every layer's first, middle and last value, the
// whole layers when small (then find() must give each key its rank, and value() agree with
// read_values()), the probe library from the full board, from its removals and from stored
// positions (values, moves, perfect lines), the checksums. Properties: open and every read either
// succeed or throw format::FormatError (probe::NotStored for what the table does not hold); any
// other exception, a crash, a hang or a sanitizer report is a finding.
#include <sys/mman.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "core/board.hpp"
#include "core/movegen.hpp"
#include "format/block.hpp"
#include "format/detail.hpp"
#include "format/table.hpp"
#include "probe/probe.hpp"
#include "tests/fuzz/check.hpp"

using namespace konane;
namespace fmt_ = konane::format;
using namespace konane::format::detail;

namespace {

/// Recomputes every checksum of a would-be table in place, where the offsets the trailer and
/// the layer table give lie inside the file; leaves every other byte as it is.
void seal(std::vector<std::uint8_t>& f) {
    const std::uint64_t size = f.size();
    if (size < kHeaderSize + kTrailerSize) return;
    std::uint8_t* p = f.data();
    put64(p + hdr::checksum, xxh3_64(p, hdr::checksum));
    const std::uint64_t header_xxh = le64(p + hdr::checksum);
    const std::uint64_t t_off = size - kTrailerSize;
    std::uint8_t* t = p + t_off;
    auto inside = [&](std::uint64_t off, std::uint64_t len) {
        return off >= kHeaderSize && off <= t_off && len <= t_off - off;
    };
    const std::uint64_t lt = le64(t + trl::lt_offset), lt_size = le64(t + trl::lt_size);
    const std::uint32_t q = le32(p + hdr::block_buckets), v = le32(p + hdr::value_group);
    if (inside(lt, lt_size) && is_pow2(q) && q >= 8 && q <= (1u << 16) && is_pow2(v) && v <= 1024) {
        // Each layer's blocks: their checks, seeded by the layer's entry and their directory
        // entries (FORMAT.md §4.3).
        for (std::uint64_t e = lt; e + kLayerEntrySize <= lt + lt_size; e += kLayerEntrySize) {
            const std::uint8_t* en = p + e;
            const std::uint64_t n = le64(en + lte::classes), u = le64(en + lte::universe);
            const std::uint32_t w = le32(en + lte::entry_width);
            const std::uint64_t dir = le64(en + lte::dir_offset),
                                dir_size = le64(en + lte::dir_size);
            const std::uint64_t blocks = le64(en + lte::blocks_offset);
            const std::uint64_t blocks_size = le64(en + lte::blocks_size);
            if (n == 0 || u < n || (w != 4 && w != 8) || !inside(dir, dir_size) ||
                !inside(blocks, blocks_size))
                continue;
            const LayerGeometry g = LayerGeometry::make(n, u, q, v);
            if (g.blocks >= dir_size || (g.blocks + 1) * 2 * w > dir_size) continue;
            const std::uint64_t key = xxh3_64_seeded(en, kLayerEntrySize, header_xxh);
            for (std::uint64_t j = 0; j < g.blocks; ++j) {
                const std::uint8_t* d = p + dir + 2 * w * j;
                const std::uint64_t off0 = load_le(d, w), first0 = load_le(d + w, w);
                const std::uint64_t off1 = load_le(d + 2 * w, w), first1 = load_le(d + 3 * w, w);
                if (off0 + kBlockCheckBytes > off1 || off1 > blocks_size) continue;
                std::uint8_t* b = p + blocks + off0;
                put32(b,
                      block_check(b, off1 - off0, block_seed(key, j, off0, first0, off1, first1)));
            }
        }
        put64(t + trl::lt_xxh, xxh3_64(p + lt, lt_size));
    }
    put64(t + trl::header_xxh, header_xxh);  // binds the header to the file
    const XXH128_hash_t h = XXH3_128bits(p, t_off + trl::file_xxh128_lo);
    put64(t + trl::file_xxh128_lo, h.low64);
    put64(t + trl::file_xxh128_hi, h.high64);
    put64(t + trl::checksum, xxh3_64(t, trl::checksum));
}

/// The probe library from position p: value, moves and, when stored, the perfect line.
void probe_from(const Tablebase& tb, Position p) {
    try {
        (void)tb.value(p);
        (void)tb.moves(p);
        (void)tb.perfect_line(p);
    } catch (const NotStored&) {
    }
}

void probe(const std::string& path) {
    const Tablebase tb = Tablebase::open(path);
    const fmt_::Table& t = tb.table();
    const Board& b = tb.board();
    (void)t.layer_index(static_cast<std::uint32_t>(b.squares() / 2));
    std::vector<std::uint64_t> keys;
    std::vector<std::uint8_t> values;
    std::vector<Position> stored;
    for (std::size_t l = 0; l < t.layers().size(); ++l) {
        const fmt_::LayerInfo& li = t.layers()[l];
        (void)t.section_sizes(l);
        (void)t.find(l, (std::uint64_t{1} << li.pieces) - 1);
        if (li.classes > 0) {
            (void)t.value(l, 0);
            (void)t.value(l, li.classes / 2);
            (void)t.value(l, li.classes - 1);
        }
        if (li.classes > 4096) continue;
        t.read_keys(l, keys);
        t.read_values(l, values);
        FUZZ_CHECK(keys.size() == li.classes && values.size() == li.classes);
        for (std::size_t i = 0; i < keys.size(); i += 1 + keys.size() / 8) {
            const auto rank = t.find(l, keys[i]);
            FUZZ_CHECK(rank && *rank == i);
            FUZZ_CHECK(t.value(l, i) == values[i]);
        }
        if (!keys.empty()) stored.push_back(position_of_key(keys[keys.size() / 2]));
    }
    const Position start = b.start();
    probe_from(tb, start);
    for (const MoveChild& removal : legal_moves(b, tb.rules(), start)) {
        probe_from(tb, removal.child);
        break;
    }
    for (std::size_t i = 0; i < stored.size() && i < 4; ++i)
        probe_from(tb, stored[stored.size() - 1 - i]);
    (void)t.verify_checksums(1);
}

void open_and_probe(int fd, const std::string& path, const std::uint8_t* data, std::size_t size) {
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, data, size, 0) != static_cast<ssize_t>(size)) {
        std::perror("fuzz_table: memfd");
        std::abort();
    }
    try {
        probe(path);
    } catch (const fmt_::FormatError&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const int fd = ::memfd_create("fuzz-table.kbt", MFD_CLOEXEC);
    static const std::string path = "/proc/self/fd/" + std::to_string(fd);
    FUZZ_CHECK(fd >= 0);
    open_and_probe(fd, path, data, size);
    std::vector<std::uint8_t> sealed(data, data + size);
    seal(sealed);
    if (!std::equal(sealed.begin(), sealed.end(), data))
        open_and_probe(fd, path, sealed.data(), sealed.size());
    return 0;
}
