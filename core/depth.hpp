// The value of a position from the values of its children (rules.md "Values").
#pragma once

namespace konane {

/// Combines the depths to end of a position's children into the position's depth (rules.md
/// "Values"): no child: 0 (LOSS); some child with an even depth (a LOSS for the opponent):
/// 1 + the least such depth (WIN, odd); otherwise 1 + the greatest child depth (LOSS, even).
/// Depths are in plies. Used by the solver, `verify` and the search.
struct DepthAccumulator {
    int least_loss = 1 << 30;
    int greatest = -1;
    /// Adds one child's depth (its parity tells its value).
    void add(int child_depth) {
        if ((child_depth & 1) == 0 && child_depth < least_loss) least_loss = child_depth;
        if (child_depth > greatest) greatest = child_depth;
    }
    /// The position's depth to end.
    int result() const {
        if (greatest < 0) return 0;
        return least_loss < (1 << 30) ? least_loss + 1 : greatest + 1;
    }
};

}  // namespace konane
