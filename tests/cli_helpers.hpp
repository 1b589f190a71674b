// Running the `konane` command (KONANE_BINARY) as a process from the tests, and reading a file
// whole.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

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

/// What the `konane` command (KONANE_BINARY) holds in memory before any work, in MiB, rounded
/// up: the peak resident size of `konane --version`, measured once (wait4's ru_maxrss). About
/// 10 MiB in a plain build; under AddressSanitizer its shadow and allocator memory and the
/// instrumented code make it about 250 MiB, and it grows with the code.
inline int held_mib() {
    static const int mib = [] {
        char arg0[] = "konane";
        char arg1[] = "--version";
        char* argv[] = {arg0, arg1, nullptr};
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        pid_t pid = -1;
        const int err = ::posix_spawn(&pid, KONANE_BINARY, &fa, nullptr, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        REQUIRE(err == 0);
        int status = 0;
        struct rusage ru {};
        REQUIRE(::wait4(pid, &status, 0, &ru) == pid);
        REQUIRE((WIFEXITED(status) && WEXITSTATUS(status) == 0));
        return static_cast<int>((ru.ru_maxrss + 1023) / 1024);  // ru_maxrss is in KiB
    }();
    return mib;
}

/// A small `generate --memory` budget for the tests, in MiB ("24M"). `generate` counts the
/// memory the process holds before any work (about 10 MiB, held_mib()) in its budget; under
/// AddressSanitizer, where that is about 250 MiB, what the process holds is added, and 32 MiB for
/// the redzones around the work's allocations (24M gives about 300M).
inline std::string small_budget(const std::string& budget) {
    if (!kAsan) return budget;
    return std::to_string(std::stoi(budget) + held_mib() + 32) + "M";
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
