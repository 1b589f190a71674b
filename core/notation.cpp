#include "core/notation.hpp"

#include "core/text.hpp"

#include <algorithm>
#include <sstream>

namespace konane {

namespace {
std::string place(const Board& b, int rank, int file) {
    return "rank " + std::to_string(rank) + " (row " + std::to_string(b.rows - rank + 1) +
           " from the top), file " + file_name(file);
}
}  // namespace

std::string file_name(int f) {
    std::string s;
    for (unsigned n = static_cast<unsigned>(f) + 1; n > 0; n = (n - 1) / 26)
        s.insert(s.begin(), static_cast<char>('a' + (n - 1) % 26));
    return s;
}

std::string format_position(const Board& b, Position p) {
    std::string s;
    s.reserve(static_cast<std::size_t>(b.squares() + b.rows + 2));
    for (int rank = b.rows; rank >= 1; --rank) {
        for (int f = 0; f < b.cols; ++f) {
            const int sq = b.square(f, rank);
            if (!((p.occ >> sq) & 1)) {
                s += '.';
            } else {
                s += b.color_of(sq) == Color::Black ? 'x' : 'o';
            }
        }
        if (rank > 1) s += '/';
    }
    s += p.to_move == Color::Black ? " b" : " w";
    return s;
}

ParsedPosition parse_position(std::string_view text, const Board* expected) {
    // Trim surrounding white space.
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\n' ||
                             text.back() == '\r')) {
        text.remove_suffix(1);
    }
    if (text.empty())
        throw NotationError("empty position: expected rows such as 'xoxo/oxox/... b'");
    const auto space = text.find(' ');
    if (space == std::string_view::npos) {
        throw NotationError(
            "position '" + excerpt(text) +
            "' has no side to move: expected a space then 'b' or 'w' after the rows");
    }
    std::string_view rows_text = text.substr(0, space);
    std::string_view side_text = text.substr(space + 1);
    while (!side_text.empty() && side_text.front() == ' ')
        side_text.remove_prefix(1);
    if (side_text != "b" && side_text != "w") {
        throw NotationError("side to move '" + excerpt(side_text) +
                            "' is not 'b' (Black) or 'w' (White)");
    }
    std::vector<std::string_view> rows;
    for (std::size_t start = 0;;) {
        const auto slash = rows_text.find('/', start);
        rows.push_back(rows_text.substr(
            start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
        if (slash == std::string_view::npos) break;
        start = slash + 1;
    }
    const int R = static_cast<int>(rows.size());
    // Unknown characters first, each blamed on its own rank and file counted in characters (a
    // multi-byte character would otherwise make its row look longer, and another row be blamed).
    for (int row = 0; row < R; ++row) {
        std::string_view r = rows[row];
        for (int f = 0; !r.empty(); ++f) {
            const std::size_t n = utf8_length(r);
            if (n == 1 && (r[0] == 'x' || r[0] == 'o' || r[0] == '.')) {
                r.remove_prefix(1);
                continue;
            }
            const std::string where =
                "rank " + std::to_string(R - row) + " (row " + std::to_string(row + 1) +
                " from the top), " +
                (f < kMaxSquares ? "file " + file_name(f) : "character " + std::to_string(f + 1));
            throw NotationError("unknown character '" + printable(r.substr(0, n ? n : 1)) +
                                "' at " + where + ": expected 'x', 'o' or '.'");
        }
    }
    const int C = static_cast<int>(rows[0].size());
    // Row lengths first: a stray '/' reads as an empty row, not as a board size.
    for (int row = 0; row < R; ++row) {
        if (rows[row].empty() || static_cast<int>(rows[row].size()) != C) {
            throw NotationError("rank " + std::to_string(R - row) + " (row " +
                                std::to_string(row + 1) + " from the top) has " +
                                std::to_string(rows[row].size()) + " squares, expected " +
                                (row == 0 ? std::string("at least 1") : std::to_string(C)));
        }
    }
    if (static_cast<long long>(R) * C > kMaxSquares) {
        throw NotationError("position has " + std::to_string(R) + " rows of " + std::to_string(C) +
                            " squares (" + std::to_string(static_cast<long long>(R) * C) +
                            "): boards have at most " + std::to_string(kMaxSquares) + " squares");
    }
    if (expected && (expected->rows != R || expected->cols != C)) {
        throw NotationError("position is for a " + std::to_string(R) + "x" + std::to_string(C) +
                            " board, expected " + expected->name());
    }
    const Board b = Board::make(R, C);
    Position p;
    p.to_move = side_text == "b" ? Color::Black : Color::White;
    for (int row = 0; row < R; ++row) {
        const int rank = R - row;
        if (static_cast<int>(rows[row].size()) != C) {
            throw NotationError("rank " + std::to_string(rank) + " (row " +
                                std::to_string(row + 1) + " from the top) has " +
                                std::to_string(rows[row].size()) + " squares, expected " +
                                std::to_string(C));
        }
        for (int f = 0; f < C; ++f) {
            const char ch = rows[row][f];
            const int sq = b.square(f, rank);
            if (ch == '.') continue;
            if (ch != 'x' && ch != 'o') {
                throw NotationError("unknown character '" + std::string(1, ch) + "' at " +
                                    place(b, rank, f) + ": expected 'x', 'o' or '.'");
            }
            const Color want = ch == 'x' ? Color::Black : Color::White;
            if (b.color_of(sq) != want) {
                throw NotationError(std::string(ch == 'x' ? "Black piece 'x'" : "White piece 'o'") +
                                    " at " + place(b, rank, f) + " stands on a " +
                                    (want == Color::Black ? "White" : "Black") +
                                    " square: expected '" + (want == Color::Black ? 'o' : 'x') +
                                    "' or '.'");
            }
            p.occ |= std::uint64_t{1} << sq;
        }
    }
    return {b, p};
}

std::string square_name(const Board& b, int s) {
    return file_name(b.file_of(s)) + std::to_string(b.rank_of(s));
}

int parse_square(const Board& b, std::string_view text) {
    auto malformed = [&]() {
        return NotationError("malformed square '" + excerpt(text) +
                             "': expected file letters and a rank number such as c4 or aa12");
    };
    std::size_t i = 0;
    long long file = 0;  // bijective base 26, saturated: anything past the board is off it
    for (; i < text.size() && text[i] >= 'a' && text[i] <= 'z'; ++i)
        file = std::min<long long>(file * 26 + (text[i] - 'a' + 1), 1'000'000);
    const std::size_t digits = text.size() - i;
    if (i == 0 || digits == 0 || (digits > 1 && text[i] == '0')) throw malformed();
    long long rank = 0;
    for (std::size_t j = i; j < text.size(); ++j) {
        if (text[j] < '0' || text[j] > '9') throw malformed();
        rank = std::min<long long>(rank * 10 + (text[j] - '0'), 1'000'000);
    }
    if (file > b.cols || rank < 1 || rank > b.rows) {
        throw NotationError("square '" + excerpt(text) + "' is off the " + b.name() +
                            " board (files a.." + file_name(b.cols - 1) + ", ranks 1.." +
                            std::to_string(b.rows) + ")");
    }
    return b.square(static_cast<int>(file - 1), static_cast<int>(rank));
}

std::string format_move(const Board& b, Move m) {
    if (m.is_removal()) return square_name(b, m.from);
    return square_name(b, m.from) + "-" + square_name(b, m.to);
}

MoveChild parse_move(const Board& b, Ruleset r, Position p, std::string_view text) {
    Move want;
    const auto dash = text.find('-');
    if (dash == std::string_view::npos) {
        const auto s = static_cast<std::uint8_t>(parse_square(b, text));
        want = Move{s, s};
    } else {
        try {
            want = Move{static_cast<std::uint8_t>(parse_square(b, text.substr(0, dash))),
                        static_cast<std::uint8_t>(parse_square(b, text.substr(dash + 1)))};
        } catch (const NotationError& e) {
            throw NotationError("jump '" + excerpt(text) + "': " + e.what());
        }
        if (want.from == want.to) {
            throw NotationError("move '" + excerpt(text) + "' starts and ends on one square");
        }
    }
    const auto moves = legal_moves(b, r, p);
    for (const auto& mc : moves) {
        if (mc.move == want) return mc;
    }
    std::string legal;
    for (const auto& mc : moves) {
        if (!legal.empty()) legal += ' ';
        legal += format_move(b, mc.move);
    }
    const char* kind = stage_of(b, r, p) == Stage::Play ? "jump" : "removal";
    throw NotationError("'" + excerpt(text) + "' is not a legal " + kind + " for " +
                        color_name(p.to_move) + " in " + format_position(b, p) +
                        " (legal: " + (legal.empty() ? "none" : legal) + ")");
}

Game parse_game(const Board& b, Ruleset r, std::string_view record, std::optional<Position> start) {
    Game g;
    g.positions.push_back(start ? *start : b.start());
    std::istringstream in{std::string(record)};
    std::string word;
    int number = 0;
    while (in >> word) {
        ++number;
        try {
            const MoveChild mc = parse_move(b, r, g.positions.back(), word);
            g.moves.push_back(mc);
            g.positions.push_back(mc.child);
        } catch (const NotationError& e) {
            // "move N 'WORD': why", the word quoted once (the inner message may quote it too).
            const std::string quoted = "'" + excerpt(word) + "'";
            const std::string n = "move " + std::to_string(number) + " ";
            std::string why = e.what();
            if (why.rfind(quoted + " ", 0) == 0) throw NotationError(n + why);
            if (const auto at = why.find(" " + quoted); at != std::string::npos)
                why.erase(at, quoted.size() + 1);
            throw NotationError(n + quoted + ": " + why);
        }
    }
    return g;
}

}  // namespace konane
