#include "core/text.hpp"

namespace konane {

std::size_t utf8_length(std::string_view s) {
    if (s.empty()) return 0;
    const auto b = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
    const unsigned c = b(0);
    if (c < 0x80) return 1;
    std::size_t n = 0;
    unsigned lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;  // no overlong forms
        if (c == 0xED) hi = 0x9F;  // no surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;  // at most U+10FFFF
    } else {
        return 0;
    }
    if (s.size() < n || b(1) < lo || b(1) > hi) return 0;
    for (std::size_t i = 2; i < n; ++i) {
        if (b(i) < 0x80 || b(i) > 0xBF) return 0;
    }
    return n;
}

namespace {
void escape_byte(std::string& out, unsigned char c) {
    static const char hex[] = "0123456789abcdef";
    out += "\\x";
    out += hex[c >> 4];
    out += hex[c & 15];
}

// Appends the character at the start of s made printable; returns the bytes it took.
std::size_t append_printable(std::string& out, std::string_view s) {
    const std::size_t n = utf8_length(s);
    const auto c = static_cast<unsigned char>(s[0]);
    const bool c1 = n == 2 && c == 0xC2 && static_cast<unsigned char>(s[1]) < 0xA0;
    if (n == 0 || (n == 1 && (c < 0x20 || c == 0x7F))) {
        escape_byte(out, c);
        return 1;
    }
    if (c1) {  // U+0080..U+009F: terminals may read U+009B as a control sequence
        escape_byte(out, c);
        escape_byte(out, static_cast<unsigned char>(s[1]));
        return 2;
    }
    out.append(s.substr(0, n));
    return n;
}
}  // namespace

std::string printable(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();)
        i += append_printable(out, s.substr(i));
    return out;
}

std::string excerpt(std::string_view s, std::size_t max) {
    std::string out;
    std::size_t i = 0;
    for (std::size_t chars = 0; i < s.size() && chars < max; ++chars)
        i += append_printable(out, s.substr(i));
    if (i < s.size()) out += "... (" + std::to_string(s.size()) + " bytes)";
    return out;
}

}  // namespace konane
