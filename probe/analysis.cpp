// Game analysis against a table (probe/analysis.hpp).
#include "probe/analysis.hpp"

namespace konane {

GameAnalysis analyse_game(const Tablebase& tb, const Game& game) {
    const Board& b = tb.board();
    GameAnalysis out;
    std::size_t at = 0;  // the position being read, for the message of NotStored
    try {
        for (; at < game.positions.size(); ++at) {
            const auto v = tb.value(game.positions[at]);
            if (!v) {
                throw GameNotStored("position " + format_position(b, game.positions[at]) +
                                        " (after move " + std::to_string(at) +
                                        ") is not stored in " + tb.table().path().string(),
                                    at);
            }
            out.values.push_back(*v);
        }
        for (at = 0; at < game.moves.size(); ++at) {
            PlyAnalysis ply;
            ply.before = game.positions[at];
            ply.value_before = out.values[at];
            ply.value_after = out.values[at + 1];
            ply.played = {game.moves[at].move, game.moves[at].child,
                          move_value(out.values[at + 1])};
            ply.best = *tb.best_move(ply.before);
            ply.mistake = ply.value_before.win && ply.value_after.win;
            ply.inaccurate = !ply.mistake && !(ply.played.value == ply.best.value);
            out.plies.push_back(ply);
        }
    } catch (const GameNotStored&) {
        throw;
    } catch (const NotStored& e) {
        throw GameNotStored(e.what(), at);
    }
    out.over = legal_moves(b, tb.rules(), game.positions.back()).empty();
    return out;
}

}  // namespace konane
