// The command line's conventions (issue 27, "CLI"): every subcommand's --help has examples and
// the notation legend; a board is given the same way everywhere (BOARD or --board RxC); `moves`
// without a position is refused with a hint. Run as a process (KONANE_BINARY).
#include <string>

#include <catch2/catch.hpp>

#include "tests/cli_helpers.hpp"
#include "tests/temp_dir.hpp"

using namespace konane::test;
using Catch::Matchers::Contains;

TEST_CASE("CLI help: every subcommand has examples, the legend where positions are read", "[cli]") {
    const Run top = run("--help");
    CHECK(top.code == 0);
    CHECK_THAT(top.out, Contains("x is Black, o is White") && Contains("b or w, the side to move"));
    for (const char* command : {"moves", "perft", "probe", "analyse", "solve", "openings"}) {
        INFO(command);
        const Run r = run(std::string(command) + " --help");
        CHECK(r.code == 0);
        CHECK_THAT(r.out, Contains("Examples:\n  konane " + std::string(command)));
        CHECK_THAT(r.out, Contains("x is Black, o is White") && Contains(". is empty") &&
                              Contains("rows from the top down"));
    }
    for (const char* command : {"generate", "info", "verify", "upgrade", "serve"}) {
        INFO(command);
        const Run r = run(std::string(command) + " --help");
        CHECK(r.code == 0);
        CHECK_THAT(r.out, Contains("Examples:\n  konane " + std::string(command)));
    }
}

TEST_CASE("CLI: a board is BOARD or --board RxC in every subcommand that takes one", "[cli]") {
    // perft and generate: BOARD, or --board.
    const Run perft = run("perft 4x4 5 --json");
    REQUIRE(perft.code == 0);
    CHECK(run("perft --board 4x4 5 --json").out == perft.out);
    CHECK(run("perft 5 --board 4x4 --json").out == perft.out);
    const Run twice = run("perft 4x4 5 --board 5x5");
    CHECK(twice.code == 2);
    CHECK_THAT(twice.out, Contains("given twice"));
    CHECK(run("perft 4x4 5 --board 4x4 --json").out == perft.out);
    CHECK_THAT(run("perft --board 4x4").out, Contains("DEPTH"));

    const TempDir d("cli-board");
    const auto a = d.path / "a.kbt", b = d.path / "b.kbt";
    REQUIRE(run("generate 3x4 -q -o " + a.string()).code == 0);
    REQUIRE(run("generate --board 3x4 -q -o " + b.string()).code == 0);
    CHECK(slurp(a) == slurp(b));
    CHECK_THAT(run("generate -q -o " + b.string()).out, Contains("give the board"));

    // moves, solve and openings: --board, or a board RxC in the place of the position / file.
    const Run moves = run("moves --board 4x4 --json");
    REQUIRE(moves.code == 0);
    CHECK(run("moves 4x4 --json").out == moves.out);
    CHECK(run("moves 6x6 --game 'a6 b6' --json").out ==
          run("moves --board 6x6 --game 'a6 b6' --json").out);
    const Run solve = run("solve --board 4x4 --wdl --json -q");
    REQUIRE(solve.code == 0);
    CHECK_THAT(solve.out, Contains("\"position\":\"xoxo/oxox/xoxo/oxox b\""));
    CHECK(run("solve 4x4 --wdl --json -q").out.substr(0, 120) == solve.out.substr(0, 120));
    const Run openings = run("openings --board 4x4 --search --json -q");
    REQUIRE(openings.code == 0);
    CHECK_THAT(openings.out, Contains("\"winner\":\"white\""));
    CHECK(run("openings 4x4 --search --json -q").out.substr(0, 60) == openings.out.substr(0, 60));
    const Run no_search = run("openings 4x4");
    CHECK(no_search.code == 2);
    CHECK_THAT(no_search.out, Contains("konane openings 4x4 --search"));
}

TEST_CASE("CLI: moves without a position is refused with a hint", "[cli]") {
    for (const char* args : {"moves", "moves --json", "moves --game 'a6 b6'"}) {
        INFO(args);
        const Run r = run(args);
        CHECK(r.code == 2);
        CHECK_THAT(r.out, Contains("no position") && Contains("konane moves 6x6"));
    }
}
