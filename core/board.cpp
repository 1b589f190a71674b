#include "core/board.hpp"

#include "core/rules_generic.hpp"
#include "core/text.hpp"

#include <charconv>
#include <string>

namespace konane {

const char* color_name(Color c) {
    return c == Color::Black ? "black" : "white";
}

const char* ruleset_name(Ruleset r) {
    switch (r) {
        case Ruleset::Brainking:
            return "brainking";
        case Ruleset::Center:
            return "center";
        case Ruleset::Any:
            return "any";
    }
    return "?";
}

Ruleset parse_ruleset(std::string_view name) {
    if (name == "brainking") return Ruleset::Brainking;
    if (name == "center") return Ruleset::Center;
    if (name == "any") return Ruleset::Any;
    throw std::invalid_argument("unknown ruleset '" + excerpt(name) +
                                "': expected brainking, center or any");
}

Board Board::make(int rows, int cols) {
    if (rows < 1 || cols < 1 || rows > kMaxSquares || cols > kMaxSquares ||
        rows * cols > kMaxSquares) {
        const bool positive = rows >= 1 && cols >= 1;
        throw std::invalid_argument(
            "board " + std::to_string(rows) + "x" + std::to_string(cols) + " is out of range: " +
            (positive ? "it has " + std::to_string(static_cast<long long>(rows) * cols) +
                            " squares, boards have at most " + std::to_string(kMaxSquares)
                      : "rows and columns must be at least 1 (and rows x columns at most " +
                            std::to_string(kMaxSquares) + ")"));
    }
    Board b;
    b.rows = rows;
    b.cols = cols;
    rules::init_geometry(b);  // the masks, written once for every bitboard width
    return b;
}

Board Board::parse(std::string_view text) {
    const auto x = text.find_first_of("xX");
    auto bad = [&]() {
        return std::invalid_argument("malformed board size '" + excerpt(text) +
                                     "': expected RxC such as 6x6");
    };
    if (x == std::string_view::npos || x == 0 || x + 1 >= text.size()) throw bad();
    int r = 0, c = 0;
    auto [p1, e1] = std::from_chars(text.data(), text.data() + x, r);
    auto [p2, e2] = std::from_chars(text.data() + x + 1, text.data() + text.size(), c);
    if (p1 != text.data() + x || p2 != text.data() + text.size() ||
        (e1 != std::errc{} && e1 != std::errc::result_out_of_range) ||
        (e2 != std::errc{} && e2 != std::errc::result_out_of_range)) {
        throw bad();
    }
    if (e1 != std::errc{} || e2 != std::errc{}) {  // digits past int: name the text as given
        throw std::invalid_argument("board " + excerpt(text) +
                                    " is out of range: boards have at most " +
                                    std::to_string(kMaxSquares) + " squares");
    }
    return make(r, c);
}

std::string Board::name() const {
    return std::to_string(rows) + "x" + std::to_string(cols);
}

// The opening rules are written once, over the bitboard type, in core/rules_generic.hpp.

std::uint64_t Board::centre() const {
    return rules::centre(*this);
}

std::uint64_t Board::corners() const {
    return rules::corners(*this);
}

std::uint64_t Board::black_removals(Ruleset r) const {
    return rules::black_removals(*this, r);
}

std::uint64_t Board::neighbours(int s) const {
    return rules::neighbours(*this, s);
}

Stage stage_of(const Board& b, Ruleset r, Position p) {
    return rules::stage(b, r, p.occ, p.to_move);
}

Stage stage_of(const Board& b, Position p) {
    return stage_of(b, Ruleset::Any, p);
}

}  // namespace konane
