// Cutting text at a UTF-8 character boundary: file names shortened to fit NAME_MAX, messages
// shortened to a length. One rule for every such cut.
#pragma once

#include <cstddef>
#include <string>

namespace konane::process {

/// Shortens `s` to at most `max` bytes without splitting a UTF-8 character: the cut moves back
/// over continuation bytes (10xxxxxx), so a multi-byte character is dropped whole. Text of at
/// most `max` bytes is left as it is; bytes that are not UTF-8 are cut as single bytes.
inline void cut_utf8(std::string& s, std::size_t max) {
    if (s.size() <= max) return;
    std::size_t cut = max;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
        --cut;
    s.resize(cut);
}

}  // namespace konane::process
