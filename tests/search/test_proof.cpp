// The proof search (search/proof.hpp), `konane solve --wdl`, `konane openings --search`, and the
// rule for positions no opening produces (core/board.hpp stage_of).
// Verdicts are checked against tables generated here and against rules.md's public facts.
#include <sys/wait.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/notation.hpp"
#include "probe/openings.hpp"
#include "probe/probe.hpp"
#include "search/proof.hpp"
#include "solver/solve.hpp"
#include "tests/cli_helpers.hpp"
#include "tests/five_by_six.hpp"
#include "tests/reference.hpp"
#include "tests/table_fixture.hpp"

namespace {

using namespace konane;
using namespace konane::test;
namespace fs = std::filesystem;

ProofOptions small_options(Ruleset r = Ruleset::Brainking,
                           ProofAlgorithm a = ProofAlgorithm::Enhanced) {
    ProofOptions o;
    o.rules = r;
    o.memory_bytes = std::size_t{4} << 20;
    o.algorithm = a;
    return o;
}

/// Every opening's winner by proof search equals the table's; so do the board's verdict and
/// each removal's winner.
void check_openings_against_table(int rows, int cols, Ruleset r) {
    {
        // Boards where no position follows the two removals have no table: Black wins when it
        // has a removal (White then has no reply), and loses otherwise (no move at all).
        const Board b = Board::make(rows, cols);
        std::size_t pairs = 0;
        const auto removals = legal_moves(b, r, b.start());
        for (const auto& first : removals)
            pairs += legal_moves(b, r, first.child).size();
        if (pairs == 0) {
            INFO(b.name() << " " << ruleset_name(r) << ": no opening");
            ProofSearch s(b, small_options(r));
            const SearchedOpenings got = search_openings(s);
            CHECK(got.lines.empty());
            const Color want = removals.empty() ? Color::White : Color::Black;
            CHECK(got.winner == want);
            const ProofResult full = s.solve(b.start());
            REQUIRE(full.win.has_value());
            CHECK(*full.win == (want == Color::Black));
            return;
        }
    }
    const Tablebase& tb = table(rows, cols, r);
    const Board& b = tb.board();
    INFO(b.name() << " " << ruleset_name(r));
    const Openings want = compute_openings(tb);
    for (const ProofAlgorithm alg :
         {ProofAlgorithm::Enhanced, ProofAlgorithm::Plain, ProofAlgorithm::DfPn}) {
        ProofSearch s(b, small_options(r, alg));
        const SearchedOpenings got = search_openings(s);
        REQUIRE(got.lines.size() == want.lines.size());
        for (std::size_t i = 0; i < want.lines.size(); ++i) {
            INFO(format_move(b, want.lines[i].black) << " " << format_move(b, want.lines[i].white));
            CHECK(got.lines[i].black == want.lines[i].black);
            CHECK(got.lines[i].white == want.lines[i].white);
            CHECK(got.lines[i].winner == want.lines[i].winner);
        }
        REQUIRE(got.choices.size() == want.choices.size());
        for (std::size_t i = 0; i < want.choices.size(); ++i)
            CHECK(got.choices[i].winner == want.choices[i].winner);
        CHECK(got.winner == want.winner);
        // The whole board from the full board, in one solve().
        const ProofResult full = s.solve(b.start());
        REQUIRE(full.win.has_value());
        CHECK(*full.win == (want.winner == Color::Black));
    }
}

}  // namespace

TEST_CASE("proof: count_jumps counts for_each_jump's moves", "[proof]") {
    for (int rows = 1; rows <= 8; ++rows) {
        for (int cols = 1; cols <= 8; ++cols) {
            const Board b = Board::make(rows, cols);
            const ref::RefBoard rb(rows, cols);
            for (const ref::RefPos& rp :
                 ref::random_positions(rb, ref::Rules::Any, 4, 31u * rows + cols)) {
                for (const Color side : {Color::Black, Color::White}) {
                    const Position p{ref::to_core(rb, rp).occ, side};
                    int n = 0;
                    for_each_jump(b, p, [&](Move, Position) { ++n; });
                    CHECK(count_jumps(b, p) == n);
                }
            }
        }
    }
}

TEST_CASE("proof: every opening of every board up to 20 squares equals the table", "[proof]") {
    for (int rows = 1; rows <= 5; ++rows) {
        for (int cols = 1; cols <= 5; ++cols) {
            if (rows * cols > 20 || rows * cols < 2) continue;
            for (const Ruleset r : {Ruleset::Brainking, Ruleset::Center, Ruleset::Any})
                check_openings_against_table(rows, cols, r);
        }
    }
}

TEST_CASE("proof: every opening of boards past 8 per side equals the table", "[proof][wide]") {
    for (const auto& [rows, cols] :
         {std::pair{1, 12}, std::pair{12, 1}, std::pair{2, 9}, std::pair{9, 2}, std::pair{2, 12},
          std::pair{1, 36}, std::pair{2, 18}}) {
        check_openings_against_table(rows, cols, Ruleset::Brainking);
    }
    check_openings_against_table(2, 10, Ruleset::Any);
    check_openings_against_table(1, 20, Ruleset::Center);
}

TEST_CASE("proof: every opening of 5x5 and 4x6 and 6x4 equals the table", "[proof]") {
    check_openings_against_table(5, 5, Ruleset::Brainking);
    check_openings_against_table(4, 6, Ruleset::Brainking);
    check_openings_against_table(6, 4, Ruleset::Brainking);
}

TEST_CASE("proof: every opening of 5x6 and 6x5 equals the 5x6 and 6x5 tables", "[proof]") {
    for (const std::string name : {"5x6", "6x5"}) {
        const Board b = Board::parse(name);
        ProofOptions o = small_options();
        o.memory_bytes = std::size_t{32} << 20;
        ProofSearch s(b, o);
        check_five_by_six(name, search_openings(s));
    }
}

TEST_CASE("proof: df-pn in a table far too small still decides, never going round in circles",
          "[proof][dfpn]") {
    // With 128 KiB for each of its tables, every entry is soon replaced. Two siblings whose
    // numbers share a bucket used to replace each other's at every step, each then reading as a
    // new leaf: df-pn went back into one only for it to return at once, for ever (six of the
    // eight openings of 5x6, and six of 6x5's, stayed undecided after 5 M nodes each; so did
    // 6x8 h1 h2 after 10^9 at 8 GiB). The numbers a child's search left are now its fallback
    // (search/proof.cpp mid()).
    for (const std::string name : {"5x6", "6x5"}) {
        const Board b = Board::parse(name);
        ProofOptions o = small_options(Ruleset::Brainking, ProofAlgorithm::DfPn);
        o.memory_bytes = std::size_t{256} << 10;
        o.max_nodes = 5'000'000;  // each line: about 60,000 nodes are enough
        ProofSearch s(b, o);
        check_five_by_six(name, search_openings(s));
    }
}

TEST_CASE("proof: df-pn decides when its numbers pass 2^31", "[proof][dfpn]") {
    // Every new leaf's numbers times 2^26 (at least 2^26, up to 26 times that on 5x6): sums of
    // a few dozen leaves pass 2^31. df-pn's numbers are 64-bit, packed into 31 bits in its
    // table and rounded up there (search/proof.cpp pack_number()); with 32-bit numbers the
    // sums stuck at 2^31 read as a threshold reached and the root was left undecided ("the
    // root's value was not stored").
    for (const std::string name : {"5x6", "6x5"}) {
        const Board b = Board::parse(name);
        ProofOptions o = small_options(Ruleset::Brainking, ProofAlgorithm::DfPn);
        o.dfpn_leaf_scale = std::uint64_t{1} << 26;
        o.max_nodes = 20'000'000;  // every line together: about 250,000 nodes unscaled
        ProofSearch s(b, o);
        check_five_by_six(name, search_openings(s));
    }
}

TEST_CASE("proof: random positions equal the table, with and without the table", "[proof]") {
    struct Spec {
        int rows, cols;
        Ruleset r;
    };
    for (const Spec spec : {Spec{4, 4, Ruleset::Any}, Spec{4, 5, Ruleset::Brainking},
                            Spec{5, 5, Ruleset::Brainking}, Spec{3, 6, Ruleset::Center}}) {
        const Tablebase& tb = table(spec.rows, spec.cols, spec.r);
        const Board& b = tb.board();
        const ref::RefBoard rb(spec.rows, spec.cols);
        INFO(b.name() << " " << ruleset_name(spec.r));
        ProofSearch plain(b, small_options(spec.r, ProofAlgorithm::Plain));
        ProofSearch enhanced(b, small_options(spec.r));
        ProofSearch dfpn(b, small_options(spec.r, ProofAlgorithm::DfPn));
        ProofSearch with_table(b, small_options(spec.r), tb);
        ProofOptions endgame = small_options(spec.r);
        endgame.table_max_pieces = 6;  // the table as an endgame table of at most 6 pieces
        ProofSearch with_endgame(b, endgame, tb);
        int checked = 0;
        for (const ref::RefPos& rp :
             ref::random_positions(rb, ref::rules_of(spec.r), 25, 1000u + spec.rows)) {
            const Position p = ref::to_core(rb, rp);
            const auto want = tb.value(p);
            REQUIRE(want.has_value());
            INFO(format_position(b, p));
            for (ProofSearch* s : {&plain, &enhanced, &dfpn, &with_table, &with_endgame}) {
                const ProofResult got = s->solve(p);
                REQUIRE(got.win.has_value());
                CHECK(*got.win == want->win);
                if (got.winning_move) {
                    // The winning move leads to a loss for the opponent.
                    const auto child = tb.value(got.winning_move->child);
                    REQUIRE(child.has_value());
                    CHECK(!child->win);
                }
                CHECK(got.win.value() == got.winning_move.has_value());
            }
            ++checked;
        }
        CHECK(checked > 100);
        ProofSearch fresh(b, small_options(spec.r), tb);
        const ProofResult from_start = fresh.solve(b.start());
        CHECK(from_start.table_hits > 0);
        CHECK(from_start.win == (compute_openings(tb).winner == Color::Black));
    }
}

TEST_CASE("proof: rules.md's linear facts and the 2x2 and 4x4 verdicts", "[proof]") {
    auto wins = [](const std::string& text, Color side) {
        const ParsedPosition pp = parse_position(text, nullptr);
        ProofOptions o = small_options();
        ProofSearch s(pp.board, o);
        const ProofResult r = s.solve(Position{pp.position.occ, side});
        REQUIRE(r.win.has_value());
        return *r.win;
    };
    // xo..: Black wins whoever starts; .ox.: whoever moves first wins.
    CHECK(wins("xo.. b", Color::Black));
    CHECK(!wins("xo.. w", Color::White));
    CHECK(wins(".ox. b", Color::Black));
    CHECK(wins(".ox. w", Color::White));
    // One empty square, n alternating pieces from White, one empty square (rows up to 8).
    for (int n = 1; n <= 6; ++n) {
        std::string row = ".";
        for (int i = 0; i < n; ++i)
            row += i % 2 == 0 ? 'o' : 'x';
        row += '.';
        INFO(row);
        const bool black_first = wins(row + " b", Color::Black);
        const bool white_first = wins(row + " w", Color::White);
        if (n % 4 == 0) {
            CHECK(!black_first);
            CHECK(!white_first);
        } else if (n % 4 == 2) {
            CHECK(black_first);
            CHECK(white_first);
        } else if (n >= 3) {
            CHECK(black_first);
            CHECK(!white_first);
        }
    }
    for (const char* name : {"2x2", "4x4"}) {
        ProofSearch s(Board::parse(name), small_options());
        CHECK(search_openings(s).winner == Color::White);
    }
}

TEST_CASE("proof: an honest stop at the node limit, and nothing false left behind", "[proof]") {
    const Board b = Board::make(5, 6);
    ProofOptions o = small_options();
    o.max_nodes = 50;
    ProofSearch s(b, o);
    const Position p = parse_game(b, Ruleset::Brainking, "a1 b1").positions.back();
    const ProofResult stopped = s.solve(p);
    CHECK(!stopped.win.has_value());
    CHECK(!stopped.winning_move.has_value());
    CHECK(stopped.nodes <= 51);
    // The same table, without a limit: White wins 5x6 after a1 b1 (docs/solved.md).
    ProofOptions unlimited = o;
    unlimited.max_nodes = 0;
    ProofSearch fresh(b, unlimited);
    const ProofResult decided = fresh.solve(p);
    REQUIRE(decided.win.has_value());
    CHECK(!*decided.win);
}

TEST_CASE("proof: a table of another board is refused", "[proof]") {
    CHECK_THROWS_AS(ProofSearch(Board::make(4, 5), small_options(), table(4, 4, Ruleset::Any)),
                    std::invalid_argument);
}

TEST_CASE("stages: positions no opening produces are played by jumps", "[proof][rules]") {
    // 1x4: Black's squares a1 and c1; brainking lets Black empty a1 (corner) and c1 (centre).
    const Board row = Board::make(1, 4);
    const Position white_hole = parse_position("xox. w", &row).position;  // hole on a White square
    CHECK(stage_of(row, Ruleset::Brainking, white_hole) == Stage::Play);
    CHECK(stage_of(row, Ruleset::Any, white_hole) == Stage::Play);
    const auto moves = legal_moves(row, Ruleset::Brainking, white_hole);
    REQUIRE(moves.size() == 1);
    CHECK(format_move(row, moves[0].move) == "b1-d1");
    // A hole Black may empty: White's removal next to it.
    const Position black_hole = parse_position("xo.o w", &row).position;
    CHECK(stage_of(row, Ruleset::Brainking, black_hole) == Stage::OneHole);
    CHECK(legal_moves(row, Ruleset::Brainking, black_hole).size() == 2);
    // 5x5 brainking: b4 is a Black square but neither a corner nor central.
    const Board b5 = Board::make(5, 5);
    Position b4_hole{b5.all & ~(std::uint64_t{1} << b5.square(1, 4)), Color::White};
    REQUIRE(b5.color_of(b5.square(1, 4)) == Color::Black);
    CHECK(stage_of(b5, Ruleset::Brainking, b4_hole) == Stage::Play);
    CHECK(stage_of(b5, Ruleset::Any, b4_hole) == Stage::OneHole);
    CHECK(stage_of(b5, b4_hole) == Stage::OneHole);
    for (const auto& mc : legal_moves(b5, Ruleset::Brainking, b4_hole))
        CHECK(!mc.move.is_removal());
    // The full board: Black's removals; with White to move it is played by jumps (none).
    CHECK(stage_of(b5, Ruleset::Brainking, b5.start()) == Stage::FullBoard);
    CHECK(legal_moves(b5, Ruleset::Brainking, Position{b5.all, Color::White}).empty());
}

TEST_CASE("cli: solve --wdl and openings --search", "[proof][cli]") {
    using nlohmann::json;
    {
        const Run r = run("solve 'xox. w' --wdl --json -q");
        INFO(r.out);
        REQUIRE(r.code == 0);
        const json j = json::parse(r.out);
        CHECK(j["value"] == "win");
        CHECK(j["winning_move"] == "b1-d1");
        CHECK(j["game"] == "jumps");
    }
    {
        // The exact search plays the same game (no longer "loss, no move").
        const Run r = run("solve 'xox. w' --json");
        INFO(r.out);
        REQUIRE(r.code == 0);
        const json j = json::parse(r.out);
        CHECK(j["value"] == "win");
        CHECK(j["depth"] == 1);
        CHECK(j["game"] == "jumps");
    }
    {
        const Run r = run("solve 'xo.o w' --wdl --both -q");
        INFO(r.out);
        REQUIRE(r.code == 0);
        CHECK(r.out.find("White to move: opening: White removes a piece next to the hole") !=
              std::string::npos);
        CHECK(r.out.find("Black to move: jumps") != std::string::npos);
    }
    {
        const Run r = run("solve '.oxox. b' --wdl --both --json -q");
        INFO(r.out);
        REQUIRE(r.code == 0);
        const json j = json::parse(r.out);
        CHECK(j["outcome"] == "second");
        CHECK(j["black_starts"]["game"] == "jumps");
    }
    {
        const Run r = run("openings --board 4x4 --search --json -q");
        INFO(r.out);
        REQUIRE(r.code == 0);
        const json j = json::parse(r.out);
        CHECK(j["winner"] == "white");
        CHECK(j["openings"].size() == 12);
    }
    {
        // Not decided within 100 nodes: said so, exit 1, no verdict.
        const Run r = run("solve 'xoxoxo/oxoxox/xoxoxo/oxoxox/..xoxo b' --wdl --max-nodes 100 -q");
        INFO(r.out);
        CHECK(r.code == 1);
        CHECK(r.out.find("not decided within 100 nodes") != std::string::npos);
    }
    {
        // Two threads (-j 2) give the same verdicts, and say so in the JSON.
        const Run r = run("openings --board 5x5 --search -j 2 --json -q");
        INFO(r.out);
        REQUIRE(r.code == 0);
        const json j = json::parse(r.out);
        CHECK(j["winner"] == "black");
        CHECK(j["threads"] == 2);
        const Run w = run("solve 'xoxoxo/oxoxox/xoxoxo/oxoxox/..xoxo b' --wdl -j 2 --json -q");
        INFO(w.out);
        REQUIRE(w.code == 0);
        const Run one = run("solve 'xoxoxo/oxoxox/xoxoxo/oxoxox/..xoxo b' --wdl --json -q");
        REQUIRE(one.code == 0);
        CHECK(json::parse(w.out)["value"] == json::parse(one.out)["value"]);
        CHECK(json::parse(w.out)["search"]["threads"] == 2);
        CHECK(run("openings --board 4x4 --search -j 0").code == 2);
        CHECK(run("openings --board 4x4 --search --plain -j 2").code == 2);
    }
    {
        const Run r = run("solve 'xox. w' --max-nodes 100");
        CHECK(r.code == 2);
        const Run o = run("openings --search");
        CHECK(o.code == 2);
    }
}

TEST_CASE("proof: threads sharing one transposition table agree with the table",
          "[proof][concurrency]") {
    // A small table (64 KiB: 1,024 buckets) makes the threads replace each other's entries, so
    // that torn and overwritten entries are met; every answer must still equal the table's.
    for (const auto& [rows, cols] : {std::pair{5, 5}, std::pair{4, 6}}) {
        const Tablebase& tb = table(rows, cols, Ruleset::Brainking);
        const Board& b = tb.board();
        const ref::RefBoard rb(rows, cols);
        const Openings want = compute_openings(tb);
        // Df-pn on threads (the helpers run df-pn too) and beside alpha-beta helpers.
        for (const auto& [alg, parallel] :
             {std::pair{ProofAlgorithm::Enhanced, false}, std::pair{ProofAlgorithm::DfPn, true},
              std::pair{ProofAlgorithm::DfPn, false}}) {
            for (const int threads : {2, 3}) {
                INFO(b.name() << " threads " << threads << " df-pn "
                              << (alg == ProofAlgorithm::DfPn) << " parallel df-pn " << parallel);
                ProofOptions o = small_options(Ruleset::Brainking, alg);
                o.memory_bytes = std::size_t{64} << 10;
                o.threads = threads;
                o.parallel_dfpn = parallel;
                ProofSearch s(b, o);
                const SearchedOpenings got = search_openings(s);
                REQUIRE(got.lines.size() == want.lines.size());
                for (std::size_t i = 0; i < want.lines.size(); ++i)
                    CHECK(got.lines[i].winner == want.lines[i].winner);
                CHECK(got.winner == want.winner);
                int checked = 0;
                for (const ref::RefPos& rp : ref::random_positions(
                         rb, ref::rules_of(Ruleset::Brainking), 20, 77u + threads)) {
                    const Position p = ref::to_core(rb, rp);
                    const auto v = tb.value(p);
                    REQUIRE(v.has_value());
                    INFO(format_position(b, p));
                    const ProofResult r = s.solve(p);
                    REQUIRE(r.win.has_value());
                    CHECK(*r.win == v->win);
                    CHECK(r.win.value() == r.winning_move.has_value());
                    if (r.winning_move) {
                        const auto child = tb.value(r.winning_move->child);
                        REQUIRE(child.has_value());
                        CHECK(!child->win);
                    }
                    ++checked;
                }
                CHECK(checked > 50);
            }
        }
    }
}

TEST_CASE("proof: df-pn on two threads equals the tables on thousands of positions",
          "[proof][dfpn][concurrency]") {
    // df-pn's helpers run df-pn too (ProofOptions::parallel_dfpn): every opening of the
    // boards the tests tabulate, both sides to move in positions from random games, and every
    // opening of 5x6 and 6x5 against their published winners.
    int checked = 0;
    for (const auto& [rows, cols] :
         {std::pair{4, 5}, std::pair{5, 4}, std::pair{5, 5}, std::pair{4, 6}, std::pair{6, 4}}) {
        const Tablebase& tb = table(rows, cols, Ruleset::Brainking);
        const Board& b = tb.board();
        const ref::RefBoard rb(rows, cols);
        INFO(b.name());
        ProofOptions o = small_options(Ruleset::Brainking, ProofAlgorithm::DfPn);
        o.threads = 2;
        o.parallel_dfpn = true;
        ProofSearch s(b, o);
        const Openings want = compute_openings(tb);
        const SearchedOpenings got = search_openings(s);
        REQUIRE(got.lines.size() == want.lines.size());
        for (std::size_t i = 0; i < want.lines.size(); ++i)
            CHECK(got.lines[i].winner == want.lines[i].winner);
        for (const ref::RefPos& rp :
             ref::random_positions(rb, ref::rules_of(Ruleset::Brainking), 60, 5u + cols)) {
            for (const Color side : {Color::Black, Color::White}) {
                Position p = ref::to_core(rb, rp);
                p.to_move = side;
                const auto v = tb.value(p);
                if (!v) continue;  // a position the table does not hold (not reachable so)
                INFO(format_position(b, p));
                s.clear();  // each position searched from an empty table: no answer is given
                const ProofResult r = s.solve(p);
                REQUIRE(r.win.has_value());
                CHECK(*r.win == v->win);
                if (r.winning_move) {
                    const auto child = tb.value(r.winning_move->child);
                    REQUIRE(child.has_value());
                    CHECK(!child->win);
                }
                ++checked;
            }
        }
    }
    CHECK(checked > 2000);
    for (const std::string name : {"5x6", "6x5"}) {
        const Board b = Board::parse(name);
        ProofOptions o = small_options(Ruleset::Brainking, ProofAlgorithm::DfPn);
        o.threads = 2;
        o.parallel_dfpn = true;
        o.memory_bytes = std::size_t{32} << 20;
        ProofSearch s(b, o);
        check_five_by_six(name, search_openings(s));
    }
}

TEST_CASE("proof: two searches sharing one table of proven values run at once",
          "[proof][concurrency]") {
    const Tablebase& tb = table(5, 5, Ruleset::Brainking);
    const Board& b = tb.board();
    const ref::RefBoard rb(5, 5);
    const Openings want = compute_openings(tb);
    // What one search proves, the other finds without a node.
    {
        ProofSearch first(b, small_options());
        ProofSearch second(first, small_options(Ruleset::Brainking, ProofAlgorithm::DfPn));
        CHECK(second.table_bytes() == first.table_bytes());
        const Position p = start_positions(b, Opening(Ruleset::Brainking)).front();
        const ProofResult r = first.solve(p);
        REQUIRE(r.win.has_value());
        const auto found = second.proven(p);
        REQUIRE(found.has_value());
        CHECK(*found == *r.win);
    }
    // A search of another ruleset or game would read values of another game: refused.
    {
        ProofSearch first(b, small_options());
        CHECK_THROWS_AS(ProofSearch(first, small_options(Ruleset::Any)), std::invalid_argument);
        ProofOptions jumps = small_options();
        jumps.jumps_only = true;
        CHECK_THROWS_AS(ProofSearch(first, jumps), std::invalid_argument);
    }
    // Two searches at once (alpha-beta and df-pn) in a 1 MiB table (16,384 buckets), where
    // each replaces some of the other's entries: every answer equals the table's. (Far smaller,
    // df-pn thrashes, its proven children replaced by the other search's as fast as it finds
    // them, as it does alone in a table far too small; the node limit turns that into a
    // failure rather than a hang.)
    ProofOptions o = small_options();
    o.memory_bytes = std::size_t{1} << 20;
    ProofSearch holder(b, o);
    std::vector<std::vector<std::string>> wrong(2);
    std::vector<int> checked(2, 0);
    auto run = [&](int i) {
        ProofOptions so = small_options(Ruleset::Brainking,
                                        i == 0 ? ProofAlgorithm::Enhanced : ProofAlgorithm::DfPn);
        so.max_nodes = 20'000'000;
        ProofSearch s(holder, so);
        const SearchedOpenings got = search_openings(s);
        if (got.lines.size() != want.lines.size()) wrong[i].push_back("openings");
        for (std::size_t k = 0; k < want.lines.size() && k < got.lines.size(); ++k) {
            if (got.lines[k].winner != want.lines[k].winner) wrong[i].push_back("opening");
        }
        for (const ref::RefPos& rp :
             ref::random_positions(rb, ref::rules_of(Ruleset::Brainking), 30, 11u + i)) {
            const Position p = ref::to_core(rb, rp);
            const auto v = tb.value(p);
            const ProofResult r = s.solve(p);
            if (!v || !r.win || *r.win != v->win) wrong[i].push_back(format_position(b, p));
            ++checked[i];
        }
    };
    std::thread other(run, 1);
    run(0);
    other.join();
    for (int i = 0; i < 2; ++i) {
        INFO("search " << i);
        CHECK(wrong[i].empty());
        CHECK(checked[i] > 50);
    }
}

TEST_CASE("proof: threads stop together at the node limit, leaving nothing false",
          "[proof][concurrency]") {
    const Tablebase& tb = table(5, 5, Ruleset::Brainking);
    const Board& b = tb.board();
    ProofOptions o = small_options();
    o.threads = 2;
    o.max_nodes = 50;
    ProofSearch s(b, o);
    const Openings want = compute_openings(tb);
    const std::vector<Position> starts = start_positions(b, Opening(Ruleset::Brainking));
    REQUIRE(starts.size() == want.lines.size());
    int undecided = 0;
    for (const Position& p : starts) {
        const ProofResult r = s.solve(p);
        if (!r.win) {
            ++undecided;
            CHECK(!r.winning_move);
        }
    }
    CHECK(undecided > 0);  // 50 nodes do not decide every 5x5 opening
    // What the stopped searches stored is true: without a limit every opening is right.
    s.set_max_nodes(0);
    for (std::size_t i = 0; i < starts.size(); ++i) {
        const ProofResult r = s.solve(starts[i]);
        REQUIRE(r.win.has_value());
        CHECK((*r.win ? Color::Black : Color::White) == want.lines[i].winner);
    }
}

TEST_CASE("proof search: a time limit and a stop flag end a search undecided", "[proof]") {
    const Board b = Board::make(8, 8);
    Position p = parse_move(b, Ruleset::Brainking, b.start(), "d5").child;
    p = parse_move(b, Ruleset::Brainking, p, "d4").child;
    ProofOptions o;
    o.memory_bytes = std::size_t{4} << 20;
    o.max_seconds = 0.2;
    ProofSearch s(b, o);
    const auto t0 = std::chrono::steady_clock::now();
    const ProofResult r = s.solve(p);
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK_FALSE(r.win.has_value());
    CHECK(r.nodes > 0);
    CHECK(took < 5);  // far above 0.2 s: the limit took effect (not a timing measurement)
    std::atomic<bool> stop{true};
    s.set_max_seconds(0);
    s.set_stop(&stop);
    const ProofResult r2 = s.solve(p);
    CHECK_FALSE(r2.win.has_value());
    CHECK(r2.nodes <= 4096 + 1);
}
