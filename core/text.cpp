#include "core/text.hpp"

#include <cstdio>
#include <cstdlib>
#include <limits>

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

namespace {

/// `v` as printf's %g writes it.
std::string g_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

}  // namespace

std::string decimal_problem(std::string_view text, std::uint64_t lo, std::uint64_t hi,
                            std::uint64_t& value) {
    const std::string range = std::to_string(lo) + ".." + std::to_string(hi);
    const std::string accepted = "(accepted: " + range + ")";
    if (text.empty()) return "must not be empty " + accepted;
    if (text.find_first_not_of("0123456789") != std::string_view::npos)
        return "'" + excerpt(text) + "' is not a whole number in decimal digits " + accepted;
    if (text.size() > 1 && text[0] == '0') {
        // Read as octal by strtol and CLI11's own conversion: refused rather than guessed.
        return "'" + excerpt(text) + "' has a leading zero (write the number without it; " +
               "accepted: " + range + ")";
    }
    std::uint64_t v = 0;
    for (char c : text) {
        const auto d = static_cast<std::uint64_t>(c - '0');
        if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10)
            return excerpt(text) + " is not in " + range;
        v = v * 10 + d;
    }
    if (v < lo || v > hi) return std::to_string(v) + " is not in " + range;
    value = v;
    return {};
}

std::string decimal_fraction_problem(std::string_view text, double lo, double hi, double& value) {
    const std::string accepted = "accepted: " + g_text(lo) + ".." + g_text(hi);
    const std::size_t dot = text.find('.');
    const std::string_view whole = text.substr(0, dot);
    const std::string_view frac =
        dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
    const bool digits_only = whole.find_first_not_of("0123456789") == std::string_view::npos &&
                             frac.find_first_not_of("0123456789") == std::string_view::npos;
    if (!digits_only || whole.size() + frac.size() == 0)
        return "'" + excerpt(text) + "' is not a number in decimal digits (" + accepted + ")";
    const double v = std::strtod(std::string(text).c_str(), nullptr);
    if (!(v >= lo && v <= hi)) return excerpt(text) + " is not in " + accepted;
    value = v;
    return {};
}

}  // namespace konane
