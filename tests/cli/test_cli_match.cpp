// `konane match`, run as a process (KONANE_BINARY) between `konane engine` processes and
// broken engines (small shell scripts); and the Elo estimate of match/match.hpp.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/notation.hpp"
#include "match/match.hpp"
#include "match/sprt.hpp"
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

namespace {

/// The shell command line of an engine that appends every command it reads to `log`, accepts
/// it, and resigns at genmove.
std::string logging_engine(const std::string& log) {
    return "while read c; do echo \"$c\" >> " + quote(log) +
           "; case \"$c\" in genmove*) echo '= resign';; *) echo '=';; esac; echo; done";
}

}  // namespace

TEST_CASE("CLI: match sends boardsize N on square boards and the clock in whole units", "[cli]") {
    TempDir dir("match_gtp", KONANE_TEST_TMPDIR);
    struct Case {
        const char* args;
        std::vector<const char*> sent;
    };
    const Case cases[] = {
        {"--board 4x4 --time 2",
         {"boardsize 4\n", "time_settings 0 2 1\n", "time_left black 2 1\n"}},
        {"--board 4x5 --time 1 --time-unit ms",
         {"boardsize 4x5\n", "time_settings 0 1000 1\n", "time_left black 1000 1\n"}},
        {"--board 4x4 --time 0.25 --time-unit ms", {"time_settings 0 250 1\n"}},
        {"--board 4x4 --time 0.25 --time-unit decimal", {"time_settings 0 0.25 1\n"}},
    };
    int n = 0;
    for (const Case& k : cases) {
        INFO(k.args);
        const std::string log = (dir.path / ("log" + std::to_string(++n))).string();
        const std::string e = logging_engine(log);
        const json j = match_json(e, e, std::string(k.args) + " --games 2 --adjudicate-nodes 0");
        CHECK(j["games"].size() == 2);
        const std::string text = slurp(log);
        for (const char* line : k.sent)
            CHECK_THAT(text, Contains(line));
        CHECK(text.find("boardsize 4x4") == std::string::npos);
    }
    // A fraction of a second cannot be sent in whole seconds: refused, naming the choices.
    const Run r =
        run("match " + quote(engine("")) + " " + quote(engine("")) + " --board 4x4 --time 0.2");
    CHECK(r.code == 2);
    CHECK_THAT(r.out, Contains("--time 0.2 is not a whole number of seconds"));
}

TEST_CASE("CLI: match adjudicates by default only between konane engines", "[cli]") {
    const std::string e = engine("--nodes 2000");
    // konane engine under another GTP name: an engine the runner does not know.
    const std::string other = e + " | sed -u 's/^= konane$/= other/'";
    const std::string args = "--board 5x5 --games 2";
    const auto count = [](const json& j, const char* ending) {
        int n = 0;
        for (const json& g : j["games"])
            n += g["ending"] == ending;
        return n;
    };
    const json both = match_json(e, e, args);
    CHECK(both["adjudication"]["setting"] == "auto");
    CHECK(both["adjudication"]["games_open"] == 2);
    CHECK(both["adjudication"]["games_adjudicated"] == count(both, "adjudicated by proof"));
    CHECK(count(both, "adjudicated by proof") == 2);
    const json mixed = match_json(e, other, args);
    CHECK(mixed["adjudication"]["games_open"] == 0);
    CHECK(count(mixed, "no legal move") == 2);
    const json forced = match_json(e, other, args + " --adjudicate");
    CHECK(forced["adjudication"]["setting"] == "on");
    CHECK(count(forced, "adjudicated by proof") == 2);
    const json off = match_json(e, e, args + " --no-adjudicate");
    CHECK(off["adjudication"]["setting"] == "off");
    CHECK(count(off, "no legal move") == 2);
    const Run r = run("match " + quote(e) + " " + quote(other) + " " + args + " -q");
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Contains("adjudication: none (auto: not both engines are konane engine"));
    const Run both_flags =
        run("match " + quote(e) + " " + quote(e) + " " + args + " --adjudicate --no-adjudicate");
    CHECK(both_flags.code == 2);
}

TEST_CASE("CLI: match forfeits a move that takes longer than its time and the margin", "[cli]") {
    // A resigns at once; B answers genmove after 1.5 s, past --time 1 and the 200 ms margin.
    const std::string quick =
        "while read c; do case \"$c\" in genmove*) echo '= resign';; "
        "*) echo '=';; esac; echo; done";
    const std::string slow =
        "while read c; do case \"$c\" in genmove*) sleep 1.5; echo '= "
        "resign';; *) echo '=';; esac; echo; done";
    const std::string args = "--board 4x4 --games 2 --time 1 --timemargin ";
    const json j = match_json(quick, slow, args + "200");
    REQUIRE(j["games"].size() == 2);
    CHECK(j["games"][0]["ending"] == "resigned");  // A, Black, resigned in no time
    CHECK(j["games"][1]["ending"] == "loss on time");
    CHECK_THAT(j["games"][1]["reason"].get<std::string>(),
               Contains("B lost on time: ") && Contains("for 'genmove black' (1 s + a margin "
                                                        "of 200 ms)"));
    CHECK(j["endings"]["loss on time"] == 1);
    // Within a margin of 5 s the same answer stands: B resigned.
    const json k = match_json(quick, slow, args + "5000");
    CHECK(k["games"][1]["ending"] == "resigned");
}

namespace {

/// Starts `/bin/sh -c command` (stdin from /dev/null); returns its pid.
pid_t spawn_shell(const std::string& command) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    return pid;
}

/// The pids written to `file`, one a line, once it holds `n` of them (waiting at most 60 s).
std::vector<pid_t> wait_for_pids(const std::filesystem::path& file, std::size_t n) {
    for (int i = 0; i < 600; ++i) {
        std::vector<pid_t> pids;
        if (std::filesystem::exists(file)) {
            std::istringstream in(slurp(file));
            for (long p; in >> p;)
                pids.push_back(static_cast<pid_t>(p));
        }
        if (pids.size() >= n) return pids;
        ::usleep(100'000);
    }
    FAIL("the engines did not start");
    return {};
}

/// Waits at most 60 s for process pid to exit; its status, or -1 if it did not (then killed).
int wait_exit(pid_t pid) {
    for (int i = 0; i < 600; ++i) {
        int st = 0;
        if (::waitpid(pid, &st, WNOHANG) == pid) return st;
        ::usleep(100'000);
    }
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    return -1;
}

}  // namespace

TEST_CASE("CLI: match stopped by a signal ends and reaps its engines", "[cli]") {
    TempDir dir("match_signal", KONANE_TEST_TMPDIR);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
        INFO("signal " << sig);
        const std::filesystem::path pids = dir.path / ("pids" + std::to_string(sig));
        const std::filesystem::path out = dir.path / ("out" + std::to_string(sig));
        // Each engine writes its pid (the shell's, which exec makes konane engine's) and is
        // given a minute a move, so that the match is in a genmove when the signal comes.
        const std::string e = "echo $$ >> " + quote(pids.string()) + "; exec " + engine("");
        const pid_t match = spawn_shell(
            "exec " + quote(KONANE_BINARY) + " match " + quote(e) + " " + quote(e) +
            " --board 6x6 --time 60 --no-adjudicate > " + quote(out.string()) + " 2>&1");
        const std::vector<pid_t> engines = wait_for_pids(pids, 2);
        ::usleep(500'000);  // into the first genmove
        REQUIRE(::kill(match, sig) == 0);
        const int st = wait_exit(match);
        INFO(slurp(out));
        REQUIRE(st != -1);
        CHECK(WIFEXITED(st));
        CHECK(WEXITSTATUS(st) == 128 + sig);
        CHECK_THAT(slurp(out), Contains("interrupted by signal " + std::to_string(sig)) &&
                                   Contains("match: 0 games on 6x6"));
        // The engines are gone (reaped by the match: not even zombies of it).
        for (pid_t p : engines) {
            INFO("engine " << p);
            CHECK((::kill(p, 0) == -1 && errno == ESRCH));
        }
    }
}

TEST_CASE("CLI: engine stops a genmove when its input ends without quit", "[cli][engine]") {
    TempDir dir("engine_eof", KONANE_TEST_TMPDIR);
    const std::filesystem::path out = dir.path / "out";
    // A clock of an hour a move; the input closes a second after genmove, without quit.
    const pid_t pid = spawn_shell(
        "(printf 'boardsize 8\\ntime_settings 0 3600 1\\ngenmove "
        "black\\n'; sleep 1) | exec " +
        quote(KONANE_BINARY) + " engine -q --memory 16M > " + quote(out.string()));
    const int st = wait_exit(pid);
    INFO(slurp(out));
    REQUIRE(st != -1);  // ended by itself (within the 60 s of wait_exit, not an hour)
    CHECK(WIFEXITED(st));
    CHECK(WEXITSTATUS(st) == 0);
    // Its answer: a move, after the two setting commands' answers.
    CHECK(slurp(out).rfind("=\n\n=\n\n= ", 0) == 0);
}

TEST_CASE("CLI: match keeps its score when the record cannot be written", "[cli]") {
    TempDir dir("match_record_full", KONANE_TEST_TMPDIR);
    const std::filesystem::path file = dir.path / "games.txt";
    const std::string e = engine("--nodes 2000");
    // Files of at most 1 KiB (ulimit -f 2: 512-byte blocks in sh): the record of 6 games is
    // larger, and its write fails with EFBIG.
    const Run r =
        run("match " + quote(e) + " " + quote(e) +
                " --board 4x4 --games 6 --no-adjudicate -q --record " + quote(file.string()),
            "ulimit -f 2;");
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Contains("match: 6 games on 4x4") && Contains("Elo difference of A: ") &&
                          Contains("konane match: error: --record " + file.string()));
    // No record cut mid-game: none at all, nor its temporary.
    CHECK(std::filesystem::is_empty(dir.path));
}

TEST_CASE("match: SPRT log-likelihood ratio of the pentanomial model", "[cli]") {
    // Reference values by tests/cli/sprt_reference.py (`python3 tests/cli/sprt_reference.py`):
    // fishtest's LLR_logistic written out in Python (empty counts as 1e-3, the secular equation
    // solved by Brent's method, or bisection without scipy).
    struct Case {
        match::Pentanomial pairs;
        double elo0, elo1, llr;
    };
    const Case cases[] = {
        {{0, 0, 10, 0, 0}, 0, 5, -0.13942763881539885},
        {{5, 0, 20, 0, 15}, 0, 50, 2.110852416115424},
        {{1, 2, 3, 4, 5}, -10, 10, 0.5753994562525664},
        {{30, 0, 40, 0, 10}, 0, 100, -16.648402361849612},
        {{0, 0, 0, 0, 12}, 0, 100, 2.9639515388238156},
        {{0, 0, 0, 0, 11}, 0, 100, 2.716989878308785},
    };
    for (const Case& k : cases) {
        INFO(k.pairs[0] << " " << k.pairs[1] << " " << k.pairs[2] << " " << k.pairs[3] << " "
                        << k.pairs[4]);
        CHECK(match::sprt_llr(k.pairs, k.elo0, k.elo1) == Approx(k.llr).epsilon(1e-9));
    }
    CHECK(match::sprt_llr({}, 0, 5) == 0);
    const match::SprtBounds b;  // alpha = beta = 0.05: log(1/19), log(19)
    CHECK(b.lower() == Approx(-2.9444389791664403));
    CHECK(b.upper() == Approx(2.9444389791664403));
    CHECK(match::sprt_decision(2.95, b) == match::SprtDecision::H1);
    CHECK(match::sprt_decision(-2.95, b) == match::SprtDecision::H0);
    CHECK(match::sprt_decision(0, b) == match::SprtDecision::Continue);
    CHECK(match::logistic_score(0) == 0.5);
    CHECK_THROWS(match::sprt_llr({1, 0, 0, 0, 1}, 5, 5));
}

TEST_CASE("CLI: match --sprt stops when the test decides", "[cli]") {
    // A beats an engine that always resigns: every pair scores 2, and the LLR of H1 (100 Elo)
    // against H0 (0) passes log(19) at the 12th pair (2.964; 2.717 at 11: the test above).
    const std::string resigns =
        "while read c; do case \"$c\" in genmove*) echo '= resign';; "
        "*) echo '=';; esac; echo; done";
    const json j = match_json(engine("--nodes 500"), resigns,
                              "--board 4x4 --sprt 0,100 --concurrency 2 --no-adjudicate");
    CHECK(j["games_played"] == 24);
    CHECK(j["sprt"]["decision"] == "H1");
    CHECK(j["sprt"]["pairs"] == 12);
    CHECK(j["sprt"]["pentanomial"] == json::array({0, 0, 0, 0, 12}));
    CHECK(j["sprt"]["llr"].get<double>() == Approx(2.9639515388238156));
    CHECK(j["sprt"]["upper"].get<double>() == Approx(2.9444389791664403));
    const Run r = run("match " + quote(engine("--nodes 500")) + " " + quote(resigns) +
                      " --board 4x4 --sprt 0,100 -q");
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Contains("H1 accepted after 12 pairs; pentanomial 0 0 0 0 12"));
    for (const char* bad : {"10,0", "0", "0,x", "0,10,0.6,0.05"}) {
        INFO(bad);
        const Run e = run("match a b --sprt " + std::string(bad));
        CHECK(e.code == 2);
        CHECK_THAT(e.out, Contains("--sprt"));
    }
}

TEST_CASE("CLI: match --concurrency plays the same games in the same order", "[cli]") {
    const std::string e = engine("--nodes 2000");
    const std::string args =
        "--board 5x5 --games 8 --no-adjudicate --random-plies 2 --seed 3 --concurrency ";
    const json one = match_json(e, e, args + "1");
    const json three = match_json(e, e, args + "3");
    REQUIRE(one["games"].size() == 8);
    REQUIRE(three["games"].size() == 8);
    for (std::size_t g = 0; g < 8; ++g) {
        INFO("game " << g + 1);
        CHECK(three["games"][g]["number"] == g + 1);
        CHECK(three["games"][g]["black"] == one["games"][g]["black"]);
        CHECK(three["games"][g]["opening"] == one["games"][g]["opening"]);
        CHECK(three["games"][g]["moves"] == one["games"][g]["moves"]);
    }
}

TEST_CASE("CLI: match plays the example agent that reads only boardsize N and whole seconds",
          "[cli]") {
    // examples/first_move_agent.cpp refuses `boardsize 4x4` and exits on a decimal time: it
    // plays every game to its end only because the runner sends `boardsize 4` and `1`.
    const std::string agent = KONANE_EXAMPLE_AGENT;
    const json j = match_json(agent, engine("--nodes 2000"), "--board 4x4 --games 4 --time 1");
    REQUIRE(j["games"].size() == 4);
    for (const json& g : j["games"]) {
        INFO(g.dump());
        CHECK(g["ending"] == "no legal move");
    }
    CHECK(j["adjudication"]["games_open"] == 0);  // the agent is not konane engine
    // A fraction sent as decimal seconds ends the agent: it loses every game.
    const json h = match_json(agent, engine("--nodes 2000"),
                              "--board 4x4 --games 2 --time 0.5 --time-unit decimal");
    CHECK(h["score"]["B"] == 2);
    CHECK(h["endings"]["engine failure"] == 2);
}
