// Combinatorial game values (cgt/): the arithmetic of canonical forms against its laws and an
// independent game-tree search, known small values and their notation, thermographs, Kōnane
// values published in the literature, outcome classes against the Searcher, and the region
// decomposition against whole-board valuation.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <httplib.h>
#include <catch2/catch.hpp>

#include "cgt/game.hpp"
#include "cgt/konane.hpp"
#include "cgt/konane_generic.hpp"
#include "cli/json.hpp"
#include "core/notation.hpp"
#include "search/search.hpp"
#include "serve/api.hpp"
#include "solver/solve.hpp"

using namespace konane;
using namespace konane::cgt;

namespace {

// A pool of games: a few known ones, then random {L | R} of earlier pool members.
std::vector<GameId> random_pool(GameStore& s, std::mt19937_64& rng, int n) {
    std::vector<GameId> pool = {s.zero(),
                                s.number(1),
                                s.number(-1),
                                s.nimber(1),
                                s.make({s.zero()}, {s.nimber(1)}),
                                s.number(Rational(1, 2))};
    while (static_cast<int>(pool.size()) < n) {
        std::uniform_int_distribution<std::size_t> pick(0, pool.size() - 1);
        std::uniform_int_distribution<int> count(0, 3);
        std::vector<GameId> l, r;
        for (int k = count(rng); k > 0; --k)
            l.push_back(pool[pick(rng)]);
        for (int k = count(rng); k > 0; --k)
            r.push_back(pool[pick(rng)]);
        pool.push_back(s.make(l, r));
    }
    return pool;
}

// Who wins g1 + g2 + ... (the options of a sum: one component moved), by plain search over the
// canonical forms' options: the independent check of add() and outcome().
bool wins_moving_first(GameStore& s, std::vector<GameId> parts, bool left,
                       std::map<std::pair<std::vector<GameId>, bool>, bool>& memo) {
    std::sort(parts.begin(), parts.end());
    const auto key = std::make_pair(parts, left);
    if (auto it = memo.find(key); it != memo.end()) return it->second;
    bool win = false;
    for (std::size_t i = 0; i < parts.size() && !win; ++i) {
        const auto& opts = left ? s.left(parts[i]) : s.right(parts[i]);
        for (GameId o : opts) {
            std::vector<GameId> next = parts;
            next[i] = o;
            if (!wins_moving_first(s, next, !left, memo)) {
                win = true;
                break;
            }
        }
    }
    memo[key] = win;
    return win;
}

OutcomeClass outcome_by_search(GameStore& s, const std::vector<GameId>& parts) {
    std::map<std::pair<std::vector<GameId>, bool>, bool> memo;
    const bool l = wins_moving_first(s, parts, true, memo);
    const bool r = wins_moving_first(s, parts, false, memo);
    return l && r ? OutcomeClass::N : l ? OutcomeClass::L : r ? OutcomeClass::R : OutcomeClass::P;
}

std::string value_of(GameStore& s, const std::string& text, bool decompose = true) {
    const ParsedPosition p = parse_position(text + " b");
    ValueOptions o;
    o.decompose = decompose;
    Valuer v(p.board, s, o);
    return s.format(v.value(p.position.occ));
}

}  // namespace

TEST_CASE("cgt: known small games and their CGSuite notation", "[cgt]") {
    GameStore s;
    const GameId z = s.zero(), star = s.nimber(1);
    CHECK(s.format(z) == "0");
    CHECK(s.make({z}, {z}) == star);
    CHECK(s.format(star) == "*");
    const GameId up = s.make({z}, {star});
    CHECK(up == s.up(1));
    CHECK(s.format(up) == "\u2191");
    CHECK(s.format(up, {true}) == "^");
    const GameId down = s.make({star}, {z});
    CHECK(down == s.neg(up));
    CHECK(s.format(down, {true}) == "v");
    CHECK(s.make({z, star}, {z, star}) == s.nimber(2));
    CHECK(s.format(s.nimber(2)) == "*2");
    CHECK(s.format(s.make({z, star}, {z}), {true}) == "^*");
    CHECK(s.make({z, star}, {z}) == s.add(up, star));
    CHECK(s.format(s.up(2), {true}) == "^^");
    CHECK(s.format(s.up(2)) == "\u21D1");
    CHECK(s.format(s.up(3), {true}) == "^3");
    CHECK(s.format(s.add(s.up(-2), s.nimber(3)), {true}) == "vv*3");
    // Numbers: {0|1} = 1/2, {0|} = 1, {|0} = -1, {1/2|1} = 3/4, {-1|} = 0, {1|1} = 1*.
    CHECK(s.make({z}, {s.number(1)}) == s.number(Rational(1, 2)));
    CHECK(s.format(s.make({z}, {})) == "1");
    CHECK(s.format(s.make({}, {z})) == "-1");
    CHECK(s.format(s.make({s.number(Rational(1, 2))}, {s.number(1)})) == "3/4");
    CHECK(s.make({s.number(-1)}, {}) == z);
    CHECK(s.format(s.make({s.number(1)}, {s.number(1)})) == "1*");
    CHECK(s.format(s.add(s.number(Rational(-3, 2)), up), {true}) == "-3/2^");
    // Switches and general forms.
    CHECK(s.format(s.make({s.number(1)}, {s.number(-1)})) == "{1|-1}");
    CHECK(s.format(s.make({s.number(2)}, {s.make({s.number(1)}, {z})})) == "{2|{1|0}}");
    CHECK(s.add(s.number(Rational(1, 2)), s.number(Rational(1, 2))) == s.number(1));
    CHECK(s.add(star, star) == z);
    CHECK(s.add(s.nimber(2), s.nimber(3)) == star);  // nim-sum 2 xor 3 = 1
    CHECK(s.add(up, down) == z);
    // Outcome classes.
    CHECK(s.outcome(z) == OutcomeClass::P);
    CHECK(s.outcome(star) == OutcomeClass::N);
    CHECK(s.outcome(up) == OutcomeClass::L);
    CHECK(s.outcome(down) == OutcomeClass::R);
    CHECK(s.outcome(s.add(up, star)) == OutcomeClass::N);
    CHECK(s.outcome(s.number(Rational(-1, 4))) == OutcomeClass::R);
    CHECK(s.fuzzy(star, z));
    CHECK(s.less(z, up));
    CHECK(s.less(up, s.number(Rational(1, 64))));
}

TEST_CASE("cgt: arithmetic laws and canonical forms on random games", "[cgt]") {
    GameStore s;
    std::mt19937_64 rng(23);
    const std::vector<GameId> pool = random_pool(s, rng, 90);
    std::uniform_int_distribution<std::size_t> pick(0, pool.size() - 1);
    for (int t = 0; t < 400; ++t) {
        const GameId g = pool[pick(rng)], h = pool[pick(rng)], k = pool[pick(rng)];
        INFO("G = " << s.format(g) << ", H = " << s.format(h) << ", K = " << s.format(k));
        CHECK(s.sub(g, g) == s.zero());
        CHECK(s.add(g, h) == s.add(h, g));
        CHECK(s.add(s.add(g, h), k) == s.add(g, s.add(h, k)));
        CHECK(s.neg(s.neg(g)) == g);
        CHECK(s.neg(s.add(g, h)) == s.add(s.neg(g), s.neg(h)));
        // G <= H iff H - G >= 0; = iff the same canonical form.
        CHECK(s.leq(g, h) == s.leq(s.zero(), s.sub(h, g)));
        CHECK((s.leq(g, h) && s.leq(h, g)) == (g == h));
        // Transitivity, and the independent outcome of the sum by search over the options.
        if (s.leq(g, h) && s.leq(h, k)) CHECK(s.leq(g, k));
        CHECK(s.outcome(s.add(g, h)) == outcome_by_search(s, {g, h}));
        // Canonical forms unique: rebuilding from the options, or adding a dominated option,
        // gives the same node.
        CHECK(s.make(s.left(g), s.right(g)) == g);
        if (!s.left(g).empty()) {
            std::vector<GameId> l = s.left(g);
            l.push_back(s.add(l[0], s.number(-1)));  // worse for Left than l[0]
            CHECK(s.make(l, s.right(g)) == g);
        }
    }
    // Every pool game is canonical: no dominated options, no reversible ones (checked here by
    // comparisons alone).
    for (GameId g : pool) {
        const auto& l = s.left(g);
        const auto& r = s.right(g);
        for (GameId a : l) {
            for (GameId b : l)
                if (a != b) CHECK_FALSE(s.leq(a, b));
            for (GameId ar : s.right(a))
                CHECK_FALSE(s.leq(ar, g));
        }
        for (GameId a : r) {
            for (GameId b : r)
                if (a != b) CHECK_FALSE(s.leq(b, a));
            for (GameId al : s.left(a))
                CHECK_FALSE(s.leq(g, al));
        }
    }
}

TEST_CASE("cgt: stops, means and temperatures", "[cgt][thermograph]") {
    GameStore s;
    const GameId one = s.number(1), two = s.number(2);
    const GameId sw = s.make({one}, {s.number(-1)});
    CHECK(s.thermal(sw).mean == 0);
    CHECK(s.thermal(sw).temperature == 1);
    const GameId g = s.make({two}, {one});  // {2|1}: mean 3/2, temperature 1/2
    CHECK(s.thermal(g).mean == Rational(3, 2));
    CHECK(s.thermal(g).temperature == Rational(1, 2));
    CHECK(s.left_stop(g) == 2);
    CHECK(s.right_stop(g) == 1);
    CHECK(s.thermal(s.nimber(1)).temperature == 0);
    CHECK(s.thermal(s.up(1)).temperature == 0);
    CHECK(s.thermal(s.number(3)).temperature == -1);
    CHECK(s.thermal(s.number(Rational(3, 4))).temperature == Rational(-1, 4));
    // {3|{1|-1}}: the left scaffold 3 - t; the right one is {1|-1}'s left wall (1 - t up to
    // t = 1, then 0) plus t: 1 up to t = 1, then t. They meet at t = 3/2, at 3/2.
    const GameId h = s.make({s.number(3)}, {sw});
    const Thermal th = s.thermal(h);
    CHECK(th.mean == Rational(3, 2));
    CHECK(th.temperature == Rational(3, 2));
    // The mean is additive and a sum is no hotter than its hottest part, on random games.
    std::mt19937_64 rng(7);
    const std::vector<GameId> pool = random_pool(s, rng, 60);
    std::uniform_int_distribution<std::size_t> pick(0, pool.size() - 1);
    for (int t = 0; t < 200; ++t) {
        const GameId a = pool[pick(rng)], b = pool[pick(rng)];
        INFO("A = " << s.format(a) << ", B = " << s.format(b));
        const Thermal ta = s.thermal(a), tb = s.thermal(b), tab = s.thermal(s.add(a, b));
        CHECK(tab.mean == ta.mean + tb.mean);
        CHECK(tab.temperature <= std::max(std::max(ta.temperature, tb.temperature), Rational(0)));
        CHECK(s.right_stop(a) <= ta.mean);
        CHECK(ta.mean <= s.left_stop(a));
    }
}

TEST_CASE("cgt: published Konane values, in the project's notation", "[cgt][konane]") {
    GameStore s;
    // cgt-tools (x = Left) writes `..ox`: the mirror image `xo..` here (b1 and d1 are White's
    // squares), Black's piece jumps: 1 (rules.md: a win for Black whoever starts).
    CHECK(value_of(s, "xo..") == "1");
    CHECK(value_of(s, "..xo") == "-1");
    CHECK(value_of(s, ".ox.") == "*");
    CHECK(value_of(s, ".ox./o..x/....") == "{1|-1}");
    // Ernst's solid rows: n pieces alternating, one empty square at each end. Here the first
    // piece stands on b1, a White square: `.oxox.`. For n even the row is the mirror image of
    // Ernst's (Black's first), the same game: 0 for n = 0 mod 4, * for n = 2 mod 4. For n odd
    // the colours are exchanged, so the value is the negative of Ernst's -(n-1)/2.
    for (int n = 2; n <= 13; ++n) {
        std::string row = ".";
        for (int i = 0; i < n; ++i)
            row += i % 2 == 0 ? 'o' : 'x';
        row += '.';
        INFO(row);
        const std::string want = n % 2 == 1 ? std::to_string((n - 1) / 2) : n % 4 == 0 ? "0" : "*";
        CHECK(value_of(s, row) == want);
    }
    // The 5x8 position worth 1/2 (cgt-tools `......../...oxo../..o...../..x...../........`,
    // mirrored left-right onto this project's colours: the same game): G + G - 1 = 0.
    const ParsedPosition p = parse_position("......../..oxo.../.....o../.....x../........ b");
    Valuer v(p.board, s);
    const GameId g = v.value(p.position.occ);
    CHECK(s.sub(s.add(g, g), s.number(1)) == s.zero());
    CHECK(s.format(g) == "1/2");
}

TEST_CASE("cgt: Konane outcome classes equal the Searcher's on random positions",
          "[cgt][konane][search]") {
    std::mt19937_64 rng(2026);
    int checked = 0;
    // Boards up to 5x5; on 5x5 sparser positions (a dense 5x5 position has millions of
    // positions below it).
    struct Case {
        int rows, cols, count;
        double lo, hi;
    };
    for (const Case c :
         {Case{1, 8, 300, 0.3, 0.9}, Case{2, 5, 300, 0.3, 0.9}, Case{3, 3, 300, 0.3, 0.9},
          Case{3, 4, 400, 0.3, 0.8}, Case{4, 4, 500, 0.3, 0.8}, Case{3, 5, 400, 0.3, 0.8},
          Case{4, 5, 500, 0.3, 0.6}, Case{5, 5, 300, 0.2, 0.5}}) {
        const Board b = Board::make(c.rows, c.cols);
        GameStore s;
        Valuer val(b, s);
        SearchOptions so;
        so.jumps_only = true;
        Searcher search(b, so);
        std::uniform_real_distribution<double> density(c.lo, c.hi);
        for (int t = 0; t < c.count; ++t) {
            const double d = density(rng);
            std::bernoulli_distribution on(d);
            std::uint64_t occ = 0;
            for (int sq = 0; sq < b.squares(); ++sq)
                if (on(rng)) occ |= std::uint64_t{1} << sq;
            const Position pb{occ, Color::Black}, pw{occ, Color::White};
            const Outcome want = outcome_of(search.value(pb), search.value(pw));
            const GameId g = val.value(occ);
            INFO(format_position(b, pb) << " value " << s.format(g));
            CHECK(konane_outcome(s.outcome(g)) == want);
            ++checked;
        }
    }
    CHECK(checked == 3000);
}

TEST_CASE("cgt: regions never interact, and their sum is the whole board's value",
          "[cgt][konane][regions]") {
    std::mt19937_64 rng(99);
    int split = 0;
    for (auto [rows, cols] : {std::pair{1, 12}, {3, 6}, {4, 6}, {5, 5}, {5, 6}, {6, 6}}) {
        const Board b = Board::make(rows, cols);
        GameStore s;
        Valuer parts(b, s);
        // The plainest valuer: the board as one game, on the board given.
        ValueOptions whole_opt;
        whole_opt.decompose = false;
        whole_opt.local_boards = false;
        Valuer whole(b, s, whole_opt);
        std::uniform_real_distribution<double> density(0.1, 0.35);
        for (int t = 0; t < 300; ++t) {
            std::bernoulli_distribution on(density(rng));
            std::uint64_t occ = 0;
            for (int sq = 0; sq < b.squares(); ++sq)
                if (on(rng)) occ |= std::uint64_t{1} << sq;
            const std::vector<std::uint64_t> rs = regions(b, occ);
            std::uint64_t seen = 0;
            for (std::size_t i = 0; i < rs.size(); ++i) {
                CHECK((rs[i] & ~occ) == 0);
                CHECK((rs[i] & seen) == 0);
                seen |= rs[i];
                for (std::size_t j = i + 1; j < rs.size(); ++j)
                    CHECK((dilate(b, bounded_reach(b, rs[i])) & bounded_reach(b, rs[j])) == 0);
            }
            // With exact reaches (as value() splits the position it is given): apart too, and
            // a finer split (the closure alone splits few of these positions).
            const std::vector<std::uint64_t> xs = regions(b, occ, 4096);
            CHECK(xs.size() >= rs.size());
            if (xs.size() > 1) ++split;
            for (std::size_t i = 0; i < xs.size(); ++i) {
                const auto ri = exact_reach(b, xs[i], 4096);
                for (std::size_t j = i + 1; j < xs.size(); ++j) {
                    const auto rj = exact_reach(b, xs[j], 4096);
                    if (ri && rj) CHECK((dilate(b, *ri) & *rj) == 0);
                }
            }
            INFO(format_position(b, Position{occ, Color::Black}));
            CHECK(parts.value(occ) == whole.value(occ));
        }
    }
    // The test exercises the sum, not only single regions (over 60 of the 1,800 positions split). A
    // 7x8 board at these densities took 8.7 GB and minutes valued whole: boards up to 6x6 only.
    CHECK(split > 60);
}

TEST_CASE("cgt: reach holds every square a piece ever stands on", "[cgt][konane][regions]") {
    // Walk random games from random positions: every occupied square stays in the start's
    // exact reach, which is within its bounded reach, within its reach.
    std::mt19937_64 rng(5);
    int walked = 0, bounded_smaller = 0;
    // Random 4x5 positions, and on larger boards random pieces in a window of w x w squares
    // at a random place (where the count bounds the reach).
    for (const auto& [rows, cols, w] :
         {std::tuple{4, 5, 5}, std::tuple{6, 6, 3}, std::tuple{8, 8, 3}}) {
        const Board b = Board::make(rows, cols);
        for (int t = 0; t < 300; ++t) {
            std::bernoulli_distribution on(0.45);
            const int r0 = std::uniform_int_distribution<int>(1, b.rows)(rng);
            const int f0 = std::uniform_int_distribution<int>(0, b.cols - 1)(rng);
            std::uint64_t occ = 0;
            for (int sq = 0; sq < b.squares(); ++sq) {
                const int dr = b.rank_of(sq) - r0, df = b.file_of(sq) - f0;
                if ((w >= b.cols || (dr >= 0 && dr < w && df >= 0 && df < w)) && on(rng))
                    occ |= std::uint64_t{1} << sq;
            }
            const std::uint64_t r = reach(b, occ), br = bounded_reach(b, occ);
            CHECK((br & ~r) == 0);
            if (br != r) ++bounded_smaller;
            const auto exact = exact_reach(b, occ, 200'000);
            if (!exact) continue;
            ++walked;
            INFO(format_position(b, Position{occ, Color::Black}));
            CHECK((*exact & ~br) == 0);
            Position p{occ, Color::Black};
            for (;;) {
                const auto moves = legal_moves(b, Ruleset::Any, p, true);
                if (moves.empty()) break;
                p = moves[std::uniform_int_distribution<std::size_t>(0, moves.size() - 1)(rng)]
                        .child;
                CHECK((p.occ & ~*exact) == 0);
            }
        }
    }
    CHECK(walked > 750);
    // The count bounds the reach of sparse positions, and so the check above is not empty.
    CHECK(bounded_smaller > 100);
}

namespace {

/// The orthogonally connected groups of occ on a board of rows x cols squares (bit r * cols +
/// f), by a breadth-first walk over squares: the reference for generic::orthogonal_groups().
template <class B>
std::vector<B> groups_by_walk(int rows, int cols, const B& occ) {
    using Ops = BitOps<B>;
    std::vector<B> out;
    B left = occ;
    while (left) {
        const int first = Ops::lowest(left);
        B group = Ops::one(first);
        std::vector<int> todo{first};
        while (!todo.empty()) {
            const int sq = todo.back();
            todo.pop_back();
            const int r = sq / cols, f = sq % cols;
            const std::pair<int, int> steps[] = {{0, 1}, {0, -1}, {1, 0}, {-1, 0}};
            for (const auto& [dr, df] : steps) {
                const int nr = r + dr, nf = f + df;
                if (nr < 0 || nr >= rows || nf < 0 || nf >= cols) continue;
                const int n = nr * cols + nf;
                if (Ops::test(occ, n) && !Ops::test(group, n)) {
                    group |= Ops::one(n);
                    todo.push_back(n);
                }
            }
        }
        out.push_back(group);
        left &= ~group;
    }
    return out;
}

/// Random sets of squares on `b` compared: orthogonal_groups() against groups_by_walk().
template <class BoardT>
void check_groups(const BoardT& b, std::mt19937_64& rng) {
    using B = rules::BitsOf<BoardT>;
    for (int t = 0; t < 200; ++t) {
        std::bernoulli_distribution on(std::uniform_real_distribution<double>(0.1, 0.7)(rng));
        B occ{};
        for (int sq = 0; sq < b.rows * b.cols; ++sq)
            if (on(rng)) occ |= BitOps<B>::one(sq);
        INFO(b.rows << "x" << b.cols << " try " << t);
        CHECK(generic::orthogonal_groups(b, occ) == groups_by_walk(b.rows, b.cols, occ));
    }
}

}  // namespace

TEST_CASE("cgt: orthogonal groups by union-find equal a walk over the squares",
          "[cgt][konane][regions]") {
    std::mt19937_64 rng(17);
    for (auto [rows, cols] : {std::pair{1, 12}, {6, 6}, {8, 8}, {12, 1}, {7, 9}})
        check_groups(Board::make(rows, cols), rng);
    check_groups(WideBoard<2>::make(9, 13), rng);
    check_groups(WideBoard<3>::make(12, 13), rng);
    check_groups(WideBoard<2>::make(2, 60), rng);
    check_groups(BigBoard::make(20, 20), rng);
}

TEST_CASE("cgt: a region valued on its own board (local boards) keeps its value",
          "[cgt][konane][regions]") {
    // The default valuer values each region on the smallest board holding its reach, moving it
    // (and changing the colours where the box starts on a White square); the reference values
    // every region where it stands. Boards of 64-bit keys, of 64 squares (no keys), and a
    // dense 4x16.
    std::mt19937_64 rng(31);
    int moved = 0;
    for (const auto& [rows, cols, density] : {std::tuple{6, 6, 0.25}, std::tuple{7, 9, 0.15},
                                              std::tuple{8, 8, 0.15}, std::tuple{4, 16, 0.2}}) {
        const Board b = Board::make(rows, cols);
        GameStore s;
        Valuer local(b, s);
        ValueOptions in_place_opt;
        in_place_opt.local_boards = false;
        Valuer in_place(b, s, in_place_opt);
        for (int t = 0; t < 100; ++t) {
            std::bernoulli_distribution on(density);
            std::uint64_t occ = 0;
            for (int sq = 0; sq < b.squares(); ++sq)
                if (on(rng)) occ |= std::uint64_t{1} << sq;
            INFO(format_position(b, Position{occ, Color::Black}));
            CHECK(local.value(occ) == in_place.value(occ));
        }
        // Regions were moved to boards of their own.
        if (local.local_boards() > 0 && in_place.local_boards() == 0) ++moved;
    }
    CHECK(moved == 4);
}

TEST_CASE("cgt: an 8x8 endgame of small regions, and the limits", "[cgt][konane][regions]") {
    GameStore s;
    const ParsedPosition p =
        parse_position("xo.....o/o......x/......../...x..../...o..../......../x......o/oxo...ox b");
    Valuer v(p.board, s);
    const GameId g = v.value(p.position.occ);
    const auto rs = v.regions_of(p.position.occ);
    CHECK(rs.size() == 5);
    GameId sum = s.zero();
    for (std::uint64_t r : rs)
        sum = s.add(sum, v.value(r));
    CHECK(g == sum);
    // A limit too small stops with the honest message.
    ValueOptions tight;
    tight.max_positions = 3;
    GameStore s2;
    Valuer small(Board::make(5, 5), s2, tight);
    CHECK_THROWS_WITH(small.value(Board::make(5, 5).all & ~std::uint64_t{1}),
                      Catch::Matchers::Contains("not computed within 3 positions"));
}

TEST_CASE("cgt: GET /api/value answers konane value --json's object", "[cgt][serve]") {
    // The server needs a table: a 3x3 one, generated here.
    const std::filesystem::path dir =
        std::filesystem::path(KONANE_TEST_TMPDIR) / ("cgt-serve-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    solver::GenerateOptions g;
    g.board = Board::make(3, 3);
    g.threads = 1;
    g.output = dir / "konane-3x3-brainking.kbt";
    solver::generate(g);
    serve::ServeOptions o;
    o.search_limit = 50;
    serve::ApiServer server({g.output}, o);
    const int port = server.bind("127.0.0.1", 0);
    std::thread thread([&] { server.listen(); });
    server.wait_until_ready();
    httplib::Client c("127.0.0.1", port);
    c.set_read_timeout(60, 0);
    auto get = [&](const std::string& pos) {
        return c.Get("/api/value?position=" + httplib::detail::encode_query_param(pos));
    };
    auto r = get(".ox./o..x/....");
    REQUIRE(r);
    CHECK(r->status == 200);
    const cli::json j = cli::json::parse(r->body);
    CHECK(j["value"] == "{1|-1}");
    CHECK(j["outcome"] == "N");
    CHECK(j["outcome_name"] == "first");
    CHECK(j["mean"] == "0");
    CHECK(j["temperature"] == "1");
    CHECK(j["tree"]["left"][0]["form"] == "1");
    CHECK(j["tree"]["right"][0]["form"] == "-1");
    r = get("xo.. w");  // the side to move is accepted and ignored
    REQUIRE(r);
    CHECK(cli::json::parse(r->body)["value"] == "1");
    r = get("xx..");
    REQUIRE(r);
    CHECK(r->status == 400);
    r = get(".oxox/oxoxo/xoxox/oxoxo/xoxo.");  // far more than 50 positions
    REQUIRE(r);
    CHECK(r->status == 422);
    CHECK_THAT(r->body, Catch::Matchers::Contains("not computed within 50 positions"));
    server.stop();
    thread.join();
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
}
