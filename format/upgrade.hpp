// Rewriting a table of an older format version as the current one without generating it again.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>

namespace konane::format {

/// Rewrites the version-2 or version-3 table `input` as the current version at `output` (which
/// may be `input`: it is replaced only once the new file is complete). Versions 2 and 3 share
/// their data area (FORMAT.md §13): each layer's Elias-Fano arrays and Huffman-coded values are
/// decoded and written again as blocks by TableWriter, with the input's board, ruleset and
/// generator, and the input's permission bits. The input's whole-file XXH3-128 is checked first,
/// and every layer's decoding
/// (the ranks increase below the universe, the values end where declared). Memory: one layer's
/// keys and values (9 bytes per position of the largest layer). `progress(done, layers)` is
/// called after each layer, if given.
/// Throws FormatError when `input` is not an intact version-2 or version-3 table (one of the
/// current version says so), IoError for a file-system failure (nothing is left under
/// `output`'s name then). Returns the bytes written.
std::uint64_t upgrade_table(const std::filesystem::path& input, const std::filesystem::path& output,
                            int threads = 0,
                            const std::function<void(std::size_t, std::size_t)>& progress = {});

}  // namespace konane::format
