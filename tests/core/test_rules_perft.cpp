// perft of core/movegen.hpp against the plain reference engine (tests/reference.hpp), from the
// full board, the two removals counting as plies 1 and 2, under every ruleset.
#include <cstdint>

#include <catch2/catch.hpp>

#include "core/board.hpp"
#include "core/movegen.hpp"
#include "tests/reference.hpp"

using namespace konane;

namespace {

constexpr Ruleset kRulesets[] = {Ruleset::Brainking, Ruleset::Center, Ruleset::Any};

void check_perft_up_to(int rows, int cols, int max_depth) {
    const Board b = Board::make(rows, cols);
    const ref::RefBoard rb(rows, cols);
    for (Ruleset r : kRulesets) {
        for (int d = 0; d <= max_depth; ++d) {
            INFO(b.name() << " " << ruleset_name(r) << " depth " << d);
            CHECK(perft(b, r, b.start(), d) == ref::perft(rb, ref::rules_of(r), d));
        }
    }
}

}  // namespace

TEST_CASE("perft: hand counts of the removals on 4x4", "[perft]") {
    const Board b = Board::make(4, 4);
    const ref::RefBoard rb(4, 4);
    // Brainking: a4, d1 (2 White replies each), b3, c2 (4 each).
    CHECK(perft(b, Ruleset::Brainking, b.start(), 1) == 4);
    CHECK(perft(b, Ruleset::Brainking, b.start(), 2) == 12);
    // Center: b3, c2.
    CHECK(perft(b, Ruleset::Center, b.start(), 1) == 2);
    CHECK(perft(b, Ruleset::Center, b.start(), 2) == 8);
    // Any: the 8 Black squares with 2+3+4+3+3+4+3+2 White neighbours.
    CHECK(perft(b, Ruleset::Any, b.start(), 1) == 8);
    CHECK(perft(b, Ruleset::Any, b.start(), 2) == 24);
    CHECK(ref::perft(rb, ref::Rules::Brainking, 2) == 12);
    CHECK(ref::perft(rb, ref::Rules::Center, 2) == 8);
    CHECK(ref::perft(rb, ref::Rules::Any, 2) == 24);
    CHECK(perft(b, Ruleset::Brainking, b.start(), 0) == 1);
    // 14 pieces after the removals, each jump takes one and the jumper stays: < 14 jumps.
    CHECK(perft(b, Ruleset::Any, b.start(), 16) == 0);
}

TEST_CASE("perft equals the reference: boards 4x4 to 6x6", "[perft][reference]") {
    check_perft_up_to(4, 4, 16);
    check_perft_up_to(4, 5, 11);
    check_perft_up_to(5, 4, 11);
    check_perft_up_to(5, 5, 10);
    check_perft_up_to(4, 6, 10);
    check_perft_up_to(6, 4, 10);
    check_perft_up_to(5, 6, 9);
    check_perft_up_to(6, 5, 9);
    check_perft_up_to(6, 6, 9);
}

TEST_CASE("perft equals the reference: odd and small boards", "[perft][reference]") {
    check_perft_up_to(3, 7, 12);
    check_perft_up_to(7, 3, 12);
    check_perft_up_to(3, 3, 10);
    check_perft_up_to(3, 5, 12);
    check_perft_up_to(2, 8, 12);
    check_perft_up_to(3, 8, 10);
    check_perft_up_to(1, 8, 8);
    check_perft_up_to(8, 1, 8);
    check_perft_up_to(1, 1, 3);
    check_perft_up_to(2, 2, 4);
    check_perft_up_to(7, 7, 6);
    check_perft_up_to(8, 7, 6);
    check_perft_up_to(8, 8, 6);
}

TEST_CASE("perft: values agreed by core and the reference (regression anchors)", "[perft]") {
    struct Case {
        int rows, cols;
        Ruleset rules;
        int depth;
        std::uint64_t nodes;
    };
    const Case cases[] = {
        {4, 4, Ruleset::Brainking, 8, 2808},    {4, 4, Ruleset::Center, 8, 2340},
        {4, 4, Ruleset::Any, 8, 4716},          {4, 5, Ruleset::Brainking, 12, 657420},
        {5, 4, Ruleset::Any, 12, 1479254},      {5, 5, Ruleset::Brainking, 10, 698568},
        {5, 5, Ruleset::Center, 10, 570456},    {4, 6, Ruleset::Brainking, 11, 1932022},
        {5, 6, Ruleset::Brainking, 9, 294870},  {6, 5, Ruleset::Any, 9, 1038544},
        {6, 6, Ruleset::Brainking, 6, 4192},    {6, 6, Ruleset::Brainking, 7, 22676},
        {6, 6, Ruleset::Brainking, 9, 1030412}, {6, 6, Ruleset::Center, 9, 1002976},
        {6, 6, Ruleset::Any, 9, 2823924},       {3, 7, Ruleset::Brainking, 12, 82884},
        {3, 7, Ruleset::Center, 12, 8752},      {3, 7, Ruleset::Any, 12, 1022860},
        {8, 8, Ruleset::Brainking, 6, 7124},    {8, 8, Ruleset::Any, 7, 277860},
    };
    for (const Case& k : cases) {
        const Board b = Board::make(k.rows, k.cols);
        INFO(b.name() << " " << ruleset_name(k.rules) << " depth " << k.depth);
        CHECK(perft(b, k.rules, b.start(), k.depth) == k.nodes);
        CHECK(ref::perft(ref::RefBoard(k.rows, k.cols), ref::rules_of(k.rules), k.depth) ==
              k.nodes);
    }
}

TEST_CASE("perft equals the reference: deeper", "[perft][reference][slow]") {
    struct Case {
        int rows, cols, depth;
    };
    for (const Case& k : {Case{4, 5, 14}, Case{5, 5, 12}, Case{4, 6, 12}, Case{6, 6, 10},
                          Case{5, 6, 10}, Case{3, 7, 14}}) {
        const Board b = Board::make(k.rows, k.cols);
        const ref::RefBoard rb(k.rows, k.cols);
        for (Ruleset r : kRulesets) {
            INFO(b.name() << " " << ruleset_name(r) << " depth " << k.depth);
            CHECK(perft(b, r, b.start(), k.depth) == ref::perft(rb, ref::rules_of(r), k.depth));
        }
    }
}
