// Sizes as the commands print them: bytes in MiB, a table's section sizes summed over layers.
#pragma once

#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "format/table.hpp"

namespace konane::cli {

/// The sum of two layers' (or tables') sizes.
inline format::SectionSizes add_sizes(const format::SectionSizes& a,
                                      const format::SectionSizes& b) {
    return {a.directory + b.directory, a.high + b.high,      a.low + b.low,
            a.code + b.code,           a.groups + b.groups,  a.codes + b.codes,
            a.checks + b.checks,       a.padding + b.padding};
}

/// "12.3 MiB": a size in bytes, in MiB with one decimal.
inline std::string mib(std::uint64_t bytes) {
    return fmt::format("{:.1f} MiB", bytes / 1048576.0);
}

}  // namespace konane::cli
