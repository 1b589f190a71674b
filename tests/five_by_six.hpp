// The winners of every opening of 5x6 and 6x5, for the search tests that cannot generate
// those tables (minutes each).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "core/board.hpp"
#include "core/notation.hpp"
#include "search/proof.hpp"

namespace konane::test {

/// Every opening of 5x6 and 6x5 with its winner. Generating these tables takes minutes; their
/// openings are in docs/solved.md (written from the tables by scripts/build-tables): Black wins
/// only after c3-c2 and c3-c4 (5x6), c4-b4 and c4-d4 (6x5).
struct WantLine {
    const char* black;
    const char* white;
    Color winner;
};
inline const std::map<std::string, std::vector<WantLine>>& five_by_six_openings() {
    static const std::map<std::string, std::vector<WantLine>> boards = {
        {"5x6",
         {{"a1", "b1", Color::White},
          {"a1", "a2", Color::White},
          {"c3", "c2", Color::Black},
          {"c3", "b3", Color::White},
          {"c3", "d3", Color::White},
          {"c3", "c4", Color::Black},
          {"a5", "a4", Color::White},
          {"a5", "b5", Color::White}}},
        {"6x5",
         {{"c4", "c3", Color::White},
          {"c4", "b4", Color::Black},
          {"c4", "d4", Color::Black},
          {"c4", "c5", Color::White},
          {"a6", "a5", Color::White},
          {"a6", "b6", Color::White},
          {"e6", "e5", Color::White},
          {"e6", "d6", Color::White}}},
    };
    return boards;
}

/// Checks every opening line of `got` (search_openings() on board `name` of
/// five_by_six_openings()) against the tables' winners, and the board's verdict (White).
inline void check_five_by_six(const std::string& name, const SearchedOpenings& got) {
    const Board b = Board::parse(name);
    const std::vector<WantLine>& want = five_by_six_openings().at(name);
    INFO(name);
    REQUIRE(got.lines.size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        INFO(want[i].black << " " << want[i].white);
        CHECK(format_move(b, got.lines[i].black) == want[i].black);
        CHECK(format_move(b, got.lines[i].white) == want[i].white);
        CHECK(got.lines[i].winner == want[i].winner);
    }
    CHECK(got.winner == Color::White);
}

}  // namespace konane::test
