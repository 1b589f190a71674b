// Openings from one chosen gap (docs/gap.md): tables, perft, openings and solve from a gap's
// start position, against the plain reference engine of tests/reference.hpp, and the refusals.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <set>
#include <string>

#include <nlohmann/json.hpp>
#include "core/gap.hpp"
#include "core/movegen.hpp"

#include "core/notation.hpp"
#include "format/table.hpp"
#include "probe/openings.hpp"
#include "probe/probe.hpp"
#include "solver/solve.hpp"
#include "solver/verify.hpp"
#include "solver/workdir.hpp"
#include "tests/cli_helpers.hpp"
#include "tests/reference.hpp"
#include "tests/solved_check.hpp"
#include "tests/temp_dir.hpp"

using namespace konane;
using namespace konane::test;
namespace fs = std::filesystem;

namespace {

// The gap's start in the reference engine, built from the square names alone: row 0 is the top
// rank, column 0 file a.
ref::RefPos ref_gap_start(const ref::RefBoard& rb, const std::string& a, const std::string& b) {
    ref::RefPos p = ref::full_board(rb);
    for (const std::string& sq : {a, b}) {
        const int col = sq[0] - 'a';
        const int row = rb.rows - std::stoi(sq.substr(1));
        p.at(rb, row, col) = '.';
    }
    p.side = 'b';
    return p;
}

// Generates the table of gap `a,b` on rows x cols and checks it against the reference: the
// per-layer class and raw counts against a plain enumeration from the gap's start (raw: the
// positions reachable from that gap alone), the classes themselves, and every stored depth
// against the reference's memoised negamax. Returns the table's file.
fs::path check_gap(const TempDir& d, int rows, int cols, const std::string& a,
                   const std::string& b) {
    INFO("board " << rows << "x" << cols << " gap " << a << "," << b);
    const Board board = Board::make(rows, cols);
    solver::GenerateOptions o;
    o.board = board;
    o.gap = parse_gap(board, a + "," + b);
    o.threads = 2;
    o.keep_layers = true;
    o.output = d.path / solver::default_table_name(board, solver::opening_of(o));
    const auto rep = solver::generate(o);

    const ref::RefBoard rb{rows, cols};
    const ref::RefPos start = ref_gap_start(rb, a, b);
    const auto reach = ref::enumerate_reachable_from(rb, {start});
    ref::RefMemo memo(rb, ref::Rules::Any);
    test::check_solved_against_reference(rb, rep, reach, memo);

    // The file says it was built from the gap, and its one opening is the reference's value.
    const Tablebase tb = Tablebase::open(o.output);
    CHECK(tb.table().meta().ruleset == opening_tag(board, solver::opening_of(o)));
    REQUIRE(tb.opening().gap);
    CHECK(*tb.opening().gap == *o.gap);
    const ref::RefValue v = ref::solve(rb, start, memo);
    const auto line = gap_opening(tb, *o.gap);
    REQUIRE(line);
    CHECK(line->depth == v.depth);
    CHECK((line->winner == Color::Black) == v.win);
    const Openings ops = compute_openings(tb);
    REQUIRE(ops.lines.size() == 1);
    CHECK(ops.winner == line->winner);
    return o.output;
}

}  // namespace

TEST_CASE("gap: parse_gap reads two adjacent squares of opposite colours, either order", "[gap]") {
    const Board b = Board::make(6, 6);
    const Gap g = parse_gap(b, "c3,c4");
    CHECK(b.color_of(g.black) == Color::Black);
    CHECK(gap_name(b, g) == "c4,c3");  // c4 is Black's square on 6x6
    CHECK(parse_gap(b, "c4,c3") == g);
    CHECK(opening_tag(b, Opening::from_gap(g)) == "gap-c4-c3");
    CHECK(parse_opening_tag(b, "gap-c4-c3") == Opening::from_gap(g));
    CHECK(parse_opening_tag(b, "center") == Opening(Ruleset::Center));
    CHECK(format_position(b, gap_start(b, g)) == "xoxoxo/oxoxox/xo.oxo/ox.xox/xoxoxo/oxoxox b");
    // Every gap is a removal pair of ruleset any; brainking allows the corners and centre.
    CHECK(gap_rules_conflict(b, g, Ruleset::Any).empty());
    CHECK(gap_rules_conflict(b, g, Ruleset::Brainking).empty());
    CHECK_THAT(
        gap_rules_conflict(b, parse_gap(b, "b6,c6"), Ruleset::Brainking),
        Catch::Contains("ruleset brainking does not allow") && Catch::Contains("drop --rules"));
    for (const auto& [text, why] : std::vector<std::pair<std::string, std::string>>{
             {"c3", "expected two squares separated by a comma"},
             {"c3,c4,c5", "expected two squares separated by a comma"},
             {"c3;c4", "expected two squares separated by a comma"},
             {"c3,", "malformed square"},
             {"c3,g4", "off the 6x6 board"},
             {"c3,c3", "twice"},
             {"c3,e3", "are both white's squares"},
             {"a1,d1", "not orthogonally adjacent"},
             {"c3,d4", "are both"},
         }) {
        INFO(text);
        CHECK_THROWS_WITH(parse_gap(b, text), Catch::Contains(why));
    }
}

TEST_CASE("gap: tables on 4x4 4x5 and 3x5 equal the reference from the gap", "[gap][solver]") {
    TempDir d("konane-gap-test");
    for (const auto& [a, b] : {std::pair{"a4", "b4"}, std::pair{"b3", "b2"}, std::pair{"c2", "d2"},
                               std::pair{"d1", "c1"}}) {
        check_gap(d, 4, 4, a, b);
    }
    for (const auto& [a, b] : {std::pair{"a4", "a3"}, std::pair{"c3", "c2"}, std::pair{"b2", "c2"},
                               std::pair{"e1", "e2"}}) {
        check_gap(d, 4, 5, a, b);
    }
    for (const auto& [a, b] : {std::pair{"a3", "b3"}, std::pair{"c2", "c3"}, std::pair{"b2", "b1"},
                               std::pair{"e2", "d2"}}) {
        check_gap(d, 3, 5, a, b);
    }
}

TEST_CASE("gap: a gap and its mirror images give the same game", "[gap][solver]") {
    TempDir d("konane-gap-test");
    const Board b = Board::make(4, 5);
    const fs::path file = check_gap(d, 4, 5, "b2", "c2");
    const Tablebase tb = Tablebase::open(file);
    const auto own = gap_opening(tb, parse_gap(b, "b2,c2"));
    REQUIRE(own);
    // The left-right mirror of b2,c2 is d2,c2 (it keeps the colours on 5 columns). The top-bottom
    // mirror swaps them on 4 rows: it maps b2,c2's start onto b3,c3's with White to move.
    for (const char* mirror : {"d2,c2"}) {
        INFO(mirror);
        const auto v = gap_opening(tb, parse_gap(b, mirror));
        REQUIRE(v);
        CHECK(v->winner == own->winner);
        CHECK(v->depth == own->depth);
    }
    const Position swapped = gap_start(b, parse_gap(b, "b3,c3"));
    const auto w = tb.lookup(Position{swapped.occ, Color::White});
    REQUIRE(w);
    CHECK(w->win == (own->winner == Color::Black));
    CHECK(w->depth == own->depth);
    CHECK_FALSE(gap_opening(tb, parse_gap(b, "a1,b1")));
}

TEST_CASE("gap: perft from a gap equals the reference's jumps from that start", "[gap][rules]") {
    for (const auto& [rows, cols, a, b] :
         {std::tuple{4, 4, "b3", "b2"}, std::tuple{4, 5, "c3", "c2"}, std::tuple{3, 5, "a3", "b3"},
          std::tuple{6, 6, "c4", "c3"}}) {
        INFO(rows << "x" << cols << " " << a << "," << b);
        const Board board = Board::make(rows, cols);
        const ref::RefBoard rb{rows, cols};
        const Gap g = parse_gap(board, std::string(a) + "," + b);
        for (int depth = 0; depth <= 4; ++depth) {
            const std::uint64_t want =
                ref::perft_ply(rb, ref::Rules::Any, ref_gap_start(rb, a, b), depth, 2);
            CHECK(perft(board, Ruleset::Any, gap_start(board, g), depth) == want);
            if (depth == 3) {
                const Run r = run("perft " + board.name() + " 3 --gap " + a + "," + b);
                CHECK(r.code == 0);
                CHECK(r.out == std::to_string(want) + "\n");
            }
        }
    }
}

TEST_CASE("gap: the work directory's identity includes the gap", "[gap][solver]") {
    TempDir d("konane-gap-test");
    const Board b = Board::make(4, 4);
    const fs::path work = d.path / "work";
    { solver::WorkDir wd(work, b, Ruleset::Brainking); }
    CHECK_THROWS_WITH(solver::WorkDir(work, b, Opening::from_gap(parse_gap(b, "a4,b4"))),
                      Catch::Contains("holds a generation under ruleset brainking, not from "
                                      "gap-a4-b4"));
    const fs::path work2 = d.path / "work2";
    { solver::WorkDir wd(work2, b, Opening::from_gap(parse_gap(b, "a4,b4"))); }
    CHECK_THROWS_WITH(solver::WorkDir(work2, b, Opening::from_gap(parse_gap(b, "a4,a3"))),
                      Catch::Contains("from gap-a4-b4, not from gap-a4-a3"));
    CHECK_THROWS_WITH(solver::WorkDir(work2, b, Ruleset::Any),
                      Catch::Contains("not under ruleset any"));
}

TEST_CASE("gap: the command line generates, verifies, reports and refuses", "[gap][cli]") {
    TempDir d("konane-gap-test");
    const std::string t = (d.path / "g.kbt").string();
    Run r = run("generate 4x5 --gap c2,c3 -q -o " + t);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("4x5 gap c2,c3: "));

    r = run("info " + t);
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("gap c2,c3 (Black removed c2, White c3; the positions "
                                      "reachable from this gap alone)"));
    r = run("info --json " + t);
    CHECK_THAT(r.out, Catch::Contains("\"rules\":null,\"gap\":\"c2,c3\""));

    r = run("verify -q " + t);
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains(": OK"));

    // The table's verdict, the same gap by search, and by the `any` table.
    const Board b = Board::make(4, 5);
    const ref::RefBoard rb{4, 5};
    ref::RefMemo memo(rb, ref::Rules::Any);
    const ref::RefValue v = ref::solve(rb, ref_gap_start(rb, "c3", "c2"), memo);
    const std::string winner = v.win ? "black" : "white";
    r = run("openings " + t);
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("verdict: " + winner + " wins with perfect play; depth " +
                                      std::to_string(v.depth) + " plies"));
    r = run("openings --json " + t + " --gap c2,c3");
    CHECK_THAT(r.out, Catch::Contains("\"winner\":\"" + winner +
                                      "\",\"depth\":" + std::to_string(v.depth)));
    r = run("openings --search -q --board 4x5 --gap c2,c3 --memory 16M");
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("verdict: " + winner + " wins with perfect play"));
    const std::string any = (d.path / "any.kbt").string();
    REQUIRE(run("generate 4x5 --rules any -q -o " + any).code == 0);
    r = run("openings " + any + " --gap c3,c2");
    CHECK_THAT(r.out, Catch::Contains("verdict: " + winner + " wins with perfect play; depth " +
                                      std::to_string(v.depth) + " plies"));
    // A gap the table does not hold: exit 3.
    r = run("openings " + t + " --gap a1,b1");
    CHECK(r.code == 3);
    CHECK_THAT(r.out, Catch::Contains("gap b1,a1 is not stored in"));

    // solve --gap analyses the start position, with and without the table.
    r = run("solve --board 4x5 --gap c3,c2 -q");
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains(format_position(b, gap_start(b, parse_gap(b, "c3,c2")))));
    CHECK_THAT(r.out, Catch::Contains(std::string(v.win ? "win" : "loss") + " in " +
                                      std::to_string(v.depth) + " plies for black"));
    r = run("solve --gap c3,c2 --wdl -q --memory 16M --table " + t);
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains(std::string(v.win ? "win" : "loss") + " for black"));

    // probe: the gap's game record from the full board, and its refusals.
    r = run("probe " + t + " --game 'c2 c3'");
    CHECK(r.code == 0);
    r = run("probe " + t);  // by default the gap's start
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("gap c2,c3"));
    r = run("probe " + t + " 'xoxox/oxoxo/xoxox/oxoxo b'");  // no opening stage here
    CHECK(r.code == 3);
    CHECK_THAT(r.out, Catch::Contains("from gap c2,c3"));

    // analyse: a record starting with the gap's removals is analysed from the first jump, with
    // the values the table gives; another start is refused with the removals it needs.
    const Position after = parse_game(b, Ruleset::Any, "c2 c3 a2-c2").positions.back();
    r = run("analyse " + t + " 'c2 c3 a2-c2' --json");
    CHECK(r.code == 0);
    const auto aj = nlohmann::json::parse(r.out);
    CHECK(aj["start"] == format_position(b, gap_start(b, parse_gap(b, "c2,c3"))));
    CHECK(aj["moves"].size() == 1);
    CHECK(aj["final"]["position"] == format_position(b, after));
    r = run("analyse " + t + " 'b1 a1 d1-b1'");
    CHECK(r.code == 2);
    CHECK_THAT(r.out, Catch::Contains("record must start with its two removals ('c2 c3 ...')"));

    // Refusals, exit 2, each with its reason.
    for (const auto& [args, why] : std::vector<std::pair<std::string, std::string>>{
             {"generate 4x5 --gap c3 -q -o " + t, "expected two squares separated by a comma"},
             {"generate 4x5 --gap c3,f3 -q -o " + t, "off the 4x5 board"},
             {"generate 4x5 --gap c3,c3 -q -o " + t, "twice"},
             {"generate 4x5 --gap a1,a3 -q -o " + t, "are both"},
             {"generate 4x5 --gap a1,d1 -q -o " + t, "not orthogonally adjacent"},
             {"generate 4x5 --gap b3,b2 --rules center -q -o " + t,
              "which ruleset center does not allow on 4x5"},
             {"perft 6x6 2 --gap a6,b6 --rules center", "drop --rules"},
             {"solve --gap c3,c2", "--gap needs --board"},
             {"solve '....' --board 4x5 --gap c3,c2", "give a POSITION or --gap, not both"},
             {"openings --search --board 4x5 --gap b3,b2 --rules center", "drop --rules"},
         }) {
        INFO(args);
        r = run(args);
        CHECK(r.code == 2);
        CHECK_THAT(r.out, Catch::Contains(why));
    }
    // A ruleset that allows the gap is accepted: the same table.
    const std::string t2 = (d.path / "g2.kbt").string();
    REQUIRE(run("generate 4x5 --gap c3,c2 --rules brainking -q -o " + t2).code == 0);
    CHECK(format::Table::open(t)->file_size() == format::Table::open(t2)->file_size());
    CHECK(format::Table::open(t)->meta().ruleset == format::Table::open(t2)->meta().ruleset);
}
