// The notation (docs/rules.md "Notation") written once over the board type: positions, squares,
// moves and game records for the 64-bit Board (core/notation.hpp) and WideBoard<N>
// (core/wide.hpp) alike. Errors are NotationError (core/notation.hpp) naming the place.
#pragma once

#include <algorithm>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/bitboard.hpp"
#include "core/notation.hpp"
#include "core/rules_generic.hpp"
#include "core/text.hpp"

namespace konane::notation {

/// "rank K (row N from the top), file F".
template <class BoardT>
std::string place(const BoardT& b, int rank, int file) {
    return "rank " + std::to_string(rank) + " (row " + std::to_string(b.rows - rank + 1) +
           " from the top), file " + file_name(file);
}

/// format_position (core/notation.hpp) on any board type.
template <class BoardT, class PosT>
std::string format_position(const BoardT& b, const PosT& p) {
    using Ops = BitOps<rules::BitsOf<BoardT>>;
    std::string s;
    s.reserve(static_cast<std::size_t>(b.squares() + b.rows + 2));
    for (int rank = b.rows; rank >= 1; --rank) {
        for (int f = 0; f < b.cols; ++f) {
            const int sq = b.square(f, rank);
            if (!Ops::test(p.occ, sq)) {
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

/// The size R x C a position's text describes (rows, length of the first row) when its
/// structure can be read, for choosing the board type before parsing; {0, 0} otherwise. No
/// validation beyond that: parse_position names what is wrong.
inline std::pair<long long, long long> position_size(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
        text.remove_prefix(1);
    const auto space = text.find(' ');
    if (space == std::string_view::npos) return {0, 0};
    const std::string_view rows = text.substr(0, space);
    const auto slash = rows.find('/');
    const long long cols =
        static_cast<long long>(slash == std::string_view::npos ? rows.size() : slash);
    return {static_cast<long long>(std::count(rows.begin(), rows.end(), '/')) + 1, cols};
}

/// parse_position (core/notation.hpp) on board type BoardT: boards of at most
/// `max_squares` squares, made by BoardT::make(R, C). Returns the board and the position.
template <class BoardT, class PosT>
std::pair<BoardT, PosT> parse_position(std::string_view text, const BoardT* expected,
                                       int max_squares) {
    using Ops = BitOps<rules::BitsOf<BoardT>>;
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
                (f < max_squares ? "file " + file_name(f) : "character " + std::to_string(f + 1));
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
    if (static_cast<long long>(R) * C > max_squares) {
        throw NotationError("position has " + std::to_string(R) + " rows of " + std::to_string(C) +
                            " squares (" + std::to_string(static_cast<long long>(R) * C) +
                            "): boards have at most " + std::to_string(max_squares) + " squares");
    }
    if (expected && (expected->rows != R || expected->cols != C)) {
        throw NotationError("position is for a " + std::to_string(R) + "x" + std::to_string(C) +
                            " board, expected " + expected->name());
    }
    const BoardT b = BoardT::make(R, C);
    PosT p{};
    p.to_move = side_text == "b" ? Color::Black : Color::White;
    for (int row = 0; row < R; ++row) {
        const int rank = R - row;
        for (int f = 0; f < C; ++f) {
            const char ch = rows[row][f];
            const int sq = b.square(f, rank);
            if (ch == '.') continue;
            const Color want = ch == 'x' ? Color::Black : Color::White;
            if (b.color_of(sq) != want) {
                throw NotationError(std::string(ch == 'x' ? "Black piece 'x'" : "White piece 'o'") +
                                    " at " + place(b, rank, f) + " stands on a " +
                                    (want == Color::Black ? "White" : "Black") +
                                    " square: expected '" + (want == Color::Black ? 'o' : 'x') +
                                    "' or '.'");
            }
            Ops::set(p.occ, sq);
        }
    }
    return {b, p};
}

/// square_name (core/notation.hpp) on any board type.
template <class BoardT>
std::string square_name(const BoardT& b, int s) {
    return file_name(b.file_of(s)) + std::to_string(b.rank_of(s));
}

/// parse_square (core/notation.hpp) on any board type.
template <class BoardT>
int parse_square(const BoardT& b, std::string_view text) {
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

/// format_move (core/notation.hpp) on any board type.
template <class BoardT, class MoveT>
std::string format_move(const BoardT& b, const MoveT& m) {
    if (m.is_removal()) return square_name(b, m.from);
    return square_name(b, m.from) + "-" + square_name(b, m.to);
}

/// parse_move (core/notation.hpp) on any board type: the legal move of p (rules::legal_moves)
/// the text names.
template <class BoardT>
typename RulesTypes<BoardT>::MoveChild parse_move(const BoardT& b, Ruleset r,
                                                  const typename RulesTypes<BoardT>::Pos& p,
                                                  std::string_view text) {
    using MoveT = typename RulesTypes<BoardT>::Move;
    using Sq = decltype(MoveT::from);
    MoveT want{};
    const auto dash = text.find('-');
    if (dash == std::string_view::npos) {
        const auto s = static_cast<Sq>(parse_square(b, text));
        want = MoveT{s, s};
    } else {
        try {
            want = MoveT{static_cast<Sq>(parse_square(b, text.substr(0, dash))),
                         static_cast<Sq>(parse_square(b, text.substr(dash + 1)))};
        } catch (const NotationError& e) {
            throw NotationError("jump '" + excerpt(text) + "': " + e.what());
        }
        if (want.from == want.to) {
            throw NotationError("move '" + excerpt(text) + "' starts and ends on one square");
        }
    }
    const auto moves = rules::legal_moves(b, r, p, false);
    for (const auto& mc : moves) {
        if (mc.move == want) return mc;
    }
    std::string legal;
    for (const auto& mc : moves) {
        if (!legal.empty()) legal += ' ';
        legal += format_move(b, mc.move);
    }
    const char* kind = rules::stage(b, r, p.occ, p.to_move) == Stage::Play ? "jump" : "removal";
    throw NotationError("'" + excerpt(text) + "' is not a legal " + kind + " for " +
                        color_name(p.to_move) + " in " + format_position(b, p) +
                        " (legal: " + (legal.empty() ? "none" : legal) + ")");
}

/// True when `word` is a move number of a record in BrainKing's notation: digits, then one or
/// more dots ("12." before Black's move, "12..." before White's).
inline bool is_move_number(std::string_view word) {
    const std::size_t digits = word.find_first_not_of("0123456789");
    return digits != 0 && digits != std::string_view::npos &&
           word.find_first_not_of('.', digits) == std::string_view::npos;
}

/// parse_game (core/notation.hpp) on any board type: the moves of `record` from `start`, and
/// the position after each. BrainKing's notation is read too: its move numbers are skipped and
/// its upper-case squares read as lower-case ("1. D5 D4 2. D7-D5 B4-D4").
template <class BoardT>
std::pair<std::vector<typename RulesTypes<BoardT>::MoveChild>,
          std::vector<typename RulesTypes<BoardT>::Pos>>
parse_game(const BoardT& b, Ruleset r, std::string_view record,
           const typename RulesTypes<BoardT>::Pos& start) {
    std::vector<typename RulesTypes<BoardT>::MoveChild> moves;
    std::vector<typename RulesTypes<BoardT>::Pos> positions{start};
    std::istringstream in{std::string(record)};
    std::string word;
    int number = 0;
    while (in >> word) {
        if (is_move_number(word)) continue;
        for (char& c : word)
            if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        ++number;
        try {
            const auto mc = parse_move(b, r, positions.back(), word);
            moves.push_back(mc);
            positions.push_back(mc.child);
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
    return {std::move(moves), std::move(positions)};
}

}  // namespace konane::notation
