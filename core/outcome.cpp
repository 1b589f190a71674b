#include "core/outcome.hpp"

namespace konane {

const char* outcome_name(Outcome o) {
    switch (o) {
        case Outcome::Black:
            return "black";
        case Outcome::White:
            return "white";
        case Outcome::First:
            return "first";
        case Outcome::Second:
            return "second";
    }
    return "?";
}

const char* outcome_description(Outcome o) {
    switch (o) {
        case Outcome::Black:
            return "Black wins whoever starts";
        case Outcome::White:
            return "White wins whoever starts";
        case Outcome::First:
            return "the player to move wins";
        case Outcome::Second:
            return "the player to move loses";
    }
    return "?";
}

Outcome outcome_of(const Value& black_starts, const Value& white_starts) {
    if (black_starts.win && white_starts.win) return Outcome::First;
    if (!black_starts.win && !white_starts.win) return Outcome::Second;
    return black_starts.win ? Outcome::Black : Outcome::White;
}

}  // namespace konane
