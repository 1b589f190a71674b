// The proof search with region values (ProofOptions::region_max_pieces: a position that splits
// into independent regions decided by the sum of their combinatorial game values), by the
// enhanced alpha-beta and by df-pn, against independent answers: the tables (retrograde
// analysis), the reference negamax of tests/reference.hpp, and the plain search without regions.
// All [slow] (7 to 14 s each in a release build): under the sanitizers the region values are
// run by test_certificate.cpp's certificate test.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <catch2/catch.hpp>

#include "core/notation.hpp"
#include "probe/openings.hpp"
#include "search/proof.hpp"
#include "tests/five_by_six.hpp"
#include "tests/reference.hpp"
#include "tests/table_fixture.hpp"

namespace {

using namespace konane;
using namespace konane::test;

ProofOptions region_options(ProofAlgorithm a, int region_pieces) {
    ProofOptions o;
    o.rules = Ruleset::Brainking;
    o.memory_bytes = std::size_t{4} << 20;
    o.algorithm = a;
    o.region_max_pieces = region_pieces;
    o.region_memory = std::size_t{16} << 20;
    return o;
}

constexpr ProofAlgorithm kAlgorithms[] = {ProofAlgorithm::Enhanced, ProofAlgorithm::DfPn};

const char* algorithm_name(ProofAlgorithm a) {
    return a == ProofAlgorithm::DfPn ? "df-pn" : "alpha-beta";
}

}  // namespace

TEST_CASE("region search: every opening up to 5x6 and 6x5 equals the table",
          "[proof][regions][slow]") {
    std::uint64_t hits = 0;
    for (const ProofAlgorithm a : kAlgorithms) {
        for (const int k : {6, 12}) {
            INFO(algorithm_name(a) << " regions of at most " << k);
            // Boards whose tables the tests generate (seconds).
            for (const auto& [rows, cols] : {std::pair{4, 4}, std::pair{4, 5}, std::pair{5, 4},
                                             std::pair{5, 5}, std::pair{4, 6}, std::pair{6, 4}}) {
                const Tablebase& tb = table(rows, cols, Ruleset::Brainking);
                const Board& b = tb.board();
                const Openings want = compute_openings(tb);
                INFO(b.name());
                ProofSearch s(b, region_options(a, k));
                const SearchedOpenings got = search_openings(s);
                REQUIRE(got.lines.size() == want.lines.size());
                for (std::size_t i = 0; i < want.lines.size(); ++i) {
                    INFO(format_move(b, want.lines[i].black)
                         << " " << format_move(b, want.lines[i].white));
                    CHECK(got.lines[i].winner == want.lines[i].winner);
                }
                CHECK(got.winner == want.winner);
                hits += got.region_hits;
            }
            // 5x6 and 6x5: their tables' openings (docs/solved.md; minutes to generate).
            for (const std::string name : {"5x6", "6x5"}) {
                const Board b = Board::parse(name);
                ProofSearch s(b, region_options(a, k));
                const SearchedOpenings got = search_openings(s);
                check_five_by_six(name, got);
                hits += got.region_hits;
            }
        }
    }
    CHECK(hits > 0);  // the region values decided positions
}

TEST_CASE("region search: every 6x6 opening equals the search without regions",
          "[proof][regions][slow]") {
    // No 6x6 table in the tests (it takes 12 GiB to build): the plain enhanced search, itself
    // checked against the tables above and on the published 6x6 table (docs/results.md).
    const Board b = Board::make(6, 6);
    ProofSearch plain(b, region_options(ProofAlgorithm::Enhanced, 0));
    const SearchedOpenings want = search_openings(plain);
    REQUIRE(want.winner == Color::White);
    for (const ProofAlgorithm a : kAlgorithms) {
        INFO(algorithm_name(a));
        ProofOptions o = region_options(a, 8);
        o.memory_bytes = std::size_t{64} << 20;
        ProofSearch s(b, o);
        const SearchedOpenings got = search_openings(s);
        REQUIRE(got.lines.size() == want.lines.size());
        for (std::size_t i = 0; i < want.lines.size(); ++i) {
            INFO(format_move(b, want.lines[i].black) << " " << format_move(b, want.lines[i].white));
            CHECK(got.lines[i].winner == want.lines[i].winner);
        }
        CHECK(got.winner == Color::White);
        CHECK(got.region_hits > 0);
    }
}

TEST_CASE(
    "region search: random positions up to 5x6 with either side to move equal the "
    "table or the reference",
    "[proof][regions][slow]") {
    // Positions of random games after the removals, each with Black and with White to move
    // (the other side's is often no position of the game). The table decides them where it
    // holds them; the reference negamax the others of at most 18 pieces, and every position
    // of 5x6 and 6x5 (no table: minutes to generate).
    int checked = 0;
    std::uint64_t hits = 0;
    for (const auto& [rows, cols] :
         {std::pair{4, 4}, std::pair{4, 5}, std::pair{5, 4}, std::pair{5, 5}, std::pair{4, 6},
          std::pair{6, 4}, std::pair{5, 6}, std::pair{6, 5}}) {
        const bool tabled = rows * cols <= 24;
        const Tablebase* tb = tabled ? &table(rows, cols, Ruleset::Brainking) : nullptr;
        const Board b = Board::make(rows, cols);
        const ref::RefBoard rb(rows, cols);
        ref::RefMemo memo(rb, ref::Rules::Brainking);
        std::vector<std::unique_ptr<ProofSearch>> searches;
        for (const ProofAlgorithm a : kAlgorithms)
            searches.push_back(std::make_unique<ProofSearch>(b, region_options(a, 10)));
        for (const ref::RefPos& rp :
             ref::random_positions(rb, ref::Rules::Brainking, 40, 7919u * rows + cols)) {
            if (ref::stage_of(rb, ref::Rules::Brainking, rp) != ref::Stage::Play) continue;
            for (const char side : {'b', 'w'}) {
                ref::RefPos q = rp;
                q.side = side;
                const Position p = ref::to_core(rb, q);
                std::optional<bool> want;
                if (const auto v = tb ? tb->value(p) : std::nullopt) {
                    want = v->win;
                } else if (ref::count_pieces(rb, q) <= 18) {
                    want = ref::solve(rb, q, memo).win;
                } else {
                    continue;
                }
                INFO(b.name() << " " << format_position(b, p));
                for (const auto& s : searches) {
                    const ProofResult got = s->solve(p);
                    REQUIRE(got.win.has_value());
                    CHECK(*got.win == *want);
                    hits += got.region_hits;
                }
                ++checked;
            }
        }
    }
    CHECK(checked > 2000);
    CHECK(hits > 0);
}

TEST_CASE("region search: 6x7 positions of random games equal the plain search",
          "[proof][regions][slow]") {
    // Positions of at most 22 pieces (the plain search decides them in well under a second),
    // with either side to move.
    const Board b = Board::make(6, 7);
    const ref::RefBoard rb(6, 7);
    ProofOptions plain_options = region_options(ProofAlgorithm::Plain, 0);
    plain_options.memory_bytes = std::size_t{32} << 20;
    ProofSearch plain(b, plain_options);
    std::vector<std::unique_ptr<ProofSearch>> searches;
    for (const ProofAlgorithm a : kAlgorithms)
        searches.push_back(std::make_unique<ProofSearch>(b, region_options(a, 12)));
    int checked = 0;
    std::uint64_t hits = 0;
    for (const ref::RefPos& rp : ref::random_positions(rb, ref::Rules::Brainking, 30, 4242)) {
        if (ref::stage_of(rb, ref::Rules::Brainking, rp) != ref::Stage::Play) continue;
        if (ref::count_pieces(rb, rp) > 22) continue;
        for (const char side : {'b', 'w'}) {
            ref::RefPos q = rp;
            q.side = side;
            const Position p = ref::to_core(rb, q);
            INFO(format_position(b, p));
            const ProofResult want = plain.solve(p);
            REQUIRE(want.win.has_value());
            for (const auto& s : searches) {
                const ProofResult got = s->solve(p);
                REQUIRE(got.win.has_value());
                CHECK(*got.win == *want.win);
                hits += got.region_hits;
            }
            ++checked;
        }
    }
    CHECK(checked >= 200);
    CHECK(hits > 0);
}
