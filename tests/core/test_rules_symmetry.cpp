// SymmetryGroup of core/symmetry.hpp against the plain square-by-square symmetries of the
// reference engine (tests/reference.hpp): group elements, colour swaps, canonical forms, orbits.
#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include <catch2/catch.hpp>

#include "core/board.hpp"
#include "core/movegen.hpp"
#include "core/symmetry.hpp"
#include "tests/reference.hpp"

using namespace konane;

namespace {

/// Random reachable positions of a board under all three rulesets.
std::vector<ref::RefPos> sample(const ref::RefBoard& rb, int games, std::uint64_t seed) {
    std::vector<ref::RefPos> out;
    for (ref::Rules r : {ref::Rules::Brainking, ref::Rules::Center, ref::Rules::Any}) {
        const auto v = ref::random_positions(rb, r, games, seed++);
        out.insert(out.end(), v.begin(), v.end());
    }
    return out;
}

/// The reference orbit of p as core Positions.
std::vector<Position> core_orbit(const ref::RefBoard& rb, const std::vector<ref::RefSymmetry>& syms,
                                 const ref::RefPos& p) {
    std::vector<Position> out;
    for (const auto& q : ref::orbit(rb, syms, p))
        out.push_back(ref::to_core(rb, q));
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

TEST_CASE("SymmetryGroup: the elements are the plain symmetries and colour swaps as derived",
          "[symmetry][reference]") {
    for (int rows = 1; rows <= 8; ++rows) {
        for (int cols = 1; cols <= 8; ++cols) {
            const Board b = Board::make(rows, cols);
            const ref::RefBoard rb(rows, cols);
            const SymmetryGroup g(b);
            const auto syms = ref::symmetries(rb);
            INFO(b.name());
            REQUIRE(g.size() == static_cast<int>(syms.size()));
            CHECK(g.size() == (rows == cols ? 8 : 4));
            bool any_swap = false;
            std::set<std::size_t> matched;
            for (int e = 0; e < g.size(); ++e) {
                int found = -1;
                for (std::size_t k = 0; k < syms.size(); ++k) {
                    bool same = true;
                    for (int r = 0; r < rows && same; ++r) {
                        for (int c = 0; c < cols && same; ++c) {
                            const int t = syms[k].to[rb.index(r, c)];
                            same = g.map_square(e, ref::core_square(rb, r, c)) ==
                                   ref::core_square(rb, t / cols, t % cols);
                        }
                    }
                    if (same && !matched.count(k)) {
                        found = static_cast<int>(k);
                        break;
                    }
                }
                INFO("element " << e);
                REQUIRE(found >= 0);
                matched.insert(static_cast<std::size_t>(found));
                CHECK(g.swaps_colour(e) == syms[found].swaps_colour);
                any_swap = any_swap || syms[found].swaps_colour;
                if (e == 0) CHECK(syms[found].name == "identity");
            }
            CHECK(g.has_colour_swap() == any_swap);
        }
    }
    // rules.md: on even boards the mirrors and quarter turns swap colours; 180 degrees does not.
    const auto s8 = ref::symmetries(ref::RefBoard(8, 8));
    for (const auto& s : s8) {
        INFO(s.name);
        const bool want = s.name == "mirror-left-right" || s.name == "mirror-top-bottom" ||
                          s.name == "rotate90-clockwise" || s.name == "rotate90-anticlockwise";
        CHECK(s.swaps_colour == want);
    }
    // On odd square boards nothing swaps colours.
    for (const auto& s : ref::symmetries(ref::RefBoard(5, 5)))
        CHECK_FALSE(s.swaps_colour);
}

TEST_CASE("Canonical form is the same for every image and is the least image",
          "[symmetry][reference]") {
    std::size_t checked = 0;
    for (int rows = 3; rows <= 8; ++rows) {
        for (int cols = 3; cols <= 8; ++cols) {
            const Board b = Board::make(rows, cols);
            const ref::RefBoard rb(rows, cols);
            const SymmetryGroup g(b);
            const auto syms = ref::symmetries(rb);
            const bool keys = b.squares() <= 63;
            for (const ref::RefPos& rp : sample(rb, 40, 31u * rows + cols)) {
                const Position p = ref::to_core(rb, rp);
                const Position canon = g.canonical(p);
                const std::vector<Position> orb = core_orbit(rb, syms, rp);
                INFO(b.name() << " " << ref::to_text(rb, rp));
                CHECK(canon == orb.front());  // the least image in Position's order
                // The images core computes are the plain images.
                std::vector<Position> images;
                for (int e = 0; e < g.size(); ++e)
                    images.push_back(g.image(e, p));
                std::sort(images.begin(), images.end());
                images.erase(std::unique(images.begin(), images.end()), images.end());
                CHECK(images == orb);
                for (const auto& s : syms) {
                    const Position q = ref::to_core(rb, ref::image(rb, s, rp));
                    CHECK(g.canonical(q) == canon);
                    if (keys) CHECK(g.canonical_key(q) == key_of(canon));
                }
                ++checked;
            }
        }
    }
    CHECK(checked > 20000);
}

TEST_CASE("Canonical forms are equal exactly when positions are images of each other",
          "[symmetry][reference]") {
    std::mt19937_64 rng(99);
    for (auto [rows, cols] : {std::pair{3, 3}, std::pair{4, 4}, std::pair{5, 5}, std::pair{4, 6},
                              std::pair{6, 6}, std::pair{3, 7}, std::pair{8, 8}}) {
        const Board b = Board::make(rows, cols);
        const ref::RefBoard rb(rows, cols);
        const SymmetryGroup g(b);
        const auto syms = ref::symmetries(rb);
        auto all = sample(rb, 10, 5u * rows + cols);
        std::shuffle(all.begin(), all.end(), rng);
        if (all.size() > 150) all.resize(150);
        // Add a random image of each, so that many pairs are equivalent.
        const std::size_t n = all.size();
        for (std::size_t i = 0; i < n; ++i)
            all.push_back(ref::image(rb, syms[rng() % syms.size()], all[i]));
        std::vector<std::vector<ref::RefPos>> orbits;
        std::vector<Position> canon;
        for (const auto& p : all) {
            orbits.push_back(ref::orbit(rb, syms, p));
            canon.push_back(g.canonical(ref::to_core(rb, p)));
        }
        std::size_t same = 0, different = 0;
        for (std::size_t i = 0; i < all.size(); ++i) {
            for (std::size_t j = i + 1; j < all.size(); ++j) {
                const bool equivalent =
                    std::find(orbits[i].begin(), orbits[i].end(), all[j]) != orbits[i].end();
                if ((canon[i] == canon[j]) != equivalent) {
                    FAIL_CHECK(b.name()
                               << ": " << ref::to_text(rb, all[i]) << " vs "
                               << ref::to_text(rb, all[j]) << " equivalent=" << equivalent);
                }
                (equivalent ? same : different) += 1;
            }
        }
        INFO(b.name() << " " << same << " equivalent pairs, " << different << " others");
        CHECK(same >= n);
        CHECK(different > same);
    }
}

TEST_CASE("preserving_orbit_size equals the plain count", "[symmetry][reference]") {
    std::set<int> sizes_seen;
    for (int rows = 1; rows <= 8; ++rows) {
        for (int cols = 1; cols <= 8; ++cols) {
            const Board b = Board::make(rows, cols);
            const ref::RefBoard rb(rows, cols);
            const SymmetryGroup g(b);
            const auto syms = ref::symmetries(rb);
            for (const ref::RefPos& rp : sample(rb, 15, 17u * rows + cols)) {
                const int want = ref::preserving_orbit_size(rb, syms, rp);
                INFO(b.name() << " " << ref::to_text(rb, rp));
                CHECK(g.preserving_orbit_size(ref::to_core(rb, rp)) == want);
                sizes_seen.insert(want);
            }
        }
    }
    CHECK(sizes_seen.count(1));
    CHECK(sizes_seen.count(2));
    CHECK(sizes_seen.count(4));
}

TEST_CASE("preserving_orbit_size equals the plain count on every occupancy of small boards",
          "[symmetry][reference]") {
    // Every occupancy, symmetric ones included (a random sample meets few): the bit-operation
    // path against the reference's count of distinct colour-preserving images.
    for (const auto& [rows, cols] :
         {std::pair{4, 4}, std::pair{3, 6}, std::pair{6, 3}, std::pair{2, 8}, std::pair{4, 3}}) {
        const Board b = Board::make(rows, cols);
        const ref::RefBoard rb(rows, cols);
        const SymmetryGroup g(b);
        const auto syms = ref::symmetries(rb);
        std::set<int> sizes_seen;
        for (std::uint64_t occ = 0; occ <= b.all; ++occ) {
            const Position p{occ, Color::Black};
            const int want = ref::preserving_orbit_size(rb, syms, ref::from_core(rb, p));
            if (g.preserving_orbit_size(p) != want) {
                INFO(b.name() << " occupancy " << occ);
                REQUIRE(g.preserving_orbit_size(p) == want);
            }
            sizes_seen.insert(want);
        }
        INFO(b.name());
        CHECK(sizes_seen.count(1));
        CHECK(sizes_seen.count(2));
        if (rows == cols) CHECK(sizes_seen.count(4));
    }
}

TEST_CASE("canonical_key equals the key of the table-driven canonical form on every shape",
          "[symmetry]") {
    // canonical_key() computes images with bit operations on boards of at most 8 x 8 (63
    // squares); canonical() applies the byte tables. Any occupancy, either side to move.
    std::mt19937_64 rng(2026);
    for (int rows = 1; rows <= 8; ++rows) {
        for (int cols = 1; cols <= 8; ++cols) {
            const Board b = Board::make(rows, cols);
            if (b.squares() > 63) continue;
            const SymmetryGroup g(b);
            for (int i = 0; i < 2000; ++i) {
                const Position p{rng() & rng() & b.all, i % 2 ? Color::White : Color::Black};
                INFO(b.name() << " occ " << p.occ << " side " << i % 2);
                REQUIRE(g.canonical_key(p) == key_of(g.canonical(p)));
                for (int e = 0; e < g.size(); ++e)
                    REQUIRE(g.canonical_key(g.image(e, p)) == g.canonical_key(p));
            }
        }
    }
}

TEST_CASE("child_key equals the canonical key of every child on every shape", "[symmetry]") {
    // child_key() reads the parent's images and a table of jumps on boards of at most 8 x 8
    // (63 squares) and falls back to canonical_key() past 8 columns or rows; either way the
    // child's key must be the table-driven canonical form's. Dense random occupancies give
    // multi-jumps along ranks and files; both sides move.
    std::mt19937_64 rng(7);
    for (int rows = 1; rows <= 9; ++rows) {
        for (int cols = 1; cols <= 9; ++cols) {
            if (rows * cols > 63) continue;
            const Board b = Board::make(rows, cols);
            const SymmetryGroup g(b);
            int children = 0;
            for (int i = 0; i < 1500; ++i) {
                const Position p{(rng() | rng()) & b.all, i % 2 ? Color::White : Color::Black};
                const SymmetryGroup::ParentImages pi = g.parent_images(p.occ);
                for_each_jump(b, p, [&](Move m, Position c) {
                    INFO(b.name() << " occ " << p.occ << " jump " << int(m.from) << "-"
                                  << int(m.to));
                    REQUIRE(g.child_key(pi, c, m.from, m.to) == key_of(g.canonical(c)));
                    ++children;
                });
            }
            if (rows >= 3 || cols >= 3) CHECK(children > 0);
        }
    }
}
