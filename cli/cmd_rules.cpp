// `konane moves` and `konane perft`: the rules engine on the command line.
#include <cstdio>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/answer_text.hpp"
#include "cli/common.hpp"
#include "cli/gap_arg.hpp"
#include "cli/help.hpp"
#include "cli/json.hpp"
#include "cli/wide_cmd.hpp"
#include "core/movegen.hpp"
#include "core/notation.hpp"
#include "core/wide.hpp"

namespace konane::cli {

namespace {

struct MovesOptions {
    std::string board;
    std::string rules = "brainking";
    std::string position;
    std::string game;
    bool game_given = false;
    bool json = false;
};

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

int run_moves(const MovesOptions& o) {
    const Ruleset rules = parse_ruleset(o.rules);
    std::string position = o.position, board_text = o.board;
    if (is_board_text(position)) merge_board(position, board_text);  // `moves 6x6`
    if (is_wide_text(position) || is_wide_text(board_text)) {        // past 64 squares
        return run_moves_wide(board_text, position, o.rules, o.game, o.game_given, o.json);
    }
    std::optional<Board> board;
    if (!board_text.empty()) board = Board::parse(board_text);
    if (!position.empty() && o.game_given) {
        throw UsageError("give either a POSITION or --game, not both");
    }
    Position pos;
    if (!position.empty()) {
        const auto parsed = parse_position(position, board ? &*board : nullptr);
        board = parsed.board;
        pos = parsed.position;
    } else if (!board) {
        // No default board: a silent 6x6 answered for a position nobody gave.
        throw UsageError(
            "no position: give a POSITION (e.g. konane moves '..xo/oxox/xoxo/oxox b'), or a "
            "board for its full board (konane moves 6x6), with --game 'a6 b6' for the position "
            "after those moves");
    } else {
        pos = parse_game(*board, rules, o.game).positions.back();
    }
    print_moves(*board, rules, pos, legal_moves(*board, rules, pos), o.json);
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

void add_rules_commands(CLI::App& app, Commands& out) {
    auto mo = std::make_shared<MovesOptions>();
    auto* moves = app.add_subcommand(
        "moves", "Show a position and its legal moves (removals in the opening, then jumps)");
    moves
        ->add_option("POSITION", mo->position,
                     "Position, e.g. '..xo/oxox/xoxo/oxox b'; or a board RxC for its full board")
        ->check(non_empty());
    moves->add_option("--board", mo->board, "Board size RxC (also as POSITION)")
        ->check(non_empty());
    moves->add_option("--rules", mo->rules, "Opening ruleset: brainking, center or any")
        ->capture_default_str();
    auto* moves_game = moves->add_option(
        "--game", mo->game, "Game record from the full board, e.g. 'a6 b6 a4-a6' on 6x6");
    moves->add_flag("--json", mo->json, "JSON output");
    help_footer(moves, {"konane moves '..xo/oxox/xoxo/oxox b'",
                        "konane moves 6x6                     Black's removals on the full board",
                        "konane moves 6x6 --game 'a6 b6'      the position after a6 and b6",
                        "konane moves --board 4x4 --rules center --json"});
    out.push_back({moves, [mo, moves_game] {
                       mo->game_given = moves_game->count() > 0;
                       return run_moves(*mo);
                   }});

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
