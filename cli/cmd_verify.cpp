// `konane verify`: a table checked against the rules (checksums, positions, every value).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/help.hpp"
#include "cli/json.hpp"
#include "cli/progress.hpp"
#include "cli/sizes.hpp"
#include "core/text.hpp"
#include "format/table.hpp"
#include "process/self.hpp"
#include "solver/preflight.hpp"
#include "solver/verify.hpp"

namespace konane::cli {

namespace {

struct VerifyArgs {
    std::string file;
    bool json = false;
    int threads = 0;
    bool quiet = false;
    std::string memory;
    std::string work;
};

int run_verify(const VerifyArgs& a) {
    ProgressLine progress(!a.quiet);  // on stderr: it does not mix with --json's stdout
    solver::VerifyOptions vo;
    vo.threads = a.threads;
    vo.memory_bytes = a.memory.empty() ? 0 : parse_size(a.memory, "--memory");
    if (!a.memory.empty()) solver::check_memory_budget(vo.memory_bytes, process::resident_bytes());
    if (!a.memory.empty()) warn_memory_over_physical(vo.memory_bytes, a.memory, a.quiet);
    vo.work_dir = a.work;
    if (!vo.work_dir.empty()) solver::check_work_dir(vo.work_dir);
    solver::check_threads(vo.threads);
    if (!vo.work_dir.empty()) progress.watch_directory(vo.work_dir);
    vo.progress = [&](const char* phase, int pieces, std::uint64_t done, std::uint64_t total) {
        progress(phase, pieces, done, total);
    };
    const auto start = std::chrono::steady_clock::now();
    const auto t = format::Table::open(a.file);
    const auto r = solver::verify_table(*t, vo);
    progress.finish();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::uint64_t peak = process::peak_rss_bytes();
    if (a.json) {
        json j;
        j["file"] = printable(a.file);
        j["ok"] = r.ok;
        j["blocks_checked"] = r.blocks_checked;
        j["positions_checked"] = r.positions_checked;
        j["wrong_values"] = r.wrong_values;
        j["key_mismatches"] = r.key_mismatches;
        j["problems"] = r.problems;
        j["seconds"] = seconds;
        j["peak_memory_bytes"] = peak;
        std::printf("%s\n", dump(j).c_str());
    } else {
        std::printf("%s: %s\n", printable(a.file).c_str(), r.ok ? "OK" : "FAILED");
        std::printf("  %llu blocks checked, %llu positions recomputed from their children\n",
                    static_cast<unsigned long long>(r.blocks_checked),
                    static_cast<unsigned long long>(r.positions_checked));
        std::printf("  %.1f s, peak memory %s (with the table's pages read)\n", seconds,
                    mib(peak).c_str());
        for (const auto& p : r.problems)
            std::printf("  problem: %s\n", p.c_str());
    }
    return r.ok ? kOk : kFailed;
}

}  // namespace

void add_verify_command(CLI::App& app, Commands& out) {
    auto v = std::make_shared<VerifyArgs>();
    auto* verify = app.add_subcommand(
        "verify",
        "Check every checksum, that the stored positions are exactly the reachable ones, and every "
        "value against its children");
    verify->add_option("FILE", v->file, "Table file")->required()->check(non_empty());
    verify->add_option("-j,--threads", v->threads, "Threads, 1..1024 (default 0: all cores)")
        ->check(decimal(0, 1024));
    verify
        ->add_option("--memory", v->memory,
                     "Memory budget of the re-enumeration, e.g. 500M, 1.5G (default as generate)")
        ->check(non_empty());
    verify
        ->add_option("--work", v->work,
                     "Work directory of the re-enumeration (default FILE.verify-work)")
        ->check(non_empty());
    verify->add_flag("--json", v->json, "JSON output");
    verify->add_flag("-q,--quiet", v->quiet, "No progress line on stderr");
    help_footer(verify,
                {"konane verify konane-5x5-brainking.kbt", "konane verify t.kbt -j 2 --json"},
                false);
    out.push_back({verify, [v] { return run_verify(*v); }});
}

}  // namespace konane::cli
