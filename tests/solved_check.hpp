// A generated table's layers checked against the reference engine of tests/reference.hpp:
// shared by the ruleset tables of test_solver and the gap tables of test_gap.
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <set>
#include <vector>

#include "solver/solve.hpp"
#include "tests/reference.hpp"

namespace konane::test {

/// Checks the report of solver::generate() run with keep_layers against the reference: each
/// layer's class and raw counts against `reach` (a plain enumeration of what the table should
/// hold), the set of classes stored against the classes of `reach`, each layer's perfect hash
/// a bijection onto its slots, and every stored depth (plies; odd = WIN for the side to move)
/// against ref::solve with `memo` (plain memoised negamax: no symmetry, no hashing). Reports
/// failures through Catch2 (the first few wrong depths by position).
inline void check_solved_against_reference(const ref::RefBoard& rb,
                                           const solver::GenerateReport& rep,
                                           const ref::Reachable& reach, ref::RefMemo& memo) {
    std::uint64_t classes = 0, raw = 0;
    for (const auto& l : rep.layers) {
        INFO("layer " << l.pieces);
        CHECK(l.classes == reach.classes_by_pieces.at(l.pieces));
        CHECK(l.raw == reach.raw_by_pieces.at(l.pieces));
        classes += l.classes;
        raw += l.raw;
    }
    CHECK(classes == reach.classes);
    CHECK(raw == reach.raw.size());
    CHECK(rep.layers.size() == reach.classes_by_pieces.size());

    const auto syms = ref::symmetries(rb);
    std::set<ref::RefKey> ref_classes;
    for (const auto& k : reach.raw)
        ref_classes.insert(ref::class_key(rb, syms, ref::pos_of(rb, k)));
    std::set<ref::RefKey> ours;
    std::uint64_t mismatches = 0;
    for (const auto& layer : rep.solved) {
        REQUIRE(layer.keys.size() == layer.depth.size());
        std::vector<bool> slot_used(layer.keys.size(), false);
        for (std::uint64_t key : layer.keys) {
            const auto rp = ref::from_core(rb, position_of_key(key));
            ours.insert(ref::class_key(rb, syms, rp));
            const std::uint64_t slot = layer.mphf(key);
            REQUIRE(slot < layer.keys.size());
            REQUIRE_FALSE(slot_used[slot]);
            slot_used[slot] = true;
            const ref::RefValue want = ref::solve(rb, rp, memo);
            const int depth = layer.depth[slot];
            if (want.depth != depth || want.win != ((depth & 1) == 1)) {
                ++mismatches;
                if (mismatches < 5) {
                    FAIL_CHECK("position " << ref::to_text(rb, rp) << ": stored depth " << depth
                                           << ", reference " << (want.win ? "WIN" : "LOSS") << " "
                                           << want.depth);
                }
            }
        }
    }
    CHECK(mismatches == 0);
    CHECK(ours == ref_classes);
}

}  // namespace konane::test
