// `konane info`: what a table holds: board, ruleset, counts and sizes per layer.
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/gap_arg.hpp"
#include "cli/help.hpp"
#include "cli/json.hpp"
#include "cli/sizes.hpp"
#include "core/notation.hpp"
#include "core/text.hpp"
#include "format/stats.hpp"
#include "format/table.hpp"
#include "probe/probe.hpp"
#include "table/header.hpp"

namespace konane::cli {

namespace {

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

struct InfoArgs {
    std::string file;
    bool json = false;
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

int run_info(const InfoArgs& a) {
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

}  // namespace

void add_info_command(CLI::App& app, Commands& out) {
    auto i = std::make_shared<InfoArgs>();
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
}

}  // namespace konane::cli
