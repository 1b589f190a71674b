#include "core/board.hpp"

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
    const int n = rows * cols;
    b.all = n == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
    b.step[Up] = cols;
    b.step[Down] = -cols;
    b.step[Right] = 1;
    b.step[Left] = -1;
    for (int s = 0; s < n; ++s) {
        const std::uint64_t bit = std::uint64_t{1} << s;
        b.color[static_cast<int>(b.color_of(s))] |= bit;
        const int f = b.file_of(s), k = b.rank_of(s);
        if (k + 2 <= rows) b.can_jump[Up] |= bit;
        if (k - 2 >= 1) b.can_jump[Down] |= bit;
        if (f + 2 < cols) b.can_jump[Right] |= bit;
        if (f - 2 >= 0) b.can_jump[Left] |= bit;
    }
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

std::uint64_t Board::centre() const {
    std::uint64_t m = 0;
    // Rows and columns counted 0-based from the top-left; rank = rows - row.
    for (int row = (rows - 1) / 2; row <= rows / 2; ++row) {
        for (int f = (cols - 1) / 2; f <= cols / 2; ++f) {
            m |= std::uint64_t{1} << square(f, rows - row);
        }
    }
    return m;
}

std::uint64_t Board::corners() const {
    return (std::uint64_t{1} << square(0, 1)) | (std::uint64_t{1} << square(cols - 1, 1)) |
           (std::uint64_t{1} << square(0, rows)) | (std::uint64_t{1} << square(cols - 1, rows));
}

std::uint64_t Board::black_removals(Ruleset r) const {
    const std::uint64_t black = color[static_cast<int>(Color::Black)];
    switch (r) {
        case Ruleset::Brainking:
            return (corners() | centre()) & black;
        case Ruleset::Center:
            return centre() & black;
        case Ruleset::Any:
            return black;
    }
    return 0;
}

std::uint64_t Board::neighbours(int s) const {
    const int f = file_of(s), k = rank_of(s);
    std::uint64_t m = 0;
    if (f > 0) m |= std::uint64_t{1} << (s - 1);
    if (f + 1 < cols) m |= std::uint64_t{1} << (s + 1);
    if (k > 1) m |= std::uint64_t{1} << (s - cols);
    if (k < rows) m |= std::uint64_t{1} << (s + cols);
    return m;
}

Stage stage_of(const Board& b, Ruleset r, Position p) {
    const std::uint64_t holes = b.all & ~p.occ;
    if (holes == 0) return p.to_move == Color::Black ? Stage::FullBoard : Stage::Play;
    // One hole, White to move, and Black could have emptied it under r: White's removal.
    if ((holes & (holes - 1)) == 0 && p.to_move == Color::White &&
        (holes & b.black_removals(r)) != 0) {
        return Stage::OneHole;
    }
    return Stage::Play;
}

Stage stage_of(const Board& b, Position p) {
    return stage_of(b, Ruleset::Any, p);
}

}  // namespace konane
