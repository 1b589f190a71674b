// Table verification: checksums, the stored positions of every layer, and a retrograde
// consistency pass that recomputes every stored depth from the stored depths of its children.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "format/table.hpp"
#include "solver/enumerate.hpp"

namespace konane::solver {

/// What verify_table() found.
struct VerifyResult {
    bool ok = true;
    std::vector<std::string> problems;    ///< at most a few per kind, then a count
    std::uint64_t blocks_checked = 0;     ///< checksum chunks checked
    std::uint64_t positions_checked = 0;  ///< positions whose depth was recomputed
    std::uint64_t wrong_values = 0;       ///< stored depth differs from the recomputed one
    /// Layers whose stored positions differ from the enumerated ones (a position missing or
    /// one too many: membership would then be wrong).
    std::uint64_t key_mismatches = 0;
    std::uint64_t layer_count_mismatches = 0;  ///< layers whose class or raw count differs
};

/// Verifies a table: (1) every checksum (format::Table::verify_checksums); (2) re-enumerates
/// the positions of the table's board and ruleset and checks each layer's class and raw
/// counts and that it stores exactly the enumerated positions; (3) recomputes every stored depth
/// from the stored depths of its children (rules.md "Values"), in parallel. Never throws for a
/// damaged table: reports it.
VerifyResult verify_table(const format::Table& table, int threads, const ProgressFn& progress = {});

}  // namespace konane::solver
