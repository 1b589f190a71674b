// Shared pieces of the `konane` command: subcommand registration, errors and exit codes.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "format/table.hpp"

namespace konane::cli {

/// Exit codes of every subcommand (README "Exit codes"); failure_of() maps errors onto them.
enum Exit : int {
    kOk = 0,         ///< success
    kFailed = 1,     ///< the work failed (I/O error, out of memory or threads, verify found a
                     ///< problem, a search over its limit)
    kBadInput = 2,   ///< bad usage or bad input (malformed position, damaged or foreign table)
    kNotStored = 3,  ///< the position is not in the table
    kResources = 4,  ///< too little memory or disk: a budget that cannot hold the run, a file
                     ///< system without the free space it needs (konane::ResourceError)
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

/// An error as the command reports it: its exit code and its one-line message.
struct Failure {
    int code;
    std::string message;
};

/// The one mapping from error to exit code, used for every subcommand: UsageError,
/// std::invalid_argument (malformed notation, board, ruleset) and format::FormatError (a damaged
/// or foreign table) give kBadInput; NotStored gives kNotStored; konane::ResourceError (a memory
/// budget or free disk too small for the run) gives kResources; format::IoError (a file that
/// cannot be opened, read or written), std::bad_alloc, std::system_error (a thread that cannot
/// be started), SearchLimit, a damaged work file and anything else give kFailed. The message
/// for std::bad_alloc advises --memory only when has_memory_option (the subcommand has one).
Failure failure_of(std::exception_ptr error, bool has_memory_option = true);

/// An error message made safe for a terminal: printable() (control characters and invalid
/// UTF-8 escaped), at most 1,000 characters (then "...").
std::string safe_message(std::string_view message);

/// Parses a size in bytes: decimal digits, an optional fraction (".5", up to 6 digits, only
/// with a unit) and an optional unit K, M, G or T (powers of 1024, any case; "i" and "B" after
/// it allowed: 500M, 1.5G, 12GiB, 64kb). Throws UsageError naming the option for anything
/// else, or for more than 2^62 bytes.
std::uint64_t parse_size(const std::string& text, const char* option);

/// Prints a warning on stderr (unless quiet) when a --memory budget exceeds the machine's
/// memory (process::machine_memory_bytes()).
void warn_memory_over_physical(std::uint64_t budget, const std::string& text, bool quiet);

/// Prints the warning that -j `asked` threads run as `running` only: each thread past the first
/// takes `each` bytes of --memory `memory` (the option's text) for its own state, and at most
/// half of the budget goes to threads.
void warn_threads_within(int asked, std::size_t each, const std::string& memory,
                         std::size_t running);

/// Parses a whole number in decimal digits only, within [lo, hi]: the one number parser of the
/// command (every numeric option goes through it, by decimal()). Refuses a sign, a space,
/// "0x10", "1e3", a leading zero ("010", which CLI11 and strtol would read as octal), the empty
/// string and a value past 2^64 or outside the range. Throws UsageError "OPTION: PROBLEM
/// (accepted: LO..HI)".
std::uint64_t parse_decimal(std::string_view text, const char* option, std::uint64_t lo,
                            std::uint64_t hi);

/// The largest --max-nodes taken (10^18: far past any search that ends).
inline constexpr std::uint64_t kMaxNodes = 1'000'000'000'000'000'000;

/// A CLI11 check running parse_decimal() on an option's value (CLI11 prefixes the option's
/// name to the message).
CLI::Validator decimal(std::uint64_t lo, std::uint64_t hi);

/// A CLI11 check for a number of seconds or a share: decimal digits with an optional fraction
/// ("0.5", "2", ".25"), within [lo, hi]. Refuses what CLI11's own conversion would take and a
/// search could not use: "nan" (it passes every range check, and a search given it never
/// ends), "inf", a sign, "0x10", "1e3", the empty string.
CLI::Validator decimal_fraction(double lo, double hi);

/// Adds `--load map|memory|auto` to a subcommand that reads a table: where the table's bytes
/// are read from (format::Load: the file mapped, or read into memory backed by huge pages).
/// `text` receives the word, and stays empty when the option is not given; `when_absent` says
/// in the help what the command does then. Returns the option.
inline CLI::Option* add_load_option(CLI::App* app, std::string& text, const char* when_absent) {
    return app
        ->add_option("--load", text,
                     std::string("Where the table is read from: map (the file mapped: opens at "
                                 "once, shares the page cache), memory (the whole file read "
                                 "into this process's memory on 2 MiB huge pages: faster "
                                 "probes of a large table, costs the file's size in memory) or "
                                 "auto (memory when the kernel gives huge pages and the file "
                                 "takes at most a quarter of the available memory); "
                                 "default ") +
                         when_absent)
        ->check(CLI::IsMember({"map", "memory", "auto"}));
}

/// The options of format::Table::open for --load's word `text` (add_load_option()), or `absent`
/// when it was not given.
inline format::OpenOptions open_options(const std::string& text, format::Load absent) {
    return format::OpenOptions{text.empty() ? absent : format::parse_load(text)};
}

/// Registration functions, one per command, each in the file of its name (cli/cmd_NAME.cpp);
/// main.cpp calls them in the order `konane --help` lists the commands.
void add_moves_command(CLI::App& app, Commands& out);        // moves
void add_perft_command(CLI::App& app, Commands& out);        // perft
void add_generate_command(CLI::App& app, Commands& out);     // generate
void add_info_command(CLI::App& app, Commands& out);         // info
void add_openings_command(CLI::App& app, Commands& out);     // openings
void add_verify_command(CLI::App& app, Commands& out);       // verify
void add_upgrade_command(CLI::App& app, Commands& out);      // upgrade
void add_probe_command(CLI::App& app, Commands& out);        // probe
void add_analyse_command(CLI::App& app, Commands& out);      // analyse
void add_solve_command(CLI::App& app, Commands& out);        // solve
void add_check_proof_command(CLI::App& app, Commands& out);  // check-proof
void add_prove_command(CLI::App& app, Commands& out);        // prove
void add_serve_command(CLI::App& app, Commands& out);        // serve
void add_value_command(CLI::App& app, Commands& out);        // value
void add_bestmove_command(CLI::App& app, Commands& out);     // bestmove
void add_engine_command(CLI::App& app, Commands& out);       // engine (GTP)
void add_play_command(CLI::App& app, Commands& out);         // play
void add_match_command(CLI::App& app, Commands& out);        // match

}  // namespace konane::cli
