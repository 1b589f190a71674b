#include "probe/openings.hpp"

#include "core/notation.hpp"
#include "core/outcome.hpp"

namespace konane {

std::optional<OpeningLine> gap_opening(const Tablebase& tb, Gap g) {
    const Board& b = tb.board();
    const auto v = tb.value(gap_start(b, g));
    if (!v) return std::nullopt;
    return OpeningLine{Move{static_cast<std::uint8_t>(g.black), static_cast<std::uint8_t>(g.black)},
                       Move{static_cast<std::uint8_t>(g.white), static_cast<std::uint8_t>(g.white)},
                       v->win ? Color::Black : Color::White, v->depth};
}

Openings compute_openings(const Tablebase& tb) {
    Openings out;
    const Board& b = tb.board();
    if (const auto& g = tb.opening().gap) {
        // A gap's table: its one opening.
        const auto line = gap_opening(tb, *g);
        if (!line) {
            throw NotStored("gap " + gap_name(b, *g) + " is not stored in " +
                            tb.table().path().string());
        }
        out.lines.push_back(*line);
        out.choices.push_back({line->black, line->white, line->winner, line->depth});
        out.best = out.choices.back();
        out.winner = line->winner;
        return out;
    }
    const Position start = b.start();
    std::optional<Value> best_for_black;
    Verdict board_verdict(Color::Black);  // Black chooses the removal
    for (const auto& first : legal_moves(b, tb.rules(), start)) {
        OpeningChoice choice;
        choice.black = first.move;
        std::optional<Value> best_for_white;  // White's view of its best reply
        Verdict reply_verdict(Color::White);  // White chooses the reply
        for (const auto& second : legal_moves(b, tb.rules(), first.child)) {
            const auto v = tb.value(second.child);  // Black to move
            if (!v) {
                throw NotStored("opening " + format_move(b, first.move) + " " +
                                format_move(b, second.move) + " is not stored in " +
                                tb.table().path().string());
            }
            const Color winner = v->win ? Color::Black : Color::White;
            out.lines.push_back({first.move, second.move, winner, v->depth});
            reply_verdict.add(winner);
            const Value for_white = move_value(*v);
            if (!best_for_white || better(for_white, *best_for_white)) {
                best_for_white = for_white;
                choice.white = second.move;
                choice.depth = v->depth;
            }
        }
        // Without a reply White loses: Black wins at once (the verdict of an empty choice).
        choice.winner = *reply_verdict.winner();
        const Value for_black = best_for_white ? move_value(*best_for_white) : Value{true, 1};
        board_verdict.add(choice.winner);
        out.choices.push_back(choice);
        if (!best_for_black || better(for_black, *best_for_black)) {
            best_for_black = for_black;
            out.best = choice;
        }
    }
    out.winner = *board_verdict.winner();
    return out;
}

}  // namespace konane
