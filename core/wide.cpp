#include "core/wide.hpp"

#include <charconv>

#include "core/notation.hpp"
#include "core/notation_generic.hpp"
#include "core/text.hpp"

namespace konane {

BigBoard parse_big_board(std::string_view text) {
    const auto x = text.find_first_of("xX");
    auto bad = [&]() {
        return std::invalid_argument("malformed board size '" + excerpt(text) +
                                     "': expected RxC such as 9x13");
    };
    if (x == std::string_view::npos || x == 0 || x + 1 >= text.size()) throw bad();
    int r = 0, c = 0;
    auto [p1, e1] = std::from_chars(text.data(), text.data() + x, r);
    auto [p2, e2] = std::from_chars(text.data() + x + 1, text.data() + text.size(), c);
    if (p1 != text.data() + x || p2 != text.data() + text.size()) throw bad();
    if (e1 != std::errc{} || e2 != std::errc{}) {
        throw std::invalid_argument("board " + excerpt(text) +
                                    " is out of range: boards have at most " +
                                    std::to_string(kMaxWideSquares) + " squares");
    }
    return BigBoard::make(r, c);
}

Board narrow_board(const BigBoard& b) {
    return Board::make(b.rows, b.cols);
}

BigBoard widen_board(const Board& b) {
    return BigBoard::make(b.rows, b.cols);
}

Position narrow(const BigPosition& p) {
    return Position{p.occ.w[0], p.to_move};
}

BigPosition widen(Position p) {
    BigPosition w;
    w.occ.w[0] = p.occ;
    w.to_move = p.to_move;
    return w;
}

std::string format_position(const BigBoard& b, const BigPosition& p) {
    return notation::format_position(b, p);
}

ParsedBigPosition parse_big_position(std::string_view text, const BigBoard* expected) {
    auto [b, p] = notation::parse_position<BigBoard, BigPosition>(text, expected, kMaxWideSquares);
    return {b, p};
}

bool is_wide_text(std::string_view text) {
    if (text.find(' ') == std::string_view::npos && text.find('/') == std::string_view::npos) {
        // "RxC"
        const auto x = text.find_first_of("xX");
        if (x == std::string_view::npos || x == 0) return false;
        long long r = 0, c = 0;  // digits past long long: not wide (Board::parse names them)
        auto [p1, e1] = std::from_chars(text.data(), text.data() + x, r);
        auto [p2, e2] = std::from_chars(text.data() + x + 1, text.data() + text.size(), c);
        if (e1 != std::errc{} || e2 != std::errc{} || p1 != text.data() + x ||
            p2 != text.data() + text.size()) {
            return false;
        }
        return r >= 1 && c >= 1 && r * c > kMaxSquares;
    }
    const std::string t = with_side(std::string(text));
    const auto [r, c] = notation::position_size(t);
    return r * c > kMaxSquares;
}

std::string square_name(const BigBoard& b, int s) {
    return notation::square_name(b, s);
}

std::string format_move(const BigBoard& b, WideMove m) {
    return notation::format_move(b, m);
}

BigMoveChild parse_move(const BigBoard& b, Ruleset r, const BigPosition& p, std::string_view text) {
    return notation::parse_move(b, r, p, text);
}

BigGame parse_game(const BigBoard& b, Ruleset r, std::string_view record,
                   const BigPosition& start) {
    auto [moves, positions] = notation::parse_game(b, r, record, start);
    return BigGame{std::move(moves), std::move(positions)};
}

}  // namespace konane
