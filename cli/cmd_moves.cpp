// `konane moves`: a position and its legal moves (removals in the opening, then jumps), on any
// board (past 64 squares by core/wide.hpp).
#include <cstdio>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/answer_text.hpp"
#include "cli/common.hpp"
#include "cli/help.hpp"
#include "cli/json.hpp"
#include "core/movegen.hpp"
#include "core/notation.hpp"
#include "core/text.hpp"
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
/// `konane moves` on a wide board: POSITION (or the full board of board_text, with the moves
/// of `game` played from it), its legal moves under `rules`. Returns the exit code.
int run_moves_wide(const std::string& board_text, const std::string& position,
                   const std::string& rules_text, const std::string& game, bool game_given,
                   bool json) {
    const Ruleset rules = parse_ruleset(rules_text);
    std::optional<BigBoard> board;
    if (!board_text.empty()) board = parse_big_board(board_text);
    if (!position.empty() && game_given)
        throw UsageError("give either a POSITION or --game, not both");
    BigPosition pos;
    if (!position.empty()) {
        const auto parsed = parse_big_position(position, board ? &*board : nullptr);
        board = parsed.board;
        pos = parsed.position;
    } else {
        pos = parse_game(*board, rules, game, board->start()).positions.back();
    }
    print_moves(*board, rules, pos, legal_moves(*board, rules, pos), json);
    return kOk;
}
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
}  // namespace

void add_moves_command(CLI::App& app, Commands& out) {
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
}

}  // namespace konane::cli
