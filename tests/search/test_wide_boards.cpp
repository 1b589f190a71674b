// Boards past 8 rows or columns (issue #12): any R x C of at most 64 squares for the board, the
// moves, perft, symmetry, notation and the searches, checked against the plain reference engine
// of tests/reference.hpp (a per-square array, explicit loops, no bit tricks); the refusals of
// larger boards, and of tables past 36 squares, with messages that name the size.
#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "core/board.hpp"
#include "core/movegen.hpp"
#include "core/notation.hpp"
#include "core/symmetry.hpp"
#include "search/proof.hpp"
#include "search/search.hpp"
#include "solver/enumerate.hpp"
#include "solver/estimate.hpp"
#include "solver/solve.hpp"
#include "tests/reference.hpp"

using namespace konane;
using Catch::Matchers::Contains;

namespace {

constexpr Ruleset kRulesets[] = {Ruleset::Brainking, Ruleset::Center, Ruleset::Any};

/// Boards wider or taller than 8 (and 8x8, the other 64-square shape), both orientations.
const std::vector<std::pair<int, int>> kWide = {
    {1, 20}, {20, 1}, {3, 12}, {12, 3}, {2, 20}, {20, 2}, {9, 3},  {3, 9},  {7, 9},  {9, 7},
    {8, 8},  {1, 64}, {64, 1}, {2, 32}, {32, 2}, {4, 16}, {16, 4}, {5, 12}, {1, 30}, {6, 10}};

/// A random position of board b: each square occupied with probability `density`, and the side.
ref::RefPos random_position(const ref::RefBoard& b, std::mt19937_64& rng, double density,
                            char side) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    ref::RefPos p;
    for (int r = 0; r < b.rows; ++r)
        for (int c = 0; c < b.cols; ++c)
            p.at(b, r, c) = u(rng) < density ? b.piece_on(r, c) : '.';
    p.side = side;
    return p;
}

/// The row "." + n alternating pieces starting with White + "." (rules.md's linear positions).
std::string gap_row(int n) {
    std::string row = ".";
    for (int i = 0; i < n; ++i)
        row += i % 2 == 0 ? 'o' : 'x';
    return row + '.';
}

}  // namespace

TEST_CASE("wide boards: every R x C of at most 64 squares is a board and larger ones are refused",
          "[rules][wide]") {
    for (int rows = 1; rows <= 70; ++rows) {
        for (int cols = 1; cols <= 70; ++cols) {
            INFO(rows << "x" << cols);
            if (rows * cols <= 64) {
                const Board b = Board::make(rows, cols);
                CHECK(b.squares() == rows * cols);
                CHECK(std::popcount(b.all) == rows * cols);
                CHECK(std::popcount(b.color[0] | b.color[1]) == rows * cols);
                CHECK((b.color[0] & b.color[1]) == 0);
                CHECK(Board::parse(b.name()) == b);
            } else {
                const std::string size = std::to_string(rows) + "x" + std::to_string(cols);
                REQUIRE_THROWS_WITH(Board::make(rows, cols),
                                    Contains("board " + size + " is out of range") &&
                                        Contains(std::to_string(rows * cols) + " squares") &&
                                        Contains("at most 64"));
            }
        }
    }
    REQUIRE_THROWS_WITH(Board::parse("1x65"), Contains("1x65") && Contains("at most 64"));
    REQUIRE_THROWS_WITH(Board::parse("65x1"), Contains("65x1") && Contains("at most 64"));
    REQUIRE_THROWS_WITH(Board::parse("99999999999x1"),
                        Contains("99999999999x1") && Contains("out of range"));
    REQUIRE_THROWS_WITH(Board::parse("0x12"), Contains("0x12") && Contains("at least 1"));
    REQUIRE_THROWS_WITH(Board::parse("3x-12"), Contains("3x-12") && Contains("at least 1"));
    REQUIRE_THROWS_WITH(Board::parse("3 by 12"), Contains("malformed board size"));
}

TEST_CASE("wide boards: perft equals the reference", "[perft][reference][wide]") {
    for (const auto& [rows, cols] : kWide) {
        const Board b = Board::make(rows, cols);
        const ref::RefBoard rb(rows, cols);
        // Deep enough for several jumps, shallow enough for the reference in well under a second.
        const int depth = rows * cols == 64 && rows > 1 && cols > 1 ? 5 : 7;
        for (Ruleset r : kRulesets) {
            for (int d = 0; d <= depth; ++d) {
                INFO(b.name() << " " << ruleset_name(r) << " depth " << d);
                CHECK(perft(b, r, b.start(), d) == ref::perft(rb, ref::rules_of(r), d));
            }
        }
    }
}

TEST_CASE("wide boards: jumps and legal moves equal the reference on random positions",
          "[rules][reference][wide]") {
    std::mt19937_64 rng(20240612);
    std::size_t positions = 0, jumps = 0, multi = 0;
    for (const auto& [rows, cols] : kWide) {
        const Board b = Board::make(rows, cols);
        const ref::RefBoard rb(rows, cols);
        std::vector<ref::RefPos> sample;
        for (int i = 0; i < 150; ++i) {
            const double density = 0.2 + 0.7 * static_cast<double>(i % 10) / 9.0;
            sample.push_back(random_position(rb, rng, density, i % 2 ? 'w' : 'b'));
        }
        for (Ruleset r : kRulesets) {
            const auto games = ref::random_positions(rb, ref::rules_of(r), 20, rng());
            sample.insert(sample.end(), games.begin(), games.end());
        }
        for (const ref::RefPos& rp : sample) {
            const Position p = ref::to_core(rb, rp);
            REQUIRE(ref::from_core(rb, p) == rp);
            // The jumps of the position, and the children they lead to.
            std::vector<ref::RefMove> want = ref::jumps(rb, rp), got;
            bool children_ok = true;
            for_each_jump(b, p, [&](Move m, Position c) {
                const ref::RefMove rm = ref::move_from_core(rb, m);
                got.push_back(rm);
                if (ref::from_core(rb, c) != ref::apply(rb, rp, rm)) children_ok = false;
                if (std::abs(rm.to_row - rm.from_row) + std::abs(rm.to_col - rm.from_col) > 2)
                    ++multi;
            });
            std::sort(want.begin(), want.end());
            std::sort(got.begin(), got.end());
            if (got != want || !children_ok) {
                FAIL_CHECK(b.name()
                           << " " << ref::to_text(rb, rp) << ": jumps differ from the reference");
            }
            CHECK(has_jump(b, p) == !want.empty());
            CHECK(count_jumps(b, p) == static_cast<int>(want.size()));
            // Every ruleset's legal moves, removals included.
            for (Ruleset r : kRulesets) {
                std::vector<ref::RefMove> lw = ref::moves(rb, ref::rules_of(r), rp), lg;
                for (const auto& mc : legal_moves(b, r, p))
                    lg.push_back(ref::move_from_core(rb, mc.move));
                std::sort(lw.begin(), lw.end());
                std::sort(lg.begin(), lg.end());
                CHECK(lg == lw);
            }
            ++positions;
            jumps += want.size();
        }
    }
    INFO(positions << " positions, " << jumps << " jumps, " << multi << " multi-jumps");
    CHECK(positions > 5000);
    CHECK(multi > 1000);
}

TEST_CASE("wide boards: symmetry classes equal the reference's orbits", "[symmetry][wide]") {
    std::mt19937_64 rng(7);
    for (const auto& [rows, cols] : kWide) {
        const Board b = Board::make(rows, cols);
        const ref::RefBoard rb(rows, cols);
        const SymmetryGroup g(b);
        const auto syms = ref::symmetries(rb);
        REQUIRE(g.size() == static_cast<int>(syms.size()));
        for (int i = 0; i < 40; ++i) {
            const ref::RefPos rp = random_position(rb, rng, 0.6, i % 2 ? 'w' : 'b');
            const Position p = ref::to_core(rb, rp);
            std::set<std::string> ours, theirs;
            for (int k = 0; k < g.size(); ++k)
                ours.insert(ref::to_text(rb, ref::from_core(rb, g.image(k, p))));
            for (const ref::RefPos& q : ref::orbit(rb, syms, rp))
                theirs.insert(ref::to_text(rb, q));
            INFO(b.name() << " " << ref::to_text(rb, rp));
            CHECK(ours == theirs);
            // The canonical form is the least image, the same for every member of the orbit.
            const Position canon = g.canonical(p);
            for (int k = 0; k < g.size(); ++k)
                CHECK(g.canonical(g.image(k, p)) == canon);
        }
    }
}

TEST_CASE("wide boards: file names past h, and every square's name round-trips",
          "[notation][wide]") {
    CHECK(file_name(0) == "a");
    CHECK(file_name(7) == "h");
    CHECK(file_name(25) == "z");
    CHECK(file_name(26) == "aa");
    CHECK(file_name(27) == "ab");
    CHECK(file_name(51) == "az");
    CHECK(file_name(52) == "ba");
    CHECK(file_name(63) == "bl");
    CHECK(file_name(701) == "zz");
    CHECK(file_name(702) == "aaa");
    for (const auto& [rows, cols] : {std::pair{1, 64}, std::pair{64, 1}, std::pair{3, 12},
                                     std::pair{2, 32}, std::pair{8, 8}, std::pair{5, 12}}) {
        const Board b = Board::make(rows, cols);
        const ref::RefBoard rb(rows, cols);
        std::set<std::string> names;
        for (int s = 0; s < b.squares(); ++s) {
            const std::string name = square_name(b, s);
            INFO(b.name() << " square " << s << " " << name);
            const auto [row, col] = ref::ref_square(rb, s);
            CHECK(name == rb.square_name(row, col));
            CHECK(parse_square(b, name) == s);
            names.insert(name);
        }
        CHECK(names.size() == static_cast<std::size_t>(b.squares()));
    }
    const Board row = Board::make(1, 64), column = Board::make(64, 1), b312 = Board::make(3, 12);
    CHECK(square_name(row, 63) == "bl1");
    CHECK(square_name(row, 26) == "aa1");
    CHECK(square_name(column, 63) == "a64");
    CHECK(square_name(b312, 35) == "l3");
    CHECK(parse_square(b312, "l3") == 35);
    // Off the board: the message names the board, its files and its ranks.
    REQUIRE_THROWS_WITH(parse_square(row, "bm1"),
                        Contains("'bm1' is off the 1x64 board (files a..bl, ranks 1..1)"));
    REQUIRE_THROWS_WITH(parse_square(row, "a2"), Contains("off the 1x64 board"));
    REQUIRE_THROWS_WITH(parse_square(column, "a65"),
                        Contains("off the 64x1 board (files a..a, ranks 1..64)"));
    REQUIRE_THROWS_WITH(parse_square(column, "b1"), Contains("off the 64x1 board"));
    REQUIRE_THROWS_WITH(parse_square(b312, "m1"), Contains("files a..l, ranks 1..3"));
    REQUIRE_THROWS_WITH(parse_square(b312, "a0"), Contains("off the 3x12 board"));
    REQUIRE_THROWS_WITH(parse_square(b312, "zzzzzzzzzzzzzzzz1"), Contains("off the 3x12 board"));
    REQUIRE_THROWS_WITH(parse_square(column, "a99999999999999999999"),
                        Contains("off the 64x1 board"));
    // Malformed: letters then digits, lower case, no sign, no leading zero.
    for (const char* bad :
         {"", "aa", "12", "1a", "Aa1", "aA1", "a1b", "a01", "aa012", "a+1", "a-1", "a 1", "é1"}) {
        INFO(bad);
        REQUIRE_THROWS_WITH(parse_square(row, bad),
                            Contains("malformed square") && Contains("such as c4 or aa12"));
    }
}

TEST_CASE("wide boards: positions and moves round-trip, and oversized positions are refused",
          "[notation][wide]") {
    std::mt19937_64 rng(99);
    for (const auto& [rows, cols] : kWide) {
        const Board b = Board::make(rows, cols);
        const ref::RefBoard rb(rows, cols);
        for (int i = 0; i < 30; ++i) {
            const ref::RefPos rp = random_position(rb, rng, 0.55, i % 2 ? 'w' : 'b');
            const Position p = ref::to_core(rb, rp);
            const std::string text = format_position(b, p);
            REQUIRE(text == ref::to_text(rb, rp));
            const ParsedPosition back = parse_position(text);
            CHECK(back.board == b);
            CHECK(back.position == p);
            for (Ruleset r : kRulesets) {
                for (const auto& mc : legal_moves(b, r, p)) {
                    const std::string mt = format_move(b, mc.move);
                    CHECK(mt == ref::move_text(rb, ref::move_from_core(rb, mc.move)));
                    CHECK(parse_move(b, r, p, mt).child == mc.child);
                }
            }
        }
    }
    // A long jump on 1x64, written with two-letter files: x on y1 jumps to bk1 over 19 pieces.
    const Board row = Board::make(1, 64);
    std::string text(64, '.');
    text[24] = 'x';
    for (int f = 25; f < 63; f += 2)
        text[f] = 'o';
    const Position p = parse_position(text + " b").position;
    const MoveChild far = parse_move(row, Ruleset::Brainking, p, "y1-bk1");
    CHECK(far.move == Move{24, 62});
    CHECK(piece_count(far.child) == 1);
    CHECK(legal_moves(row, Ruleset::Brainking, p).size() == 19);
    // A game record on 3x12.
    const Board b312 = Board::make(3, 12);
    const Game g = parse_game(b312, Ruleset::Brainking, "a1 a2 c1-a1");
    CHECK(format_position(b312, g.positions.back()) == "xoxoxoxoxoxo/.xoxoxoxoxox/x..oxoxoxoxo w");
    REQUIRE_THROWS_WITH(parse_game(b312, Ruleset::Brainking, "l1"),
                        Contains("move 1 'l1'") && Contains("not a legal removal"));
    REQUIRE_THROWS_WITH(parse_game(b312, Ruleset::Brainking, "m1"),
                        Contains("move 1 'm1'") && Contains("off the 3x12 board"));
    // More than 64 squares, in rows or in columns; an unknown character named by its file.
    REQUIRE_THROWS_WITH(parse_position(std::string(65, '.') + " b"),
                        Contains("1 rows of 65 squares (65)") && Contains("at most 64 squares"));
    std::string tall = ".";
    for (int i = 1; i < 65; ++i)
        tall += "/.";
    REQUIRE_THROWS_WITH(parse_position(tall + " b"),
                        Contains("65 rows of 1 squares") && Contains("at most 64 squares"));
    REQUIRE_THROWS_WITH(parse_position(std::string(29, '.') + "q" + std::string(20, '.') + " b"),
                        Contains("unknown character 'q'") && Contains("file ad"));
    REQUIRE_THROWS_WITH(parse_position(std::string(29, '.') + "x" + std::string(20, '.') + " b"),
                        Contains("Black piece 'x' at rank 1") && Contains("file ad"));
}

TEST_CASE("wide boards: rules.md's linear facts on rows of up to 64 squares", "[proof][wide]") {
    // One empty square, n alternating pieces from White, one empty square: the second player
    // wins when n = 0 (mod 4), the first when n = 2 (mod 4), Black whoever starts when n is odd
    // and at least 3 (rules.md "Facts from public sources"). n up to 62: the 1x64 board.
    ProofOptions po;
    po.memory_bytes = std::size_t{4} << 20;
    for (int n = 1; n <= 62; ++n) {
        const std::string row = gap_row(n);
        INFO(row);
        const ParsedPosition pp = parse_position(row + " b");
        ProofSearch proof(pp.board, po);
        Searcher search(pp.board);
        const Position black{pp.position.occ, Color::Black}, white{pp.position.occ, Color::White};
        const ProofResult rb = proof.solve(black), rw = proof.solve(white);
        REQUIRE(rb.win.has_value());
        REQUIRE(rw.win.has_value());
        // The exact search agrees, with the depth's parity.
        CHECK(search.value(black).win == *rb.win);
        CHECK(search.value(white).win == *rw.win);
        if (n % 4 == 0) {
            CHECK(!*rb.win);
            CHECK(!*rw.win);
        } else if (n % 4 == 2) {
            CHECK(*rb.win);
            CHECK(*rw.win);
        } else if (n >= 3) {
            CHECK(*rb.win);
            CHECK(!*rw.win);
        }
    }
    // xo.. (Black whoever starts) and .ox. (the first player) with the empty squares far away.
    for (const auto& [text, black_wins, white_wins] :
         {std::tuple{std::string("xo..") + std::string(40, '.'), true, false},
          std::tuple{std::string(".ox.") + std::string(40, '.'), true, true}}) {
        const ParsedPosition pp = parse_position(text + " b");
        ProofSearch proof(pp.board, po);
        CHECK(proof.solve(Position{pp.position.occ, Color::Black}).win == black_wins);
        CHECK(proof.solve(Position{pp.position.occ, Color::White}).win == white_wins);
    }
}

TEST_CASE("wide boards: square 63 and the side to move never collide in the searches' memos",
          "[proof][wide]") {
    // On 1x64, p1 (bl1 occupied, Black to move) and p2 (bl1 empty, White to move) would share
    // one key_of: bit 63 is bl1's square and the side to move. Their values differ: in p1 Black
    // jumps a1-c1 and White's lone bl1 has no jump; in p2 White has no jump at all.
    const Board b = Board::make(1, 64);
    const Position p1 = parse_position("xo" + std::string(61, '.') + "o b").position;
    const Position p2 = parse_position("xo" + std::string(62, '.') + " w").position;
    REQUIRE(key_of(p1) == key_of(p2));  // why tables stop at 63 squares
    ProofOptions po;
    po.memory_bytes = std::size_t{1} << 20;
    ProofSearch proof(b, po);
    Searcher search(b);
    for (int round = 0; round < 2; ++round) {  // the second round answers from the memos
        CHECK(proof.solve(p1).win == true);
        CHECK(proof.solve(p2).win == false);
        CHECK(search.value(p1).win);
        CHECK(search.value(p1).depth == 1);
        CHECK_FALSE(search.value(p2).win);
        CHECK(search.value(p2).depth == 0);
    }
}

TEST_CASE("wide boards: proof search and exact search agree on positions of 64-square boards",
          "[proof][wide]") {
    // Positions a few random plies into a game, where the exact search finishes quickly.
    std::mt19937_64 rng(4242);
    for (const auto& [rows, cols] :
         {std::pair{1, 64}, std::pair{64, 1}, std::pair{2, 32}, std::pair{4, 16}, std::pair{8, 8},
          std::pair{3, 12}, std::pair{2, 20}}) {
        const Board b = Board::make(rows, cols);
        const ref::RefBoard rb(rows, cols);
        ProofOptions po;
        po.memory_bytes = std::size_t{8} << 20;
        ProofSearch proof(b, po);
        Searcher search(b);
        int checked = 0;
        for (int i = 0; i < 60 && checked < 8; ++i) {
            // A sparse random position: few pieces, so that both searches end fast.
            const ref::RefPos rp = random_position(rb, rng, 8.0 / b.squares() + 0.1, 'b');
            const Position p = ref::to_core(rb, rp);
            if (piece_count(p) > 14) continue;
            const ProofResult r = proof.solve(p);
            REQUIRE(r.win.has_value());
            INFO(b.name() << " " << format_position(b, p));
            CHECK(search.value(p).win == *r.win);
            ++checked;
        }
        CHECK(checked > 0);
    }
}

TEST_CASE("wide boards: proof search of every opening on boards past 8 per side", "[proof][wide]") {
    // Every opening decided; a board and its transpose (1x64 and 64x1, 3x12 and 12x3: the
    // top-left square is Black's on both, so the transpose keeps colours) have one verdict.
    // Tables check the openings of boards of up to 36 squares (tests/search/test_proof.cpp).
    auto verdict = [](int rows, int cols) {
        const Board b = Board::make(rows, cols);
        ProofOptions po;
        po.memory_bytes = std::size_t{8} << 20;
        ProofSearch s(b, po);
        const SearchedOpenings got = search_openings(s);
        INFO(b.name());
        REQUIRE(!got.lines.empty());
        for (const SearchedOpening& line : got.lines)
            CHECK(line.winner.has_value());
        REQUIRE(got.winner.has_value());
        // The verdict agrees with one solve() of the full board.
        const ProofResult full = s.solve(b.start());
        REQUIRE(full.win.has_value());
        CHECK(*full.win == (*got.winner == Color::Black));
        return *got.winner;
    };
    CHECK(verdict(1, 64) == verdict(64, 1));
    CHECK(verdict(3, 12) == verdict(12, 3));
    CHECK(verdict(2, 20) == verdict(20, 2));
}

TEST_CASE("wide boards: tables past 36 squares are refused with the size", "[solver][wide]") {
    for (const auto& [rows, cols] :
         {std::pair{6, 7}, std::pair{1, 37}, std::pair{4, 10}, std::pair{8, 8}, std::pair{1, 64}}) {
        solver::GenerateOptions o;
        o.board = Board::make(rows, cols);
        o.output = "/nonexistent-dir/never-written.kbt";
        const std::string size = o.board.name();
        REQUIRE_THROWS_WITH(
            solver::generate(o),
            Contains("board " + size + " has " + std::to_string(rows * cols) + " squares") &&
                Contains("at most 36"));
    }
    // No measured sizes for these shapes: no estimate, and no failure.
    for (const char* name : {"6x7", "7x6", "8x8", "1x64"}) {
        for (Ruleset r : kRulesets)
            CHECK_FALSE(solver::estimate_resources(Board::parse(name), r).has_value());
    }
    // The narrow boards of 36 squares were measured; a transpose gets its transpose's figures.
    for (const char* name : {"3x12", "2x18", "1x36"}) {
        const Board b = Board::parse(name);
        const auto e = solver::estimate_resources(b, Ruleset::Brainking);
        REQUIRE(e.has_value());
        const auto t = solver::estimate_resources(Board::make(b.cols, b.rows), Ruleset::Brainking);
        REQUIRE(t.has_value());
        CHECK(t->classes == e->classes);
        CHECK(t->memory_bytes == e->memory_bytes);
        CHECK_FALSE(solver::estimate_resources(b, Ruleset::Any).has_value());
    }
    CHECK(solver::kMaxGenerateSquares == 36);
    CHECK(solver::kMaxGenerateSquares <= kMaxKeySquares);
}
