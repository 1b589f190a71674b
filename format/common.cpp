// Shared helpers of the writer and the reader (format/detail.hpp).

#include <random>
#include <string>
#include <thread>

#include "format/detail.hpp"
#include "format/xxh.hpp"

namespace konane::format::detail {

std::string random_suffix() {
    std::random_device rd;
    const std::uint64_t r = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
    char buf[17];
    for (int i = 0; i < 16; ++i)
        buf[i] = "0123456789abcdef"[(r >> (4 * i)) & 15];
    buf[16] = 0;
    return buf;
}

std::uint64_t xxh3_64(const void* data, std::size_t len) {
    return XXH3_64bits(data, len);
}

std::uint64_t xxh3_64_seeded(const void* data, std::size_t len, std::uint64_t seed) {
    return XXH3_64bits_withSeed(data, len, seed);
}

bool valid_ruleset(std::string_view s) {
    if (s.empty() || s.size() > kMaxRulesetLength) return false;
    for (char c : s) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
        if (!ok) return false;
    }
    return true;
}

bool valid_generator(std::string_view s) {
    if (s.size() > kMaxGeneratorLength) return false;
    for (char c : s)
        if (c < 0x20 || c > 0x7E) return false;
    return true;
}

std::string check_meta(const TableMeta& m) {
    auto pow2_in = [](std::uint32_t v, std::uint32_t lo, std::uint32_t hi) {
        return is_pow2(v) && v >= lo && v <= hi;
    };
    if (m.rows < 1) return "rows " + std::to_string(m.rows) + " below 1";
    if (m.cols < 1) return "cols " + std::to_string(m.cols) + " below 1";
    if (m.rows > 63 || m.cols > 63 || m.rows * m.cols > 63)
        return "board " + std::to_string(m.rows) + "x" + std::to_string(m.cols) +
               " has more than 63 squares, which no key can hold";
    if (!valid_ruleset(m.ruleset))
        return "ruleset '" + m.ruleset + "' is not 1..15 characters of [a-z0-9_-]";
    if (!valid_generator(m.generator))
        return "generator string is not 0..63 printable ASCII characters";
    if (!pow2_in(m.block_buckets, 8, 1u << 16))
        return "block of " + std::to_string(m.block_buckets) +
               " buckets is not a power of two in [8, 65536]";
    if (!pow2_in(m.value_group, 1, 1024))
        return "value group of " + std::to_string(m.value_group) +
               " values is not a power of two in [1, 1024]";
    return {};
}

std::string sniff_foreign(std::span<const std::uint8_t> h) {
    auto starts = [&](std::initializer_list<std::uint8_t> sig) {
        if (h.size() < sig.size()) return false;
        std::size_t i = 0;
        for (std::uint8_t b : sig)
            if (h[i++] != b) return false;
        return true;
    };
    if (starts({0x28, 0xB5, 0x2F, 0xFD})) return "a zstd-compressed file";
    if (starts({0x89, 'P', 'N', 'G'})) return "a PNG image";
    if (starts({0x1F, 0x8B})) return "a gzip file";
    if (starts({'P', 'K', 0x03, 0x04})) return "a zip archive";
    if (starts({0x7F, 'E', 'L', 'F'})) return "an ELF executable";
    if (starts({0xFD, '7', 'z', 'X', 'Z'})) return "an xz file";
    if (starts({'B', 'Z', 'h'})) return "a bzip2 file";
    if (starts({'%', 'P', 'D', 'F'})) return "a PDF document";
    if (starts({0x8B, 'K', 'T', 'B'})) return "a Konane table damaged in transfer (line endings?)";
    bool text = !h.empty();
    for (std::uint8_t c : h)
        if (!(c == '\n' || c == '\r' || c == '\t' || (c >= 0x20 && c < 0x7F))) text = false;
    if (text) return "a text file";
    return {};
}

unsigned resolve_threads(int threads) {
    if (threads > 0) return static_cast<unsigned>(threads);
    const unsigned hw = std::thread::hardware_concurrency();
    return hw == 0 ? 1 : hw;
}

}  // namespace konane::format::detail
