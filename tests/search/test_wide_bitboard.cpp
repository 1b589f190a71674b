// Boards past 64 squares (issue #23): the wide bitboard (core/bitboard.hpp) against
// std::bitset; the rules, moves and perft on boards up to 21x21 (core/wide.hpp) against the
// plain per-square engine of tests/reference.hpp; the wide path against the 64-bit path on
// boards of at most 64 squares (the same moves, perft, notation, search values and game values);
// the game values on wide boards against the search's outcome classes and against the same
// game on a 64-square board; and the commands (`moves`, `perft`, `value`, `solve`) past 64
// squares.
#include <algorithm>
#include <bitset>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cgt/konane.hpp"
#include "core/bitboard.hpp"
#include "core/movegen.hpp"
#include "core/notation.hpp"
#include "core/wide.hpp"
#include "search/search.hpp"
#include "search/wide_search.hpp"
#include "tests/cli_helpers.hpp"
#include "tests/reference.hpp"

using namespace konane;
using namespace konane::test;
using Catch::Matchers::Contains;

namespace {

constexpr Ruleset kRulesets[] = {Ruleset::Brainking, Ruleset::Center, Ruleset::Any};

using Bits = BigBits;
using Ops = BitOps<Bits>;
using Set = std::bitset<kMaxWideSquares>;

Bits to_bits(const Set& s) {
    Bits b;
    for (int i = 0; i < kMaxWideSquares; ++i)
        if (s[static_cast<std::size_t>(i)]) Ops::set(b, i);
    return b;
}

Set random_set(std::mt19937_64& rng, double density) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    Set s;
    for (int i = 0; i < kMaxWideSquares; ++i)
        s[static_cast<std::size_t>(i)] = u(rng) < density;
    return s;
}

/// The reference position as a wide position (square s = (rank - 1) * cols + file).
BigPosition to_big(const ref::RefBoard& b, const ref::RefPos& p) {
    BigPosition q;
    for (int r = 0; r < b.rows; ++r)
        for (int c = 0; c < b.cols; ++c)
            if (p.at(b, r, c) != '.') Ops::set(q.occ, ref::core_square(b, r, c));
    q.to_move = p.side == 'b' ? Color::Black : Color::White;
    return q;
}

ref::RefPos from_big(const ref::RefBoard& b, const BigPosition& p) {
    ref::RefPos q;
    for (int r = 0; r < b.rows; ++r)
        for (int c = 0; c < b.cols; ++c)
            q.at(b, r, c) = Ops::test(p.occ, ref::core_square(b, r, c)) ? b.piece_on(r, c) : '.';
    q.side = p.to_move == Color::Black ? 'b' : 'w';
    return q;
}

ref::RefMove ref_move(const ref::RefBoard& b, WideMove m) {
    const auto [fr, fc] = ref::ref_square(b, m.from);
    const auto [tr, tc] = ref::ref_square(b, m.to);
    return {fr, fc, tr, tc};
}

ref::RefPos random_position(const ref::RefBoard& b, std::mt19937_64& rng, double density,
                            char side) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    ref::RefPos p;
    for (int r = 0; r < b.rows; ++r)
        for (int c = 0; c < b.cols; ++c)
            p.at(b, r, c) = u(rng) < density ? b.piece_on(r, c) : '.';
    p.side = side;
    return p;
}

/// Depth to end by the reference's moves (rules.md "Values"), memoised by the position's text:
/// the plain search for boards past 64 squares, where the reference's keys do not reach.
ref::RefValue ref_solve(const ref::RefBoard& b, ref::Rules rules, const ref::RefPos& p,
                        std::map<std::string, ref::RefValue>& memo) {
    const std::string k = ref::to_text(b, p);
    if (auto it = memo.find(k); it != memo.end()) return it->second;
    bool have_loss = false;
    int least_loss = 0, greatest = 0;
    const auto ms = ref::moves(b, rules, p);
    for (const auto& m : ms) {
        const ref::RefValue c = ref_solve(b, rules, ref::apply(b, p, m), memo);
        if (!c.win) {
            if (!have_loss || c.depth < least_loss) least_loss = c.depth;
            have_loss = true;
        }
        greatest = std::max(greatest, c.depth);
    }
    const ref::RefValue v = have_loss    ? ref::RefValue{true, 1 + least_loss}
                            : ms.empty() ? ref::RefValue{false, 0}
                                         : ref::RefValue{false, 1 + greatest};
    memo.emplace(k, v);
    return v;
}

/// Boards past 64 squares: konjecture's STAIR windows ((n+2) x (n+3)), the traditional 8x9,
/// 9x13 and 14x17, 20x20, 21x21 (441 squares) and long thin boards, both orientations.
const std::vector<std::pair<int, int>> kBig = {{8, 9},  {9, 8},   {9, 13},  {13, 9},  {14, 17},
                                               {8, 10}, {20, 20}, {21, 21}, {1, 100}, {100, 1},
                                               {3, 30}, {2, 70},  {7, 11},  {12, 14}, {16, 28}};

}  // namespace

TEST_CASE("wide bitboard: shifts, logic, order and bit scans equal std::bitset",
          "[rules][wide][bitboard]") {
    std::mt19937_64 rng(23);
    for (int t = 0; t < 2000; ++t) {
        const Set a = random_set(rng, t % 7 == 0 ? 0.01 : 0.5), c = random_set(rng, 0.5);
        const Bits x = to_bits(a), y = to_bits(c);
        const int n = static_cast<int>(rng() % (kMaxWideSquares + 20));
        INFO("test " << t << " shift " << n);
        CHECK((x >> n) == to_bits(n >= kMaxWideSquares ? Set{} : a >> static_cast<std::size_t>(n)));
        CHECK((x << n) == to_bits(n >= kMaxWideSquares ? Set{} : a << static_cast<std::size_t>(n)));
        CHECK((x & y) == to_bits(a & c));
        CHECK((x | y) == to_bits(a | c));
        CHECK((x ^ y) == to_bits(a ^ c));
        CHECK(~x == to_bits(~a));
        CHECK(static_cast<bool>(x) == a.any());
        CHECK(Ops::count(x) == static_cast<int>(a.count()));
        int low = kMaxWideSquares;
        for (int i = 0; i < kMaxWideSquares; ++i) {
            if (a[static_cast<std::size_t>(i)]) {
                low = i;
                break;
            }
        }
        CHECK(Ops::lowest(x) == low);
        Bits z = x;
        Ops::pop_lowest(z);
        Set d = a;
        if (low < kMaxWideSquares) d[static_cast<std::size_t>(low)] = false;
        CHECK(z == to_bits(d));
        // The numeric order: the highest differing bit decides.
        int high = -1;
        for (int i = kMaxWideSquares - 1; i >= 0; --i) {
            if (a[static_cast<std::size_t>(i)] != c[static_cast<std::size_t>(i)]) {
                high = i;
                break;
            }
        }
        CHECK((x < y) == (high >= 0 && c[static_cast<std::size_t>(high)]));
        const int i = static_cast<int>(rng() % kMaxWideSquares);
        CHECK(Ops::test(x, i) == a[static_cast<std::size_t>(i)]);
    }
}

TEST_CASE("wide boards: every R x C of at most 448 squares is a board, larger ones are refused",
          "[rules][wide]") {
    for (int rows = 1; rows <= 460; rows += rows < 30 ? 1 : 37) {
        for (int cols = 1; cols <= 460; cols += cols < 30 ? 1 : 41) {
            INFO(rows << "x" << cols);
            if (rows * cols <= kMaxWideSquares) {
                const BigBoard b = BigBoard::make(rows, cols);
                CHECK(Ops::count(b.all) == rows * cols);
                CHECK(Ops::count(b.color[0] | b.color[1]) == rows * cols);
                CHECK(!(b.color[0] & b.color[1]));
                CHECK(parse_big_board(b.name()) == b);
                CHECK(is_wide_text(b.name()) == (rows * cols > 64));
            } else {
                REQUIRE_THROWS_WITH(BigBoard::make(rows, cols),
                                    Contains("out of range") && Contains("448"));
            }
        }
    }
    REQUIRE_THROWS_WITH(parse_big_board("21x22"), Contains("21x22") && Contains("448"));
    REQUIRE_THROWS_WITH(parse_big_board("9 by 13"), Contains("malformed board size"));
    REQUIRE_THROWS_WITH(parse_big_position(std::string(449, '.') + " b"),
                        Contains("449") && Contains("at most 448"));
}

TEST_CASE("wide boards: perft from the full board equals the reference",
          "[perft][reference][wide]") {
    for (const auto& [rows, cols] : kBig) {
        const BigBoard b = BigBoard::make(rows, cols);
        const ref::RefBoard rb(rows, cols);
        const int depth = rows == 1 || cols == 1 ? 8 : rows * cols > 200 ? 4 : 5;
        for (Ruleset r : kRulesets) {
            for (int d = 0; d <= depth; ++d) {
                INFO(b.name() << " " << ruleset_name(r) << " depth " << d);
                CHECK(perft(b, r, b.start(), d) == ref::perft(rb, ref::rules_of(r), d));
            }
        }
    }
}

TEST_CASE("wide boards: jumps, legal moves and notation equal the reference on random positions",
          "[rules][reference][wide]") {
    std::mt19937_64 rng(20261202);
    std::size_t positions = 0, multi = 0;
    for (const auto& [rows, cols] : kBig) {
        const BigBoard b = BigBoard::make(rows, cols);
        const ref::RefBoard rb(rows, cols);
        std::vector<ref::RefPos> sample;
        for (int i = 0; i < 60; ++i) {
            const double density = 0.2 + 0.7 * static_cast<double>(i % 10) / 9.0;
            sample.push_back(random_position(rb, rng, density, i % 2 ? 'w' : 'b'));
        }
        for (Ruleset r : kRulesets) {
            const auto games = ref::random_positions(rb, ref::rules_of(r), 3, rng());
            sample.insert(sample.end(), games.begin(), games.end());
        }
        for (const ref::RefPos& rp : sample) {
            const BigPosition p = to_big(rb, rp);
            REQUIRE(from_big(rb, p) == rp);
            // Notation: the reference's text, and back.
            const std::string text = ref::to_text(rb, rp);
            REQUIRE(format_position(b, p) == text);
            const ParsedBigPosition parsed = parse_big_position(text);
            REQUIRE(parsed.board == b);
            REQUIRE(parsed.position == p);
            for (Ruleset r : kRulesets) {
                // Legal moves (removals in the opening, then jumps) and their children.
                std::vector<ref::RefMove> want = ref::moves(rb, ref::rules_of(r), rp), got;
                bool children_ok = true;
                for (const auto& mc : legal_moves(b, r, p)) {
                    const ref::RefMove rm = ref_move(rb, mc.move);
                    got.push_back(rm);
                    if (from_big(rb, mc.child) != ref::apply(rb, rp, rm)) children_ok = false;
                    if (std::abs(rm.to_row - rm.from_row) + std::abs(rm.to_col - rm.from_col) > 2)
                        ++multi;
                    // The move's text names it back.
                    if (!(parse_move(b, r, p, format_move(b, mc.move)).move == mc.move))
                        children_ok = false;
                }
                std::sort(want.begin(), want.end());
                std::sort(got.begin(), got.end());
                if (got != want || !children_ok)
                    FAIL_CHECK(b.name() << " " << text << ": moves differ from the reference");
            }
            // Jumps alone.
            std::vector<ref::RefMove> want = ref::jumps(rb, rp), got;
            for_each_jump(b, p,
                          [&](WideMove m, const BigPosition&) { got.push_back(ref_move(rb, m)); });
            std::sort(want.begin(), want.end());
            std::sort(got.begin(), got.end());
            CHECK(got == want);
            CHECK(rules::has_jump(b, p.occ, p.to_move) == !want.empty());
            // The count by bit operations (the proof search's) on the wide bitboard type.
            CHECK(rules::count_jumps(b, p.occ, p.to_move) == static_cast<int>(want.size()));
            ++positions;
        }
    }
    CHECK(positions > 1000);
    CHECK(multi > 0);  // multi-jumps were met
}

TEST_CASE("wide boards: the wide path equals the 64-bit path on boards of at most 64 squares",
          "[rules][wide][cgt][solver]") {
    const std::vector<std::pair<int, int>> boards = {{4, 4}, {5, 5},  {3, 7},  {6, 6},
                                                     {8, 8}, {1, 64}, {4, 16}, {2, 9}};
    std::mt19937_64 rng(64);
    for (const auto& [rows, cols] : boards) {
        const Board nb = Board::make(rows, cols);
        const BigBoard wb = BigBoard::make(rows, cols);
        const ref::RefBoard rb(rows, cols);
        INFO(nb.name());
        // Perft from the full board, every ruleset.
        for (Ruleset r : kRulesets)
            for (int d = 0; d <= (rows * cols > 40 ? 5 : 6); ++d)
                CHECK(perft(wb, r, wb.start(), d) == perft(nb, r, nb.start(), d));
        std::vector<ref::RefPos> sample;
        for (int i = 0; i < 80; ++i)
            sample.push_back(
                random_position(rb, rng, 0.15 + 0.8 * (i % 8) / 7.0, i % 2 ? 'w' : 'b'));
        const auto games = ref::random_positions(rb, ref::Rules::Brainking, 4, rng());
        sample.insert(sample.end(), games.begin(), games.end());
        for (const auto& rp : sample) {
            const Position np = ref::to_core(rb, rp);
            const BigPosition wp = widen(np);
            REQUIRE(narrow(wp) == np);
            CHECK(format_position(wb, wp) == format_position(nb, np));
            for (Ruleset r : kRulesets) {
                for (bool jumps_only : {false, true}) {
                    const auto nm = legal_moves(nb, r, np, jumps_only);
                    const auto wm = legal_moves(wb, r, wp, jumps_only);
                    REQUIRE(nm.size() == wm.size());
                    for (std::size_t i = 0; i < nm.size(); ++i) {
                        CHECK(format_move(nb, nm[i].move) == format_move(wb, wm[i].move));
                        CHECK(narrow(wm[i].child) == nm[i].child);
                    }
                }
                CHECK(stage_of(wb, r, wp) == stage_of(nb, r, np));
            }
        }
        // The search (depth to end, every move's value) on positions with few pieces, and the
        // game values, on the smaller boards.
        if (rows * cols > 36) continue;
        SearchOptions so;
        so.jumps_only = true;
        Searcher ns(nb, so);
        WideSearcher ws(wb, so);
        cgt::GameStore s1, s2;
        cgt::Valuer nv(nb, s1);
        cgt::WideValuer wv(wb, s2);
        int compared = 0;
        for (const auto& rp : sample) {
            if (ref::count_pieces(rb, rp) > 14) continue;
            const Position np = ref::to_core(rb, rp);
            const BigPosition wp = widen(np);
            const Value a = ns.value(np), b = ws.value(wp);
            CHECK(a == b);
            const auto am = ns.moves(np);
            const auto bm = ws.moves(wp);
            REQUIRE(am.size() == bm.size());
            for (std::size_t i = 0; i < am.size(); ++i)
                CHECK(am[i].value == bm[i].value);
            CHECK(s1.format(nv.value(np.occ)) == s2.format(wv.value(wp.occ)));
            CHECK(nv.regions_of(np.occ).size() == wv.regions_of(wp.occ).size());
            ++compared;
        }
        CHECK(compared > 10);
    }
}

TEST_CASE("wide boards: the search equals the plain reference search",
          "[solver][reference][wide]") {
    std::mt19937_64 rng(917);
    int compared = 0;
    for (const auto& [rows, cols] : kBig) {
        const BigBoard b = BigBoard::make(rows, cols);
        const ref::RefBoard rb(rows, cols);
        for (Ruleset r : {Ruleset::Brainking, Ruleset::Any}) {
            SearchOptions so;
            so.rules = r;
            WideSearcher s(b, so);
            std::map<std::string, ref::RefValue> memo;
            for (int i = 0; i < 12; ++i) {
                // Few pieces: the reference search has no symmetry and is plain.
                const double density = 6.0 / (rows * cols) + 0.02 * (i % 4);
                const ref::RefPos rp = random_position(rb, rng, density, i % 2 ? 'w' : 'b');
                if (ref::count_pieces(rb, rp) > 12) continue;
                const ref::RefValue want = ref_solve(rb, ref::rules_of(r), rp, memo);
                const Value got = s.value(to_big(rb, rp));
                INFO(b.name() << " " << ref::to_text(rb, rp));
                CHECK(got.win == want.win);
                CHECK(got.depth == want.depth);
                ++compared;
            }
        }
    }
    CHECK(compared > 200);
}

TEST_CASE(
    "wide boards: game values give the search's outcome classes, and the same game on a "
    "64-square board the same value",
    "[cgt][wide]") {
    std::mt19937_64 rng(2323);
    int outcomes = 0, embedded = 0;
    for (const auto& [rows, cols] :
         std::vector<std::pair<int, int>>{{8, 9}, {9, 13}, {14, 17}, {20, 20}}) {
        const BigBoard b = BigBoard::make(rows, cols);
        const ref::RefBoard rb(rows, cols);
        cgt::GameStore store;
        cgt::WideValuer v(b, store);
        cgt::ValueOptions whole_opt;
        whole_opt.decompose = false;
        whole_opt.local_boards = false;
        cgt::WideValuer whole(b, store, whole_opt);
        SearchOptions so;
        so.jumps_only = true;
        WideSearcher s(b, so);
        for (int i = 0; i < 40; ++i) {
            const ref::RefPos rp = random_position(rb, rng, 10.0 / (rows * cols), 'b');
            const BigPosition p = to_big(rb, rp);
            INFO(b.name() << " " << ref::to_text(rb, rp));
            const cgt::GameId g = v.value(p.occ);
            const Outcome o = outcome_of(s.value(BigPosition{p.occ, Color::Black}),
                                         s.value(BigPosition{p.occ, Color::White}));
            const cgt::OutcomeClass want = o == Outcome::Black   ? cgt::OutcomeClass::L
                                           : o == Outcome::White ? cgt::OutcomeClass::R
                                           : o == Outcome::First ? cgt::OutcomeClass::N
                                                                 : cgt::OutcomeClass::P;
            CHECK(store.outcome(g) == want);
            // The sum of the regions equals the value of the board as one game.
            if (ref::count_pieces(rb, rp) <= 9) CHECK(whole.value(p.occ) == g);
            ++outcomes;
        }
        // A game kept inside the top-left 8x8 of the board (every square its pieces can ever
        // reach, cgt::reach, is inside it) is the same game on the 8x8 board: the same value
        // through the 64-bit path. The top-left corner keeps the squares' colours.
        const Board nb = Board::make(8, 8);
        const ref::RefBoard nrb(8, 8);
        cgt::GameStore ns;
        cgt::Valuer nv(nb, ns);
        for (int i = 0; i < 300; ++i) {
            const ref::RefPos small = random_position(nrb, rng, 0.12, 'b');
            ref::RefPos big;
            for (int r = 0; r < rows; ++r)
                for (int c = 0; c < cols; ++c)
                    big.at(rb, r, c) = r < 8 && c < 8 ? small.at(nrb, r, c) : '.';
            big.side = 'b';
            REQUIRE(ref::to_text(rb, big).substr(0, 8) == ref::to_text(nrb, small).substr(0, 8));
            const BigPosition p = to_big(rb, big);
            const BigBits within = cgt::reach(b, p.occ);
            bool inside = true;
            for (int sq = 0; sq < b.squares() && inside; ++sq)
                if (Ops::test(within, sq) &&
                    (ref::ref_square(rb, sq).first >= 8 || ref::ref_square(rb, sq).second >= 8))
                    inside = false;
            if (!inside) continue;
            INFO(ref::to_text(nrb, small));
            CHECK(store.format(v.value(p.occ)) ==
                  ns.format(nv.value(ref::to_core(nrb, small).occ)));
            ++embedded;
        }
    }
    CHECK(outcomes == 160);
    CHECK(embedded > 20);
}

TEST_CASE(
    "wide boards: regions valued on their own boards (64-bit or fewer words) keep their "
    "values",
    "[cgt][wide]") {
    // konjecture's STAIR(n): n pairs "xo" down a diagonal, each row one square right of the one
    // above, in an (n + 2) x (n + 3) window; and sparse random positions. The default valuer
    // moves each region to the board of its box (the 64-bit code at most 64 squares, two or
    // three words at most 128 or 192); the reference values every region in place on the
    // seven-word board.
    auto stair = [](int n) {
        std::string rows;
        for (int r = 0; r < n + 2; ++r) {
            std::string row(static_cast<std::size_t>(n + 3), '.');
            if (r >= 1 && r <= n) {
                row[static_cast<std::size_t>(r)] = 'x';
                row[static_cast<std::size_t>(r + 1)] = 'o';
            }
            rows += (r ? "/" : "") + row;
        }
        return parse_big_position(rows + " b");
    };
    cgt::ValueOptions in_place_opt;
    in_place_opt.local_boards = false;
    for (int n = 4; n <= 7; ++n) {
        const ParsedBigPosition p = stair(n);
        cgt::GameStore s;
        cgt::WideValuer local(p.board, s), in_place(p.board, s, in_place_opt);
        INFO("STAIR(" << n << ")");
        CHECK(local.value(p.position.occ) == in_place.value(p.position.occ));
    }
    std::mt19937_64 rng(4242);
    int compared = 0;
    for (const auto& [rows, cols] :
         std::vector<std::pair<int, int>>{{9, 9}, {12, 13}, {10, 20}, {2, 60}}) {
        const BigBoard b = BigBoard::make(rows, cols);
        const ref::RefBoard rb(rows, cols);
        cgt::GameStore s;
        cgt::WideValuer local(b, s), in_place(b, s, in_place_opt);
        for (int i = 0; i < 40; ++i) {
            const ref::RefPos rp = random_position(rb, rng, 14.0 / (rows * cols), 'b');
            INFO(b.name() << " " << ref::to_text(rb, rp));
            const BigBits occ = to_big(rb, rp).occ;
            CHECK(local.value(occ) == in_place.value(occ));
            ++compared;
        }
    }
    CHECK(compared == 160);
}

TEST_CASE("wide boards: moves, perft, value and solve on the command line", "[cli][wide]") {
    using nlohmann::json;
    const BigBoard b = BigBoard::make(9, 13);
    const ref::RefBoard rb(9, 13);
    // perft from the full board: the reference's count.
    Run r = run("perft 9x13 4 --json");
    REQUIRE(r.code == 0);
    CHECK(json::parse(r.out)["nodes"].get<std::uint64_t>() ==
          ref::perft(rb, ref::Rules::Brainking, 4));
    CHECK(run("perft --board 14x17 3").out ==
          std::to_string(ref::perft(ref::RefBoard(14, 17), ref::Rules::Brainking, 3)) + "\n");
    // moves: the full board's removals, then a position after a game record.
    r = run("moves 9x13 --game 'a9 b9' --json");
    REQUIRE(r.code == 0);
    const json mj = json::parse(r.out);
    const BigGame g = parse_game(b, Ruleset::Brainking, "a9 b9", b.start());
    CHECK(mj["position"] == format_position(b, g.positions.back()));
    std::vector<std::string> want;
    for (const auto& mc : legal_moves(b, Ruleset::Brainking, g.positions.back()))
        want.push_back(format_move(b, mc.move));
    CHECK(mj["moves"].get<std::vector<std::string>>() == want);
    CHECK(!want.empty());
    // value: a row of Ernst's (n = 4 alternating pieces with an empty square at each end is 0)
    // on a 9x13 board, its other squares empty, and a sum of two far regions.
    std::string rows;
    for (int k = 9; k >= 1; --k)
        rows += std::string(k == 9 ? "" : "/") + (k == 9 ? ".oxox........" : ".............");
    r = run("value " + quote(rows) + " --json -q");
    REQUIRE(r.code == 0);
    const json vj = json::parse(r.out);
    {
        cgt::GameStore s;
        cgt::WideValuer v(b, s);
        CHECK(vj["value"] == s.format(v.value(parse_big_position(rows + " b").position.occ)));
    }
    CHECK(vj["board"] == "9x13");
    // solve --both --jumps-only: the search's outcome, and the value's outcome class agrees.
    r = run("solve " + quote(rows + " b") + " --both --jumps-only --json -q");
    REQUIRE(r.code == 0);
    const json sj = json::parse(r.out);
    const std::string cls = vj["outcome"];
    const std::string word = sj["outcome"];
    CHECK(word == (cls == "L" ? "black" : cls == "R" ? "white" : cls == "N" ? "first" : "second"));
    // Refusals name the limit.
    r = run("perft 22x22 2");
    CHECK(r.code == 2);
    CHECK_THAT(r.out, Contains("448"));
    r = run("solve 9x13 --wdl");
    CHECK(r.code == 2);
    CHECK_THAT(r.out, Contains("at most 64 squares"));
}
