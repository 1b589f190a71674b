// A deliberately plain, independent reference Konane engine for the tests.
//
// Everything here is re-derived from docs/rules.md with explicit row/column loops over an
// array of characters ('x' Black, 'o' White, '.' empty): no bit tricks, no shifts in the rules,
// no code shared with core/. Only the conversion helpers at the end (to_core, from_core,
// move_from_core) know konane::Position's square numbering, s = (rank - 1) * cols + file, and
// they compute it themselves.
//
// Coordinates: row 0 is the top row (rank R), column 0 is file `a`; square (row, col) is stored
// at index row * cols + col, so the squares read in the order of the notation.
//
// Header-only (tests/CMakeLists.txt compiles only tests/LAYER/test_*.cpp).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/board.hpp"
#include "core/movegen.hpp"

namespace konane::ref {

enum class Rules { Brainking, Center, Any };

/// The most squares of a reference board: the wide boards' limit (core/wide.hpp
/// kMaxWideSquares, 448), so that the same plain engine checks boards past 64 squares. Keys
/// (key_of, pos_of) and to_core/from_core are for boards of at most 64 squares.
inline constexpr int kRefMaxSquares = 448;

inline Rules rules_of(Ruleset r) {
    switch (r) {
        case Ruleset::Brainking:
            return Rules::Brainking;
        case Ruleset::Center:
            return Rules::Center;
        case Ruleset::Any:
            return Rules::Any;
    }
    throw std::logic_error("unknown ruleset");
}

/// Board dimensions and the colour rule.
struct RefBoard {
    int rows = 0;
    int cols = 0;

    RefBoard() = default;
    RefBoard(int r, int c) : rows(r), cols(c) {
        if (r < 1 || c < 1 || r * c > kRefMaxSquares)
            throw std::invalid_argument("ref: bad board size");
    }
    int squares() const { return rows * cols; }
    bool on_board(int row, int col) const {
        return row >= 0 && row < rows && col >= 0 && col < cols;
    }
    int index(int row, int col) const { return row * cols + col; }
    /// rules.md: Black's square when (file + R - rank) is even; with row = R - rank that is
    /// (col + row) even. The top-left square a{R} is Black's.
    bool black_square(int row, int col) const { return (row + col) % 2 == 0; }
    /// The piece that stands on (row, col) when it is occupied.
    char piece_on(int row, int col) const { return black_square(row, col) ? 'x' : 'o'; }
    /// Files a..z, then aa..az, ba.. (README.md "Notation": spreadsheet columns); the rank in
    /// decimal. Written out here letter by letter, apart from core/notation.
    std::string square_name(int row, int col) const {
        const char* letters = "abcdefghijklmnopqrstuvwxyz";
        std::string s;
        if (col >= 26) s += letters[col / 26 - 1];
        s += letters[col % 26];
        s += std::to_string(rows - row);
        return s;
    }
};

/// A position: the squares and the side to move ('b' or 'w').
struct RefPos {
    std::array<char, kRefMaxSquares> sq{};  // only the first rows*cols entries are used
    char side = 'b';

    char at(const RefBoard& b, int row, int col) const { return sq[b.index(row, col)]; }
    char& at(const RefBoard& b, int row, int col) { return sq[b.index(row, col)]; }
    friend bool operator==(const RefPos&, const RefPos&) = default;
};

/// A move: a removal when from == to, otherwise a straight jump.
struct RefMove {
    int from_row = 0, from_col = 0, to_row = 0, to_col = 0;
    bool removal() const { return from_row == to_row && from_col == to_col; }
    friend bool operator==(const RefMove&, const RefMove&) = default;
    friend bool operator<(const RefMove& a, const RefMove& b) {
        return std::tie(a.from_row, a.from_col, a.to_row, a.to_col) <
               std::tie(b.from_row, b.from_col, b.to_row, b.to_col);
    }
};

inline char opponent_piece(char side) {
    return side == 'b' ? 'o' : 'x';
}
inline char own_piece(char side) {
    return side == 'b' ? 'x' : 'o';
}
inline char other_side(char side) {
    return side == 'b' ? 'w' : 'b';
}

/// The full board, Black to move.
inline RefPos full_board(const RefBoard& b) {
    RefPos p;
    for (int r = 0; r < b.rows; ++r)
        for (int c = 0; c < b.cols; ++c)
            p.at(b, r, c) = b.piece_on(r, c);
    p.side = 'b';
    return p;
}

inline int count_pieces(const RefBoard& b, const RefPos& p) {
    int n = 0;
    for (int r = 0; r < b.rows; ++r)
        for (int c = 0; c < b.cols; ++c)
            if (p.at(b, r, c) != '.') ++n;
    return n;
}

inline int count_empty(const RefBoard& b, const RefPos& p) {
    return b.squares() - count_pieces(b, p);
}

/// The text of a position in the notation of rules.md.
inline std::string to_text(const RefBoard& b, const RefPos& p) {
    std::string s;
    for (int r = 0; r < b.rows; ++r) {
        if (r > 0) s += '/';
        for (int c = 0; c < b.cols; ++c)
            s += p.at(b, r, c);
    }
    s += ' ';
    s += p.side;
    return s;
}

/// Parses well-formed notation (no error reporting: the tests only feed it good text).
inline RefPos from_text(const RefBoard& b, const std::string& text) {
    RefPos p;
    int r = 0, c = 0;
    std::size_t i = 0;
    for (; i < text.size() && text[i] != ' '; ++i) {
        if (text[i] == '/') {
            ++r;
            c = 0;
            continue;
        }
        p.at(b, r, c++) = text[i];
    }
    p.side = text.at(i + 1);
    return p;
}

inline std::string move_text(const RefBoard& b, const RefMove& m) {
    if (m.removal()) return b.square_name(m.from_row, m.from_col);
    return b.square_name(m.from_row, m.from_col) + "-" + b.square_name(m.to_row, m.to_col);
}

// ---------------------------------------------------------------------------------------------
// Opening removals (rules.md "Opening: two removals").

inline bool is_corner(const RefBoard& b, int r, int c) {
    return (r == 0 || r == b.rows - 1) && (c == 0 || c == b.cols - 1);
}

/// Central squares: rows floor((R-1)/2)..floor(R/2) x columns floor((C-1)/2)..floor(C/2).
/// The row range is symmetric, so counting rows from the top or the bottom gives the same set.
inline bool is_central(const RefBoard& b, int r, int c) {
    return r >= (b.rows - 1) / 2 && r <= b.rows / 2 && c >= (b.cols - 1) / 2 && c <= b.cols / 2;
}

/// The squares Black may empty on the full board: its own pieces, and under brainking only
/// corners or central squares, under center only central squares.
inline std::vector<RefMove> black_removals(const RefBoard& b, Rules rules, const RefPos& p) {
    std::vector<RefMove> out;
    for (int r = 0; r < b.rows; ++r) {
        for (int c = 0; c < b.cols; ++c) {
            if (p.at(b, r, c) != 'x') continue;
            bool ok = false;
            switch (rules) {
                case Rules::Brainking:
                    ok = is_corner(b, r, c) || is_central(b, r, c);
                    break;
                case Rules::Center:
                    ok = is_central(b, r, c);
                    break;
                case Rules::Any:
                    ok = true;
                    break;
            }
            if (ok) out.push_back({r, c, r, c});
        }
    }
    return out;
}

/// White's removals: its pieces orthogonally adjacent to the one empty square.
inline std::vector<RefMove> white_removals(const RefBoard& b, const RefPos& p) {
    std::vector<RefMove> out;
    int hr = -1, hc = -1;
    for (int r = 0; r < b.rows; ++r)
        for (int c = 0; c < b.cols; ++c)
            if (p.at(b, r, c) == '.') hr = r, hc = c;
    if (hr < 0) return out;
    const int dr[4] = {-1, 1, 0, 0}, dc[4] = {0, 0, -1, 1};
    for (int d = 0; d < 4; ++d) {
        const int r = hr + dr[d], c = hc + dc[d];
        if (b.on_board(r, c) && p.at(b, r, c) == 'o') out.push_back({r, c, r, c});
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// Jumps (rules.md "Jumps").

/// Every jump of the side to move: for each of its pieces and each direction, keep jumping
/// while the next square holds an opponent piece and the one beyond is empty; each landing
/// square is a move.
inline std::vector<RefMove> jumps(const RefBoard& b, const RefPos& p) {
    std::vector<RefMove> out;
    const char mine = own_piece(p.side), theirs = opponent_piece(p.side);
    const int dr[4] = {-1, 1, 0, 0}, dc[4] = {0, 0, -1, 1};
    for (int r = 0; r < b.rows; ++r) {
        for (int c = 0; c < b.cols; ++c) {
            if (p.at(b, r, c) != mine) continue;
            for (int d = 0; d < 4; ++d) {
                int cr = r, cc = c;
                for (;;) {
                    const int mr = cr + dr[d], mc = cc + dc[d];
                    const int lr = cr + 2 * dr[d], lc = cc + 2 * dc[d];
                    if (!b.on_board(lr, lc)) break;
                    if (p.at(b, mr, mc) != theirs || p.at(b, lr, lc) != '.') break;
                    out.push_back({r, c, lr, lc});
                    cr = lr;
                    cc = lc;
                }
            }
        }
    }
    return out;
}

/// The stage of a position as rules.md's opening describes it: the full board with Black to
/// move is Black's removal; one empty square with White to move is White's when Black could
/// have emptied that square under the ruleset (README.md "Positions no opening produces"); all
/// else is play (jumps).
enum class Stage { BlackRemoval, WhiteRemoval, Play };

inline Stage stage_of(const RefBoard& b, Rules rules, const RefPos& p) {
    const int empty = count_empty(b, p);
    if (empty == 0 && p.side == 'b') return Stage::BlackRemoval;
    if (empty == 1 && p.side == 'w') {
        // The hole, refilled with Black's piece, must be one of Black's removals.
        RefPos full = p;
        for (int r = 0; r < b.rows; ++r)
            for (int c = 0; c < b.cols; ++c)
                if (full.at(b, r, c) == '.') full.at(b, r, c) = b.piece_on(r, c);
        for (const RefMove& m : black_removals(b, rules, full))
            if (p.at(b, m.from_row, m.from_col) == '.') return Stage::WhiteRemoval;
    }
    return Stage::Play;
}

/// The legal moves of a position (stage by stage_of).
inline std::vector<RefMove> moves(const RefBoard& b, Rules rules, const RefPos& p) {
    switch (stage_of(b, rules, p)) {
        case Stage::BlackRemoval:
            return black_removals(b, rules, p);
        case Stage::WhiteRemoval:
            return white_removals(b, p);
        case Stage::Play:
            return jumps(b, p);
    }
    return {};
}

/// The position after move m.
inline RefPos apply(const RefBoard& b, const RefPos& p, const RefMove& m) {
    RefPos q = p;
    if (m.removal()) {
        q.at(b, m.from_row, m.from_col) = '.';
    } else {
        const int dr = (m.to_row > m.from_row) - (m.to_row < m.from_row);
        const int dc = (m.to_col > m.from_col) - (m.to_col < m.from_col);
        const char piece = p.at(b, m.from_row, m.from_col);
        int r = m.from_row, c = m.from_col;
        q.at(b, r, c) = '.';
        while (r != m.to_row || c != m.to_col) {
            q.at(b, r + dr, c + dc) = '.';  // the jumped piece
            r += 2 * dr;
            c += 2 * dc;
        }
        q.at(b, r, c) = piece;
    }
    q.side = other_side(p.side);
    return q;
}

// ---------------------------------------------------------------------------------------------
// Perft from the full board; plies 1 and 2 are the removals (tracked by ply, not by stage).

inline std::uint64_t perft_ply(const RefBoard& b, Rules rules, const RefPos& p, int depth,
                               int ply) {
    if (depth == 0) return 1;
    const std::vector<RefMove> ms = ply == 0   ? black_removals(b, rules, p)
                                    : ply == 1 ? white_removals(b, p)
                                               : jumps(b, p);
    if (depth == 1) return ms.size();
    std::uint64_t n = 0;
    for (const RefMove& m : ms)
        n += perft_ply(b, rules, apply(b, p, m), depth - 1, ply + 1);
    return n;
}

inline std::uint64_t perft(const RefBoard& b, Rules rules, int depth) {
    return perft_ply(b, rules, full_board(b), depth, 0);
}

// ---------------------------------------------------------------------------------------------
// Compact keys (for hashing only): bit i set when square index i is occupied, built square by
// square; the side is kept apart.

struct RefKey {
    std::uint64_t occ = 0;
    char side = 'b';
    friend bool operator==(const RefKey&, const RefKey&) = default;
    friend bool operator<(const RefKey& a, const RefKey& b) {
        return a.side != b.side ? a.side < b.side : a.occ < b.occ;
    }
};

struct RefKeyHash {
    std::size_t operator()(const RefKey& k) const {
        std::uint64_t h =
            k.occ * 0x9E3779B97F4A7C15ull + (k.side == 'w' ? 0x632BE59BD9B4E019ull : 0);
        h ^= h >> 29;
        return static_cast<std::size_t>(h);
    }
};

inline RefKey key_of(const RefBoard& b, const RefPos& p) {
    if (b.squares() > 64) throw std::invalid_argument("ref: keys are for boards of 64 squares");
    RefKey k;
    std::uint64_t bit = 1;
    for (int i = 0; i < b.squares(); ++i, bit *= 2)
        if (p.sq[i] != '.') k.occ += bit;
    k.side = p.side;
    return k;
}

inline RefPos pos_of(const RefBoard& b, const RefKey& k) {
    RefPos p;
    std::uint64_t bit = 1;
    for (int r = 0; r < b.rows; ++r)
        for (int c = 0; c < b.cols; ++c, bit *= 2)
            p.at(b, r, c) = (k.occ / bit) % 2 ? b.piece_on(r, c) : '.';
    p.side = k.side;
    return p;
}

// ---------------------------------------------------------------------------------------------
// Symmetries (rules.md "Equivalent positions"), square by square.

struct RefSymmetry {
    std::string name;
    std::vector<int> to;  ///< to[index(r, c)] = index of the image square
    bool swaps_colour = false;
};

inline std::vector<RefSymmetry> symmetries(const RefBoard& b) {
    const int R = b.rows, C = b.cols;
    struct Geo {
        const char* name;
        bool square_only;
        std::pair<int, int> (*f)(int r, int c, int R, int C);
    };
    static const Geo geos[] = {
        {"identity", false,
         [](int r, int c, int, int) {
             return std::pair{r, c};
         }},
        {"rotate180", false,
         [](int r, int c, int R, int C) {
             return std::pair{R - 1 - r, C - 1 - c};
         }},
        {"mirror-left-right", false,
         [](int r, int c, int, int C) {
             return std::pair{r, C - 1 - c};
         }},
        {"mirror-top-bottom", false,
         [](int r, int c, int R, int) {
             return std::pair{R - 1 - r, c};
         }},
        {"transpose", true,
         [](int r, int c, int, int) {
             return std::pair{c, r};
         }},
        {"anti-transpose", true,
         [](int r, int c, int R, int C) {
             return std::pair{C - 1 - c, R - 1 - r};
         }},
        {"rotate90-clockwise", true,
         [](int r, int c, int R, int) {
             return std::pair{c, R - 1 - r};
         }},
        {"rotate90-anticlockwise", true,
         [](int r, int c, int, int C) {
             return std::pair{C - 1 - c, r};
         }},
    };
    std::vector<RefSymmetry> out;
    for (const Geo& g : geos) {
        if (g.square_only && R != C) continue;
        RefSymmetry s;
        s.name = g.name;
        s.to.assign(b.squares(), -1);
        int same = 0, swapped = 0;
        for (int r = 0; r < R; ++r) {
            for (int c = 0; c < C; ++c) {
                const auto [r2, c2] = g.f(r, c, R, C);
                if (!b.on_board(r2, c2)) throw std::logic_error("ref: symmetry leaves the board");
                s.to[b.index(r, c)] = b.index(r2, c2);
                (b.black_square(r, c) == b.black_square(r2, c2) ? same : swapped) += 1;
            }
        }
        if (same != 0 && swapped != 0) throw std::logic_error("ref: symmetry mixes colours");
        s.swaps_colour = swapped != 0;
        out.push_back(std::move(s));
    }
    return out;
}

/// Image of p under s: each occupied square's image is occupied (by the piece of that square's
/// colour); the side to move is exchanged when s swaps colours.
inline RefPos image(const RefBoard& b, const RefSymmetry& s, const RefPos& p) {
    RefPos q;
    for (int r = 0; r < b.rows; ++r) {
        for (int c = 0; c < b.cols; ++c) {
            const int t = s.to[b.index(r, c)];
            const int r2 = t / b.cols, c2 = t % b.cols;
            q.at(b, r2, c2) = p.at(b, r, c) == '.' ? '.' : b.piece_on(r2, c2);
        }
    }
    q.side = s.swaps_colour ? other_side(p.side) : p.side;
    return q;
}

/// The distinct images of p (its class).
inline std::vector<RefPos> orbit(const RefBoard& b, const std::vector<RefSymmetry>& syms,
                                 const RefPos& p) {
    std::vector<RefPos> out;
    for (const auto& s : syms) {
        RefPos q = image(b, s, p);
        if (std::find(out.begin(), out.end(), q) == out.end()) out.push_back(q);
    }
    return out;
}

/// Number of distinct images of p under the colour-preserving symmetries.
inline int preserving_orbit_size(const RefBoard& b, const std::vector<RefSymmetry>& syms,
                                 const RefPos& p) {
    std::vector<RefPos> seen;
    for (const auto& s : syms) {
        if (s.swaps_colour) continue;
        RefPos q = image(b, s, p);
        if (std::find(seen.begin(), seen.end(), q) == seen.end()) seen.push_back(q);
    }
    return static_cast<int>(seen.size());
}

/// A representative of p's class: the least key of its images.
inline RefKey class_key(const RefBoard& b, const std::vector<RefSymmetry>& syms, const RefPos& p) {
    RefKey best = key_of(b, image(b, syms[0], p));
    for (std::size_t i = 1; i < syms.size(); ++i)
        best = std::min(best, key_of(b, image(b, syms[i], p)));
    return best;
}

// ---------------------------------------------------------------------------------------------
// Reachable positions after both removals (Black to move first, and everything after).

struct Reachable {
    std::vector<RefKey> raw;                       ///< every distinct (squares, side) reached
    std::size_t classes = 0;                       ///< number of distinct orbits among them
    std::map<int, std::size_t> raw_by_pieces;      ///< piece count -> raw positions
    std::map<int, std::size_t> classes_by_pieces;  ///< piece count -> classes
};

/// Every position reachable by jumps from `starts` (the starts included), counted raw and by
/// class.
inline Reachable enumerate_reachable_from(const RefBoard& b, const std::vector<RefPos>& starts) {
    Reachable out;
    std::unordered_set<RefKey, RefKeyHash> seen;
    std::vector<RefPos> stack;
    for (const RefPos& s : starts)
        if (seen.insert(key_of(b, s)).second) stack.push_back(s);
    while (!stack.empty()) {
        const RefPos p = stack.back();
        stack.pop_back();
        out.raw.push_back(key_of(b, p));
        for (const RefMove& m : jumps(b, p)) {
            const RefPos q = apply(b, p, m);
            if (seen.insert(key_of(b, q)).second) stack.push_back(q);
        }
    }
    const auto syms = symmetries(b);
    std::unordered_set<RefKey, RefKeyHash> classes;
    for (const RefKey& k : out.raw) {
        const RefPos p = pos_of(b, k);
        const int n = count_pieces(b, p);
        ++out.raw_by_pieces[n];
        if (classes.insert(class_key(b, syms, p)).second) ++out.classes_by_pieces[n];
    }
    out.classes = classes.size();
    return out;
}

/// Every position reachable after both removals of the ruleset.
inline Reachable enumerate_reachable(const RefBoard& b, Rules rules) {
    std::vector<RefPos> starts;
    const RefPos start = full_board(b);
    for (const RefMove& m1 : black_removals(b, rules, start)) {
        const RefPos one = apply(b, start, m1);
        for (const RefMove& m2 : white_removals(b, one))
            starts.push_back(apply(b, one, m2));
    }
    return enumerate_reachable_from(b, starts);
}

// ---------------------------------------------------------------------------------------------
// Values (rules.md "Values"): plain memoised negamax, no symmetry.

struct RefValue {
    bool win = false;
    int depth = 0;
    friend bool operator==(const RefValue&, const RefValue&) = default;
};

/// Memo of solved positions for one board and ruleset (the ruleset matters only for the
/// full board and the one-hole boards, whose moves are removals).
struct RefMemo {
    RefBoard board;
    Rules rules = Rules::Brainking;
    std::unordered_map<RefKey, RefValue, RefKeyHash> values;
    RefMemo(const RefBoard& b, Rules r = Rules::Brainking) : board(b), rules(r) {}
};

inline RefValue solve(const RefPos& p, RefMemo& memo) {
    const RefBoard& b = memo.board;
    const RefKey k = key_of(b, p);
    if (auto it = memo.values.find(k); it != memo.values.end()) return it->second;
    RefValue v{false, 0};
    bool have_loss_child = false;
    int least_loss = 0, greatest = 0;
    const std::vector<RefMove> ms = moves(b, memo.rules, p);
    for (const RefMove& m : ms) {
        const RefValue c = solve(apply(b, p, m), memo);
        if (!c.win) {
            if (!have_loss_child || c.depth < least_loss) least_loss = c.depth;
            have_loss_child = true;
        }
        greatest = std::max(greatest, c.depth);
    }
    if (have_loss_child) {
        v = {true, 1 + least_loss};
    } else if (!ms.empty()) {
        v = {false, 1 + greatest};
    }
    memo.values.emplace(k, v);
    return v;
}

inline RefValue solve(const RefBoard& b, const RefPos& p, RefMemo& memo) {
    if (memo.board.rows != b.rows || memo.board.cols != b.cols)
        throw std::invalid_argument("ref: memo is for another board");
    return solve(p, memo);
}

/// Convenience: a memo kept per board (brainking opening), reused across calls. Not thread-safe.
inline RefValue solve(const RefBoard& b, const RefPos& p) {
    static std::map<std::pair<int, int>, RefMemo> memos;
    auto it = memos.try_emplace({b.rows, b.cols}, b, Rules::Brainking).first;
    return solve(p, it->second);
}

// ---------------------------------------------------------------------------------------------
// Conversions to and from core (square index s = (rank - 1) * cols + file, rank = R - row).

inline RefBoard ref_board(const Board& b) {
    return RefBoard(b.rows, b.cols);
}

inline int core_square(const RefBoard& b, int row, int col) {
    return (b.rows - row - 1) * b.cols + col;
}
inline std::pair<int, int> ref_square(const RefBoard& b, int s) {
    return {b.rows - 1 - s / b.cols, s % b.cols};
}

inline Position to_core(const RefBoard& b, const RefPos& p) {
    Position q;
    for (int r = 0; r < b.rows; ++r)
        for (int c = 0; c < b.cols; ++c)
            if (p.at(b, r, c) != '.') q.occ |= std::uint64_t{1} << core_square(b, r, c);
    q.to_move = p.side == 'b' ? Color::Black : Color::White;
    return q;
}

inline RefPos from_core(const RefBoard& b, Position p) {
    RefPos q;
    for (int r = 0; r < b.rows; ++r)
        for (int c = 0; c < b.cols; ++c)
            q.at(b, r, c) = (p.occ >> core_square(b, r, c)) & 1 ? b.piece_on(r, c) : '.';
    q.side = p.to_move == Color::Black ? 'b' : 'w';
    return q;
}

inline RefMove move_from_core(const RefBoard& b, Move m) {
    const auto [fr, fc] = ref_square(b, m.from);
    const auto [tr, tc] = ref_square(b, m.to);
    return {fr, fc, tr, tc};
}

inline Move move_to_core(const RefBoard& b, const RefMove& m) {
    return Move{static_cast<std::uint8_t>(core_square(b, m.from_row, m.from_col)),
                static_cast<std::uint8_t>(core_square(b, m.to_row, m.to_col))};
}

// ---------------------------------------------------------------------------------------------
// Random reachable positions: every position met on `games` random games from the full board.

inline std::vector<RefPos> random_positions(const RefBoard& b, Rules rules, int games,
                                            std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<RefPos> out;
    for (int g = 0; g < games; ++g) {
        RefPos p = full_board(b);
        for (int ply = 0;; ++ply) {
            out.push_back(p);
            const std::vector<RefMove> ms = ply == 0   ? black_removals(b, rules, p)
                                            : ply == 1 ? white_removals(b, p)
                                                       : jumps(b, p);
            if (ms.empty()) break;
            p = apply(b, p, ms[rng() % ms.size()]);
        }
    }
    return out;
}

}  // namespace konane::ref
