#include "solver/run_merge.hpp"

#include <algorithm>
#include <stdexcept>

#include "process/self.hpp"

namespace konane::solver {

RunMerger::RunMerger(const std::vector<std::filesystem::path>& runs, std::uint64_t flags)
    : flags_(flags) {
    for (const auto& p : runs) {
        readers_.push_back(std::make_unique<KeyFileReader>(p));
        total_ += readers_.back()->words();
    }
    bufs_.resize(readers_.size());
    pos_.assign(readers_.size(), 0);
    for (std::size_t i = 0; i < readers_.size(); ++i)
        refill(i);
}

bool RunMerger::next(std::vector<std::uint64_t>& out, std::size_t max) {
    out.clear();
    while (out.size() < max && !heap_.empty()) {
        const auto [e, i] = heap_.top();
        heap_.pop();
        ++consumed_;
        if (have_last_ && (last_ & ~flags_) == (e & ~flags_)) {
            last_ |= e & flags_;
        } else {
            if (have_last_) out.push_back(last_);
            last_ = e;
            have_last_ = true;
        }
        if (++pos_[i] == bufs_[i].size()) {
            refill(i);
        } else {
            heap_.push({bufs_[i][pos_[i]], i});
        }
    }
    if (heap_.empty() && have_last_ && out.size() < max) {
        out.push_back(last_);
        have_last_ = false;
    }
    return !out.empty();
}

void RunMerger::refill(std::size_t i) {
    pos_[i] = 0;
    if (readers_[i]->next(bufs_[i])) heap_.push({bufs_[i][0], i});
}

std::vector<std::filesystem::path> merge_runs_in_groups(
    std::vector<std::filesystem::path> runs, std::size_t fan_in, std::uint64_t flags, int threads,
    const std::function<std::filesystem::path()>& fresh) {
    if (fan_in < 2) throw std::invalid_argument("merge_runs_in_groups: fan_in below 2");
    std::vector<std::uint64_t> out;
    while (runs.size() > fan_in) {
        const std::vector<std::filesystem::path> group(
            runs.begin(), runs.begin() + static_cast<std::ptrdiff_t>(fan_in));
        const std::filesystem::path merged = fresh();
        {
            RunMerger merger(group, flags);
            KeyFileWriter w(merged, threads);
            while (merger.next(out, kKeyChunkWords))
                w.append(out);
            w.finish();
        }
        process::kill_point();
        for (const auto& p : group)
            std::filesystem::remove(p);
        runs.erase(runs.begin(), runs.begin() + static_cast<std::ptrdiff_t>(fan_in));
        runs.push_back(merged);
    }
    return runs;
}

}  // namespace konane::solver
