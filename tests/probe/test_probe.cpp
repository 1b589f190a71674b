// The probe library, the search and the `konane probe/analyse/solve` commands.
// Every value is checked against the plain reference engine of tests/reference.hpp.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/notation.hpp"
#include "probe/openings.hpp"
#include "probe/probe.hpp"
#include "search/search.hpp"
#include "solver/solve.hpp"
#include "tests/cli_helpers.hpp"
#include "tests/reference.hpp"
#include "tests/table_fixture.hpp"

namespace {

using namespace konane;
using namespace konane::test;
namespace fs = std::filesystem;

/// Scale of the randomised checks: smaller under ThreadSanitizer (5-15x slower).
constexpr int kGames = kTsan ? 6 : 40;

struct TableSpec {
    int rows, cols;
    Ruleset rules;
};

/// The boards checked against the reference. Under ThreadSanitizer the larger ones are left out.
std::vector<TableSpec> table_specs() {
    std::vector<TableSpec> out;
    for (Ruleset r : {Ruleset::Brainking, Ruleset::Center, Ruleset::Any}) {
        out.push_back({3, 4, r});
        out.push_back({4, 4, r});
        if (!kTsan) out.push_back({4, 5, r});
    }
    if (!kTsan) {
        out.push_back({5, 4, Ruleset::Brainking});
        out.push_back({5, 5, Ruleset::Brainking});
    }
    return out;
}

/// Distinct positions met on random games from the full board (opening stage included).
std::vector<ref::RefPos> sample(const ref::RefBoard& rb, ref::Rules rules, int games,
                                std::uint64_t seed) {
    std::vector<ref::RefPos> out;
    std::set<std::string> seen;
    for (const auto& p : ref::random_positions(rb, rules, games, seed)) {
        if (seen.insert(ref::to_text(rb, p)).second) out.push_back(p);
    }
    return out;
}

std::string spec_name(const TableSpec& s) {
    return std::to_string(s.rows) + "x" + std::to_string(s.cols) + " " + ruleset_name(s.rules);
}

/// The position after playing `line` from p, checking each move is legal.
Position play(const Board& b, Ruleset r, Position p, const std::vector<MoveValue>& line) {
    for (const auto& mv : line) {
        const auto legal = legal_moves(b, r, p);
        const auto it = std::find_if(legal.begin(), legal.end(),
                                     [&](const MoveChild& mc) { return mc.move == mv.move; });
        REQUIRE(it != legal.end());
        REQUIRE(it->child == mv.child);
        p = it->child;
    }
    return p;
}

}  // namespace

TEST_CASE("probe: values and depths and moves equal the reference on random positions", "[probe]") {
    for (const TableSpec& spec : table_specs()) {
        INFO(spec_name(spec));
        const auto t0 = std::chrono::steady_clock::now();
        const Tablebase& tb = table(spec.rows, spec.cols, spec.rules);
        const auto t1 = std::chrono::steady_clock::now();
        const Board& b = tb.board();
        const ref::RefBoard rb(spec.rows, spec.cols);
        const ref::Rules rr = ref::rules_of(spec.rules);
        ref::RefMemo memo(rb, rr);
        const auto positions = sample(rb, rr, kGames, 1000 + spec.rows * 10 + spec.cols);
        int opening = 0;
        for (const auto& rp : positions) {
            const Position p = ref::to_core(rb, rp);
            INFO(ref::to_text(rb, rp));
            if (stage_of(b, p) != Stage::Play) ++opening;
            const ref::RefValue want = ref::solve(rp, memo);
            const auto got = tb.value(p);
            REQUIRE(got.has_value());
            CHECK(got->win == want.win);
            CHECK(got->depth == want.depth);
            if (stage_of(b, p) == Stage::Play) CHECK(tb.lookup(p) == got);

            // Every move with its value for the mover, depth counted from before the move.
            const auto mvs = tb.moves(p);
            const auto ref_moves = ref::moves(rb, rr, rp);
            REQUIRE(mvs.size() == ref_moves.size());
            std::map<std::tuple<int, int, int, int>, ref::RefValue> expect;
            for (const auto& m : ref_moves) {
                const ref::RefValue c = ref::solve(ref::apply(rb, rp, m), memo);
                expect[{m.from_row, m.from_col, m.to_row, m.to_col}] = {!c.win, c.depth + 1};
            }
            for (const auto& mv : mvs) {
                const ref::RefMove m = ref::move_from_core(rb, mv.move);
                const auto it = expect.find({m.from_row, m.from_col, m.to_row, m.to_col});
                REQUIRE(it != expect.end());
                CHECK(mv.value.win == it->second.win);
                CHECK(mv.value.depth == it->second.depth);
                CHECK(mv.child == ref::to_core(rb, ref::apply(rb, rp, m)));
            }
            // The perfect move's value is the position's.
            const auto best = tb.best_move(p);
            if (want.depth == 0) {
                CHECK_FALSE(best.has_value());
            } else {
                REQUIRE(best.has_value());
                CHECK(best->value == *got);
            }
        }
        CHECK(opening >= 2);  // the full board and at least one one-hole board
        if (std::getenv("KONANE_TEST_TIMES")) {
            const auto t2 = std::chrono::steady_clock::now();
            std::fprintf(stderr, "%s: table %.2f s, reference check %.2f s\n",
                         spec_name(spec).c_str(), std::chrono::duration<double>(t1 - t0).count(),
                         std::chrono::duration<double>(t2 - t1).count());
        }
    }
}

TEST_CASE("probe: the perfect line lasts exactly the stated depth and ends with the loser to move",
          "[probe]") {
    for (const TableSpec& spec : table_specs()) {
        INFO(spec_name(spec));
        const Tablebase& tb = table(spec.rows, spec.cols, spec.rules);
        const Board& b = tb.board();
        const ref::RefBoard rb(spec.rows, spec.cols);
        const auto positions = sample(rb, ref::rules_of(spec.rules), kGames / 2, 77 + spec.cols);
        int wins = 0, losses = 0;
        for (const auto& rp : positions) {
            const Position p = ref::to_core(rb, rp);
            INFO(format_position(b, p));
            const auto v = tb.value(p);
            REQUIRE(v.has_value());
            const auto line = tb.perfect_line(p);
            CHECK(static_cast<int>(line.size()) == v->depth);
            for (std::size_t i = 0; i < line.size(); ++i) {
                CHECK(line[i].value.depth == v->depth - static_cast<int>(i));
                // Along a perfect line the winner stays the winner.
                CHECK(line[i].value.win == (v->win == (i % 2 == 0)));
            }
            const Position end = play(b, tb.rules(), p, line);
            CHECK(legal_moves(b, tb.rules(), end).empty());
            const Color loser = v->win ? other(p.to_move) : p.to_move;
            CHECK(end.to_move == loser);
            (v->win ? wins : losses) += 1;
        }
        CHECK(wins > 0);
        CHECK(losses > 0);
    }
}

TEST_CASE("probe: opening positions and positions not stored", "[probe]") {
    const Tablebase& tb = table(4, 4, Ruleset::Brainking);
    const Board& b = tb.board();
    // rules.md: White wins 4x4 under brainking.
    const auto start = tb.value(b.start());
    REQUIRE(start.has_value());
    CHECK_FALSE(start->win);
    const Openings o = compute_openings(tb);
    CHECK(o.winner == Color::White);
    CHECK(o.lines.size() >= 4);

    // A one-hole board whose hole is no legal removal under brainking (a White square) is not
    // stored; so is a full board with White to move, and a position off the board.
    const int b4 = b.square(1, 4);
    REQUIRE(b.color_of(b4) == Color::White);
    CHECK_FALSE(tb.value(Position{b.all & ~(std::uint64_t{1} << b4), Color::White}).has_value());
    CHECK_THROWS_AS(tb.moves(Position{b.all & ~(std::uint64_t{1} << b4), Color::White}), NotStored);
    CHECK_FALSE(tb.value(Position{b.all, Color::White}).has_value());
    CHECK_FALSE(tb.lookup(Position{std::uint64_t{1} << 20, Color::Black}).has_value());

    // Positions the reference says are unreachable (in every symmetric form) are not stored.
    const ref::RefBoard rb(4, 4);
    const auto reach = ref::enumerate_reachable(rb, ref::Rules::Brainking);
    const auto syms = ref::symmetries(rb);
    std::set<std::pair<std::uint64_t, char>> classes;
    for (const auto& k : reach.raw) {
        const auto c = ref::class_key(rb, syms, ref::pos_of(rb, k));
        classes.insert({c.occ, c.side});
    }
    std::mt19937_64 rng(5);
    int unreachable = 0, stored = 0;
    for (int i = 0; i < 3000; ++i) {
        const Position p{rng() & b.all, (rng() & 1) ? Color::White : Color::Black};
        if (stage_of(b, p) != Stage::Play) continue;
        const auto c = ref::class_key(rb, syms, ref::from_core(rb, p));
        const bool reachable = classes.count({c.occ, c.side}) > 0;
        const auto v = tb.lookup(p);
        if (reachable) {
            ++stored;
            REQUIRE(v.has_value());
        } else {
            ++unreachable;
            CHECK_FALSE(v.has_value());
            if (!v) CHECK_THROWS_AS(tb.moves(p), NotStored);
        }
    }
    CHECK(unreachable > 100);
}

TEST_CASE("probe: many threads probing one table get one thread's answers",
          "[probe][concurrency]") {
    const int rows = kTsan ? 4 : 5, cols = 5;
    const Tablebase& tb = table(rows, cols, Ruleset::Brainking);
    const ref::RefBoard rb(rows, cols);
    std::vector<Position> positions;
    for (const auto& rp : sample(rb, ref::Rules::Brainking, kTsan ? 60 : 200, 99)) {
        positions.push_back(ref::to_core(rb, rp));
    }
    struct Answer {
        Value value;
        std::optional<Move> best;
        std::vector<int> depths;
    };
    auto answer = [](const Tablebase& t, Position p) {
        Answer a;
        a.value = *t.value(p);
        const auto mvs = t.moves(p);
        for (const auto& mv : mvs)
            a.depths.push_back(mv.value.depth);
        if (const auto best = pick_best(mvs)) a.best = best->move;
        return a;
    };
    std::vector<Answer> single;
    for (const Position p : positions)
        single.push_back(answer(tb, p));

    // A fresh handle too, so the first decodes of blocks and hashes race among the threads.
    const Tablebase fresh = Tablebase::open(table_file(rows, cols, Ruleset::Brainking));
    constexpr int kThreads = 8;
    const int rounds = kTsan ? 3 : 6;
    std::atomic<long> mismatches{0}, probes{0}, errors{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            const Tablebase& use = (t % 2) ? fresh : tb;
            std::mt19937 rng(t);
            std::vector<std::size_t> order(positions.size());
            for (std::size_t i = 0; i < order.size(); ++i)
                order[i] = i;
            try {
                for (int r = 0; r < rounds; ++r) {
                    std::shuffle(order.begin(), order.end(), rng);
                    for (const std::size_t i : order) {
                        const Answer a = answer(use, positions[i]);
                        const Answer& s = single[i];
                        if (!(a.value == s.value) || a.best != s.best || a.depths != s.depths) {
                            ++mismatches;
                        }
                        ++probes;
                    }
                }
            } catch (...) {
                ++errors;
            }
        });
    }
    for (auto& th : threads)
        th.join();
    CHECK(errors == 0);
    CHECK(mismatches == 0);
    CHECK(probes == static_cast<long>(kThreads * rounds * positions.size()));
}

TEST_CASE("search: rules.md's linear facts", "[probe]") {
    auto outcome = [](const std::string& text) {
        const auto pp = parse_position(text);
        Searcher s(pp.board);
        return outcome_of(s.value(Position{pp.position.occ, Color::Black}),
                          s.value(Position{pp.position.occ, Color::White}));
    };
    CHECK(outcome("xo.. b") == Outcome::Black);
    CHECK(outcome(".ox. b") == Outcome::First);
    // One empty square, n alternating pieces starting with White, one empty square.
    for (int n = 2; n <= 6; ++n) {
        std::string row = ".";
        for (int i = 0; i < n; ++i)
            row += (i % 2 == 0) ? 'o' : 'x';
        row += ". b";
        INFO(row);
        const Outcome want = n % 2 == 1   ? Outcome::Black
                             : n % 4 == 0 ? Outcome::Second
                                          : Outcome::First;
        CHECK(outcome(row) == want);
    }
    // An 8-square row with n = 6.
    CHECK(outcome(".oxoxox. b") == Outcome::First);
    CHECK(std::string(outcome_name(Outcome::Second)) == "second");
}

TEST_CASE("search: agrees with the reference on any position and with the tables", "[probe]") {
    // Arbitrary (mostly unreachable) positions on boards with and without tables.
    for (const auto& [rows, cols] :
         {std::pair{1, 8}, std::pair{2, 5}, std::pair{3, 4}, std::pair{4, 4}}) {
        INFO(rows << "x" << cols);
        const Board b = Board::make(rows, cols);
        const ref::RefBoard rb(rows, cols);
        ref::RefMemo memo(rb, ref::Rules::Brainking);
        Searcher plain(b);
        std::optional<Searcher> with_table;
        if ((rows == 3 && cols == 4) || rows == 4) {
            with_table.emplace(b, SearchOptions{}, table(rows, cols, Ruleset::Brainking));
        }
        std::mt19937_64 rng(rows * 31 + cols);
        for (int i = 0; i < (kTsan ? 100 : 400); ++i) {
            const Position p{rng() & rng() & b.all | (rng() & b.all & (i % 3 ? b.all : 0)),
                             (rng() & 1) ? Color::White : Color::Black};
            const ref::RefPos rp = ref::from_core(rb, p);
            INFO(ref::to_text(rb, rp));
            const ref::RefValue want = ref::solve(rp, memo);
            const Value got = plain.value(p);
            CHECK(got.win == want.win);
            CHECK(got.depth == want.depth);
            if (with_table) CHECK(with_table->value(p) == got);
            const auto line = plain.perfect_line(p);
            CHECK(static_cast<int>(line.size()) == want.depth);
        }
        if (with_table) {
            // The search met stored positions and took their values.
            CHECK(with_table->table_hits() > 0);
        }
    }
    // On the tables' own positions (opening stage included) the search gives the table's
    // values, moves and perfect move.
    for (const TableSpec& spec :
         {TableSpec{4, 4, Ruleset::Any}, TableSpec{3, 4, Ruleset::Center}}) {
        const Tablebase& tb = table(spec.rows, spec.cols, spec.rules);
        SearchOptions o;
        o.rules = spec.rules;
        Searcher s(tb.board(), o);
        const ref::RefBoard rb(spec.rows, spec.cols);
        for (const auto& rp : sample(rb, ref::rules_of(spec.rules), kGames / 2, 3)) {
            const Position p = ref::to_core(rb, rp);
            CHECK(s.value(p) == *tb.value(p));
            const auto a = s.moves(p), t = tb.moves(p);
            REQUIRE(a.size() == t.size());
            for (std::size_t i = 0; i < a.size(); ++i) {
                CHECK(a[i].move == t[i].move);
                CHECK(a[i].value == t[i].value);
            }
        }
    }
    // A table of another board is refused, naming both sizes.
    CHECK_THROWS_WITH(Searcher(Board::make(3, 3), SearchOptions{}, table(4, 4, Ruleset::Brainking)),
                      Catch::Contains("4x4") && Catch::Contains("3x3"));
    // jumps_only: the full board and one-hole boards are played with jumps (no move: LOSS 0).
    SearchOptions jo;
    jo.jumps_only = true;
    Searcher sj(Board::make(4, 4), jo);
    CHECK(sj.value(Board::make(4, 4).start()) == Value{false, 0});
}

TEST_CASE("cli: probe and analyse and solve", "[probe][cli]") {
    const std::string file = table_file(4, 4, Ruleset::Brainking).string();
    const Tablebase& tb = table(4, 4, Ruleset::Brainking);
    const Board& b = tb.board();
    using nlohmann::json;

    SECTION("probe POSITION --json") {
        const std::string pos = "..xo/oxox/xoxo/oxox b";
        const auto r = run("probe " + quote(file) + " " + quote(pos) + " --json");
        REQUIRE(r.code == 0);
        const auto j = nlohmann::ordered_json::parse(r.out);
        std::vector<std::string> keys;
        for (const auto& [k, v] : j.items())
            keys.push_back(k);
        CHECK(keys == std::vector<std::string>{"position", "to_move", "value", "depth", "best",
                                               "moves", "line"});
        const Position p = parse_position(pos, &b).position;
        const Value v = *tb.value(p);
        CHECK(j["position"] == pos);
        CHECK(j["to_move"] == "black");
        CHECK(j["value"] == (v.win ? "win" : "loss"));
        CHECK(j["depth"] == v.depth);
        CHECK(j["best"] == format_move(b, tb.best_move(p)->move));
        CHECK(j["line"].size() == static_cast<std::size_t>(v.depth));
        const auto mvs = tb.moves(p);
        REQUIRE(j["moves"].size() == mvs.size());
        for (std::size_t i = 0; i < mvs.size(); ++i) {
            CHECK(j["moves"][i]["move"] == format_move(b, mvs[i].move));
            CHECK(j["moves"][i]["value"] == (mvs[i].value.win ? "win" : "loss"));
            CHECK(j["moves"][i]["depth"] == mvs[i].value.depth);
        }
    }
    SECTION("probe --game, the full board, a position without a move") {
        auto r = run("probe " + quote(file) + " --game 'a4 b4' --json");
        REQUIRE(r.code == 0);
        CHECK(json::parse(r.out)["position"] == "..xo/oxox/xoxo/oxox b");
        r = run("probe " + quote(file) + " --json");
        REQUIRE(r.code == 0);
        json j = json::parse(r.out);
        CHECK(j["value"] == "loss");  // White wins 4x4 (rules.md)
        CHECK(j["moves"].size() == 4);
        // The end of the perfect line: no move, "best": null.
        const Position end = play(b, tb.rules(), b.start(), tb.perfect_line(b.start()));
        r = run("probe " + quote(file) + " " + quote(format_position(b, end)) + " --json");
        REQUIRE(r.code == 0);
        j = json::parse(r.out);
        CHECK(j["best"].is_null());
        CHECK(j["depth"] == 0);
        CHECK(j["moves"].empty());
        r = run("probe " + quote(file) + " " + quote(format_position(b, end)));
        CHECK(r.code == 0);
        CHECK_THAT(r.out, Catch::Contains("no move"));
    }
    SECTION("probe: bad input and positions not stored") {
        auto r = run("probe " + quote(file) + " 'xoxo/oxox/xoqo/oxox b'");
        CHECK(r.code == 2);
        CHECK_THAT(r.out, Catch::Contains("'q'") && Catch::Contains("rank 2"));
        r = run("probe " + quote(file) + " '.ox/oxo/xox w'");
        CHECK(r.code == 2);
        CHECK_THAT(r.out, Catch::Contains("3x3") && Catch::Contains("4x4"));
        r = run("probe " + quote(file) + " --game 'a4 b4 a1-a3'");
        CHECK(r.code == 2);
        CHECK_THAT(r.out, Catch::Contains("move 3"));
        // A table that cannot be opened is an I/O error (exit 1), as for every subcommand.
        r = run("probe " + quote(file + ".missing") + " 'xoxo/oxox/xoxo/oxox b'");
        CHECK(r.code == 1);
        // The full board with White to move is no position of the game.
        r = run("probe " + quote(file) + " 'xoxo/oxox/xoxo/oxox w'");
        CHECK(r.code == 3);
        CHECK_THAT(r.out, Catch::Contains("not stored") && Catch::Contains("konane solve"));
        // One Black piece and Black to move: White made the last move, so no game reaches it.
        r = run("probe " + quote(file) + " 'x.../..../..../.... b' --json");
        CHECK(r.code == 3);
    }
    SECTION("analyse") {
        // A random game; the analysis must mark exactly the moves that threw a win away.
        std::mt19937_64 rng(11);
        Position p = b.start();
        std::string record;
        std::vector<int> mistakes;
        for (int ply = 1;; ++ply) {
            const auto mvs = tb.moves(p);
            if (mvs.empty()) break;
            const MoveValue& mv = mvs[rng() % mvs.size()];
            if (tb.value(p)->win && !mv.value.win) mistakes.push_back(ply);
            record += (record.empty() ? "" : " ") + format_move(b, mv.move);
            p = mv.child;
        }
        auto r = run("analyse " + quote(file) + " " + quote(record) + " --json");
        REQUIRE(r.code == 0);
        const json j = json::parse(r.out);
        CHECK(j["mistakes"] == json(mistakes));
        CHECK(j["turning_points"].size() == mistakes.size());
        CHECK(j["final"]["game_over"] == true);
        CHECK(j["moves"][0]["before"]["value"] == "loss");
        r = run("analyse " + quote(file) + " " + quote(record));
        CHECK(r.code == 0);
        CHECK_THAT(r.out, Catch::Contains("turning points"));
        r = run("analyse " + quote(file) + " 'a4 b4 zz'");
        CHECK(r.code == 2);
        CHECK_THAT(r.out, Catch::Contains("move 3"));
    }
    SECTION("solve") {
        auto r = run("solve '.oxox. b' --both --json");
        REQUIRE(r.code == 0);
        json j = json::parse(r.out);
        CHECK(j["outcome"] == "second");
        CHECK(j["value"] == "loss");
        CHECK(j["depth"] == 2);
        CHECK(j["line"].size() == 2);
        r = run("solve '.ox. w' --both --json");
        REQUIRE(r.code == 0);
        CHECK(json::parse(r.out)["outcome"] == "first");
        r = run("solve 'xo.. w' --both");
        REQUIRE(r.code == 0);
        CHECK_THAT(r.out, Catch::Contains("Black wins whoever starts"));
        // With a table: the same values as the table's.
        const std::string pos = "..xo/oxox/xoxo/oxox b";
        r = run("solve " + quote(pos) + " --table " + quote(file) + " --json");
        REQUIRE(r.code == 0);
        j = json::parse(r.out);
        CHECK(j["depth"] == tb.value(parse_position(pos).position)->depth);
        // Bad input.
        r = run("solve '.ox. b' --board 4x4");
        CHECK(r.code == 2);
        CHECK_THAT(r.out, Catch::Contains("1x4") && Catch::Contains("4x4"));
        r = run("solve '.ox. b' --table " + quote(file));
        CHECK(r.code == 2);
        CHECK_THAT(r.out, Catch::Contains("1x4") && Catch::Contains("4x4"));
        r = run("solve '.xo. b'");
        CHECK(r.code == 2);
        CHECK_THAT(r.out, Catch::Contains("rank 1") && Catch::Contains("file b"));
    }
}

namespace {

/// The symmetry classes reachable under a ruleset, by the reference enumeration (no code shared
/// with the solver): class keys of every raw position reached after both removals.
std::set<std::pair<std::uint64_t, char>> reachable_classes(const ref::RefBoard& rb, ref::Rules rr) {
    const auto syms = ref::symmetries(rb);
    std::set<std::pair<std::uint64_t, char>> out;
    for (const ref::RefKey& k : ref::enumerate_reachable(rb, rr).raw) {
        const ref::RefKey c = ref::class_key(rb, syms, ref::pos_of(rb, k));
        out.insert({c.occ, c.side});
    }
    return out;
}

}  // namespace

TEST_CASE("probe: every position of 4x4 and 3x5 is stored exactly when its class is reachable",
          "[probe]") {
    // 3x5 under `center`: Black has no central piece to remove, so there is no table.
    for (const auto& [rows, cols] : {std::pair{4, 4}, std::pair{3, 5}}) {
        for (Ruleset r : {Ruleset::Brainking, Ruleset::Center, Ruleset::Any}) {
            if (rows == 3 && r == Ruleset::Center) continue;
            const ref::RefBoard rb(rows, cols);
            const ref::Rules rr = ref::rules_of(r);
            INFO(rows << "x" << cols << " " << ruleset_name(r));
            const Tablebase& tb = table(rows, cols, r);
            const Board& b = tb.board();
            const auto classes = reachable_classes(rb, rr);
            const auto syms = ref::symmetries(rb);
            ref::RefMemo memo(rb, rr);
            std::uint64_t stored = 0, wrong_membership = 0, wrong_value = 0;
            for (std::uint64_t occ = 0; occ < (std::uint64_t{1} << b.squares()); ++occ) {
                for (Color side : {Color::Black, Color::White}) {
                    const Position p{occ, side};
                    const ref::RefPos rp = ref::from_core(rb, p);
                    const ref::RefKey c = ref::class_key(rb, syms, rp);
                    // The table holds the Play stage: the positions after both removals.
                    const bool want =
                        stage_of(b, p) == Stage::Play && classes.count({c.occ, c.side});
                    const auto got = tb.lookup(p);
                    if (got.has_value() != want) {
                        ++wrong_membership;
                        UNSCOPED_INFO("membership wrong: " << ref::to_text(rb, rp));
                        continue;
                    }
                    if (!got) continue;
                    ++stored;
                    const ref::RefValue v = ref::solve(rp, memo);
                    if (got->win != v.win || got->depth != v.depth) ++wrong_value;
                }
            }
            CHECK(wrong_membership == 0);
            CHECK(wrong_value == 0);
            CHECK(stored > 100);
        }
    }
}

TEST_CASE("cli: probe --batch answers every position of 3x5 in order", "[probe][cli]") {
    // The table read as --batch does by default (auto), mapped, and read into memory.
    const std::string load = GENERATE(as<std::string>{}, "", " --load map", " --load memory");
    INFO("load:" << load);
    const ref::RefBoard rb(3, 5);
    const Tablebase& tb = table(3, 5, Ruleset::Brainking);
    const Board& b = tb.board();
    const std::string file = table_file(3, 5, Ruleset::Brainking).string();
    // Every occupancy and side, and malformed lines among them.
    const fs::path in = fs::path(KONANE_TEST_TMPDIR) / ("batch-" + std::to_string(::getpid()));
    std::vector<std::string> lines;
    for (std::uint64_t occ = 0; occ < (std::uint64_t{1} << 15); ++occ)
        for (Color side : {Color::Black, Color::White})
            lines.push_back(format_position(b, Position{occ, side}));
    lines.insert(lines.begin() + 7, "not a position");
    lines.insert(lines.begin() + 1000, "..xo/oxox/xoxo/oxox b");  // another board
    lines.push_back("");
    {
        std::FILE* f = std::fopen(in.c_str(), "w");
        REQUIRE(f != nullptr);
        for (const auto& l : lines)
            std::fprintf(f, "%s\n", l.c_str());
        std::fclose(f);
    }
    const auto r = run("probe " + quote(file) + " --batch" + load + " < " + quote(in.string()));
    fs::remove(in);
    REQUIRE(r.code == 0);
    std::vector<nlohmann::json> out;
    std::size_t start = 0;
    while (start < r.out.size()) {
        const std::size_t nl = r.out.find('\n', start);
        REQUIRE(nl != std::string::npos);
        out.push_back(nlohmann::json::parse(r.out.substr(start, nl - start)));
        start = nl + 1;
    }
    REQUIRE(out.size() == lines.size());
    std::uint64_t stored = 0, wrong = 0, errors = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const auto& j = out[i];
        if (j.contains("error")) {
            ++errors;
            CHECK(j["position"] == lines[i]);
            continue;
        }
        const Position p = parse_position(lines[i], &b).position;
        CHECK(j["position"] == lines[i]);
        const auto v = tb.value(p);
        if (j["stored"] != v.has_value()) ++wrong;
        if (v) {
            ++stored;
            if (j["value"] != (v->win ? "win" : "loss") || j["depth"] != v->depth) ++wrong;
        }
    }
    CHECK(errors == 3);
    CHECK(wrong == 0);
    CHECK(stored > 100);
}

TEST_CASE("cli: --load takes map, memory or auto and answers alike", "[probe][cli][load]") {
    const std::string file = quote(table_file(4, 4, Ruleset::Brainking).string());
    const std::string pos = quote("..xo/oxox/xoxo/oxox b");
    const auto mapped = run("probe " + file + " " + pos + " --json --load map");
    REQUIRE(mapped.code == 0);
    for (const char* load : {"memory", "auto"}) {
        INFO(load);
        const auto r = run("probe " + file + " " + pos + " --json --load " + load);
        CHECK(r.code == 0);
        CHECK(r.out == mapped.out);
    }
    const auto openings = run("openings " + file + " --json --load map");
    REQUIRE(openings.code == 0);
    CHECK(run("openings " + file + " --json --load memory").out == openings.out);
    const auto bad = run("probe " + file + " --load huge");
    CHECK(bad.code == 2);
    CHECK_THAT(bad.out, Catch::Contains("--load") && Catch::Contains("huge"));
}

// Found by tests/fuzz/fuzz_batch: a line that is not UTF-8 made the JSON library throw, which
// ended the whole batch (exit 1, the answers so far lost).
TEST_CASE("cli: probe --batch answers a line that is not UTF-8 and goes on", "[probe][cli]") {
    const std::string file = table_file(4, 4, Ruleset::Brainking).string();
    const fs::path in = fs::path(KONANE_TEST_TMPDIR) / ("batch-utf8-" + std::to_string(::getpid()));
    {
        std::FILE* f = std::fopen(in.c_str(), "w");
        REQUIRE(f != nullptr);
        std::fputs(
            "..xo/oxox/xoxo/oxox b\n\xff\n..xo/o\xc3(ox/xoxo/oxox b\n..xo/oxox/xoxo/oxox w\n", f);
        std::fclose(f);
    }
    const auto r = run("probe " + quote(file) + " --batch < " + quote(in.string()));
    fs::remove(in);
    REQUIRE(r.code == 0);
    std::vector<nlohmann::json> out;
    for (std::size_t start = 0, nl; (nl = r.out.find('\n', start)) != std::string::npos;
         start = nl + 1)
        out.push_back(nlohmann::json::parse(r.out.substr(start, nl - start)));
    REQUIRE(out.size() == 4);
    CHECK(out[0]["stored"] == true);
    CHECK(out[1].contains("error"));
    CHECK(out[2].contains("error"));
    CHECK(out[3]["position"] == "..xo/oxox/xoxo/oxox w");
}

TEST_CASE("Table::probe_many answers as find() then value(), stored or not", "[probe][format]") {
    const Tablebase& tb = table(5, 5, Ruleset::Brainking);
    const format::Table& t = tb.table();
    const Board& b = tb.board();
    const auto& layers = t.layers();
    std::mt19937_64 rng(5);
    std::uint64_t stored = 0, absent = 0;
    for (int round = 0; round < 300; ++round) {
        // 1..150 queries (more than one internal batch of 64 at times): canonical keys of
        // random occupancies with the layer's piece count (mostly not stored), keys of stored
        // positions, keys with the wrong piece count or squares off the board.
        const std::size_t n = 1 + rng() % 150;
        std::vector<format::Table::Query> q(n);
        for (auto& x : q) {
            x.layer = rng() % layers.size();
            const unsigned pieces = layers[x.layer].pieces;
            std::uint64_t occ = 0;
            while (static_cast<unsigned>(std::popcount(occ)) < pieces)
                occ |= std::uint64_t{1} << (rng() % static_cast<unsigned>(b.squares()));
            const Position p{occ, rng() % 2 ? Color::White : Color::Black};
            x.key = tb.group().canonical_key(p);
            if (rng() % 3 == 0) {  // a stored key of the layer
                std::vector<std::uint64_t> keys;
                t.read_keys(x.layer, keys);
                x.key = keys[rng() % keys.size()];
            }
            if (rng() % 10 == 0) x.key ^= std::uint64_t{1} << (rng() % 40);  // anything
        }
        std::vector<format::Table::Answer> a(n);
        t.probe_many(q, a);
        for (std::size_t i = 0; i < n; ++i) {
            const auto r = t.find(q[i].layer, q[i].key);
            INFO("round " << round << " query " << i << " layer " << q[i].layer << " key "
                          << q[i].key);
            REQUIRE(a[i].stored == r.has_value());
            if (r) {
                REQUIRE(a[i].depth == t.value(q[i].layer, *r));
                ++stored;
            } else {
                ++absent;
            }
        }
    }
    CHECK(stored > 1000);
    CHECK(absent > 1000);
    std::vector<format::Table::Answer> few(1);
    std::vector<format::Table::Query> two(2);
    CHECK_THROWS_AS(t.probe_many(two, few), std::invalid_argument);
}
