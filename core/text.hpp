// Text from outside the program (file names, arguments, input lines) made safe to print on a
// terminal or to put in JSON, and quoted briefly in error messages.
#pragma once

#include <cstddef>
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

}  // namespace konane
