// The solve by sort-merge joins (solver/retrograde_join.hpp): every depth against the plain
// memoised negamax of tests/reference.hpp, and its errors on damaged input.
#include <catch2/catch.hpp>

#include <map>
#include <vector>

#include "solver/entry_packing.hpp"
#include "solver/retrograde_join.hpp"
#include "tests/reference.hpp"

using namespace konane;
using konane::solver::Depth;
using konane::solver::RankedLayer;

namespace {

// Every layer of b under brainking solved bottom-up by the join alone (each layer from the
// join's own results below it), with the given chunk size and threads: depths by rank, by
// piece count.
std::map<int, std::vector<Depth>> join_all(const Board& b,
                                           const std::vector<solver::EnumeratedLayer>& layers,
                                           int chunk_bits, int threads) {
    std::map<int, std::vector<Depth>> depth;
    for (auto it = layers.rbegin(); it != layers.rend(); ++it) {  // ascending piece count
        std::vector<RankedLayer> below;
        for (const auto& l : layers) {
            if (l.pieces < it->pieces && l.pieces >= it->pieces - solver::max_capture(b))
                below.push_back({l.pieces, l.keys, depth.at(l.pieces)});
        }
        solver::solve_layer_by_join(b, it->keys, it->pieces, below, depth[it->pieces], threads, {},
                                    chunk_bits);
    }
    return depth;
}

}  // namespace

TEST_CASE("the join solve gives the reference's depth for every position of small boards",
          "[solver][join]") {
    std::uint64_t positions = 0;
    for (auto [rows, cols] : {std::pair{4, 4}, {3, 5}, {5, 3}, {4, 5}, {2, 8}, {3, 6}, {1, 9}}) {
        INFO("board " << rows << "x" << cols);
        const Board b = Board::make(rows, cols);
        const auto layers = solver::enumerate(b, Opening(Ruleset::Brainking), 2);
        REQUIRE(!layers.empty());
        // Chunks of 8 parents on two threads (many chunks, each merge starting mid-layer) and
        // the default chunk on one thread give the same bytes.
        const auto small = join_all(b, layers, 3, 2);
        const auto whole = join_all(b, layers, 21, 1);
        CHECK(small == whole);

        const ref::RefBoard rb{rows, cols};
        ref::RefMemo memo(rb, ref::Rules::Brainking);
        std::uint64_t wrong = 0;
        for (const auto& l : layers) {
            const auto& d = small.at(l.pieces);
            REQUIRE(d.size() == l.keys.size());
            for (std::size_t i = 0; i < l.keys.size(); ++i) {
                const auto rp = ref::from_core(rb, position_of_key(l.keys[i]));
                const ref::RefValue want = ref::solve(rb, rp, memo);
                ++positions;
                if (want.depth != d[i] || want.win != ((d[i] & 1) == 1)) {
                    if (++wrong < 5)
                        FAIL_CHECK("position " << ref::to_text(rb, rp) << ": join depth "
                                               << int{d[i]} << ", reference " << want.depth);
                }
            }
        }
        CHECK(wrong == 0);
    }
    CHECK(positions > 10000);  // every board's layers were checked, not an empty set
}

TEST_CASE("the join solve names a child missing from its layer, or a missing layer",
          "[solver][join]") {
    const Board b = Board::make(4, 5);
    const auto layers = solver::enumerate(b, Opening(Ruleset::Brainking), 1);
    std::map<int, std::vector<Depth>> depth;
    for (const auto& l : layers)
        depth[l.pieces].assign(l.keys.size(), 0);
    // Layer 15 (after both removals, 18 pieces, three jumps: 15 pieces) and the layers below it.
    const auto find = [&](int pieces) -> const solver::EnumeratedLayer& {
        for (const auto& l : layers)
            if (l.pieces == pieces) return l;
        FAIL("no layer " << pieces);
        return layers.front();
    };
    const auto& top = find(15);
    const auto& one_less = find(14);
    std::vector<Depth> out;

    SECTION("a key removed from the layer below") {
        std::vector<std::uint64_t> damaged = one_less.keys;
        damaged.erase(damaged.begin() + static_cast<std::ptrdiff_t>(damaged.size() / 2));
        const std::vector<Depth> damaged_depth(damaged.size(), 0);
        const std::vector<RankedLayer> below{{14, damaged, damaged_depth},
                                             {13, find(13).keys, depth.at(13)}};
        REQUIRE_THROWS_WITH(solver::solve_layer_by_join(b, top.keys, 15, below, out, 1),
                            Catch::Contains("missing from layer 14"));
    }
    SECTION("the layer below not given") {
        const std::vector<RankedLayer> below{{13, find(13).keys, depth.at(13)}};
        REQUIRE_THROWS_WITH(solver::solve_layer_by_join(b, top.keys, 15, below, out, 2),
                            Catch::Contains("no solved layer of 14 pieces"));
    }
    SECTION("depths and keys of a layer differ in number, or a layer given twice") {
        const std::vector<Depth> short_depth(one_less.keys.size() - 1, 0);
        const std::vector<RankedLayer> uneven{{14, one_less.keys, short_depth}};
        REQUIRE_THROWS_WITH(solver::solve_layer_by_join(b, top.keys, 15, uneven, out, 1),
                            Catch::Contains("depths"));
        const std::vector<RankedLayer> twice{{14, one_less.keys, depth.at(14)},
                                             {14, one_less.keys, depth.at(14)}};
        REQUIRE_THROWS_WITH(solver::solve_layer_by_join(b, top.keys, 15, twice, out, 1),
                            Catch::Contains("given twice"));
    }
    SECTION("a key of another layer among the parents") {
        std::vector<std::uint64_t> mixed = top.keys;
        mixed.back() = one_less.keys.back();  // 14 pieces among layer 15's keys
        const std::vector<RankedLayer> below{{14, one_less.keys, depth.at(14)},
                                             {13, find(13).keys, depth.at(13)}};
        REQUIRE_THROWS_WITH(solver::solve_layer_by_join(b, mixed, 15, below, out, 2, {}, 3),
                            Catch::Contains("has 14 pieces"));
    }
    SECTION("a depth to end past 255 plies") {
        // Every child a WIN in 255 plies: the parent would be a LOSS in 256.
        const std::vector<Depth> d14(one_less.keys.size(), 255), d13(find(13).keys.size(), 255);
        const std::vector<RankedLayer> below{{14, one_less.keys, d14}, {13, find(13).keys, d13}};
        REQUIRE_THROWS_WITH(solver::solve_layer_by_join(b, top.keys, 15, below, out, 2, {}, 3),
                            Catch::Contains("over 255 plies"));
    }
    SECTION("a progress report that throws stops the solve with its error") {
        const std::vector<RankedLayer> below{{14, one_less.keys, depth.at(14)},
                                             {13, find(13).keys, depth.at(13)}};
        const solver::ProgressFn stop = [](const char*, int, std::uint64_t, std::uint64_t) {
            throw std::runtime_error("stopped by the user");
        };
        REQUIRE_THROWS_WITH(solver::solve_layer_by_join(b, top.keys, 15, below, out, 2, stop, 3),
                            "stopped by the user");
    }
    SECTION("boards of 48 squares are taken, boards past 48 refused") {
        const std::vector<std::uint64_t> none;
        solver::solve_layer_by_join(Board::make(6, 8), none, 20, {}, out, 1);
        CHECK(out.empty());
        REQUIRE_THROWS_AS(solver::solve_layer_by_join(Board::make(7, 7), top.keys, 15, {}, out, 1),
                          std::invalid_argument);
    }
}
