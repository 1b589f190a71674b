// Tables generated once per test run, shared by the tests that read, probe and search them.
#pragma once

#include <filesystem>
#include <map>
#include <mutex>
#include <tuple>

#include "solver/solve.hpp"
#include "tests/temp_dir.hpp"

namespace konane::test {

#if defined(__SANITIZE_THREAD__)
inline constexpr bool kTsan = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
inline constexpr bool kTsan = true;
#else
inline constexpr bool kTsan = false;
#endif
#else
inline constexpr bool kTsan = false;
#endif

/// The table file of a board and ruleset, generated once per test run (function-local cache)
/// into a temporary folder removed at exit. Generation uses OpenMP; under ThreadSanitizer it
/// runs on one thread (libgomp is not instrumented, so its threads would only give false
/// reports), keeping OpenMP out of the concurrency the [probe] tests check.
inline const std::filesystem::path& table_file(int rows, int cols, Ruleset r) {
    static TempDir dir("tables", KONANE_TEST_TMPDIR);
    static std::mutex m;
    static std::map<std::tuple<int, int, Ruleset>, std::filesystem::path> cache;
    std::lock_guard<std::mutex> lock(m);
    auto [it, fresh] = cache.try_emplace({rows, cols, r});
    if (fresh) {
        solver::GenerateOptions o;
        o.board = Board::make(rows, cols);
        o.rules = r;
        o.threads = kTsan ? 1 : 2;
        o.output = dir.path / solver::default_table_name(o.board, r);
        solver::generate(o);
        it->second = o.output;
    }
    return it->second;
}

}  // namespace konane::test
