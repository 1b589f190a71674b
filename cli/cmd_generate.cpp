// `konane generate`, `konane info`, `konane openings`, `konane verify`.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/gap_arg.hpp"
#include "cli/generate_parts.hpp"
#include "cli/help.hpp"
#include "cli/json.hpp"
#include "cli/progress.hpp"
#include "cli/proof_cmd.hpp"
#include "core/notation.hpp"
#include "core/text.hpp"
#include "format/stats.hpp"
#include "format/table.hpp"
#include "format/upgrade.hpp"
#include "probe/openings.hpp"
#include "probe/probe.hpp"
#include "process/cleanup.hpp"
#include "process/resource_error.hpp"
#include "process/self.hpp"
#include "solver/distributed.hpp"
#include "solver/estimate.hpp"
#include "solver/preflight.hpp"
#include "solver/solve.hpp"
#include "solver/verify.hpp"
#include "solver/workdir.hpp"
#include "table/header.hpp"

namespace konane::cli {

namespace {

/// The sum of two layers' (or tables') sizes.
format::SectionSizes add_sizes(const format::SectionSizes& a, const format::SectionSizes& b) {
    return {a.directory + b.directory, a.high + b.high,      a.low + b.low,
            a.code + b.code,           a.groups + b.groups,  a.codes + b.codes,
            a.checks + b.checks,       a.padding + b.padding};
}

/// Sizes in bytes per part (FORMAT.md §4): the index, the values, the checks and padding.
json sizes_json(const format::SectionSizes& s) {
    return {{"index", s.index() / 8},
            {"values", s.values() / 8},
            {"checks", s.checks / 8},
            {"padding", s.padding / 8},
            {"parts_bits",
             {{"directory", s.directory},
              {"high_bits", s.high},
              {"low_bits", s.low},
              {"code_lengths", s.code},
              {"group_directories", s.groups},
              {"codes", s.codes},
              {"checks", s.checks},
              {"padding", s.padding}}}};
}

using json = nlohmann::ordered_json;

std::string mib(std::uint64_t bytes) {
    return fmt::format("{:.1f} MiB", bytes / 1048576.0);
}

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

struct FileArgs {
    std::string file;
    std::string gap;   ///< openings --gap
    std::string load;  ///< openings --load (add_load_option()); empty: map
    bool json = false;
    int threads = 0;
    bool quiet = false;
    std::string memory;
    std::string work;
    bool stats = false;  ///< info --stats
};

/// "0:12 1:40 ..." (depth:count for every depth with a class) for `konane info --stats`.
std::string depth_histogram_text(const std::vector<std::uint64_t>& counts) {
    std::string out;
    for (std::size_t d = 0; d < counts.size(); ++d) {
        if (counts[d] == 0) continue;
        out += fmt::format("{}{}:{}", out.empty() ? "" : " ", d, counts[d]);
    }
    return out;
}

/// The sum of the layers' statistics (pieces 0): classes, raw, wins, losses and the histogram.
format::LayerStats total_stats(const std::vector<format::LayerStats>& layers) {
    format::LayerStats all;
    for (const auto& l : layers) {
        all.classes += l.classes;
        all.raw += l.raw;
        all.wins += l.wins;
        all.losses += l.losses;
        if (l.depth_counts.size() > all.depth_counts.size())
            all.depth_counts.resize(l.depth_counts.size(), 0);
        for (std::size_t d = 0; d < l.depth_counts.size(); ++d)
            all.depth_counts[d] += l.depth_counts[d];
    }
    return all;
}

int run_info(const FileArgs& a) {
    const auto t = format::Table::open(a.file);
    const auto& m = t->meta();
    std::uint64_t classes = 0, raw = 0;
    format::SectionSizes bits;  // summed over the layers
    for (std::size_t i = 0; i < t->layers().size(); ++i) {
        classes += t->layers()[i].classes;
        raw += t->layers()[i].raw;
        bits = add_sizes(bits, t->section_sizes(i));
    }
    const double per = classes ? 8.0 / static_cast<double>(classes) : 0;
    const double per_bit = classes ? 1.0 / static_cast<double>(classes) : 0;
    const std::string board = fmt::format("{}x{}", m.rows, m.cols);
    // --stats decodes every value of the table (and so checks every block's check).
    std::vector<format::LayerStats> stats;
    if (a.stats) stats = format::table_stats(*t);
    // A table built from one gap names it in its ruleset field ("gap-c3-c4", FORMAT.md §3).
    std::optional<Gap> gap;
    std::optional<Board> geometry;
    try {
        const TableGame g = decode_header(m, t->path().string());
        geometry = g.board;
        gap = g.opening.gap;
    } catch (const format::FormatError&) {
        // Shown as the header has it; probe and verify say what is wrong with it.
    }
    if (a.json) {
        json j;
        j["file"] = printable(a.file);
        j["board"] = board;
        if (gap) {
            put_opening(j, *geometry, Opening::from_gap(*gap));
        } else {
            j["rules"] = m.ruleset;
        }
        j["generator"] = m.generator;
        j["positions"] = {{"classes", classes}, {"raw", raw}};
        j["file_bytes"] = t->file_size();
        j["sections"] = sizes_json(bits);
        j["bits_per_position"] = {{"total", t->file_size() * per},
                                  {"index", bits.index() * per_bit},
                                  {"values", bits.values() * per_bit},
                                  {"checks", bits.checks * per_bit}};
        j["layers"] = json::array();
        for (std::size_t i = 0; i < t->layers().size(); ++i) {
            const auto& l = t->layers()[i];
            const auto s = t->section_sizes(i);
            json layer = {
                {"pieces", l.pieces},
                {"classes", l.classes},
                {"raw", l.raw},
                {"bytes",
                 {{"index", s.index() / 8}, {"values", s.values() / 8}, {"checks", s.checks / 8}}}};
            if (a.stats) {
                layer["wins"] = stats[i].wins;
                layer["losses"] = stats[i].losses;
                layer["depths"] = stats[i].depth_counts;
            }
            j["layers"].push_back(std::move(layer));
        }
        if (a.stats) {
            const format::LayerStats all = total_stats(stats);
            j["totals"] = {{"classes", all.classes},
                           {"wins", all.wins},
                           {"losses", all.losses},
                           {"depths", all.depth_counts}};
        }
        std::printf("%s\n", dump(j).c_str());
        return kOk;
    }
    std::printf("file:        %s (%llu bytes)\n", printable(a.file).c_str(),
                static_cast<unsigned long long>(t->file_size()));
    if (gap) {
        std::printf(
            "board:       %s, gap %s (Black removed %s, White %s; the positions reachable from "
            "this gap alone)\n",
            board.c_str(), gap_name(*geometry, *gap).c_str(),
            square_name(*geometry, gap->black).c_str(), square_name(*geometry, gap->white).c_str());
    } else {
        std::printf("board:       %s, ruleset %s\n", board.c_str(), m.ruleset.c_str());
    }
    std::printf("generator:   %s\n", m.generator.c_str());
    std::printf("positions:   %llu classes, %llu raw\n", static_cast<unsigned long long>(classes),
                static_cast<unsigned long long>(raw));
    std::printf("bits per position: %.2f (index %.2f, values %.2f, checks %.2f)\n",
                t->file_size() * per, bits.index() * per_bit, bits.values() * per_bit,
                bits.checks * per_bit);
    std::printf("%6s %12s %12s %12s %12s\n", "pieces", "classes", "raw", "index bytes",
                "value bytes");
    for (std::size_t i = t->layers().size(); i-- > 0;) {
        const auto& l = t->layers()[i];
        const auto s = t->section_sizes(i);
        std::printf("%6u %12llu %12llu %12llu %12llu\n", l.pieces,
                    static_cast<unsigned long long>(l.classes),
                    static_cast<unsigned long long>(l.raw),
                    static_cast<unsigned long long>(s.index() / 8),
                    static_cast<unsigned long long>(s.values() / 8));
    }
    if (a.stats) {
        std::printf(
            "\nwins and losses for the side to move, and classes per depth to end (plies; odd: "
            "win, even: loss):\n");
        std::printf("%6s %12s %12s %12s  %s\n", "pieces", "classes", "wins", "losses",
                    "depth:classes");
        for (std::size_t i = stats.size(); i-- > 0;) {
            const auto& l = stats[i];
            std::printf("%6u %12llu %12llu %12llu  %s\n", l.pieces,
                        static_cast<unsigned long long>(l.classes),
                        static_cast<unsigned long long>(l.wins),
                        static_cast<unsigned long long>(l.losses),
                        depth_histogram_text(l.depth_counts).c_str());
        }
        const format::LayerStats all = total_stats(stats);
        std::printf(
            "%6s %12llu %12llu %12llu  %s\n", "all", static_cast<unsigned long long>(all.classes),
            static_cast<unsigned long long>(all.wins), static_cast<unsigned long long>(all.losses),
            depth_histogram_text(all.depth_counts).c_str());
    }
    return kOk;
}

/// `konane openings FILE --gap SQ,SQ`, and `konane openings FILE` of a gap's table: the verdict
/// of that gap's start position, read from the table.
int run_gap_opening(const FileArgs& a, const Tablebase& tb) {
    const Board& b = tb.board();
    const Gap g = a.gap.empty() ? *tb.opening().gap : gap_arg(b, a.gap, false, "");
    const auto line = gap_opening(tb, g);
    if (!line) {
        throw NotStored(fmt::format(
            "gap {} is not stored in {} (a table {} {} holds only {} and {} mirror images); "
            "`konane generate {} --gap {}` builds its table, `konane openings --search --board {} "
            "--gap {}` decides it",
            gap_name(b, g), printable(a.file), tb.opening().gap ? "built from" : "of",
            opening_text(b, tb.opening()), tb.opening().gap ? "that gap" : "its removal pairs",
            tb.opening().gap ? "its" : "their", b.name(), gap_name(b, g), b.name(),
            gap_name(b, g)));
    }
    const Position start = gap_start(b, g);
    if (a.json) {
        json j;
        j["board"] = b.name();
        j["gap"] = gap_name(b, g);
        j["position"] = format_position(b, start);
        j["winner"] = color_name(line->winner);
        j["depth"] = line->depth;
        j["table"] = printable(a.file);
        std::printf("%s\n", dump(j).c_str());
        return kOk;
    }
    std::printf("%s\n", gap_heading(b, g).c_str());
    std::printf(
        "verdict: %s wins with perfect play; depth %d plies from Black's first jump "
        "(table %s)\n",
        color_name(line->winner), line->depth, printable(a.file).c_str());
    return kOk;
}

int run_openings(const FileArgs& a) {
    const Tablebase tb = Tablebase::open(a.file, {}, open_options(a.load, format::Load::map));
    const Board& b = tb.board();
    if (!a.gap.empty() || tb.opening().gap) return run_gap_opening(a, tb);
    Openings o;
    try {
        o = compute_openings(tb);
    } catch (const NotStored& e) {
        // A table of this board and ruleset holds every opening: it is damaged (exit 2).
        throw format::FormatError(std::string(e.what()) + ": the table is damaged or foreign");
    }
    if (a.json) {
        std::printf("%s\n", dump(openings_json(b, tb.rules(), o)).c_str());
        return kOk;
    }
    std::printf("%s %s: every opening (depth in plies from Black's first jump)\n", b.name().c_str(),
                ruleset_name(tb.rules()));
    std::printf("%-6s %-6s %-7s %5s\n", "black", "white", "winner", "depth");
    for (const auto& l : o.lines) {
        std::printf("%-6s %-6s %-7s %5d\n", format_move(b, l.black).c_str(),
                    format_move(b, l.white).c_str(), color_name(l.winner), l.depth);
    }
    std::printf("\nWhite's best reply to each removal:\n");
    for (const auto& c : o.choices) {
        if (c.white) {
            std::printf("  %-4s -> %-4s %s wins in %d\n", format_move(b, c.black).c_str(),
                        format_move(b, *c.white).c_str(), color_name(c.winner), c.depth);
        } else {
            std::printf("  %-4s -> White has no reply and loses\n",
                        format_move(b, c.black).c_str());
        }
    }
    if (o.best) {
        std::printf("\nBlack's best removal: %s", format_move(b, o.best->black).c_str());
        if (o.best->white)
            std::printf(" (White's best reply %s)", format_move(b, *o.best->white).c_str());
        std::printf(
            "\nverdict: %s wins with perfect play; perfect opening depth %d plies from "
            "Black's first jump\n",
            color_name(o.winner), o.best->depth);
    } else {
        std::printf("verdict: Black has no removal and loses\n");
    }
    return kOk;
}

int run_verify(const FileArgs& a) {
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

void add_generate_commands(CLI::App& app, Commands& out) {
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

    auto i = std::make_shared<FileArgs>();
    auto* info =
        app.add_subcommand("info", "Board, ruleset, counts per layer and section sizes of a table");
    info->add_option("FILE", i->file, "Table file")->required()->check(non_empty());
    info->add_flag("--json", i->json, "JSON output");
    info->add_flag("--stats", i->stats,
                   "Also per layer: classes won and lost by the side to move and the number of "
                   "classes at each depth to end (decodes every value, checking every block)");
    help_footer(info,
                {"konane info konane-5x5-brainking.kbt", "konane info t.kbt --json",
                 "konane info t.kbt --stats"},
                false);
    out.push_back({info, [i] { return run_info(*i); }});

    auto op = std::make_shared<OpeningsArgs>();
    auto* openings = app.add_subcommand(
        "openings",
        "Every opening removal pair with its winner and depth, and the verdict (from a table, "
        "or win/loss by proof search with --search)");
    openings
        ->add_option("FILE", op->file,
                     "Table file (with --search: a table to look up); or, with --search, a "
                     "board RxC")
        ->check(non_empty());
    openings->add_flag("--json", op->json, "JSON output");
    add_load_option(openings, op->load, "map, auto with --search");
    openings
        ->add_option("--gap", op->gap,
                     std::string(kGapHelp) +
                         ": the verdict of that one start position (from the table FILE, "
                         "or by --search)")
        ->check(non_empty());
    openings->add_flag("--search", op->search,
                       "Decide every opening by proof search (win/loss only) instead of reading "
                       "a table");
    openings->add_option("--board", op->board, "With --search: board size RxC (also as FILE)");
    auto* op_rules = openings->add_option("--rules", op->rules, "With --search: opening ruleset")
                         ->capture_default_str();
    openings
        ->add_option("--memory", op->memory,
                     "With --search: transposition table size (default 512M)")
        ->check(non_empty());
    openings
        ->add_option("--max-nodes", op->max_nodes,
                     "With --search: most nodes per opening (0: no limit)")
        ->check(decimal(0, kMaxNodes));
    openings->add_flag("--plain", op->plain,
                       "With --search: plain boolean alpha-beta (the baseline)");
    openings->add_flag("-q,--quiet", op->quiet, "With --search: no progress line on stderr");
    openings
        ->add_option("-j,--threads", op->threads,
                     "With --search: threads of the search, sharing one transposition table "
                     "(default 1)")
        ->check(decimal(1, 1024));
    openings->add_flag("--dfpn", op->dfpn,
                       "With --search: depth-first proof-number search (df-pn) instead of "
                       "alpha-beta");
    openings
        ->add_option("--work", op->work,
                     "With --search: a directory for checkpoints (the openings decided and the "
                     "expensive proofs, every --checkpoint seconds): the same command continues "
                     "a killed run; removed when the search completes")
        ->check(non_empty());
    openings
        ->add_option("--checkpoint", op->checkpoint,
                     "With --work: seconds between checkpoints (default 300)")
        ->check(decimal(1, 1000000));
    openings
        ->add_option("--certificate", op->certificate,
                     "With --search: write the proof of every opening's winner to this file, for "
                     "`konane check-proof` (docs/certificate.md)")
        ->check(non_empty());
    openings
        ->add_option("--table-max-pieces", op->table_max_pieces,
                     "With --search and a table FILE: look up only positions of at most this "
                     "many pieces (endgame tables' effect; 0: all)")
        ->check(decimal(0, 64));
    help_footer(openings,
                {"konane openings konane-5x5-brainking.kbt         from a table, with depths",
                 "konane openings 6x6 --search                     by proof search, win/loss",
                 "konane openings --board 6x6 --search --json      the same as JSON",
                 "konane openings t.kbt --gap c3,c4                one gap's verdict"});
    out.push_back({openings, [op, op_rules] {
                       op->rules_given = op_rules->count() > 0;
                       // `openings 6x6 --search`: a board in FILE's place (unless such a file
                       // exists).
                       if (is_board_text(op->file) && !std::filesystem::exists(op->file)) {
                           merge_board(op->file, op->board);
                           if (!op->search) {
                               throw UsageError("a board (" + op->board +
                                                ") goes with --search: konane openings " +
                                                op->board + " --search");
                           }
                       }
                       if (op->search) return run_openings_search(*op);
                       if (op->file.empty()) throw UsageError("give a table FILE, or --search");
                       if (!op->board.empty() || op->rules_given || !op->memory.empty() ||
                           op->max_nodes || op->plain || op->dfpn || !op->certificate.empty() ||
                           !op->work.empty()) {
                           throw UsageError(
                               "--board, --rules, --memory, --max-nodes, --plain, "
                               "--certificate and --work go with --search");
                       }
                       FileArgs f;
                       f.file = op->file;
                       f.gap = op->gap;
                       f.load = op->load;
                       f.json = op->json;
                       return run_openings(f);
                   }});

    auto v = std::make_shared<FileArgs>();
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
