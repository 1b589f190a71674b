// `konane serve`'s server (cli/serve.hpp), in process on a loopback port: every endpoint against
// the probe library, the table chosen by board and ruleset, errors as JSON 4xx, and many
// clients at once.
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>

#include <atomic>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>
#include <catch2/catch.hpp>

#include "cli/json.hpp"
#include "cli/serve.hpp"
#include "core/notation.hpp"
#include "format/table.hpp"
#include "probe/analysis.hpp"
#include "probe/openings.hpp"
#include "probe/probe.hpp"
#include "solver/solve.hpp"
#include "tests/cli_helpers.hpp"

namespace {

using namespace konane;
using konane::cli::json;
namespace fs = std::filesystem;

/// The tables served: 4x4 brainking, 4x4 any and 3x4 brainking, generated once per run.
struct Tables {
    fs::path dir;
    std::vector<fs::path> files;
    Tables() {
        dir = fs::path(KONANE_TEST_TMPDIR) / ("serve-" + std::to_string(::getpid()));
        fs::create_directories(dir);
        for (auto [rows, cols, rules] :
             {std::tuple{4, 4, Ruleset::Brainking}, std::tuple{4, 4, Ruleset::Any},
              std::tuple{3, 4, Ruleset::Brainking}}) {
            solver::GenerateOptions o;
            o.board = Board::make(rows, cols);
            o.rules = rules;
            o.threads = 1;
            o.output = dir / solver::default_table_name(o.board, rules);
            solver::generate(o);
            files.push_back(o.output);
        }
    }
    ~Tables() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
};

const Tables& tables() {
    static Tables t;
    return t;
}

/// A server on a free loopback port, answering on its own thread until destroyed.
struct Running {
    cli::ApiServer server;
    int port;
    std::thread thread;
    explicit Running(const cli::ServeOptions& o = {})
        : server(tables().files, o), port(server.bind("127.0.0.1", 0)) {
        thread = std::thread([this] { server.listen(); });
        server.wait_until_ready();
    }
    ~Running() {
        server.stop();
        thread.join();
    }
    httplib::Client client() const {
        httplib::Client c("127.0.0.1", port);
        c.set_read_timeout(60, 0);
        return c;
    }
};

std::string encode(const std::string& s) {
    return httplib::detail::encode_query_param(s);
}

/// Positions met on random games from the full board, each with its expected /api/probe answer.
std::vector<std::pair<std::string, std::string>> sample(const Tablebase& tb, int games,
                                                        unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<std::pair<std::string, std::string>> out;
    const Board& b = tb.board();
    for (int g = 0; g < games; ++g) {
        Position p = b.start();
        for (;;) {
            const auto a = cli::table_answer(tb, p);
            REQUIRE(a);
            out.emplace_back(format_position(b, p), cli::answer_json(b, *a).dump());
            if (a->moves.empty()) break;
            p = a->moves[rng() % a->moves.size()].child;
        }
    }
    return out;
}

}  // namespace

TEST_CASE("serve: the API answers as the probe library and the --json objects", "[serve]") {
    Running r;
    auto c = r.client();
    const Tablebase t44 = Tablebase::open(tables().files[0]);
    const Tablebase t44any = Tablebase::open(tables().files[1]);

    SECTION("tables") {
        auto res = c.Get("/api/tables");
        REQUIRE(res);
        CHECK(res->status == 200);
        const auto j = json::parse(res->body);
        REQUIRE(j["tables"].size() == 3);
        CHECK(j["tables"][1]["board"] == "4x4");
        CHECK(j["tables"][1]["rules"] == "any");
        CHECK(j["tables"][2]["rows"] == 3);
    }
    SECTION("probe by position: every position of random games, values as the library's") {
        for (const auto& [pos, want] : sample(t44, 8, 1)) {
            auto res = c.Get("/api/probe?position=" + encode(pos));
            REQUIRE(res);
            REQUIRE(res->status == 200);
            CHECK(res->body == want);
            const auto j = json::parse(res->body);
            const auto v = t44.value(parse_position(pos).position);
            REQUIRE(v);
            CHECK(j["depth"] == v->depth);
            CHECK(j["value"] == (v->win ? "win" : "loss"));
        }
    }
    SECTION("the ruleset chooses the table") {
        // a2 is not one of Black's removals under brainking (corners and centre), but is under any.
        const Board b = t44.board();
        const Position after = parse_game(b, Ruleset::Any, "a2").positions.back();
        const std::string pos = format_position(b, after);
        auto bk = c.Get("/api/probe?position=" + encode(pos) + "&rules=brainking");
        REQUIRE(bk);
        CHECK(bk->status == 404);
        auto any = c.Get("/api/probe?position=" + encode(pos) + "&rules=any");
        REQUIRE(any);
        CHECK(any->status == 200);
        CHECK(any->body == cli::answer_json(b, *cli::table_answer(t44any, after)).dump());
    }
    SECTION("probe by game record") {
        const Board b = t44.board();
        const Position p = parse_game(b, Ruleset::Brainking, "d1 c1 d3-d1").positions.back();
        auto res = c.Get("/api/probe?board=4x4&game=" + encode("d1 c1 d3-d1"));
        REQUIRE(res);
        CHECK(res->status == 200);
        CHECK(res->body == cli::answer_json(b, *cli::table_answer(t44, p)).dump());
    }
    SECTION("openings") {
        auto res = c.Get("/api/openings?board=4x4&rules=any");
        REQUIRE(res);
        CHECK(res->status == 200);
        CHECK(res->body ==
              cli::openings_json(t44any.board(), Ruleset::Any, compute_openings(t44any)).dump());
        const auto j = json::parse(res->body);
        CHECK(j["rules"] == "any");
    }
    SECTION("probe: each move comes with the position after it") {
        const Board b = t44.board();
        const Position p = parse_game(b, Ruleset::Brainking, "d1 c1").positions.back();
        auto res = c.Get("/api/probe?position=" + encode(format_position(b, p)));
        REQUIRE(res);
        const auto j = json::parse(res->body);
        REQUIRE(j["moves"].size() > 0);
        for (const auto& m : j["moves"]) {
            const MoveChild mc = parse_move(b, Ruleset::Brainking, p, m["move"].get<std::string>());
            CHECK(m["child"] == format_position(b, mc.child));
        }
    }
    SECTION("game: the positions of a record by the rules, on any board") {
        const Board b = t44.board();
        const Game g = parse_game(b, Ruleset::Brainking, "d1 c1 d3-d1");
        auto res = c.Get("/api/game?board=4x4&game=" + encode("d1 c1 d3-d1"));
        REQUIRE(res);
        REQUIRE(res->status == 200);
        auto j = json::parse(res->body);
        CHECK(j["rules"] == "brainking");
        CHECK(j["start"] == format_position(b, b.start()));
        REQUIRE(j["plies"].size() == 3);
        for (std::size_t i = 0; i < 3; ++i) {
            CHECK(j["plies"][i]["move"] == format_move(b, g.moves[i].move));
            CHECK(j["plies"][i]["position"] == format_position(b, g.positions[i + 1]));
        }
        const auto legal = legal_moves(b, Ruleset::Brainking, g.positions.back());
        REQUIRE(j["legal"].size() == legal.size());
        CHECK(j["legal"][0]["child"] == format_position(b, legal[0].child));
        // A board no table holds, from a start position, under a ruleset given.
        res = c.Get("/api/game?board=3x3&rules=any&start=" + encode("xox/o.o/xox w") + "&game=b3");
        REQUIRE(res);
        REQUIRE(res->status == 200);
        j = json::parse(res->body);
        CHECK(j["rules"] == "any");
        CHECK(j["plies"][0]["position"] == "x.x/o.o/xox b");
        res = c.Get("/api/game?board=4x4&game=" + encode("d1 c1 a1-a9"));
        REQUIRE(res);
        CHECK(res->status == 400);
        CHECK_THAT(json::parse(res->body)["error"].get<std::string>(),
                   Catch::Contains("game: move 3"));
        res = c.Get("/api/game?board=4x4&start=" + encode("xox/oxo/xox b") + "&game=");
        REQUIRE(res);
        CHECK(res->status == 400);
    }
    SECTION("analyse: the judgement of `konane analyse`, a thrown win marked") {
        // 4x4: White wins; White's b2-d2 at ply 4 hands the win to Black (c3-c1 keeps it).
        const Board b = t44.board();
        const std::string rec = "d1 c1 d3-d1 b2-d2";
        auto res = c.Get("/api/analyse?board=4x4&game=" + encode(rec));
        REQUIRE(res);
        REQUIRE(res->status == 200);
        const Game g = parse_game(b, Ruleset::Brainking, rec);
        CHECK(res->body ==
              cli::dump(cli::analysis_json(b, Ruleset::Brainking, g, analyse_game(t44, g))));
        const auto j = json::parse(res->body);
        CHECK(j["mistakes"] == json::array({4}));
        CHECK(j["moves"][3]["mistake"] == true);
        CHECK(j["moves"][3]["best"] == "c3-c1");
        CHECK(j["moves"][1]["mistake"] == false);
        CHECK(j["moves"][1]["inaccurate"] == false);
        CHECK(j["final"]["winner"] == "black");
        auto none = c.Get("/api/analyse?board=3x3&game=a3");
        REQUIRE(none);
        CHECK(none->status == 404);
    }
    SECTION("solve: a board no table holds, and a table's board") {
        auto res = c.Get("/api/solve?position=" + encode(".oxox. b"));
        REQUIRE(res);
        CHECK(res->status == 200);
        const auto j = json::parse(res->body);
        CHECK(j["value"] == "loss");
        CHECK(j["depth"] == 2);
        CHECK(j["board"] == "1x6");
        const std::string pos = format_position(t44.board(), t44.board().start());
        auto withTable = c.Get("/api/solve?position=" + encode(pos));
        REQUIRE(withTable);
        const auto k = json::parse(withTable->body);
        const auto v = t44.value(t44.board().start());
        CHECK(k["depth"] == v->depth);
        CHECK(k["search"]["table_hits"].get<int>() > 0);
    }
}

TEST_CASE("serve: bad requests get a 4xx JSON message and the server keeps serving", "[serve]") {
    cli::ServeOptions o;
    o.search_limit = 1000;
    Running r(o);
    auto c = r.client();
    struct Case {
        std::string path;
        int status;
        std::string says;
    };
    const std::vector<Case> cases = {
        {"/api/probe?position=" + encode("xoxo/oxqx/xoxo/oxox b"), 400, "'q'"},
        {"/api/probe?position=" + encode("xoxo/oxox/xoxo/oxox"), 400, "side to move"},
        {"/api/probe?board=4x4&game=" + encode("d1 c1 a1-a7"), 400, "move 3"},
        {"/api/probe?board=9x9&game=d1", 400, "out of range"},
        {"/api/probe?game=d1", 400, "board=RxC"},
        {"/api/probe?position=" + encode("xoxox/oxoxo b"), 404, "no table for board 2x5"},
        {"/api/probe?position=" + encode("xoxo/oxox/xoxo/oxox b") + "&rules=center", 404,
         "no table for board 4x4 ruleset center"},
        {"/api/probe?position=" + encode("xoxo/oxox/xoxo/oxox b") + "&rules=zz", 400, "zz"},
        {"/api/probe?position=" + encode("xo../oxox/xoxo/oxox b"), 404, "not stored"},
        {"/api/solve?position=" + encode("xoxoxo/oxoxox/xo..xo/oxoxox/xoxoxo/oxoxox b"), 422,
         "search limit of 1000 positions"},
        {"/api/openings?board=5x5", 404, "no table for board 5x5"},
        {"/index.php", 404, "no such path: /index.php"},
    };
    for (const auto& k : cases) {
        INFO(k.path);
        auto res = c.Get(k.path);
        REQUIRE(res);
        CHECK(res->status == k.status);
        CHECK(res->get_header_value("Content-Type") == "application/json");
        const auto j = json::parse(res->body);
        CHECK(j["status"] == k.status);
        CHECK_THAT(j["error"].get<std::string>(), Catch::Contains(k.says));
    }
    auto huge = c.Post("/api/probe", std::string(1 << 20, 'x'), "text/plain");
    REQUIRE(huge);
    CHECK(huge->status == 413);
    CHECK_THAT(huge->body, Catch::Contains("too large"));
    auto post = c.Post("/api/probe", "x", "text/plain");
    REQUIRE(post);
    CHECK(post->status == 405);
    auto ok = c.Get("/api/tables");
    REQUIRE(ok);
    CHECK(ok->status == 200);
    auto page = c.Get("/");
    REQUIRE(page);
    CHECK(page->status == 200);
    CHECK_THAT(page->body, Catch::Contains("<script src=\"/app.js\">"));
}

TEST_CASE("serve: many clients at once get the right answers", "[serve]") {
    Running r;
    const Tablebase t34 = Tablebase::open(tables().files[2]);
    const Tablebase t44 = Tablebase::open(tables().files[0]);
    auto a = sample(t34, 6, 2), b = sample(t44, 6, 3);
    a.insert(a.end(), b.begin(), b.end());
    const int kClients = 8, kRequests = 60;
    std::atomic<int> wrong{0}, failed{0};
    std::vector<std::thread> clients;
    for (int t = 0; t < kClients; ++t) {
        clients.emplace_back([&, t] {
            auto c = r.client();
            std::mt19937 rng(100 + t);
            for (int i = 0; i < kRequests; ++i) {
                const auto& [pos, want] = a[rng() % a.size()];
                auto res = c.Get("/api/probe?position=" + encode(pos));
                if (!res || res->status != 200) {
                    ++failed;
                } else if (res->body != want) {
                    ++wrong;
                }
            }
        });
    }
    for (auto& th : clients)
        th.join();
    CHECK(failed == 0);
    CHECK(wrong == 0);
}

TEST_CASE("serve: refuses an empty table list and two tables of one board and ruleset", "[serve]") {
    CHECK_THROWS_AS(cli::ApiServer({}), std::invalid_argument);
    CHECK_THROWS_WITH(cli::ApiServer({tables().files[0], tables().files[0]}),
                      Catch::Contains("are both tables of 4x4 brainking"));
    cli::ApiServer s({tables().files[0]});
    CHECK_THROWS_WITH(s.bind("127.0.0.1", 70000), Catch::Contains("outside 0..65535"));
}

TEST_CASE("serve: --check refuses a table with a damaged block that a lazy open accepts",
          "[serve]") {
    // A 5x5 table with one byte in the middle of its data area changed: the header, trailer,
    // layer table and the blocks open reads still check, so opening it succeeds and only a read
    // of that block would fail.
    const fs::path bad = tables().dir / "damaged-5x5.kbt";
    solver::GenerateOptions o;
    o.board = Board::make(5, 5);
    o.threads = 1;
    o.output = bad;
    solver::generate(o);
    // Flips one byte at `at` (twice restores it).
    auto flip = [&](long at) {
        std::FILE* f = std::fopen(bad.c_str(), "r+b");
        REQUIRE(f != nullptr);
        REQUIRE(std::fseek(f, at, SEEK_SET) == 0);
        const int c = std::fgetc(f);
        REQUIRE(std::fseek(f, at, SEEK_SET) == 0);
        std::fputc(c ^ 0x5A, f);
        std::fclose(f);
    };
    // The first of a few offsets in the data area whose damage open does not see (open reads
    // the last block of every layer).
    const long size = static_cast<long>(fs::file_size(bad));
    bool lazy_ok = false;
    for (long at : {size / 2, size / 3, 2 * size / 3, size / 4, 3 * size / 5}) {
        flip(at);
        try {
            cli::ApiServer lazy({bad});
            lazy_ok = true;
            break;
        } catch (const format::FormatError&) {
            flip(at);
        }
    }
    REQUIRE(lazy_ok);
    cli::ServeOptions check;
    check.check = true;
    CHECK_THROWS_WITH(cli::ApiServer({bad}, check), Catch::Contains("checksum mismatch"));
    CHECK_NOTHROW(cli::ApiServer({tables().files[0]}, check));
    const test::Run r = test::run("serve " + test::quote(bad.string()) + " --check --port 0");
    CHECK(r.code == 2);
    CHECK_THAT(r.out, Catch::Contains("checksum mismatch"));
    fs::remove(bad);
}

TEST_CASE("serve: the command refuses bad arguments and an address in use", "[serve]") {
    const std::string t = test::quote(tables().files[0].string());
    test::Run r = test::run("serve");
    CHECK(r.code == 2);
    CHECK_THAT(r.out, Catch::Contains("TABLE"));
    r = test::run("serve /nonexistent/table.kbt");
    CHECK(r.code == 2);
    CHECK_THAT(r.out, Catch::Contains("/nonexistent/table.kbt"));
    r = test::run("serve " + t + " " + t);
    CHECK(r.code == 2);
    CHECK_THAT(r.out, Catch::Contains("are both tables of 4x4 brainking"));
    r = test::run("serve " + t + " --port 70000");
    CHECK(r.code == 2);
    // A port this process listens on already.
    Running server;
    r = test::run("serve " + t + " --port " + std::to_string(server.port));
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("cannot listen on 127.0.0.1:" + std::to_string(server.port)));
}
