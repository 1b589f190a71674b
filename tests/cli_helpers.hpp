// Running the `konane` command (KONANE_BINARY) as a process from the tests, and reading a file
// whole.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

namespace konane::test {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAsan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAsan = true;
#else
inline constexpr bool kAsan = false;
#endif
#else
inline constexpr bool kAsan = false;
#endif

/// A small `generate --memory` budget for the tests, in MiB ("24M"). `generate` counts the
/// memory the process holds before any work (about 10 MiB), and under AddressSanitizer that is
/// about 120 MiB of shadow and allocator memory: there 256 MiB are added (24M gives 280M).
inline std::string small_budget(const std::string& budget) {
    if (!kAsan) return budget;
    return std::to_string(std::stoi(budget) + 256) + "M";
}

/// One run of the command.
struct Run {
    int code = -1;    ///< the exit status; -1 when a signal ended it
    std::string out;  ///< stdout and stderr together (unless the arguments redirect them)
};

/// Quotes s for /bin/sh (any bytes but NUL).
inline std::string quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}

/// Runs `PREFIX konane ARGS` through /bin/sh (PREFIX e.g. "env KONANE_KILL_AT=20", "ulimit -f
/// 128;", "printf 'x' |"; ARGS shell words, quoted by the caller): stderr joins stdout unless
/// ARGS redirect it themselves ("2>&1" in ARGS).
inline Run run(const std::string& args, const std::string& prefix = "") {
    INFO("konane binary: " << KONANE_BINARY << " (build the `konane` target before the tests)");
    REQUIRE(std::filesystem::exists(KONANE_BINARY));
    const bool redirects = args.find("2>&1") != std::string::npos;
    const std::string cmd =
        prefix + " " + quote(KONANE_BINARY) + " " + args + (redirects ? "" : " 2>&1");
    FILE* p = ::popen(cmd.c_str(), "r");
    REQUIRE(p != nullptr);
    Run r;
    char buf[4096];
    while (std::size_t n = std::fread(buf, 1, sizeof buf, p))
        r.out.append(buf, n);
    const int status = ::pclose(p);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

/// The whole content of the file p.
inline std::string slurp(const std::filesystem::path& p) {
    std::FILE* f = std::fopen(p.c_str(), "rb");
    REQUIRE(f != nullptr);
    std::string out;
    char buf[65536];
    while (std::size_t n = std::fread(buf, 1, sizeof buf, f))
        out.append(buf, n);
    std::fclose(f);
    return out;
}

}  // namespace konane::test
