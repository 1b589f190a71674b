// The `konane moves` and `konane perft` commands, run as a process (KONANE_BINARY).
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "tests/reference.hpp"

using namespace konane;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

struct Run {
    int code = -1;
    std::string out;  // stdout and stderr together
};

/// Runs `konane ARGS 2>&1` and collects its output and exit code.
Run konane_cli(const std::string& args) {
    INFO("konane binary: " << KONANE_BINARY << " (build the `konane` target before the tests)");
    REQUIRE(std::filesystem::exists(KONANE_BINARY));
    const std::string cmd = std::string("'") + KONANE_BINARY + "' " + args + " 2>&1";
    Run r;
    FILE* f = popen(cmd.c_str(), "r");
    REQUIRE(f != nullptr);
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
        r.out.append(buf, n);
    const int status = pclose(f);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

}  // namespace

TEST_CASE("CLI: konane moves and text and JSON", "[cli]") {
    const Run json = konane_cli("moves '..xo/oxox/xoxo/oxox b' --json");
    CHECK(json.code == 0);
    CHECK(json.out ==
          "{\"position\":\"..xo/oxox/xoxo/oxox b\",\"to_move\":\"black\",\"moves\":[\"a2-a4\"]}\n");

    const Run text = konane_cli("moves '..xo/oxox/xoxo/oxox b'");
    CHECK(text.code == 0);
    CHECK(text.out == "position: ..xo/oxox/xoxo/oxox b\nto move:  black\n1 legal jump\na2-a4\n");

    // From a game record: the 6x6 default board after a6, b6.
    const Run game = konane_cli("moves --game 'a6 b6' --json");
    CHECK(game.code == 0);
    CHECK(game.out ==
          "{\"position\":\"..xoxo/oxoxox/xoxoxo/oxoxox/xoxoxo/oxoxox b\",\"to_move\":\"black\","
          "\"moves\":[\"a4-a6\"]}\n");

    // The full 4x4 board: Black's removals.
    const Run removals = konane_cli("moves --board 4x4 --rules center --game ''");
    CHECK(removals.code == 0);
    CHECK_THAT(removals.out, Contains("2 legal removals\nc2\nb3\n"));
}

TEST_CASE("CLI: konane perft agrees with the reference", "[cli][perft]") {
    const ref::RefBoard rb(4, 4);
    const Run j = konane_cli("perft 4x4 5 --json");
    CHECK(j.code == 0);
    CHECK(j.out == "{\"board\":\"4x4\",\"rules\":\"brainking\",\"depth\":5,\"nodes\":" +
                       std::to_string(ref::perft(rb, ref::Rules::Brainking, 5)) + "}\n");
    const Run t = konane_cli("perft 5x5 7 --rules any");
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
        {"perft 9x9 3", "out of range"},
        {"perft 4by4 3", "malformed board size '4by4'"},
        {"perft 4x4 3 --rules foo", "unknown ruleset 'foo'"},
        {"perft 4x4 -1", "DEPTH"},
    };
    for (const Case& k : cases) {
        INFO(k.args);
        const Run r = konane_cli(k.args);
        CHECK(r.code == 2);
        CHECK_THAT(r.out, Contains(k.message));
    }
    const Run r = konane_cli("moves 'zz b'");
    CHECK(r.code == 2);
    CHECK_THAT(r.out, StartsWith("konane moves: error:"));
    // Bad usage (CLI11 parse errors) also exits with 2.
    CHECK(konane_cli("perft").code == 2);
    CHECK(konane_cli("perft 4x4 notanumber").code == 2);
}
