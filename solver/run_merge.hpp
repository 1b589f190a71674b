// The k-way merge of sorted runs of packed enumeration entries (solver/keyfile.hpp key files):
// the external-memory step of the single-process enumeration (solver/enumerate.cpp) and of the
// enumeration over layer parts (solver/distributed.cpp). Source: README.md ("How it works"),
// docs/distributed.md ("The pipeline of layer parts").
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <queue>
#include <utility>
#include <vector>

#include "solver/keyfile.hpp"

namespace konane::solver {

/// Merges sorted runs (key files of ascending packed entries, solver/entry_packing.hpp) into
/// distinct entries, ascending, OR-ing the flags (the bits of `flags`) of entries whose other
/// bits are equal. Holds one decoded chunk of each run (kKeyChunkWords words) and its
/// compressed bytes: about 1 MiB per run at most. Throws KeyFileError for a missing or damaged
/// run.
class RunMerger {
  public:
    RunMerger(const std::vector<std::filesystem::path>& runs, std::uint64_t flags);
    /// Words in all runs (duplicates included).
    std::uint64_t total() const { return total_; }
    /// Words taken from the runs so far (duplicates included).
    std::uint64_t consumed() const { return consumed_; }

    /// Appends up to `max` distinct entries to `out` (cleared first); false when none is left.
    bool next(std::vector<std::uint64_t>& out, std::size_t max);

  private:
    void refill(std::size_t i);
    using Item = std::pair<std::uint64_t, std::size_t>;
    std::vector<std::unique_ptr<KeyFileReader>> readers_;
    std::vector<std::vector<std::uint64_t>> bufs_;
    std::vector<std::size_t> pos_;
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap_;
    std::uint64_t total_ = 0, consumed_ = 0;
    std::uint64_t last_ = 0;
    bool have_last_ = false;
    std::uint64_t flags_;
};

/// Merges `runs` in groups of `fan_in` (at least 2), the first `fan_in` of the list at a time,
/// until at most `fan_in` are left, so that a RunMerger over the rest holds at most `fan_in`
/// readers. Each group becomes one run at the path `fresh()` returns (a name the caller's later
/// listing puts after every run of the list), appended to the list; its sources are deleted
/// once it is complete (a process::kill_point between), so a kill in between leaves
/// duplicates, which a merge removes. Entries are merged as RunMerger does (flags OR-ed).
/// Returns the runs left. Throws KeyFileError.
std::vector<std::filesystem::path> merge_runs_in_groups(
    std::vector<std::filesystem::path> runs, std::size_t fan_in, std::uint64_t flags, int threads,
    const std::function<std::filesystem::path()>& fresh);

}  // namespace konane::solver
