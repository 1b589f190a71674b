// `konane match`, run as a process (KONANE_BINARY) between `konane engine` processes and
// broken engines (small shell scripts); and the Elo estimate of match/match.hpp.
#include <bit>
#include <cmath>
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/notation.hpp"
#include "match/match.hpp"
#include "search/proof.hpp"
#include "tests/cli_helpers.hpp"
#include "tests/temp_dir.hpp"

using namespace konane;
using namespace konane::test;
using Catch::Matchers::Contains;
using json = nlohmann::json;

namespace {

/// The shell command line of `konane engine` with its arguments.
std::string engine(const std::string& args) {
    return quote(KONANE_BINARY) + " engine -q --memory 16M " + args;
}

/// Runs `konane match A B ARGS --json` (stderr apart) and returns the parsed output.
json match_json(const std::string& a, const std::string& b, const std::string& args) {
    const Run r = run("match " + quote(a) + " " + quote(b) + " " + args + " --json -q 2>/dev/null");
    INFO(r.out);
    REQUIRE(r.code == 0);
    return json::parse(r.out);
}

/// The winner of the position after `opening` (Black to move), by proof search.
Color proven_winner(const Board& b, const std::string& opening) {
    const Game g = parse_game(b, Ruleset::Brainking, opening);
    ProofSearch s(b, ProofOptions{.memory_bytes = std::size_t{4} << 20});
    const ProofResult r = s.solve(g.positions.back());
    REQUIRE(r.win.has_value());
    return *r.win ? g.positions.back().to_move
                  : (g.positions.back().to_move == Color::Black ? Color::White : Color::Black);
}

}  // namespace

TEST_CASE("CLI: match of two perfect engines gives every opening its proven result", "[cli]") {
    for (const char* size : {"4x4", "5x5"}) {
        INFO(size);
        const Board b = Board::parse(size);
        const std::size_t pairs = match::opening_pairs(b, Ruleset::Brainking).size();
        const std::string e = engine("--nodes 20000");
        // Played out (no adjudication), then adjudicated: the same winners.
        const json played =
            match_json(e, e, std::string("--board ") + size + " --adjudicate-nodes 0");
        const json judged = match_json(e, e, std::string("--board ") + size);
        // Adjudicated only from 8 pieces down.
        const json late =
            match_json(e, e, std::string("--board ") + size + " --adjudicate-pieces 8");
        REQUIRE(played["games"].size() == 2 * pairs);
        REQUIRE(judged["games"].size() == 2 * pairs);
        for (std::size_t i = 0; i < 2 * pairs; ++i) {
            const json& g = played["games"][i];
            INFO(g.dump());
            const Color winner = proven_winner(b, g["opening"].get<std::string>());
            CHECK(g["winner"] == color_name(winner));
            CHECK(g["ending"] == "no legal move");
            CHECK(g["black"] == (i % 2 == 0 ? "A" : "B"));
            // Each opening pair twice, colours swapped.
            CHECK(g["opening"] == played["games"][i - i % 2]["opening"]);
            CHECK(judged["games"][i]["winner"] == color_name(winner));
            CHECK(judged["games"][i]["ending"] == "adjudicated by proof");
            const json& l = late["games"][i];
            CHECK(l["winner"] == color_name(winner));
            if (l["ending"] == "adjudicated by proof") {
                const auto final = parse_position(l["final"].get<std::string>(), &b);
                CHECK(std::popcount(final.position.occ) <= 8);
            } else {
                CHECK(l["ending"] == "no legal move");
            }
        }
        CHECK(played["score"]["A"].get<int>() + played["score"]["B"].get<int>() ==
              static_cast<int>(2 * pairs));
    }
}

TEST_CASE("CLI: match survives engines that crash or hang or answer garbage", "[cli]") {
    const std::string good = engine("--nodes 2000");
    struct Case {
        const char* engine;
        const char* args;
        const char* ending;
        const char* reason;
    };
    const Case cases[] = {
        {"read x; exit 1", "", "engine failure", "B: exited with code 1"},
        {"while read c; do case \"$c\" in genmove*) exit 3;; *) echo '=';; esac; echo; done",
         "--adjudicate-nodes 0", "engine failure", "B: exited with code 3 (when sent 'genmove"},
        {"while read c; do case \"$c\" in genmove*) kill -9 $$;; *) echo '=';; esac; echo; "
         "done",
         "--adjudicate-nodes 0", "engine failure", "B: killed by signal 9"},
        {"yes '= zz'", "", "engine failure", "B: answered garbage '= zz...'"},
        {"while read c; do case \"$c\" in genmove*) echo '= zz';; *) echo '=';; esac; echo; "
         "done",
         "--adjudicate-nodes 0", "illegal move", "B answered 'zz' to 'genmove"},
        {"while read c; do case \"$c\" in genmove*) echo '= resign';; *) echo '=';; esac; "
         "echo; done",
         "--adjudicate-nodes 0", "resigned", "B resigned with"},
        {"while read c; do case \"$c\" in genmove*) sleep 30;; *) echo '=';; esac; echo; done",
         "--timeout 1 --adjudicate-nodes 0", "engine failure",
         "B: no answer within 1 s to 'genmove"},
    };
    for (const Case& k : cases) {
        INFO(k.engine);
        const json j = match_json(good, k.engine, std::string("--board 5x5 --games 4 ") + k.args);
        REQUIRE(j["games"].size() == 4);
        CHECK(j["score"]["A"] == 4);
        // A won every game: no finite Elo, null (not a string) in the JSON.
        CHECK(j["score"]["fraction"] == 1.0);
        CHECK(j["elo"]["diff"].is_null());
        CHECK(j["elo"]["low"].is_null());
        CHECK(j["elo"]["high"].is_null());
        for (const json& g : j["games"]) {
            INFO(g.dump());
            CHECK(g["winner_engine"] == "A");
            CHECK(g["ending"] == k.ending);
            CHECK_THAT(g["reason"].get<std::string>(), Contains(k.reason));
        }
    }
}

TEST_CASE("CLI: match gives an engine's start-up more than --timeout, never a move", "[cli]") {
    // An engine that takes 2 s to start answers its first command after --timeout 1: setting up
    // a game gets at least 30 s (match/match.hpp kSetupSeconds); its moves get 1 s.
    const std::string slow_start = "sleep 2; exec " + engine("--nodes 500");
    const json j = match_json(slow_start, engine("--nodes 500"),
                              "--board 4x4 --games 2 --timeout 1 --adjudicate-nodes 0");
    REQUIRE(j["games"].size() == 2);
    for (const json& g : j["games"]) {
        INFO(g.dump());
        CHECK(g["ending"] != "engine failure");
    }
}

TEST_CASE("CLI: match --record writes every game and the text output the score", "[cli]") {
    TempDir dir("match", KONANE_TEST_TMPDIR);
    const std::filesystem::path file = dir.path / "games.txt";
    const std::string e = engine("--nodes 2000");
    const Run r =
        run("match " + quote(e) + " " + quote(engine("--baseline")) +
            " --board 4x4 --games 6 --adjudicate-nodes 0 -q --record " + quote(file.string()));
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Contains("match: 6 games on 4x4 (brainking)"));
    CHECK_THAT(r.out, Contains("Elo difference of A: "));
    CHECK_THAT(r.out, Contains("A as Black: "));
    const std::string text = slurp(file);
    for (int g = 1; g <= 6; ++g)
        CHECK_THAT(text, Contains("[Game \"" + std::to_string(g) + "\"]"));
    CHECK_THAT(text, Contains("[Board \"4x4\"]"));
    CHECK_THAT(text, Contains("[Opening \"d1 c1\"]\n"));
    CHECK_THAT(text, Contains("[Ending \"no legal move\"]"));
    // Each game's moves: a record the rules read back, ending where the header says.
    std::size_t at = 0, games = 0;
    while ((at = text.find("[Final \"", at)) != std::string::npos) {
        const std::size_t end = text.find("\"]\n\n", at);
        const std::string final = text.substr(at + 8, end - at - 8);
        const std::size_t moves_end = text.find('\n', end + 4);
        const std::string moves = text.substr(end + 4, moves_end - end - 4);
        const Game g = parse_game(Board::make(4, 4), Ruleset::Brainking, moves);
        CHECK(format_position(Board::make(4, 4), g.positions.back()) == final);
        ++games;
        at = moves_end;
    }
    CHECK(games == 6);
}

TEST_CASE("CLI: match --random-plies varies each pair's games and repeats for a seed", "[cli]") {
    const Board b = Board::make(5, 5);
    const std::string e = engine("--nodes 2000");
    const std::string args = "--board 5x5 --games 8 --adjudicate-nodes 0 --random-plies 3";
    const json one = match_json(e, e, args + " --seed 7");
    const json again = match_json(e, e, args + " --seed 7");
    const json other = match_json(e, e, args + " --seed 8");
    REQUIRE(one["games"].size() == 8);
    bool differs = false;
    for (std::size_t g = 0; g < 8; ++g) {
        INFO("game " << g + 1);
        const std::string opening = one["games"][g]["opening"];
        // The two removals and three random plies, legal by the rules, played first.
        const Game line = parse_game(b, Ruleset::Brainking, opening);
        CHECK(line.moves.size() == 5);
        const std::string moves = one["games"][g]["moves"];
        CHECK(moves.rfind(opening, 0) == 0);
        // Both colour assignments of a pair share the line; the same seed gives the same line.
        CHECK(opening == std::string(one["games"][g ^ 1]["opening"]));
        CHECK(opening == std::string(again["games"][g]["opening"]));
        differs = differs || opening != std::string(other["games"][g]["opening"]);
    }
    CHECK(differs);
    const Run r = run("match " + quote(e) + " " + quote(e) +
                      " --board 4x4 --openings engine --random-plies 2");
    CHECK(r.code == 2);
    CHECK_THAT(r.out, Contains("--random-plies needs the runner's openings"));
}

TEST_CASE("CLI: match refuses bad options with exit code 2", "[cli]") {
    const std::string e = quote(engine("--nodes 1000"));
    struct Case {
        std::string args;
        const char* message;
    };
    const Case cases[] = {
        {"match " + e + " " + e + " --games 0", "--games: 0 is not in 1..1000000"},
        {"match " + e + " " + e + " --board 9x9", "at most 64"},
        {"match " + e + " 'no-such-engine --x' --board 4x4 -q",
         "engine B cannot start: 'no-such-engine --x' (command not found"},
        {"match " + e + " " + e + " --board 4x4 --openings 'd1 a1'", "--openings: 'd1 a1'"},
        {"match " + e + " " + e + " --board 4x4 --openings 'd1'", "is not a pair"},
    };
    for (const Case& k : cases) {
        INFO(k.args);
        const Run r = run(k.args);
        CHECK(r.code == 2);
        CHECK_THAT(r.out, Contains(k.message));
    }
}

TEST_CASE("match: Elo difference and its 95% interval", "[cli]") {
    const match::EloEstimate even = match::elo(10, 0, 10);
    CHECK(even.score == 0.5);
    CHECK(even.diff == Approx(0).margin(1e-9));
    CHECK(!std::signbit(even.diff));  // 0, not -0 (a JSON "-0.0")
    CHECK(even.low == Approx(-even.high));
    // 60 of 100: D = -400 log10(1/0.6 - 1); s +- 1.96 sqrt(0.24 / 100).
    const match::EloEstimate e = match::elo(60, 0, 40);
    CHECK(e.diff == Approx(70.4365).margin(1e-3));
    CHECK(e.low == Approx(2.7669).margin(1e-3));
    CHECK(e.high == Approx(143.9092).margin(1e-3));
    const match::EloEstimate all = match::elo(5, 0, 0);
    CHECK(std::isinf(all.diff));
    CHECK(all.diff > 0);
    // One win in ten: the upper bound finite, the lower bound past 0.
    const match::EloEstimate one = match::elo(1, 0, 9);
    CHECK(std::isfinite(one.high));
    CHECK(std::isinf(one.low));
    CHECK(one.low < 0);
}

TEST_CASE("CLI: match sends --nodes to konane engine as konane-nodes", "[cli]") {
    // `konane engine` knows konane-nodes (known_command): no warning that its own limit applies.
    const std::string e = engine("--nodes 500");
    const Run r =
        run("match " + quote(e) + " " + quote(e) +
            " --board 4x4 --openings 'd1 c1' --adjudicate-nodes 0 --nodes 2000 --json -q");
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("warning") == std::string::npos);
    const json j = json::parse(r.out.substr(r.out.find('{')));
    REQUIRE(j["games"].size() == 2);
    // The same winning colour in both games (the engines play 4x4 perfectly): one win each.
    CHECK(j["score"]["A"] == 1);
    // An even score: Elo difference 0 (not -0.0), every figure a number or null.
    CHECK(j["elo"]["diff"].dump() == "0.0");
    for (const char* k : {"diff", "low", "high"}) {
        INFO(k);
        CHECK((j["elo"][k].is_number() || j["elo"][k].is_null()));
    }
}
