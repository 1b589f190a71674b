// Table verification: checksums, the stored positions of every layer, and a retrograde
// consistency pass that recomputes every stored depth from the stored depths of its children.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "format/table.hpp"
#include "solver/enumerate.hpp"

namespace konane::solver {

/// What verify_table() found.
struct VerifyResult {
    bool ok = true;
    std::vector<std::string> problems;    ///< at most a few per kind, then a count
    std::uint64_t blocks_checked = 0;     ///< blocks whose checksum was checked
    std::uint64_t positions_checked = 0;  ///< positions whose depth was recomputed
    std::uint64_t wrong_values = 0;       ///< stored depth differs from the recomputed one
    /// Layers whose stored positions differ from the enumerated ones (a position missing or
    /// one too many: membership would then be wrong).
    std::uint64_t key_mismatches = 0;
    std::uint64_t layer_count_mismatches = 0;  ///< layers whose class or raw count differs
};

/// Options of verify_table().
struct VerifyOptions {
    int threads = 0;                 ///< OpenMP threads; <= 0: all
    std::uint64_t memory_bytes = 0;  ///< memory budget (0: default_memory_budget())
    /// Where the re-enumeration keeps its layers (resumed if verify is run again after an
    /// interruption; removed at the end). Empty: FILE.verify-work beside the table, or a
    /// temporary directory when the table's directory is not writable.
    std::filesystem::path work_dir;
    ProgressFn progress;
};

/// Verifies a table: (1) every checksum (format::Table::verify_checksums); (2) re-enumerates
/// the positions of the table's board and ruleset (enumerate_to(), in bounded memory, on
/// disk) and checks each layer's class and raw counts and that it stores exactly the
/// enumerated positions; (3) recomputes every stored depth from
/// the stored depths of its children (rules.md "Values"), in parallel, holding only the layers
/// a jump can reach. Never throws for a damaged table: reports it. Throws std::runtime_error
/// when the work directory cannot be used.
VerifyResult verify_table(const format::Table& table, const VerifyOptions& options = {});

}  // namespace konane::solver
