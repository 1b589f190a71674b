// The openings of generated tables (probe/openings.hpp compute_openings) against the verdicts
// of docs/rules.md.
#include <catch2/catch.hpp>

#include <string>

#include "core/board.hpp"
#include "probe/openings.hpp"
#include "probe/probe.hpp"
#include "solver/solve.hpp"
#include "tests/temp_dir.hpp"

using namespace konane;

TEST_CASE("opening verdicts of rules.md: White wins 4x4 and Black wins 5x5 from corner and centre",
          "[solver][openings]") {
    konane::test::TempDir dir("opening-verdicts");
    for (int n : {4, 5}) {
        solver::GenerateOptions o;
        o.board = Board::make(n, n);
        o.output = dir.path / ("t" + std::to_string(n) + ".kbt");
        solver::generate(o);
        const Tablebase tb = Tablebase::open(o.output);
        const Openings op = compute_openings(tb);
        const Color want = n == 4 ? Color::White : Color::Black;
        CHECK(op.winner == want);
        // Every Black removal (the corners and the centre) with White's best reply.
        REQUIRE(op.choices.size() == (n == 4 ? 4u : 5u));
        for (const auto& c : op.choices) {
            INFO(n << "x" << n << " removal " << static_cast<int>(c.black.from));
            CHECK(c.winner == want);
        }
        // The verdict agrees with the value of the full board.
        const auto v = tb.value(tb.board().start());
        REQUIRE(v);
        CHECK(v->win == (want == Color::Black));
    }
}
