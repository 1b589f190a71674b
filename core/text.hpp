// Text from outside the program (file names, arguments, input lines) made safe to print on a
// terminal or to put in JSON, and quoted briefly in error messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace konane {

/// `s` as valid UTF-8 without control characters: valid UTF-8 passes through unchanged; each
/// byte of a control character (C0 including tab and newline, DEL, C1) or of an invalid UTF-8
/// sequence becomes the four characters "\xNN". Never throws (but std::bad_alloc).
std::string printable(std::string_view s);

/// A short quote of `s` for an error message: printable() of at most `max` characters of s (never
/// cutting a UTF-8 character), then "... (N bytes)" when s is longer. Not quoted with '': the
/// caller adds the quotes.
std::string excerpt(std::string_view s, std::size_t max = 40);

/// The length in bytes of the UTF-8 character that starts s (1..4), or 0 when s does not start
/// with a valid one (an invalid, overlong, surrogate or truncated sequence) or is empty.
std::size_t utf8_length(std::string_view s);

/// The one strict reader of whole numbers (every number the command line and GTP take): why
/// `text` is not a whole number in decimal digits within [lo, hi], or "" when it is (then
/// `value` holds it). Refuses a sign, a space, "0x10", "1e3", a leading zero ("010", which
/// strtol would read as octal), the empty string and a value past 2^64 or outside the range.
/// The problem ends with the range ("(accepted: LO..HI)") or names it.
std::string decimal_problem(std::string_view text, std::uint64_t lo, std::uint64_t hi,
                            std::uint64_t& value);

/// The one strict reader of numbers with a fraction (seconds, shares): why `text` is not
/// decimal digits with an optional fraction ("0.5", "2", ".25", "3.") within [lo, hi], or ""
/// when it is (then `value` holds it). Refuses what strtod would take and a caller could not
/// use: "nan" (it passes every range check), "inf", a sign, "0x10", "1e3", the empty string.
std::string decimal_fraction_problem(std::string_view text, double lo, double hi, double& value);

}  // namespace konane
