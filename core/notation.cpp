#include "core/notation.hpp"

#include "core/notation_generic.hpp"

namespace konane {

// The notation is written once, over the board type, in core/notation_generic.hpp.

std::string file_name(int f) {
    std::string s;
    for (unsigned n = static_cast<unsigned>(f) + 1; n > 0; n = (n - 1) / 26)
        s.insert(s.begin(), static_cast<char>('a' + (n - 1) % 26));
    return s;
}

std::string format_position(const Board& b, Position p) {
    return notation::format_position(b, p);
}

ParsedPosition parse_position(std::string_view text, const Board* expected) {
    auto [b, p] = notation::parse_position<Board, Position>(text, expected, kMaxSquares);
    return {b, p};
}

std::string with_side(std::string text) {
    if (text.find(' ') == std::string::npos) text += " b";
    return text;
}

std::string board_diagram(const Board& b, Position p) {
    const int width = static_cast<int>(std::to_string(b.rows).size());
    // Each cell as wide as the longest file name ("bl" on 1x64), right-aligned after a space.
    const std::size_t cell = file_name(b.cols - 1).size();
    const auto pad = [&](const std::string& t) {
        return std::string(1 + cell - t.size(), ' ') + t;
    };
    std::string s;
    for (int rank = b.rows; rank >= 1; --rank) {
        const std::string num = std::to_string(rank);
        s += std::string(static_cast<std::size_t>(width) - num.size(), ' ') + num + " ";
        for (int f = 0; f < b.cols; ++f) {
            const int sq = (rank - 1) * b.cols + f;
            const bool on = (p.occ >> sq) & 1;
            const bool black = (b.color[0] >> sq) & 1;
            s += pad(on ? (black ? "x" : "o") : ".");
        }
        s += "\n";
    }
    s += std::string(static_cast<std::size_t>(width) + 1, ' ');
    for (int f = 0; f < b.cols; ++f)
        s += pad(file_name(f));
    s += "\n" + std::string(color_name(p.to_move)) + " to move";
    return s;
}

std::string square_name(const Board& b, int s) {
    return notation::square_name(b, s);
}

int parse_square(const Board& b, std::string_view text) {
    return notation::parse_square(b, text);
}

std::string format_move(const Board& b, Move m) {
    return notation::format_move(b, m);
}

MoveChild parse_move(const Board& b, Ruleset r, Position p, std::string_view text) {
    return notation::parse_move(b, r, p, text);
}

Game parse_game(const Board& b, Ruleset r, std::string_view record, std::optional<Position> start) {
    auto [moves, positions] = notation::parse_game(b, r, record, start ? *start : b.start());
    return Game{std::move(moves), std::move(positions)};
}

}  // namespace konane
