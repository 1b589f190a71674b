// `konane analyse`: each move of a game with the value before and after it, mistakes and turning
// points: from a table, or reviewed by the engine on any board (cli/engine_review.cpp).
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/answer_text.hpp"
#include "cli/common.hpp"
#include "cli/engine_args.hpp"
#include "cli/gap_arg.hpp"
#include "cli/help.hpp"
#include "cli/json.hpp"
#include "core/notation.hpp"
#include "core/text.hpp"
#include "probe/analysis.hpp"
#include "probe/probe.hpp"

namespace konane::cli {

namespace {

struct AnalyseArgs : EngineArgs {
    std::string file;
    std::string record;
    std::string board;
    bool json = false;
};

/// True when `text`, analyse's one argument (read as the record), names a file instead: one
/// word ending in .kbt, or an existing file whose name no record can be (a '/', or a '.' in a
/// word that is not a move number "12." or "12...").
bool names_file(const std::string& text) {
    if (text.empty() || text.find_first_of(" \t\n\r\f\v") != std::string::npos) return false;
    std::string low = text;
    std::transform(low.begin(), low.end(), low.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (low.size() > 4 && low.compare(low.size() - 4, 4, ".kbt") == 0) return true;
    const std::size_t digits = text.find_first_not_of("0123456789");
    const bool move_number = digits != 0 && digits != std::string::npos &&
                             text.find_first_not_of('.', digits) == std::string::npos;
    std::error_code ec;
    return !move_number && text.find_first_of("./") != std::string::npos &&
           std::filesystem::is_regular_file(text, ec);
}

int run_analyse(AnalyseArgs a) {
    // Without a table (one argument: the record): the engine's review on --board.
    if (a.record.empty() && !a.file.empty()) {
        if (names_file(a.file)) {
            throw UsageError(fmt::format(
                "'{}' is a file name, not a game record: give a table file and the record after it "
                "(konane analyse {} RECORD), or a record alone for a review by the engine",
                printable(a.file), printable(a.file)));
        }
        a.record = a.file;
        a.file.clear();
    }
    if (a.file.empty()) {
        const Board b = Board::parse(a.board.empty() ? "8x8" : a.board);
        return run_engine_review(b, a.record, a, a.json);
    }
    if (!a.board.empty()) throw UsageError("--board goes with a review by the engine (no table)");
    a.record = read_record(a.record);
    const Tablebase tb = Tablebase::open(a.file);
    const Board& b = tb.board();
    Game game = parse_game(b, tb.rules(), a.record);
    if (const auto& gap = tb.opening().gap) {
        // A gap's table holds its game from the gap on: the record starts with the gap's two
        // removals, and the analysis with the first jump after them.
        const Position start = gap_start(b, *gap);
        if (game.positions.size() < 3 || !(game.positions[2] == start)) {
            std::string removals = gap_name(b, *gap);  // "c3,c4": Black's square first
            std::replace(removals.begin(), removals.end(), ',', ' ');
            throw UsageError(fmt::format(
                "{} holds the game from gap {}: the record must start with its two removals "
                "('{} ...')",
                printable(a.file), gap_name(b, *gap), removals));
        }
        game.positions.erase(game.positions.begin(), game.positions.begin() + 2);
        game.moves.erase(game.moves.begin(), game.moves.begin() + 2);
    }
    GameAnalysis an;
    try {
        an = analyse_game(tb, game);
    } catch (const GameNotStored& e) {
        return not_stored("analyse", e.what(), b, game.positions[e.index]);
    }
    const auto& plies = an.plies;
    const auto& values = an.values;
    const Position end = game.positions.back();
    const Value end_value = values.back();
    const bool over = an.over;
    if (a.json) {
        std::printf("%s\n", dump(analysis_json(b, tb.rules(), game, an)).c_str());
        return kOk;
    }
    std::printf(
        "game on %s (ruleset %s), %zu plies; at the start %s wins with perfect play "
        "(%s for %s)\n",
        b.name().c_str(), ruleset_name(tb.rules()), plies.size(),
        winner_name(game.positions.front(), values.front()), describe(values.front()).c_str(),
        color_name(game.positions.front().to_move));
    std::printf("'before': value for the mover; 'after': value for the opponent, now to move\n");
    std::printf("%4s %-6s %-8s %-16s %-16s %-8s %s\n", "ply", "mover", "move", "before", "after",
                "perfect", "");
    for (std::size_t i = 0; i < plies.size(); ++i) {
        const PlyAnalysis& p = plies[i];
        std::string note;
        if (p.mistake) {
            note = fmt::format("MISTAKE: threw the win away ({} was {})",
                               format_move(b, p.best.move), describe(p.best.value));
        } else if (p.inaccurate) {
            note = fmt::format("inaccurate: {} for the mover, perfect {}", describe(p.played.value),
                               describe(p.best.value));
        }
        std::printf("%4zu %-6s %-8s %-16s %-16s %-8s %s\n", i + 1, color_name(p.before.to_move),
                    format_move(b, p.played.move).c_str(), describe(p.value_before).c_str(),
                    describe(p.value_after).c_str(), format_move(b, p.best.move).c_str(),
                    note.c_str());
    }
    std::printf("turning points:");
    bool any = false;
    for (std::size_t i = 0; i < plies.size(); ++i) {
        const PlyAnalysis& p = plies[i];
        if (!p.mistake) continue;
        any = true;
        std::printf("\n  ply %zu, %s %s: %s now wins (%s won before)", i + 1,
                    color_name(p.before.to_move), format_move(b, p.played.move).c_str(),
                    winner_name(p.played.child, p.value_after),
                    winner_name(p.before, p.value_before));
    }
    std::printf("%s\n", any ? "" : " none (the winner at the start kept the win)");
    if (over) {
        std::printf("end: %s has no move; %s wins\n", color_name(end.to_move),
                    color_name(other(end.to_move)));
    } else {
        std::printf("end: %s to move, %s (%s wins with perfect play)\n", color_name(end.to_move),
                    describe(end_value).c_str(), winner_name(end, end_value));
    }
    return kOk;
}

}  // namespace

void add_analyse_command(CLI::App& app, Commands& out) {
    auto an = std::make_shared<AnalyseArgs>();
    auto* analyse = app.add_subcommand(
        "analyse",
        "Each move of a game with the value before and after it; mistakes and turning points "
        "(from a table, or reviewed by the engine on any board)");
    analyse
        ->add_option("FILE", an->file,
                     "Table file (left out: the engine reviews the game on --board)")
        ->required()
        ->check(non_empty());
    analyse->add_option("RECORD", an->record,
                        "Game record from the full board, e.g. 'a4 b4 a2-a4' on 4x4 (BrainKing's "
                        "'D5 D4 F5-D5' read too)");
    analyse->add_option("--board", an->board, "Board of a review by the engine (default 8x8)")
        ->check(non_empty());
    add_engine_options(analyse, *an);
    analyse->add_flag("-q,--quiet", an->quiet, "No progress line on stderr");
    analyse->add_flag("--json", an->json, "JSON output");
    help_footer(analyse, {"konane analyse konane-4x4-brainking.kbt 'a4 b4 a2-a4'",
                          "konane analyse konane-5x5-brainking.kbt 'c3 c2 a3-c3' --json",
                          "konane analyse --board 8x8 'D5 D4 F5-D5 C5-E5' --time 0.5"});
    out.push_back({analyse, [an] { return run_analyse(*an); }});
}

}  // namespace konane::cli
