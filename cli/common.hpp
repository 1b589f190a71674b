// Shared pieces of the `konane` command: subcommand registration, errors and exit codes.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace konane::cli {

/// Exit codes of every subcommand.
enum Exit : int {
    kOk = 0,         ///< success
    kFailed = 1,     ///< the work failed (I/O error, verification found problems)
    kBadInput = 2,   ///< bad usage or bad input (malformed position, damaged or foreign table)
    kNotStored = 3,  ///< the position is not in the table
};

/// A bad-usage or bad-input error: printed on stderr, exit code 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// A subcommand: its CLI11 app and the function that runs it once parsed (returns the exit code).
struct Command {
    CLI::App* app;
    std::function<int()> run;
};
using Commands = std::vector<Command>;

/// A CLI11 check refusing an empty value ("must not be empty"), for arguments where an empty
/// string would otherwise read as "not given".
inline CLI::Validator non_empty() {
    return CLI::Validator(
        [](std::string& s) { return s.empty() ? std::string("must not be empty") : std::string(); },
        "NON-EMPTY");
}

/// Parses a size: decimal digits with an optional suffix K, M, G or T (powers of 1024; "B"
/// after it allowed). Throws UsageError naming the option for anything else.
inline std::uint64_t parse_size(const std::string& text, const char* option) {
    std::size_t i = 0;
    std::uint64_t v = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
        if (v > (std::uint64_t{1} << 50))
            throw UsageError(option + std::string(" ") + text + ": too large");
        v = v * 10 + static_cast<std::uint64_t>(text[i++] - '0');
    }
    int shift = 0;
    if (i < text.size()) {
        switch (text[i] | 0x20) {
            case 'k':
                shift = 10;
                break;
            case 'm':
                shift = 20;
                break;
            case 'g':
                shift = 30;
                break;
            case 't':
                shift = 40;
                break;
            default:
                shift = -1;
        }
        ++i;
        if (i < text.size() && (text[i] | 0x20) == 'b') ++i;
    }
    if (i == 0 || i != text.size() || shift < 0) {
        throw UsageError(option + std::string(" ") + text +
                         ": expected a size such as 500M or 12G");
    }
    if (v > (std::uint64_t{1} << (62 - shift)))
        throw UsageError(option + std::string(" ") + text + ": too large");
    return v << shift;
}

/// Registration functions, one per source file.
void add_rules_commands(CLI::App& app, Commands& out);     // moves, perft
void add_generate_commands(CLI::App& app, Commands& out);  // generate, info, openings, verify
void add_probe_commands(CLI::App& app, Commands& out);     // probe, analyse, solve
void add_bench_command(CLI::App& app, Commands& out);      // bench
void add_serve_command(CLI::App& app, Commands& out);      // serve

}  // namespace konane::cli
