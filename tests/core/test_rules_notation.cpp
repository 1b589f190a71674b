// Notation of core/notation.hpp: round trips on random reachable positions (checked against the
// reference engine's own formatting) and every kind of malformed input refused with its message.
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "core/board.hpp"
#include "core/movegen.hpp"
#include "core/notation.hpp"
#include "tests/reference.hpp"

using namespace konane;
using Catch::Matchers::Contains;

TEST_CASE("Notation round trips on random reachable positions", "[notation][reference]") {
    std::size_t checked = 0;
    for (int rows = 1; rows <= 8; ++rows) {
        for (int cols = 1; cols <= 8; ++cols) {
            const Board b = Board::make(rows, cols);
            const ref::RefBoard rb(rows, cols);
            for (Ruleset r : {Ruleset::Brainking, Ruleset::Any}) {
                const auto sample =
                    ref::random_positions(rb, ref::rules_of(r), 15, 77u * rows + cols);
                for (const ref::RefPos& rp : sample) {
                    const Position p = ref::to_core(rb, rp);
                    const std::string text = format_position(b, p);
                    REQUIRE(text == ref::to_text(rb, rp));
                    const ParsedPosition back = parse_position(text);
                    CHECK(back.board == b);
                    CHECK(back.position == p);
                    CHECK(parse_position(text, &b).position == p);
                    for (const auto& mc : legal_moves(b, r, p)) {
                        const std::string mt = format_move(b, mc.move);
                        CHECK(mt == ref::move_text(rb, ref::move_from_core(rb, mc.move)));
                        const MoveChild again = parse_move(b, r, p, mt);
                        CHECK(again.move == mc.move);
                        CHECK(again.child == mc.child);
                    }
                    ++checked;
                }
            }
        }
    }
    CHECK(checked > 5000);
}

TEST_CASE("Game records: random games replay through parse_game", "[notation][reference]") {
    std::mt19937_64 rng(12345);
    for (auto [rows, cols] : {std::pair{4, 4}, std::pair{5, 5}, std::pair{6, 6}, std::pair{8, 8},
                              std::pair{3, 7}, std::pair{1, 8}, std::pair{8, 1}}) {
        const Board b = Board::make(rows, cols);
        const ref::RefBoard rb(rows, cols);
        for (Ruleset r : {Ruleset::Brainking, Ruleset::Center, Ruleset::Any}) {
            for (int game = 0; game < 20; ++game) {
                // Play a random game with the reference, writing its record.
                std::string record;
                std::vector<ref::RefPos> seen{ref::full_board(rb)};
                for (;;) {
                    const auto ms = ref::moves(rb, ref::rules_of(r), seen.back());
                    if (ms.empty()) break;
                    const ref::RefMove m = ms[rng() % ms.size()];
                    if (!record.empty()) record += ' ';
                    record += ref::move_text(rb, m);
                    seen.push_back(ref::apply(rb, seen.back(), m));
                }
                INFO(b.name() << " " << ruleset_name(r) << ": " << record);
                const Game g = parse_game(b, r, record);
                REQUIRE(g.positions.size() == seen.size());
                REQUIRE(g.moves.size() + 1 == g.positions.size());
                for (std::size_t i = 0; i < seen.size(); ++i)
                    CHECK(ref::from_core(rb, g.positions[i]) == seen[i]);
                CHECK(legal_moves(b, r, g.positions.back()).empty());
                // Extra white space between moves is accepted.
                CHECK(parse_game(b, r, "  " + record + " \n").positions.back() ==
                      g.positions.back());
                // From a given start: the tail of the record from position 2.
                if (g.moves.size() >= 2) {
                    const std::string tail =
                        record.substr(record.find(' ', record.find(' ') + 1) + 1);
                    if (g.moves.size() > 2) {
                        CHECK(parse_game(b, r, tail, g.positions[2]).positions.back() ==
                              g.positions.back());
                    }
                }
            }
        }
    }
}

TEST_CASE("Malformed positions are refused with a message naming the place", "[notation]") {
    // Unknown character, with rank and file.
    REQUIRE_THROWS_AS(parse_position("..xo/oxox/xoxz/oxox b"), NotationError);
    REQUIRE_THROWS_WITH(
        parse_position("..xo/oxox/xoxz/oxox b"),
        Contains("unknown character 'z'") && Contains("rank 2") && Contains("file d"));
    REQUIRE_THROWS_WITH(parse_position("..xo/o#ox/xoxo/oxox b"),
                        Contains("'#'") && Contains("rank 3") && Contains("file b"));
    // A piece on the other colour's square: a4 is Black's, b4 White's.
    REQUIRE_THROWS_WITH(parse_position("o.xo/oxox/xoxo/oxox b"),
                        Contains("White piece 'o'") && Contains("rank 4") && Contains("file a") &&
                            Contains("Black square"));
    REQUIRE_THROWS_WITH(parse_position(".xxo/oxox/xoxo/oxox b"),
                        Contains("Black piece 'x'") && Contains("rank 4") && Contains("file b") &&
                            Contains("White square"));
    REQUIRE_THROWS_WITH(parse_position("..xo/oxox/xoxo/oxxx w"),
                        Contains("Black piece 'x'") && Contains("rank 1") && Contains("file c"));
    // Wrong row length.
    REQUIRE_THROWS_WITH(parse_position("..xo/oxo/xoxo/oxox b"),
                        Contains("rank 3") && Contains("has 3 squares, expected 4"));
    REQUIRE_THROWS_WITH(parse_position("..xo/oxox/xoxo/oxoxo b"),
                        Contains("rank 1") && Contains("has 5 squares, expected 4"));
    // Missing or unknown side to move.
    REQUIRE_THROWS_WITH(parse_position("..xo/oxox/xoxo/oxox"), Contains("no side to move"));
    REQUIRE_THROWS_WITH(parse_position("..xo/oxox/xoxo/oxox x"), Contains("side to move 'x'"));
    REQUIRE_THROWS_WITH(parse_position("..xo/oxox/xoxo/oxox B"), Contains("side to move 'B'"));
    REQUIRE_THROWS_WITH(parse_position("..xo/oxox/xoxo/oxox b w"), Contains("side to move 'b w'"));
    REQUIRE_THROWS_WITH(parse_position(""), Contains("empty position"));
    REQUIRE_THROWS_WITH(parse_position("   "), Contains("empty position"));
    // Too many rows, or rows too long.
    std::string tall = "x";
    for (int i = 1; i < 65; ++i)
        tall += i % 2 ? "/o" : "/x";
    REQUIRE_THROWS_WITH(parse_position(tall + " b"),
                        Contains("65 rows") && Contains("at most 64 squares"));
    std::string wide;
    for (int i = 0; i < 65; ++i)
        wide += i % 2 ? 'o' : 'x';
    REQUIRE_THROWS_WITH(parse_position(wide + " b"),
                        Contains("1 rows of 65 squares") && Contains("at most 64 squares"));
    REQUIRE_THROWS_WITH(parse_position("xoxoxoxo/oxoxoxox/xoxoxoxo/oxoxoxox/xoxoxoxo/oxoxoxox/"
                                       "xoxoxoxo/oxoxoxox/xoxoxoxo b"),
                        Contains("9 rows of 8 squares (72)") && Contains("at most 64 squares"));
    // Rows and columns past 8 are boards (up to 64 squares).
    CHECK(parse_position("xoxoxoxox b").board == Board::make(1, 9));
    CHECK(parse_position("x/o/x/o/x/o/x/o/x b").board == Board::make(9, 1));
    // Board mismatch.
    const Board b5 = Board::make(5, 5);
    REQUIRE_THROWS_WITH(parse_position("..xo/oxox/xoxo/oxox b", &b5),
                        Contains("4x4 board") && Contains("expected 5x5"));
    const Board b45 = Board::make(4, 5);
    REQUIRE_THROWS_WITH(parse_position("..xo/oxox/xoxo/oxox b", &b45), Contains("expected 4x5"));
    // Well-formed text still parses, with surrounding white space.
    const Board b4 = Board::make(4, 4);
    CHECK(parse_position("  ..xo/oxox/xoxo/oxox b\n", &b4).position ==
          parse_game(b4, Ruleset::Brainking, "a4 b4").positions.back());
}

TEST_CASE("Game records in BrainKing's notation are read as the plain ones", "[notation]") {
    const Board b = Board::make(8, 8);
    const Game plain = parse_game(b, Ruleset::Brainking, "d5 d4 d7-d5 b4-d4");
    for (const char* record : {"1. D5 D4 2. D7-D5 B4-D4", "1. d5 d4 2. d7-d5 b4-d4",
                               "1. D5 1... D4 2. D7-D5 2... B4-D4", "D5 D4 D7-D5 B4-D4"}) {
        INFO(record);
        const Game g = parse_game(b, Ruleset::Brainking, record);
        CHECK(g.positions == plain.positions);
    }
    // An error still names the move by its number among the moves, not the words.
    REQUIRE_THROWS_WITH(parse_game(b, Ruleset::Brainking, "1. D5 D4 2. D7-D3"),
                        Contains("move 3 'd7-d3'"));
    // What is neither a move number nor a move is refused as before.
    REQUIRE_THROWS_AS(parse_game(b, Ruleset::Brainking, "1.5 d5"), NotationError);
    REQUIRE_THROWS_AS(parse_game(b, Ruleset::Brainking, ". d5"), NotationError);
}

TEST_CASE("Malformed squares and moves are refused", "[notation]") {
    const Board b = Board::make(4, 4);
    CHECK(parse_square(b, "a1") == 0);
    CHECK(parse_square(b, "d4") == 15);
    CHECK(parse_square(b, "b3") == 9);
    for (const char* bad : {"", "a", "4a", "A1", "a1x", "a+1", "ab", "a-1", "a01"}) {
        INFO(bad);
        REQUIRE_THROWS_WITH(parse_square(b, bad), Contains("malformed square"));
    }
    for (const char* off : {"e1", "a5", "a0", "h8", "z1", "aa1"}) {
        INFO(off);
        REQUIRE_THROWS_WITH(parse_square(b, off), Contains("off the 4x4 board"));
    }
    const Position start = b.start();
    REQUIRE_THROWS_WITH(
        parse_move(b, Ruleset::Brainking, start, "a3"),
        Contains("not a legal removal") && Contains("black") && Contains("(legal: d1 c2 b3 a4)"));
    REQUIRE_THROWS_WITH(parse_move(b, Ruleset::Brainking, start, "a4-a2"),
                        Contains("not a legal removal"));
    REQUIRE_THROWS_WITH(parse_move(b, Ruleset::Brainking, start, "a4-a4"),
                        Contains("starts and ends on one square"));
    REQUIRE_THROWS_WITH(parse_move(b, Ruleset::Brainking, start, "a9"),
                        Contains("off the 4x4 board"));
    REQUIRE_THROWS_WITH(parse_move(b, Ruleset::Brainking, start, "a4-"),
                        Contains("malformed square"));
    const Position p = parse_position("..xo/oxox/xoxo/oxox b").position;
    REQUIRE_THROWS_WITH(parse_move(b, Ruleset::Brainking, p, "c4-a4"),
                        Contains("not a legal jump") && Contains("(legal: a2-a4)"));
    REQUIRE_THROWS_WITH(parse_move(b, Ruleset::Brainking, p, "a4"), Contains("not a legal jump"));
    CHECK(parse_move(b, Ruleset::Brainking, p, "a2-a4").move == Move{4, 12});
    // No legal move at all.
    const Position dead = parse_position("..../..../..../o..x b").position;
    REQUIRE_THROWS_WITH(parse_move(b, Ruleset::Brainking, dead, "a1-c1"),
                        Contains("(legal: none)"));
}

TEST_CASE("Game records: an illegal move is refused with its move number", "[notation]") {
    const Board b = Board::make(4, 4);
    REQUIRE_THROWS_AS(parse_game(b, Ruleset::Brainking, "a4 b4 c4-a4"), NotationError);
    REQUIRE_THROWS_WITH(parse_game(b, Ruleset::Brainking, "a4 b4 c4-a4"),
                        Contains("move 3 'c4-a4'") && Contains("not a legal jump"));
    REQUIRE_THROWS_WITH(parse_game(b, Ruleset::Brainking, "a3"), Contains("move 1 'a3'"));
    REQUIRE_THROWS_WITH(parse_game(b, Ruleset::Brainking, "a4 c3"), Contains("move 2 'c3'"));
    REQUIRE_THROWS_WITH(parse_game(b, Ruleset::Brainking, "a4 b4 a2-a4 zz"),
                        Contains("move 4 'zz'") && Contains("malformed square"));
    // Under center a4 is no removal; under any it is.
    REQUIRE_THROWS_WITH(parse_game(b, Ruleset::Center, "a4"), Contains("move 1 'a4'"));
    CHECK(parse_game(b, Ruleset::Any, "c4 d4").moves.size() == 2);
    REQUIRE_THROWS_WITH(parse_game(b, Ruleset::Brainking, "c4"), Contains("move 1 'c4'"));
    // The empty record is the start position.
    const Game g = parse_game(b, Ruleset::Brainking, "");
    CHECK(g.moves.empty());
    REQUIRE(g.positions.size() == 1);
    CHECK(g.positions[0] == b.start());
}
