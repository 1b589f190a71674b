// The engine's commands: `konane bestmove`, `konane engine` (GTP over a pipe) and `konane play`
// (a scripted human), run as a user runs them.
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/movegen.hpp"
#include "core/notation.hpp"
#include "tests/cli_helpers.hpp"
#include "tests/table_file.hpp"

namespace {

using namespace konane;
using namespace konane::test;

}  // namespace

TEST_CASE("cli bestmove: a legal move with its source, in text and JSON", "[cli][engine]") {
    const Run r = run("bestmove 6x6 --depth 5 -q");
    REQUIRE(r.code == 0);
    CHECK(r.out.find("move:") != std::string::npos);
    CHECK(r.out.find("source: search depth 5") != std::string::npos);

    const std::string pos = "x.xo/oxox/xoxo/oxox w";
    const Run j = run("bestmove " + quote(pos) + " --nodes 100000 --json -q");
    REQUIRE(j.code == 0);
    const auto doc = nlohmann::json::parse(j.out);
    const ParsedPosition p = parse_position(pos);
    // The move is legal and its child is the one the rules give.
    const MoveChild mc =
        parse_move(p.board, Ruleset::Brainking, p.position, doc["move"].get<std::string>());
    CHECK(doc["child"] == format_position(p.board, mc.child));
    CHECK(doc["source"] == "proof");  // a 4x4 position is proven at once
    CHECK(doc["proven"] == "win");

    // The side may be left out (Black), a lost position has no move.
    const Run lost = run("bestmove 'x.x./..../..../....' --json -q");
    REQUIRE(lost.code == 0);
    CHECK(nlohmann::json::parse(lost.out)["move"].is_null());
}

TEST_CASE("cli bestmove: with a table, the table's perfect move", "[cli][engine]") {
    const auto& table = table_file(4, 4, Ruleset::Brainking);
    const Run r = run("bestmove 4x4 --table " + quote(table.string()) + " --json -q");
    REQUIRE(r.code == 0);
    const auto doc = nlohmann::json::parse(r.out);
    CHECK(doc["source"] == "table");
    const Run probe = run("probe " + quote(table.string()) + " 'xoxo/oxox/xoxo/oxox b' --json");
    REQUIRE(probe.code == 0);
    CHECK(nlohmann::json::parse(probe.out)["best"] == doc["move"]);
}

TEST_CASE("cli engine commands: --rules other than the table's is refused by each",
          "[cli][engine]") {
    // As found (hardening round 5): bestmove refused it, engine and play played the table under
    // another ruleset silently. One check (engine_rules()) for the three.
    const std::string table = quote(table_file(4, 4, Ruleset::Brainking).string());
    for (const std::string command :
         {"bestmove 4x4 -q", "engine --board 4x4 -q", "play 4x4 --depth 2"}) {
        INFO(command);
        const Run r = run(command + " --table " + table + " --rules center", "printf 'quit\\n' |");
        CHECK(r.code == 2);
        CHECK(r.out.find("--rules center differs from the table's ruleset brainking") !=
              std::string::npos);
        // The table's own ruleset, given or left out, is taken.
        for (const char* rules : {" --rules brainking", ""}) {
            INFO(rules);
            const Run ok = run(command + " --table " + table + rules, "printf 'quit\\n' |");
            CHECK(ok.code == 0);
        }
    }
}

TEST_CASE("cli bestmove: bad budgets and positions are refused", "[cli][engine]") {
    for (const char* args :
         {"bestmove 6x6 --time 0", "bestmove 6x6 --time -1", "bestmove 6x6 --time 1e9",
          "bestmove 6x6 --time nan", "bestmove 6x6 --time inf", "bestmove 6x6 --time 0x10",
          "bestmove 6x6 --proof-share nan", "bestmove 6x6 --proof-share 1.5",
          "bestmove 6x6 --nodes 0", "bestmove 6x6 --depth 0", "bestmove 6x6 --memory 10",
          "bestmove 6x6 --evaluation mobility=x", "bestmove 6x6 --features fly", "bestmove 9x9",
          "bestmove 'xo/ox/x b'", "bestmove"}) {
        INFO(args);
        const Run r = run(args);
        CHECK(r.code == 2);
        CHECK(r.out.find("error") != std::string::npos);
    }
}

TEST_CASE("cli engine: a GTP session over a pipe", "[cli][engine][gtp]") {
    const Run r = run("engine -q --nodes 20000",
                      "printf 'protocol_version\\nboardsize 5\\nplay black c3\\ngenmove white\\n"
                      "play black zz\\n1 showboard\\nquit\\n' |");
    REQUIRE(r.code == 0);
    CHECK(r.out.find("= 2\n\n") == 0);
    CHECK(r.out.find("? illegal move\n\n") != std::string::npos);
    CHECK(r.out.find("=1 \n") != std::string::npos);
    CHECK(r.out.find("black to move") != std::string::npos);
    // The engine's reply to c3 is one of White's removals next to it.
    const bool adjacent =
        r.out.find("= c2\n") != std::string::npos || r.out.find("= c4\n") != std::string::npos ||
        r.out.find("= b3\n") != std::string::npos || r.out.find("= d3\n") != std::string::npos;
    CHECK(adjacent);
}

TEST_CASE("cli play: a scripted human against the engine to the end", "[cli][engine]") {
    // The moves, a removal, the engine's reply, a takeback, the removal again, then the end of
    // the input ends the game.
    const Run r = run("play 4x4 --depth 20", "printf 'moves\\nd1\\nundo\\nd1\\n' |");
    REQUIRE(r.code == 0);
    CHECK(r.out.find("your moves: d1 c2 b3 a4") != std::string::npos);
    CHECK(r.out.find("engine plays") != std::string::npos);
    CHECK(r.out.find("game: d1 ") != std::string::npos);
    const Run bad = run("play 4x4 --as green");
    CHECK(bad.code == 2);
}

TEST_CASE("cli analyse: a game reviewed by the engine without a table", "[cli][engine]") {
    // BrainKing's notation (upper case, move numbers) read as the project's.
    const Run r = run("analyse --board 6x6 '1. D3 C3 2. F3-D3 E5-E3' --nodes 20000 -q");
    REQUIRE(r.code == 0);
    CHECK(r.out.find("read in BrainKing's notation") != std::string::npos);
    CHECK(r.out.find("   3 black  f3-d3") != std::string::npos);
    CHECK(r.out.find("proven mistakes: ") != std::string::npos);
    const Run j = run("analyse --board 6x6 'd3 c3' --nodes 20000 -q --json");
    REQUIRE(j.code == 0);
    const auto doc = nlohmann::json::parse(j.out);
    CHECK(doc["plies"].size() == 2);
    CHECK(doc["notation"] == "konane");
    // An illegal move is refused naming it.
    const Run bad = run("analyse --board 6x6 'd3 a1' --nodes 1000 -q");
    CHECK(bad.code == 2);
    CHECK(bad.out.find("a1") != std::string::npos);
    // A file where the record is expected (a table file given alone) is named as a file, not
    // read as moves: a name ending in .kbt (existing or not), an existing file's path.
    for (const std::string& file :
         {std::string("konane-4x4-brainking.kbt"), std::string(KONANE_BINARY)}) {
        INFO(file);
        const Run table = run("analyse " + quote(file) + " --nodes 1000 -q");
        CHECK(table.code == 2);
        CHECK(table.out.find("'" + file + "' is a file name, not a game record") !=
              std::string::npos);
    }
}

TEST_CASE("cli analyse: the review example of --help is a legal game", "[cli][engine]") {
    // The example's record, taken from the help text, is reviewed (at a small budget) without
    // an error: every move of it is legal.
    const Run help = run("analyse --help");
    REQUIRE(help.code == 0);
    const std::string example = "konane analyse --board 8x8 '";
    const std::size_t at = help.out.find(example);
    REQUIRE(at != std::string::npos);
    const std::size_t from = at + example.size(), to = help.out.find('\'', from);
    REQUIRE(to != std::string::npos);
    const std::string record = help.out.substr(from, to - from);
    INFO(record);
    const Run r = run("analyse --board 8x8 '" + record + "' --nodes 2000 -q");
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK(r.out.find("proven mistakes: ") != std::string::npos);
}
