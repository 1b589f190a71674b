// The query layer (query/): a memory budget turned into a position limit, a table checked against
// the board and ruleset, the proof answer (checked against the plain reference search of
// tests/reference.hpp, both sides to move) and the value answer (its regions sum to its value).
#include <stdexcept>
#include <string>

#include <catch2/catch.hpp>

#include "cgt/konane.hpp"
#include "core/movegen.hpp"
#include "core/notation.hpp"
#include "core/outcome.hpp"
#include "query/budget.hpp"
#include "query/move.hpp"
#include "query/proof.hpp"
#include "query/tables.hpp"
#include "query/value.hpp"
#include "search/proof.hpp"
#include "tests/reference.hpp"
#include "tests/table_fixture.hpp"

namespace {

using namespace konane;
using namespace konane::test;

}  // namespace

TEST_CASE("query: a memory budget gives the smaller of its limit and the asked one", "[query]") {
    const query::PositionBudget by_memory = query::position_budget(6400, 0, 64, "--memory");
    CHECK(by_memory.by_memory == 100);
    CHECK(by_memory.positions == 100);
    CHECK(by_memory.memory_binds);
    CHECK(by_memory.memory_note() == "the memory budget 0 MiB allows that many");
    CHECK(by_memory.limit_reason("--memory", "--max-nodes") ==
          "the memory budget 0 MiB allows that many; --memory");
    const query::PositionBudget asked = query::position_budget(6400, 30, 64, "--memory");
    CHECK(asked.positions == 30);
    CHECK_FALSE(asked.memory_binds);
    CHECK(asked.limit_reason("--memory", "--max-nodes") == "--max-nodes");
    CHECK(query::position_budget(6400, 500, 64, "m").positions == 100);
    REQUIRE_THROWS_WITH(query::position_budget(63, 0, 64, "memory="),
                        Catch::Contains("memory=") && Catch::Contains("too small") &&
                            Catch::Contains("64 bytes a position"));
    // The valuer's games: four a position, at least 1,024.
    CHECK(query::value_options(by_memory).max_games == 1024);
    CHECK(query::value_options(query::position_budget(512 << 20, 0, 512, "m")).max_games ==
          4 * (1u << 20));
}

TEST_CASE("query: a table is checked against the board and the ruleset once", "[query]") {
    const Tablebase& tb = table(4, 4, Ruleset::Brainking);
    CHECK(query::table_rules(tb, "t.kbt", Board::make(4, 4), std::nullopt, "--rules ") ==
          Ruleset::Brainking);
    CHECK(query::table_rules(tb, "t.kbt", Board::make(4, 4), Ruleset::Brainking, "--rules ") ==
          Ruleset::Brainking);
    REQUIRE_THROWS_WITH(
        query::table_rules(tb, "t.kbt", Board::make(4, 5), std::nullopt, "--rules "),
        "the position is for a 4x5 board, the table t.kbt is for a 4x4 board");
    REQUIRE_THROWS_WITH(
        query::table_rules(tb, "t.kbt", Board::make(4, 4), Ruleset::Center, "rules="),
        "rules=center differs from the table's ruleset brainking");
}

TEST_CASE("query: the proof answer equals the reference search, with each side to move",
          "[query]") {
    const Board b = Board::make(4, 5);
    const ref::RefBoard rb(4, 5);
    ProofOptions o;
    o.memory_bytes = std::size_t{4} << 20;
    ProofSearch s(b, o);
    int checked = 0;
    for (const ref::RefPos& rp : ref::random_positions(rb, ref::Rules::Brainking, 12, 77)) {
        const Position p = ref::to_core(rb, rp);
        if (in_opening(b, Ruleset::Brainking, p)) continue;  // removals: both sides differ
        INFO(format_position(b, p));
        ref::RefPos black = rp, white = rp;
        black.side = 'b';
        white.side = 'w';
        const bool black_wins = ref::solve(rb, black).win, white_wins = ref::solve(rb, white).win;
        const query::ProofAnswer one = query::prove(s, p, false);
        REQUIRE(one.decided());
        CHECK(*one.win == ref::solve(rb, rp).win);
        CHECK_FALSE(one.both);
        CHECK_FALSE(one.outcome);
        if (one.winning_move) {
            // The winning move leaves the opponent a loss.
            CHECK_FALSE(
                ref::solve(rb, ref::apply(rb, rp, ref::move_from_core(rb, *one.winning_move))).win);
        }
        CHECK(one.win == one.winning_move.has_value());
        std::vector<std::string> labels;
        const query::ProofAnswer both =
            query::prove(s, p, true, [&](std::string_view l) { labels.emplace_back(l); });
        REQUIRE(both.decided());
        CHECK(*both.black_starts == black_wins);
        CHECK(*both.white_starts == white_wins);
        REQUIRE(both.outcome);
        CHECK(*both.outcome == outcome_of(Value{black_wins, 0}, Value{white_wins, 0}));
        // Only the other side is searched again, and labelled.
        REQUIRE(labels.size() == 1);
        CHECK(labels[0] == (p.to_move == Color::Black ? " white starts" : " black starts"));
        ++checked;
    }
    CHECK(checked > 50);
}

TEST_CASE("query: an undecided proof answer says so", "[query]") {
    const Board b = Board::make(6, 6);
    ProofOptions o;
    o.memory_bytes = std::size_t{4} << 20;
    o.max_nodes = 10;
    ProofSearch s(b, o);
    const Position p = parse_position("xoxoxo/oxoxox/xo.oxo/oxoxox/xox.xo/oxoxox b").position;
    const query::ProofAnswer a = query::prove(s, p, true);
    CHECK_FALSE(a.decided());
    CHECK_FALSE(a.outcome);
    CHECK(a.nodes > 0);
}

TEST_CASE("query: the value answer's regions sum to its value, and a limit names its reason",
          "[query]") {
    // Two blocks of pieces in opposite corners of 8x8 (ranks 1-2, files a-c; ranks 7-8, files
    // f-h): two regions that never meet.
    const Board b = Board::make(8, 8);
    std::uint64_t mask = 0;
    for (const int s : {0, 1, 2, 8, 9, 10, 53, 54, 55, 61, 62, 63})
        mask |= std::uint64_t{1} << s;
    const ParsedPosition parsed{b, Position{b.start().occ & mask, Color::Black}};
    const query::PositionBudget budget =
        query::position_budget(std::size_t{64} << 20, 0, cgt::kValueBytesPerPosition, "--memory");
    cgt::GameStore store;
    cgt::Valuer v(b, store, query::value_options(budget));
    const query::ValueAnswer a =
        query::value_answer(v, parsed.position.occ, budget, "--memory", "--max-nodes");
    REQUIRE(a.regions.size() >= 2);
    cgt::GameId sum = store.zero();
    for (const auto& [r, rv] : a.regions)
        sum = store.add(sum, rv);
    CHECK(store.format(sum) == store.format(a.value));
    CHECK(a.outcome == store.outcome(a.value));
    CHECK(a.positions == v.positions());
    CHECK(a.games > 0);

    query::PositionBudget tiny =
        query::position_budget(1 << 20, 1, cgt::kValueBytesPerPosition, "--memory");
    cgt::GameStore store2;
    cgt::Valuer v2(b, store2, query::value_options(tiny));
    REQUIRE_THROWS_WITH(
        query::value_answer(v2, parsed.position.occ, tiny, "--memory", "--max-nodes"),
        Catch::StartsWith("value not computed within 1 position") &&
            Catch::EndsWith("(--max-nodes)"));
}

TEST_CASE("query: the engine's move with a table is the table's perfect move, under its ruleset",
          "[query]") {
    const Tablebase& tb = table(4, 5, Ruleset::Brainking);
    const Board& b = tb.board();
    int checked = 0;
    for (const ref::RefPos& rp :
         ref::random_positions(ref::RefBoard(4, 5), ref::Rules::Brainking, 6, 4545)) {
        const Position p = ref::to_core(ref::RefBoard(4, 5), rp);
        const auto v = tb.value(p);
        if (!v || legal_moves(b, Ruleset::Brainking, p).size() < 2) continue;
        query::MoveRequest r;
        r.board = b;
        r.position = p;
        r.options.table = tb;
        r.options.rules = Ruleset::Any;  // the table's ruleset holds
        r.options.memory_bytes = std::size_t{4} << 20;
        r.limits.nodes = 1000;
        const auto d = query::best_move(r);
        REQUIRE(d.has_value());
        INFO(format_position(b, p) << " " << format_move(b, d->move.move));
        CHECK(d->source == engine::Source::Table);
        // The move keeps the table's value: a win is played by a winning move.
        const auto after = tb.value(d->move.child);
        REQUIRE(after.has_value());
        if (v->win) CHECK_FALSE(after->win);
        ++checked;
    }
    CHECK(checked > 20);
    // A ruleset asked that differs from the table's, and a table of another board, are named.
    query::MoveRequest r;
    r.board = b;
    r.position = b.start();
    r.options.table = tb;
    r.options.memory_bytes = std::size_t{4} << 20;
    r.asked_rules = Ruleset::Center;
    r.table_name = "t.kbt";
    REQUIRE_THROWS_WITH(query::best_move(r), Catch::Contains("--rules center differs from the "
                                                             "table's ruleset brainking"));
    r.asked_rules.reset();
    r.board = Board::make(5, 4);
    r.position = r.board.start();
    REQUIRE_THROWS_WITH(query::best_move(r), Catch::Contains("the table t.kbt is for a 4x5"));
}
