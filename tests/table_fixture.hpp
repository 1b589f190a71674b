// The tables of tests/table_file.hpp, opened once per test run, for the tests that probe and
// search them.
#pragma once

#include <map>
#include <mutex>
#include <tuple>

#include "probe/probe.hpp"
#include "tests/table_file.hpp"

namespace konane::test {

/// The table of table_file(rows, cols, r), opened once per test run.
inline const Tablebase& table(int rows, int cols, Ruleset r) {
    static std::mutex m;
    static std::map<std::tuple<int, int, Ruleset>, Tablebase> cache;
    const std::filesystem::path& f = table_file(rows, cols, r);
    std::lock_guard<std::mutex> lock(m);
    auto it = cache.find({rows, cols, r});
    if (it == cache.end()) it = cache.emplace(std::tuple{rows, cols, r}, Tablebase::open(f)).first;
    return it->second;
}

}  // namespace konane::test
