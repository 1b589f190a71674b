// Shared helpers of the writer and the reader (format/detail.hpp).
#include <xxhash.h>

#include <thread>

#include "format/detail.hpp"

namespace konane::format::detail {

std::uint64_t xxh3_64(const void* data, std::size_t len) {
    return XXH3_64bits(data, len);
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
    auto block_ok = [](std::uint32_t b) {
        return is_pow2(b) && b >= kMinBlockSlots && b <= kMaxBlockSlots;
    };
    if (m.rows < 1 || m.rows > 8) return "rows " + std::to_string(m.rows) + " not in 1..8";
    if (m.cols < 1 || m.cols > 8) return "cols " + std::to_string(m.cols) + " not in 1..8";
    if (!valid_ruleset(m.ruleset))
        return "ruleset '" + m.ruleset + "' is not 1..15 characters of [a-z0-9_-]";
    if (!valid_generator(m.generator))
        return "generator string is not 0..63 printable ASCII characters";
    if (m.fingerprint_bits != 0 && m.fingerprint_bits != 8 && m.fingerprint_bits != 16)
        return "fingerprint bits " + std::to_string(m.fingerprint_bits) + " not 0, 8 or 16";
    if (!block_ok(m.value_block_slots))
        return "value block slots " + std::to_string(m.value_block_slots) +
               " not a power of two in [64, 4194304]";
    if (!block_ok(m.fingerprint_block_slots))
        return "fingerprint block slots " + std::to_string(m.fingerprint_block_slots) +
               " not a power of two in [64, 4194304]";
    if (m.value_level < 1 || m.value_level > 22)
        return "value zstd level " + std::to_string(m.value_level) + " not in 1..22";
    if (m.fingerprint_level < 1 || m.fingerprint_level > 22)
        return "fingerprint zstd level " + std::to_string(m.fingerprint_level) + " not in 1..22";
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
