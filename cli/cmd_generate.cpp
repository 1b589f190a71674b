// `konane generate`: every position of a board solved by retrograde analysis, the table written
// (the generator of layer parts, --staged and MPI, is in cli/cmd_generate_parts.cpp).
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/gap_arg.hpp"
#include "cli/generate_parts.hpp"
#include "cli/help.hpp"
#include "cli/json.hpp"
#include "cli/progress.hpp"
#include "cli/sizes.hpp"
#include "core/notation.hpp"
#include "core/text.hpp"
#include "format/table.hpp"
#include "process/cleanup.hpp"
#include "process/self.hpp"
#include "solver/distributed.hpp"
#include "solver/estimate.hpp"
#include "solver/preflight.hpp"
#include "solver/solve.hpp"
#include "solver/workdir.hpp"

namespace konane::cli {

namespace {

using json = nlohmann::ordered_json;
struct GenerateArgs {
    std::string board;         ///< BOARD
    std::string board_option;  ///< --board, the same
    std::string rules = "brainking";
    bool rules_given = false;
    std::string gap;  ///< --gap SQ,SQ (empty: the ruleset's removals)
    int threads = 0;
    std::string output;
    std::string work;
    std::string memory;
    bool keep_work = false;
    std::string solve_by = "auto";  ///< --solve-by: auto, hash or join
    bool json = false;
    bool quiet = false;
    bool staged = false;    ///< --staged: the generator of layer parts, one rank
    bool estimate = false;  ///< --estimate: print what the run needs and stop
    int ranks = 1;          ///< --ranks: the ranks --estimate is for
};

/// `konane generate RxC --estimate [--ranks N]`: what a generation over N ranks needs
/// (solver::estimate_parts), or that there is no estimate for this board.
int print_estimate(const Board& b, int ranks, bool as_json) {
    const auto e = solver::estimate_parts(b, ranks);
    if (!e) {
        throw UsageError(fmt::format(
            "no estimate for {}: its counts were not measured here (solver/estimate.cpp) and no "
            "model covers it (6x7 and 7x6 only)",
            b.name()));
    }
    if (as_json) {
        json j;
        j["board"] = b.name();
        j["ranks"] = ranks;
        j["counted"] = e->measured;
        j["source"] = e->source;
        j["positions"] = e->classes;
        j["largest_layer"] = e->largest_layer;
        j["window"] = e->window;
        j["memory_per_rank_bytes"] = e->memory_per_rank;
        j["write_bytes_per_rank"] = e->root_extra;
        j["disk_per_rank_bytes"] = e->disk_per_rank;
        j["spill_bytes_per_rank"] = e->root_spill;
        j["table_bytes"] = e->table_bytes;
        j["bytes_exchanged"] = e->bytes_exchanged;
        j["seconds"] = e->seconds;
        std::printf("%s\n", dump(j).c_str());
        return kOk;
    }
    auto gib = [](std::uint64_t v) { return fmt::format("{:.2f} GiB", v / 1073741824.0); };
    std::printf("%s over %d rank%s (%s, from %s):\n", b.name().c_str(), ranks,
                ranks == 1 ? "" : "s", e->measured ? "counted" : "estimated", e->source.c_str());
    std::printf("  positions        %.4g (largest layer %.4g, the layers its jumps reach %.4g)\n",
                static_cast<double>(e->classes), static_cast<double>(e->largest_layer),
                static_cast<double>(e->window));
    std::printf("  memory per rank  %s, and %s more to write (the batches of its range)\n",
                gib(e->memory_per_rank).c_str(), gib(e->root_extra).c_str());
    std::printf(
        "  disk per rank    %s of work files and %s of a layer's encoding; table %s on rank 0\n",
        gib(e->disk_per_rank).c_str(), gib(e->root_spill).c_str(), gib(e->table_bytes).c_str());
    std::printf("  exchanged        %s between ranks\n", gib(e->bytes_exchanged).c_str());
    std::printf(
        "  time             %.3g hours (rate measured on this machine kind, "
        "docs/distributed.md)\n",
        e->seconds / 3600);
    return kOk;
}

int run_generate(GenerateArgs a) {
    merge_board(a.board, a.board_option);
    if (a.board_option.empty()) throw UsageError("give the board: konane generate 5x5");
    solver::GenerateOptions o;
    o.board = Board::parse(a.board_option);
    o.rules = parse_ruleset(a.rules);
    if (!a.gap.empty()) o.gap = gap_arg(o.board, a.gap, a.rules_given, a.rules);
    const Opening opening = solver::opening_of(o);
    const std::string label = opening_label(o.board, opening);
    if (a.estimate) return print_estimate(o.board, a.ranks, a.json);
    // Under an MPI launcher (or with --staged) the generator of layer parts runs instead.
    const bool parts = a.staged || under_mpi();
    if (a.threads < 0) throw UsageError("-j THREADS must be 1 or more (0: all cores)");
    o.threads = a.threads;
    o.memory_bytes = a.memory.empty() ? 0 : parse_size(a.memory, "--memory");
    o.output = a.output.empty() ? solver::default_table_name(o.board, opening) : a.output;
    o.work_dir =
        a.work.empty() ? solver::default_work_dir(o.output) : std::filesystem::path(a.work);
    o.keep_work = a.keep_work;
    o.solve_by = a.solve_by == "hash"   ? solver::SolveMethod::hash
                 : a.solve_by == "join" ? solver::SolveMethod::join
                                        : solver::SolveMethod::automatic;
    // Board size, memory budget, locations, threads, stale temporaries and free disk
    // (generate() checks them again).
    const solver::Preflight pre = solver::preflight_generate(
        o, parts ? solver::kMaxDistributedSquares : solver::kMaxGenerateSquares);
    for (const auto& p : pre.removed_temporaries) {
        if (!a.quiet) {
            std::fprintf(stderr, "removed %s, a temporary table left by a run that was killed\n",
                         printable(p.string()).c_str());
        }
    }
    const std::uint64_t budget =
        a.memory.empty() ? solver::default_memory_budget() : o.memory_bytes;
    if (!a.memory.empty()) warn_memory_over_physical(budget, a.memory, a.quiet);
    // --memory bounds the whole process: what it holds already (about 10 MiB) and the threads'
    // stacks are part of it.
    o.process_bytes =
        process::resident_bytes() +
        static_cast<std::uint64_t>(solver::generate_threads(o.threads)) * (std::uint64_t{1} << 18);
    if (parts && a.solve_by != "auto") {
        throw UsageError(
            "--solve-by is for the one-process generator; the generator of layer "
            "parts (--staged, MPI) looks children up by perfect hashes");
    }
    if (parts) {
        // Each rank checks its own work directory (ranks on other nodes see other disks).
        return run_generate_parts(o, a.json, a.quiet || launcher_rank() != 0);
    }
    ProgressLine progress(!a.quiet);
    progress.watch_directory(o.work_dir);
    o.progress = [&](const char* phase, int pieces, std::uint64_t done, std::uint64_t total) {
        progress(phase, pieces, done, total);
    };
    o.run_progress = [&](std::uint64_t done, std::uint64_t total) { progress.run(done, total); };
    if (!a.quiet) {
        std::fprintf(stderr, "%s %s: memory budget %s, work directory %s (%s free)%s\n",
                     o.board.name().c_str(), label.c_str(), mib(budget).c_str(),
                     printable(o.work_dir.string()).c_str(),
                     pre.work_free_bytes == UINT64_MAX ? "?" : mib(pre.work_free_bytes).c_str(),
                     std::filesystem::exists(o.work_dir / "manifest") ? ", resuming" : "");
    }
    if (!a.quiet) {
        if (const auto e = o.gap ? std::nullopt : solver::estimate_resources(o.board, o.rules)) {
            // The joins' figure for the threads of this run (solver::join_memory_bytes); the
            // layers use them under --solve-by auto only if the budget holds it.
            const std::uint64_t join = solver::join_memory_bytes(
                e->largest_layer, e->window, solver::generate_threads(o.threads));
            std::fprintf(
                stderr,
                "estimate%s: %llu positions; memory %s for the largest layer's solve "
                "(%s to build its perfect hash beside its keys, %s to solve it by "
                "sort-merge joins); disk %s (work) + %s (table), from %s\n",
                e->upper_bound ? " (upper bound)" : "", static_cast<unsigned long long>(e->classes),
                mib(e->memory_bytes).c_str(), mib(e->whole_memory_bytes).c_str(), mib(join).c_str(),
                mib(e->work_bytes).c_str(), mib(e->table_bytes).c_str(), e->source.c_str());
        }
    }
    // Shown if a signal ends the run (process/cleanup.hpp), after the progress line.
    process::set_interrupt_message(fmt::format(
        "\nkonane generate: interrupted; the finished steps are kept in {}: run the same "
        "command again to resume\n",
        printable(o.work_dir.string())));
    const auto rep = solver::generate(o);
    process::set_interrupt_message("");
    progress.finish();
    const auto table = format::Table::open(o.output);
    format::SectionSizes bits;  // summed over the layers
    for (std::size_t i = 0; i < table->layers().size(); ++i)
        bits = add_sizes(bits, table->section_sizes(i));
    const double per = rep.classes ? 8.0 / static_cast<double>(rep.classes) : 0;
    const double per_bit = rep.classes ? 1.0 / static_cast<double>(rep.classes) : 0;
    if (a.json) {
        json j;
        j["board"] = o.board.name();
        put_opening(j, o.board, opening);
        j["file"] = printable(o.output.string());
        j["positions"] = {{"classes", rep.classes}, {"raw", rep.raw}};
        j["threads"] = rep.threads;
        j["seconds"] = {{"enumerate", rep.enumerate_seconds},
                        {"hash", rep.hash_seconds},
                        {"solve", rep.solve_seconds},
                        {"write", rep.write_seconds},
                        {"total", rep.total_seconds}};
        j["peak_memory_bytes"] = rep.peak_rss_bytes;
        j["memory_budget_bytes"] = rep.memory_bytes;
        j["peak_work_bytes"] = rep.peak_work_bytes;
        j["resumed"] = rep.resumed;
        j["runs_written"] = rep.runs_written;
        j["streamed_layers"] = rep.streamed_layers;
        j["join_layers"] = rep.join_layers;
        auto phase = [](const solver::PhaseReport& p) {
            return json{{"seconds", p.seconds},
                        {"bytes_read", p.bytes_read},
                        {"bytes_written", p.bytes_written},
                        {"peak_memory_bytes", p.peak_rss_bytes}};
        };
        j["phases"] = {{"enumerate", phase(rep.enumerate_phase)},
                       {"solve", phase(rep.solve_phase)}};
        j["file_bytes"] = rep.file_bytes;
        j["bits_per_position"] = {{"total", rep.file_bytes * per},
                                  {"index", bits.index() * per_bit},
                                  {"values", bits.values() * per_bit},
                                  {"checks", bits.checks * per_bit}};
        j["layers"] = json::array();
        for (const auto& l : rep.layers) {
            j["layers"].push_back({{"pieces", l.pieces},
                                   {"classes", l.classes},
                                   {"raw", l.raw},
                                   {"max_depth", l.max_depth},
                                   {"solved_by", l.by_join ? "join" : "hash"},
                                   {"seconds",
                                    {{"enumerate", l.enumerate_seconds},
                                     {"hash", l.hash_seconds},
                                     {"solve", l.solve_seconds}}}});
        }
        std::printf("%s\n", dump(j).c_str());
        return kOk;
    }
    std::printf("%s %s: %zu layers, %llu classes, %llu raw positions\n", o.board.name().c_str(),
                label.c_str(), rep.layers.size(), static_cast<unsigned long long>(rep.classes),
                static_cast<unsigned long long>(rep.raw));
    std::printf("%6s %12s %12s %9s %10s %9s %9s\n", "pieces", "classes", "raw", "max depth",
                "enumerate", "hash", "solve");
    for (auto it = rep.layers.rbegin(); it != rep.layers.rend(); ++it) {
        std::printf("%6d %12llu %12llu %9d %9.3fs %8.3fs %8.3fs\n", it->pieces,
                    static_cast<unsigned long long>(it->classes),
                    static_cast<unsigned long long>(it->raw), it->max_depth, it->enumerate_seconds,
                    it->hash_seconds, it->solve_seconds);
    }
    std::printf(
        "time: enumerate %.2f s, hash %.2f s, solve %.2f s, write %.2f s, total %.2f s "
        "(%d thread%s)\n",
        rep.enumerate_seconds, rep.hash_seconds, rep.solve_seconds, rep.write_seconds,
        rep.total_seconds, rep.threads, rep.threads == 1 ? "" : "s");
    if (rep.join_layers > 0) {
        std::printf(
            "solved by sort-merge joins: %d of %zu layers (the rest by perfect-hash "
            "look-ups)\n",
            rep.join_layers, rep.layers.size());
    }
    std::printf("peak memory: %s (budget %s); work directory: at most %s on disk%s\n",
                mib(rep.peak_rss_bytes).c_str(), mib(rep.memory_bytes).c_str(),
                mib(rep.peak_work_bytes).c_str(), rep.resumed ? " (resumed run)" : "");
    for (const auto& [name, p] :
         {std::pair{"enumerate", rep.enumerate_phase}, std::pair{"solve+write", rep.solve_phase}}) {
        std::printf("  %-11s %8.2f s, %8.2f M positions/s, peak %s, read %s, written %s\n", name,
                    p.seconds, p.seconds > 0 ? rep.classes / p.seconds / 1e6 : 0.0,
                    mib(p.peak_rss_bytes).c_str(), mib(p.bytes_read).c_str(),
                    mib(p.bytes_written).c_str());
    }
    std::printf(
        "file: %s, %llu bytes, %.2f bits per position (index %.2f, values %.2f, checks %.2f)\n",
        printable(o.output.string()).c_str(), static_cast<unsigned long long>(rep.file_bytes),
        rep.file_bytes * per, bits.index() * per_bit, bits.values() * per_bit,
        bits.checks * per_bit);
    return kOk;
}

}  // namespace

void add_generate_command(CLI::App& app, Commands& out) {
    auto g = std::make_shared<GenerateArgs>();
    auto* gen = app.add_subcommand(
        "generate", "Enumerate, hash and solve every position of a board; write the table");
    gen->add_option("BOARD", g->board,
                    "Board size RxC, at most 36 squares (e.g. 5x5; or --board RxC)")
        ->check(non_empty());
    gen->add_option("--board", g->board_option, "Board size RxC (the same as BOARD)")
        ->check(non_empty());
    auto* gen_rules =
        gen->add_option("--rules", g->rules, "Opening ruleset: brainking, center or any")
            ->capture_default_str()
            ->check(non_empty());
    gen->add_option(
           "--gap", g->gap,
           std::string(kGapHelp) + "; the table holds the positions reachable from that gap alone")
        ->check(non_empty());
    gen->add_option("-j,--threads", g->threads, "Threads, 1..1024 (default 0: all cores)")
        ->check(decimal(0, 1024));
    gen->add_option("-o,--output", g->output, "Table file (default konane-RxC-RULES.kbt)")
        ->check(non_empty());
    gen->add_option(
           "--memory", g->memory,
           "Memory budget (per rank under MPI), e.g. 500M, 1.5G, 12GiB (default: 60% of the "
           "machine's memory, shared by the ranks on one node, at most 16G); children are "
           "sorted and spilled to disk to stay within it")
        ->check(non_empty());
    gen->add_option("--work", g->work,
                    "Work directory holding the run's state (default FILE.work beside the table); "
                    "rerunning the same command resumes after the last finished step; removed "
                    "when the table is complete")
        ->check(non_empty());
    gen->add_flag("--keep-work", g->keep_work,
                  "Keep the work directory after the table is written (a rerun then rewrites "
                  "the table from it without solving again)");
    gen->add_option("--solve-by", g->solve_by,
                    "How a layer's children are found in the solved layers below: auto (sort-merge "
                    "joins for every layer from the first of 2^24 positions up if the memory "
                    "budget holds each of them; perfect-hash look-ups elsewhere), hash (look-ups "
                    "only) or join (joins only); the same table either way. One process only "
                    "(not --staged or MPI)")
        ->check(CLI::IsMember({"auto", "hash", "join"}));
    gen->add_flag("--json", g->json, "JSON summary on stdout");
    gen->add_flag("-q,--quiet", g->quiet, "No progress line on stderr");
    gen->add_flag("--staged", g->staged,
                  "Run the generator of layer parts in this process: the one-rank case of the "
                  "MPI generator (which runs under mpirun or srun; docs/distributed.md)");
    gen->add_flag("--estimate", g->estimate,
                  "Print what the generation needs (positions, memory and disk per rank, bytes "
                  "exchanged, time) and stop");
    gen->add_option("--ranks", g->ranks, "With --estimate: the MPI ranks to size it for")
        ->check(decimal(1, 1 << 20));
    help_footer(gen,
                {"konane generate 5x5                  writes konane-5x5-brainking.kbt",
                 "konane generate --board 5x5 -j 2     the same with 2 compute threads",
                 "konane generate 4x5 --rules any -o t.kbt --json",
                 "konane generate 6x6 --gap c3,c4 --memory 8G"},
                false);
    out.push_back({gen, [g, gen_rules] {
                       g->rules_given = gen_rules->count() > 0;
                       return run_generate(*g);
                   }});
}

}  // namespace konane::cli
