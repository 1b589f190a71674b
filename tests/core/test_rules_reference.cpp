// The facts of docs/rules.md ("Facts from public sources") that the rules engine can
// check, and the reference engine of tests/reference.hpp checked against hand-derived numbers.
#include <algorithm>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include <catch2/catch.hpp>

#include "core/board.hpp"
#include "core/movegen.hpp"
#include "core/notation.hpp"
#include "core/symmetry.hpp"
#include "tests/reference.hpp"

using namespace konane;

namespace {

/// The names of the legal moves of core, sorted.
std::vector<std::string> core_move_names(const Board& b, Ruleset r, Position p) {
    std::vector<std::string> out;
    for (const auto& mc : legal_moves(b, r, p))
        out.push_back(format_move(b, mc.move));
    std::sort(out.begin(), out.end());
    return out;
}

/// The names of the legal moves of the reference, sorted.
std::vector<std::string> ref_move_names(const ref::RefBoard& b, ref::Rules r,
                                        const ref::RefPos& p) {
    std::vector<std::string> out;
    for (const auto& m : ref::moves(b, r, p))
        out.push_back(ref::move_text(b, m));
    std::sort(out.begin(), out.end());
    return out;
}

using Names = std::vector<std::string>;

}  // namespace

TEST_CASE("8x8 brainking: Black removes a8 and d5 and e4 or h1", "[rules][facts]") {
    const Board b = Board::make(8, 8);
    const Names want{"a8", "d5", "e4", "h1"};
    CHECK(core_move_names(b, Ruleset::Brainking, b.start()) == want);
    const ref::RefBoard rb(8, 8);
    CHECK(ref_move_names(rb, ref::Rules::Brainking, ref::full_board(rb)) == want);
}

TEST_CASE("8x8 brainking: after a8 White removes b8 or a7 then after a8 b8 Black has only a6-a8",
          "[rules][facts]") {
    const Board b = Board::make(8, 8);
    const Game g1 = parse_game(b, Ruleset::Brainking, "a8");
    CHECK(core_move_names(b, Ruleset::Brainking, g1.positions.back()) == Names{"a7", "b8"});
    const Game g2 = parse_game(b, Ruleset::Brainking, "a8 b8");
    CHECK(core_move_names(b, Ruleset::Brainking, g2.positions.back()) == Names{"a6-a8"});

    const ref::RefBoard rb(8, 8);
    ref::RefPos p = ref::full_board(rb);
    p = ref::apply(rb, p, {0, 0, 0, 0});  // a8
    CHECK(ref_move_names(rb, ref::Rules::Brainking, p) == Names{"a7", "b8"});
    p = ref::apply(rb, p, {0, 1, 0, 1});  // b8
    CHECK(ref_move_names(rb, ref::Rules::Brainking, p) == Names{"a6-a8"});
    CHECK(ref::to_core(rb, p) == g2.positions.back());
}

TEST_CASE("2x2: Black has no move after the removals and loses", "[rules][facts]") {
    const Board b = Board::make(2, 2);
    for (Ruleset r : {Ruleset::Brainking, Ruleset::Center, Ruleset::Any}) {
        INFO(ruleset_name(r));
        int games = 0;
        for (const auto& m1 : legal_moves(b, r, b.start())) {
            for (const auto& m2 : legal_moves(b, r, m1.child)) {
                ++games;
                CHECK(m2.child.to_move == Color::Black);
                CHECK(legal_moves(b, r, m2.child).empty());
                CHECK_FALSE(has_jump(b, m2.child));
            }
        }
        CHECK(games > 0);
        CHECK(perft(b, r, b.start(), 3) == 0);
        const ref::RefBoard rb(2, 2);
        ref::RefMemo memo(rb, ref::rules_of(r));
        // Black removes, White removes, Black cannot move: White wins in 2 plies.
        CHECK(ref::solve(rb, ref::full_board(rb), memo) == ref::RefValue{false, 2});
    }
}

TEST_CASE("6x6 brainking: Black removes a6 and f1 and c4 or d3", "[rules][facts]") {
    const Board b = Board::make(6, 6);
    const Names want{"a6", "c4", "d3", "f1"};
    CHECK(core_move_names(b, Ruleset::Brainking, b.start()) == want);
    const ref::RefBoard rb(6, 6);
    CHECK(ref_move_names(rb, ref::Rules::Brainking, ref::full_board(rb)) == want);
}

TEST_CASE("4x4: '..xo/oxox/xoxo/oxox b' is the position after a4 b4", "[rules][facts]") {
    const Board b = Board::make(4, 4);
    const Game g = parse_game(b, Ruleset::Brainking, "a4 b4");
    CHECK(format_position(b, g.positions.back()) == "..xo/oxox/xoxo/oxox b");
    const ref::RefBoard rb(4, 4);
    ref::RefPos p = ref::full_board(rb);
    p = ref::apply(rb, p, {0, 0, 0, 0});
    p = ref::apply(rb, p, {0, 1, 0, 1});
    CHECK(ref::to_text(rb, p) == "..xo/oxox/xoxo/oxox b");
    CHECK(ref::to_core(rb, p) == g.positions.back());
}

TEST_CASE("4x4 brainking: 3858 raw positions and 975 classes are reachable",
          "[rules][facts][reference]") {
    const ref::RefBoard rb(4, 4);
    const ref::Reachable e = ref::enumerate_reachable(rb, ref::Rules::Brainking);
    CHECK(e.raw.size() == 3858);
    CHECK(e.classes == 975);
    // Hand count at 14 pieces: removals a4, d1 (2 replies each), b3, c2 (4 each) = 12 raw; up to
    // symmetry the corner gaps form one class and the centre gaps two (b3 b4 ~ b3 a3, b3 c3 ~ b3
    // b2).
    CHECK(e.raw_by_pieces.at(14) == 12);
    CHECK(e.classes_by_pieces.at(14) == 3);
    std::size_t raw = 0, classes = 0;
    for (auto [n, c] : e.raw_by_pieces)
        raw += c;
    for (auto [n, c] : e.classes_by_pieces)
        classes += c;
    CHECK(raw == 3858);
    CHECK(classes == 975);
    CHECK(e.raw_by_pieces.count(15) == 0);
    CHECK(e.raw_by_pieces.count(16) == 0);
}

TEST_CASE("Reference enumeration: classes agree with core's canonical_key on whole reachable sets",
          "[symmetry][reference]") {
    struct Case {
        int r, c;
        Ruleset rules;
    };
    const Case cases[] = {
        {4, 4, Ruleset::Brainking}, {4, 4, Ruleset::Center},    {4, 4, Ruleset::Any},
        {3, 3, Ruleset::Any},       {3, 4, Ruleset::Brainking}, {4, 5, Ruleset::Brainking},
        {5, 4, Ruleset::Center},    {3, 5, Ruleset::Any},       {2, 6, Ruleset::Any}};
    for (const Case& k : cases) {
        const ref::RefBoard rb(k.r, k.c);
        const Board b = Board::make(k.r, k.c);
        const SymmetryGroup g(b);
        INFO(b.name() << " " << ruleset_name(k.rules));
        const ref::Reachable e = ref::enumerate_reachable(rb, ref::rules_of(k.rules));
        std::unordered_set<std::uint64_t> keys;
        for (const auto& key : e.raw)
            keys.insert(g.canonical_key(ref::to_core(rb, ref::pos_of(rb, key))));
        CHECK(keys.size() == e.classes);
        CHECK(e.raw.size() >= e.classes);
    }
}

TEST_CASE("4x4 brainking: White wins", "[rules][facts][reference]") {
    const ref::RefBoard rb(4, 4);
    ref::RefMemo memo(rb, ref::Rules::Brainking);
    const ref::RefPos start = ref::full_board(rb);
    CHECK_FALSE(ref::solve(rb, start, memo).win);
    const auto black = ref::black_removals(rb, ref::Rules::Brainking, start);
    REQUIRE(black.size() == 4);
    for (const auto& m1 : black) {
        const ref::RefPos one = ref::apply(rb, start, m1);
        INFO("after " << ref::move_text(rb, m1));
        bool refuted = false;
        for (const auto& m2 : ref::white_removals(rb, one)) {
            const ref::RefPos two = ref::apply(rb, one, m2);
            REQUIRE(two.side == 'b');
            if (!ref::solve(rb, two, memo).win) refuted = true;
        }
        CHECK(refuted);
    }
}

TEST_CASE("Reference values: LOSS depths even and WIN depths odd and definitions hold",
          "[reference]") {
    for (auto [r, c] : {std::pair{4, 4}, std::pair{3, 5}, std::pair{4, 5}}) {
        const ref::RefBoard rb(r, c);
        ref::RefMemo memo(rb, ref::Rules::Any);
        ref::solve(rb, ref::full_board(rb), memo);
        REQUIRE(memo.values.size() > 100);
        for (const auto& [key, v] : memo.values) {
            CHECK(v.depth % 2 == (v.win ? 1 : 0));
            const ref::RefPos p = ref::pos_of(rb, key);
            const auto ms = ref::moves(rb, ref::Rules::Any, p);
            if (ms.empty()) CHECK(v == ref::RefValue{false, 0});
            // A WIN has a LOSS child at depth - 1; a LOSS has only WIN children, one at depth - 1.
            bool found = false;
            for (const auto& m : ms) {
                const ref::RefValue cv = memo.values.at(ref::key_of(rb, ref::apply(rb, p, m)));
                if (!v.win) CHECK(cv.win);
                if (v.win && !cv.win) CHECK(cv.depth >= v.depth - 1);
                if (!v.win) CHECK(cv.depth <= v.depth - 1);
                if (cv.win != v.win && cv.depth == v.depth - 1) found = true;
            }
            if (!ms.empty()) CHECK(found);
        }
    }
}

TEST_CASE("Linear positions: the combinatorial game theory results", "[reference]") {
    auto value = [](const std::string& text, char side) {
        const ref::RefBoard rb(1, static_cast<int>(text.size()));
        ref::RefMemo memo(rb);
        ref::RefPos p = ref::from_text(rb, text + " " + side);
        // Check the text respects the colour rule, as a guard on the test itself.
        const Position cp = parse_position(ref::to_text(rb, p)).position;
        REQUIRE(ref::from_core(rb, cp) == p);
        return ref::solve(rb, p, memo).win;
    };
    // xo.. : Black wins whoever starts.
    CHECK(value("xo..", 'b'));
    CHECK_FALSE(value("xo..", 'w'));
    // .ox. : the first player wins.
    CHECK(value(".ox.", 'b'));
    CHECK(value(".ox.", 'w'));
    // . (n alternating pieces starting with o) . : n = 2, 6 first player; n = 4 second player;
    // n = 3, 5 Black whoever starts.
    CHECK(value(".oxoxox.", 'b'));
    CHECK(value(".oxoxox.", 'w'));
    CHECK_FALSE(value(".oxox.", 'b'));
    CHECK_FALSE(value(".oxox.", 'w'));
    CHECK(value(".oxo.", 'b'));
    CHECK_FALSE(value(".oxo.", 'w'));
    CHECK(value(".oxoxo.", 'b'));
    CHECK_FALSE(value(".oxoxo.", 'w'));
}

TEST_CASE("5x5 brainking: Black wins from the corner and the centre gaps",
          "[reference][facts][slow]") {
    const ref::RefBoard rb(5, 5);
    ref::RefMemo memo(rb, ref::Rules::Brainking);
    const ref::RefPos start = ref::full_board(rb);
    CHECK(ref::solve(rb, start, memo).win);
    for (const auto& m1 : ref::black_removals(rb, ref::Rules::Brainking, start)) {
        const ref::RefPos one = ref::apply(rb, start, m1);
        for (const auto& m2 : ref::white_removals(rb, one)) {
            INFO(ref::move_text(rb, m1) << " " << ref::move_text(rb, m2));
            CHECK(ref::solve(rb, ref::apply(rb, one, m2), memo).win);
        }
    }
}
