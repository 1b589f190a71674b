// `konane perft`: the move sequences of DEPTH plies counted, from the full board or a gap's
// start, on any board (past 64 squares by core/wide.hpp).
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "cli/answer_text.hpp"
#include "cli/common.hpp"
#include "cli/gap_arg.hpp"
#include "cli/help.hpp"
#include "cli/json.hpp"
#include "core/movegen.hpp"
#include "core/notation.hpp"
#include "core/text.hpp"
#include "core/wide.hpp"

namespace konane::cli {

namespace {

struct PerftOptions {
    std::string board;         ///< BOARD
    std::string board_option;  ///< --board, the same
    std::string depth_text;    ///< DEPTH, or BOARD's place when the board came as --board
    int depth = 0;
    std::string rules = "brainking";
    bool rules_given = false;
    std::string gap;  ///< --gap SQ,SQ: count from that gap's start (jumps only)
    bool json = false;
};
/// `konane perft BOARD DEPTH` on a wide board (no --gap). Returns the exit code.
int run_perft_wide(const std::string& board_text, int depth, const std::string& rules_text,
                   bool json) {
    const BigBoard board = parse_big_board(board_text);
    const Ruleset rules = parse_ruleset(rules_text);
    const std::uint64_t nodes = perft(board, rules, board.start(), depth);
    print_perft(cli::json{{"board", board.name()}, {"rules", ruleset_name(rules)}}, depth, nodes,
                json);
    return kOk;
}
int run_perft(PerftOptions o) {
    // `perft --board 6x6 5`: the depth is the first positional argument, read as BOARD.
    if (!o.board_option.empty() && o.depth_text.empty() && !o.board.empty()) {
        std::swap(o.board, o.depth_text);
    }
    merge_board(o.board, o.board_option);
    if (o.board_option.empty()) throw UsageError("give the board: konane perft 6x6 DEPTH");
    if (o.depth_text.empty()) throw UsageError("give the DEPTH: konane perft 6x6 5");
    std::string depth = o.depth_text;
    if (const std::string why = decimal(0, 64)(depth); !why.empty()) {
        throw UsageError("DEPTH " + o.depth_text + ": " + why);
    }
    o.depth = std::stoi(depth);
    if (is_wide_text(o.board_option)) {  // past 64 squares
        if (!o.gap.empty()) throw UsageError("--gap: gaps are for boards of at most 64 squares");
        return run_perft_wide(o.board_option, o.depth, o.rules, o.json);
    }
    const Board board = Board::parse(o.board_option);
    const Ruleset rules = parse_ruleset(o.rules);
    if (o.depth < 0) throw UsageError("DEPTH must be 0 or more");
    std::optional<Gap> gap;
    if (!o.gap.empty()) gap = gap_arg(board, o.gap, o.rules_given, o.rules);
    // From a gap every ply is a jump: the start has two holes (core/board.hpp stage_of).
    const std::uint64_t nodes =
        perft(board, rules, gap ? gap_start(board, *gap) : board.start(), o.depth);
    json head{{"board", board.name()}};
    put_opening(head, board, gap ? Opening::from_gap(*gap) : Opening(rules));
    print_perft(head, o.depth, nodes, o.json);
    return kOk;
}
}  // namespace

void add_perft_command(CLI::App& app, Commands& out) {
    auto po = std::make_shared<PerftOptions>();
    auto* perft_cmd = app.add_subcommand(
        "perft",
        "Count the move sequences of DEPTH plies from the full board (removals count), or from "
        "a gap's start (--gap: jumps only)");
    perft_cmd->add_option("BOARD", po->board, "Board size RxC, e.g. 6x6 (or --board RxC)")
        ->check(non_empty());
    perft_cmd->add_option("DEPTH", po->depth_text, "Number of plies, 0..64")->check(non_empty());
    perft_cmd->add_option("--board", po->board_option, "Board size RxC (the same as BOARD)")
        ->check(non_empty());
    auto* perft_rules =
        perft_cmd->add_option("--rules", po->rules, "Opening ruleset: brainking, center or any")
            ->capture_default_str();
    perft_cmd
        ->add_option("--gap", po->gap,
                     std::string(kGapHelp) + "; DEPTH then counts jumps from that start")
        ->check(non_empty());
    perft_cmd->add_flag("--json", po->json, "JSON output");
    help_footer(
        perft_cmd,
        {"konane perft 6x6 5                  sequences of 5 plies from the full board",
         "konane perft --board 6x6 5          the same", "konane perft 5x5 8 --rules center --json",
         "konane perft 6x6 4 --gap c3,c4      4 jumps from that gap's start"});
    out.push_back({perft_cmd, [po, perft_rules] {
                       po->rules_given = perft_rules->count() > 0;
                       return run_perft(*po);
                   }});
}

}  // namespace konane::cli
