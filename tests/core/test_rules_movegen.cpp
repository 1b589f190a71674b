// Move generation of core/ (removals and straight multi-jumps) against hand-built positions and
// against the plain reference engine of tests/reference.hpp on random reachable positions.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "core/board.hpp"
#include "core/movegen.hpp"
#include "core/notation.hpp"
#include "tests/reference.hpp"

using namespace konane;

namespace {

using Names = std::vector<std::string>;

/// Sorted names of core's legal moves in the position given as text (board read off the text).
Names core_moves(const std::string& text, Ruleset r = Ruleset::Brainking) {
    const ParsedPosition pp = parse_position(text);
    Names out;
    for (const auto& mc : legal_moves(pp.board, r, pp.position))
        out.push_back(format_move(pp.board, mc.move));
    std::sort(out.begin(), out.end());
    return out;
}

/// The same from the reference engine.
Names ref_moves(const std::string& text, ref::Rules r = ref::Rules::Brainking) {
    const ParsedPosition pp = parse_position(text);  // only for the size
    const ref::RefBoard rb(pp.board.rows, pp.board.cols);
    Names out;
    for (const auto& m : ref::moves(rb, r, ref::from_text(rb, text)))
        out.push_back(ref::move_text(rb, m));
    std::sort(out.begin(), out.end());
    return out;
}

/// Both engines must give `want`.
void check_moves(const std::string& text, const Names& want) {
    INFO(text);
    Names sorted = want;
    std::sort(sorted.begin(), sorted.end());
    CHECK(core_moves(text) == sorted);
    CHECK(ref_moves(text) == sorted);
}

}  // namespace

TEST_CASE("Jumps: a double jump and its single-jump prefix are both moves", "[rules]") {
    // 1x6: x a1, o b1, . c1, o d1, . e1, . f1.
    check_moves("xo.o.. b", {"a1-c1", "a1-e1"});
    // 1x7: a triple jump and both prefixes.
    check_moves("xo.o.o. b", {"a1-c1", "a1-e1", "a1-g1"});
    // The same along a column, downwards (7x1, rank 7 at the top).
    check_moves("x/o/./o/./o/. b", {"a7-a5", "a7-a3", "a7-a1"});
    // Stops when the chain breaks: after a1-c1 the next square d1 is empty.
    check_moves("xo..x. b", {"a1-c1"});
}

TEST_CASE("Jumps: no turning within a move", "[rules]") {
    // 3x3: x a1 jumps b1 to c1; going on over c2 to c3 would turn.
    check_moves(".../..o/xo. b", {"a1-c1"});
    // 3x3: x c1 jumps up over c2 or left over b1, and cannot turn after either.
    check_moves(".../..o/.ox b", {"c1-c3", "c1-a1"});
}

TEST_CASE("Jumps: corners and edges and both directions of a corner", "[rules]") {
    // 5x5: x a1 with o a2, o a4 above and o b1, o d1 to the right.
    const std::string corner = "...../o..../...../o..../xo.o. b";
    check_moves(corner, {"a1-a3", "a1-a5", "a1-c1", "a1-e1"});
    // White to move there: no White piece has an empty square beyond a Black piece.
    check_moves("...../o..../...../o..../xo.o. w", {});
    // Top-right corner on 4x4 (d4 is White's): o d4 jumps down over d3 and left over c4.
    check_moves("..xo/...x/..../.... w", {"d4-b4", "d4-d2"});
    check_moves("..xo/...x/..../.... b", {});
}

TEST_CASE("Jumps: no landing on an occupied square or off the board", "[rules]") {
    // 1x4 "..xo": x c1's beyond-square is off the board; o d1 may jump left.
    check_moves("..xo b", {});
    check_moves("..xo w", {"d1-b1"});
    // 2x4: of x c2 and x d1 only d1's inward jump stays on the board.
    check_moves("..xo/..ox b", {"d1-b1"});
    // (At least two empty squares: one empty square with White to move is White's removal.)
    // 1x5 "xox..": a1 would land on its own piece c1; White b1 may jump c1 to d1.
    check_moves("xox.. b", {});
    check_moves("xox.. w", {"b1-d1"});
    // 1x6 "xoxo..": b1 and d1 blocked; c1 jumps d1 to e1.
    check_moves("xoxo.. w", {});
    check_moves("xoxo.. b", {"c1-e1"});
    // A piece next to an empty square (not an opponent) does not jump.
    check_moves("x..o. b", {});
    check_moves("x..o. w", {});
    // Own piece in between: no jumping own pieces (1x5: x a1, . b1, x c1).
    check_moves("x.x.. b", {});
}

TEST_CASE("Removals under each ruleset", "[rules]") {
    struct Case {
        int rows, cols;
        Ruleset rules;
        std::string game;  // moves before
        Names want;
    };
    const Case cases[] = {
        {4, 4, Ruleset::Brainking, "", {"a4", "b3", "c2", "d1"}},
        {4, 4, Ruleset::Center, "", {"b3", "c2"}},
        {4, 4, Ruleset::Any, "", {"a2", "a4", "b1", "b3", "c2", "c4", "d1", "d3"}},
        {4, 4, Ruleset::Brainking, "a4", {"a3", "b4"}},
        {4, 4, Ruleset::Brainking, "b3", {"a3", "b2", "b4", "c3"}},
        {4, 4, Ruleset::Any, "d3", {"c3", "d2", "d4"}},
        {5, 5, Ruleset::Brainking, "", {"a1", "a5", "c3", "e1", "e5"}},
        {5, 5, Ruleset::Center, "", {"c3"}},
        {5, 4, Ruleset::Center, "", {"c3"}},
        {4, 5, Ruleset::Center, "", {"c2"}},
        {5, 4, Ruleset::Brainking, "", {"a1", "a5", "c3"}},
        {3, 3, Ruleset::Brainking, "", {"a1", "a3", "b2", "c1", "c3"}},
        {3, 3, Ruleset::Brainking, "b2", {"a2", "b1", "b3", "c2"}},
        {3, 3, Ruleset::Brainking, "a1", {"a2", "b1"}},
        {1, 1, Ruleset::Brainking, "", {"a1"}},
        {1, 1, Ruleset::Brainking, "a1", {}},
        {1, 2, Ruleset::Any, "", {"a1"}},
        {1, 2, Ruleset::Any, "a1", {"b1"}},
        {2, 3, Ruleset::Center, "", {"b1"}},
        {6, 6, Ruleset::Center, "", {"c4", "d3"}},
        {8, 8, Ruleset::Center, "", {"d5", "e4"}},
        {8, 8, Ruleset::Any, "d5", {"c5", "d4", "d6", "e5"}},
    };
    for (const Case& k : cases) {
        const Board b = Board::make(k.rows, k.cols);
        INFO(b.name() << " " << ruleset_name(k.rules) << " after '" << k.game << "'");
        const Position p = parse_game(b, k.rules, k.game).positions.back();
        Names core;
        for (const auto& mc : legal_moves(b, k.rules, p)) {
            core.push_back(format_move(b, mc.move));
            CHECK(mc.move.is_removal());
            CHECK(mc.child.occ == (p.occ & ~(std::uint64_t{1} << mc.move.from)));
            CHECK(mc.child.to_move == other(p.to_move));
        }
        std::sort(core.begin(), core.end());
        CHECK(core == k.want);
        const ref::RefBoard rb(k.rows, k.cols);
        const ref::RefPos rp = ref::from_core(rb, p);
        Names refn;
        for (const auto& m : ref::moves(rb, ref::rules_of(k.rules), rp))
            refn.push_back(ref::move_text(rb, m));
        std::sort(refn.begin(), refn.end());
        CHECK(refn == k.want);
    }
}

TEST_CASE("legal_moves equals the reference on random reachable positions of every board",
          "[rules][reference]") {
    std::size_t positions = 0, moves = 0;
    for (int rows = 1; rows <= 8; ++rows) {
        for (int cols = 1; cols <= 8; ++cols) {
            const Board b = Board::make(rows, cols);
            const ref::RefBoard rb(rows, cols);
            for (Ruleset r : {Ruleset::Brainking, Ruleset::Center, Ruleset::Any}) {
                const auto sample = ref::random_positions(
                    rb, ref::rules_of(r), 60,
                    1000003u * rows + 1009u * cols + static_cast<unsigned>(r));
                for (const ref::RefPos& rp : sample) {
                    const Position p = ref::to_core(rb, rp);
                    REQUIRE(ref::from_core(rb, p) == rp);
                    const auto core = legal_moves(b, r, p);
                    std::vector<ref::RefMove> want = ref::moves(rb, ref::rules_of(r), rp);
                    std::vector<ref::RefMove> got;
                    bool children_ok = true;
                    for (const auto& mc : core) {
                        const ref::RefMove m = ref::move_from_core(rb, mc.move);
                        got.push_back(m);
                        if (ref::from_core(rb, mc.child) != ref::apply(rb, rp, m))
                            children_ok = false;
                    }
                    std::sort(want.begin(), want.end());
                    std::sort(got.begin(), got.end());
                    const bool same = got == want;
                    if (!same || !children_ok) {
                        FAIL_CHECK(b.name() << " " << ruleset_name(r) << " " << ref::to_text(rb, rp)
                                            << ": core and reference disagree");
                    }
                    CHECK(std::adjacent_find(got.begin(), got.end()) == got.end());
                    if (stage_of(b, p) == Stage::Play) {
                        CHECK(has_jump(b, p) == !want.empty());
                    }
                    CHECK(perft(b, r, p, 1) == want.size());
                    ++positions;
                    moves += want.size();
                }
            }
        }
    }
    INFO(positions << " positions, " << moves << " moves");
    CHECK(positions > 50000);
}

TEST_CASE("Stages: full board and one hole and play", "[rules]") {
    for (int rows = 1; rows <= 8; ++rows) {
        for (int cols = 1; cols <= 8; ++cols) {
            const Board b = Board::make(rows, cols);
            const ref::RefBoard rb(rows, cols);
            for (const ref::RefPos& rp :
                 ref::random_positions(rb, ref::Rules::Any, 5, 7u * rows + cols)) {
                const Position p = ref::to_core(rb, rp);
                for (const Ruleset r : {Ruleset::Brainking, Ruleset::Center, Ruleset::Any}) {
                    const auto rs = ref::stage_of(rb, ref::rules_of(r), rp);
                    const Stage want = rs == ref::Stage::BlackRemoval   ? Stage::FullBoard
                                       : rs == ref::Stage::WhiteRemoval ? Stage::OneHole
                                                                        : Stage::Play;
                    CHECK(stage_of(b, r, p) == want);
                }
            }
        }
    }
}
