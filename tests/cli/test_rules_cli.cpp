// The `konane moves` and `konane perft` commands, run as a process (KONANE_BINARY).
#include <string>

#include <catch2/catch.hpp>

#include "tests/cli_helpers.hpp"
#include "tests/reference.hpp"

using namespace konane;
using namespace konane::test;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

TEST_CASE("CLI: konane moves and text and JSON", "[cli]") {
    const Run json = run("moves '..xo/oxox/xoxo/oxox b' --json");
    CHECK(json.code == 0);
    CHECK(json.out ==
          "{\"position\":\"..xo/oxox/xoxo/oxox b\",\"to_move\":\"black\",\"moves\":[\"a2-a4\"]}\n");

    const Run text = run("moves '..xo/oxox/xoxo/oxox b'");
    CHECK(text.code == 0);
    CHECK(text.out == "position: ..xo/oxox/xoxo/oxox b\nto move:  black\n1 legal jump\na2-a4\n");

    // From a game record on the 6x6 board, after a6, b6.
    const Run game = run("moves 6x6 --game 'a6 b6' --json");
    CHECK(game.code == 0);
    CHECK(game.out ==
          "{\"position\":\"..xoxo/oxoxox/xoxoxo/oxoxox/xoxoxo/oxoxox b\",\"to_move\":\"black\","
          "\"moves\":[\"a4-a6\"]}\n");

    // The full 4x4 board: Black's removals.
    const Run removals = run("moves --board 4x4 --rules center --game ''");
    CHECK(removals.code == 0);
    CHECK_THAT(removals.out, Contains("2 legal removals\nc2\nb3\n"));
}

TEST_CASE("CLI: konane perft agrees with the reference", "[cli][perft]") {
    const ref::RefBoard rb(4, 4);
    const Run j = run("perft 4x4 5 --json");
    CHECK(j.code == 0);
    CHECK(j.out == "{\"board\":\"4x4\",\"rules\":\"brainking\",\"depth\":5,\"nodes\":" +
                       std::to_string(ref::perft(rb, ref::Rules::Brainking, 5)) + "}\n");
    const Run t = run("perft 5x5 7 --rules any");
    CHECK(t.code == 0);
    CHECK(t.out == std::to_string(ref::perft(ref::RefBoard(5, 5), ref::Rules::Any, 7)) + "\n");
}

TEST_CASE("CLI: bad input exits with code 2 and a message", "[cli]") {
    struct Case {
        const char* args;
        const char* message;
    };
    const Case cases[] = {
        {"moves '..xo/oxox/xoxz/oxox b'", "unknown character 'z'"},
        {"moves 'o.xo/oxox/xoxo/oxox b'", "White piece 'o'"},
        {"moves '..xo/oxo/xoxo/oxox b'", "has 3 squares, expected 4"},
        {"moves '..xo/oxox/xoxo/oxox'", "no side to move"},
        {"moves '..xo/oxox/xoxo/oxox b' --board 5x5", "expected 5x5"},
        {"moves --board 4x4 --game 'a4 b4 c4-a4'", "move 3 'c4-a4'"},
        {"moves --game 'a6 b6' --rules nonsense", "unknown ruleset 'nonsense'"},
        {"perft 23x23 3", "out of range"},  // past 448 squares (9x9 is a wide board)
        {"perft 4by4 3", "malformed board size '4by4'"},
        {"perft 4x4 3 --rules foo", "unknown ruleset 'foo'"},
        {"perft 4x4 -1", "DEPTH"},
    };
    for (const Case& k : cases) {
        INFO(k.args);
        const Run r = run(k.args);
        CHECK(r.code == 2);
        CHECK_THAT(r.out, Contains(k.message));
    }
    const Run r = run("moves 'zz b'");
    CHECK(r.code == 2);
    CHECK_THAT(r.out, StartsWith("konane moves: error:"));
    // Bad usage (CLI11 parse errors) also exits with 2.
    CHECK(run("perft").code == 2);
    CHECK(run("perft 4x4 notanumber").code == 2);
}

TEST_CASE("CLI: boards past 8 per side for moves, perft, solve --wdl and openings --search",
          "[cli][wide]") {
    // perft against the reference engine, in text and JSON.
    for (const auto& [rows, cols] :
         {std::pair{1, 64}, std::pair{3, 12}, std::pair{2, 20}, std::pair{9, 3}, std::pair{7, 9}}) {
        const std::string size = std::to_string(rows) + "x" + std::to_string(cols);
        const std::string want =
            std::to_string(ref::perft(ref::RefBoard(rows, cols), ref::Rules::Brainking, 5));
        INFO(size);
        const Run text = run("perft " + size + " 5");
        CHECK(text.code == 0);
        CHECK(text.out == want + "\n");
        const Run json = run("perft " + size + " 5 --json");
        CHECK(json.code == 0);
        CHECK(json.out == "{\"board\":\"" + size +
                              "\",\"rules\":\"brainking\",\"depth\":5,\"nodes\":" + want + "}\n");
    }
    // Moves with two-letter files on 1x30: Black's removals are its corner a1 and the centre o1.
    const Run moves = run("moves --board 1x30 --json");
    CHECK(moves.code == 0);
    CHECK_THAT(moves.out, Contains("\"moves\":[\"a1\",\"o1\"]"));
    const Run jump = run("moves 'x" + std::string(25, '.') + "xo.o. b' --json");
    CHECK(jump.code == 0);
    CHECK_THAT(jump.out, Contains("\"moves\":[\"aa1-ac1\",\"aa1-ae1\"]"));
    const Run game = run("moves --board 3x12 --game 'a1 a2 c1-a1'");
    CHECK(game.code == 0);
    CHECK_THAT(game.out, Contains("position: xoxoxoxoxoxo/.xoxoxoxoxox/x..oxoxoxoxo w"));
    // A win/loss by proof search on 1x64 (rules.md: n = 62 = 2 mod 4, the first player wins).
    std::string row = ".";
    for (int i = 0; i < 62; ++i)
        row += i % 2 == 0 ? 'o' : 'x';
    row += '.';
    const Run wdl = run("solve '" + row + " w' --wdl -q --memory 8M");
    CHECK(wdl.code == 0);
    CHECK_THAT(wdl.out, Contains("(1x64, proof search") && Contains("value:    win for white"));
    // Every opening of 3x12 by proof search.
    const Run openings = run("openings --board 3x12 --search -q --memory 8M");
    CHECK(openings.code == 0);
    CHECK_THAT(openings.out,
               Contains("3x12 brainking: every opening by proof search") && Contains("verdict: "));
    // Out of range, with the size named (past 64 squares the wide boards take over, up to 448:
    // 5x13 is one); a square past the last file.
    CHECK(run("perft 5x13 1").code == 0);
    const Run big = run("perft 5x90 1");
    CHECK(big.code == 2);
    CHECK_THAT(big.out, Contains("board 5x90 is out of range: it has 450 squares, boards have at "
                                 "most 448"));
    const Run off = run("moves --board 1x30 --game 'ad1'");
    CHECK(off.code == 2);
    CHECK_THAT(off.out, Contains("'ad1' is not a legal removal"));  // a White square
    const Run off2 = run("moves --board 1x30 --game 'ae1'");
    CHECK(off2.code == 2);
    CHECK_THAT(off2.out, Contains("off the 1x30 board (files a..ad, ranks 1..1)"));
    const Run table = run("generate 6x7 -q -o /dev/null");
    CHECK(table.code == 2);
    CHECK_THAT(table.out, Contains("6x7") && Contains("42 squares") && Contains("at most 36"));
}
