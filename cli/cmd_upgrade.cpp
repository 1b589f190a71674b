// `konane upgrade`: a table of an older format version rewritten as the current one.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/help.hpp"
#include "cli/json.hpp"
#include "core/text.hpp"
#include "format/table.hpp"
#include "format/upgrade.hpp"
#include "solver/preflight.hpp"

namespace konane::cli {

namespace {

struct UpgradeArgs {
    std::string file, output;
    bool json = false;
    bool quiet = false;
    int threads = 0;
};

int run_upgrade(const UpgradeArgs& a) {
    const std::filesystem::path out = a.output.empty() ? a.file : a.output;
    solver::check_output_file(out, a.output.empty() ? a.file : "-o " + a.output);
    const bool show = !a.quiet && ::isatty(STDERR_FILENO) != 0;
    const std::uint64_t bytes =
        format::upgrade_table(a.file, out, a.threads, [&](std::size_t done, std::size_t all) {
            if (show) std::fprintf(stderr, "\rkonane upgrade: layer %zu of %zu", done, all);
        });
    if (show) std::fprintf(stderr, "\n");
    // What was written must open as a table of this version (every header and layer check).
    const auto t = format::Table::open(out);
    if (a.json) {
        json j;
        j["file"] = printable(a.file);
        j["output"] = printable(out.string());
        j["version"] = format::kFormatVersion;
        j["bytes"] = bytes;
        std::printf("%s\n", dump(j).c_str());
    } else {
        std::printf(
            "%s: format version %u, %llu bytes (%s %s)\n", printable(out.string()).c_str(),
            format::kFormatVersion, static_cast<unsigned long long>(bytes),
            t->meta().ruleset.c_str(),
            (std::to_string(t->meta().rows) + "x" + std::to_string(t->meta().cols)).c_str());
    }
    return kOk;
}

}  // namespace

void add_upgrade_command(CLI::App& app, Commands& out) {
    auto up = std::make_shared<UpgradeArgs>();
    auto* upgrade = app.add_subcommand(
        "upgrade",
        "Rewrite a table of format version 2 or 3 as version 4 (the same positions and values, "
        "in blocks checked on first read), without generating it again");
    upgrade->add_option("FILE", up->file, "Table file of format version 2 or 3")
        ->required()
        ->check(non_empty());
    upgrade->add_option("-o,--output", up->output, "Where to write it (default: replace FILE)")
        ->check(non_empty());
    upgrade->add_flag("--json", up->json, "JSON output");
    upgrade->add_flag("-q,--quiet", up->quiet, "No progress line on stderr");
    upgrade->add_option("-j,--threads", up->threads, "Threads, 1..1024 (default 0: all cores)")
        ->check(decimal(0, 1024));
    help_footer(upgrade,
                {"konane upgrade old.kbt               rewrites it in place",
                 "konane upgrade old.kbt -o new.kbt --json"},
                false);
    out.push_back({upgrade, [up] { return run_upgrade(*up); }});
}

}  // namespace konane::cli
