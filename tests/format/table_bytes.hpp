// The bytes of a table file, for the tests that damage or rewrite tables: read and written
// whole, little-endian fields, and the message a damaged file is refused with.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

#include "format/table.hpp"

namespace konane::test {

/// The whole content of the file p.
inline std::vector<std::uint8_t> read_bytes(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Replaces p by a new file holding `bytes`. Removing first avoids ext4's flush-on-truncate
/// (auto_da_alloc), which makes thousands of rewrites slow.
inline void write_bytes(const std::filesystem::path& p, const std::vector<std::uint8_t>& bytes) {
    std::error_code ec;
    std::filesystem::remove(p, ec);
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
}

/// The little-endian 64-bit number at b[off].
inline std::uint64_t le64_at(const std::vector<std::uint8_t>& b, std::size_t off) {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
        v |= std::uint64_t{b[off + i]} << (8 * i);
    return v;
}

/// Writes v little-endian at b[off].
inline void put_le64(std::vector<std::uint8_t>& b, std::size_t off, std::uint64_t v) {
    for (int i = 0; i < 8; ++i)
        b[off + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

/// The message of the FormatError thrown by format::Table::open, or "" if it opened.
inline std::string open_error(const std::filesystem::path& p, const format::Expect& expect = {}) {
    try {
        format::Table::open(p, expect);
        return "";
    } catch (const format::FormatError& e) {
        return e.what();
    }
}

}  // namespace konane::test
