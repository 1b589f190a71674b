// The search of search/search.hpp on wide boards (core/wide.hpp, past 64 squares): memoised
// negamax with the same depth rule (core/depth.hpp DepthAccumulator, rules.md "Values"), the
// same move order and tie-break (core/value.hpp better()), positions reduced by the board's
// symmetries; no table (tables stay on boards of up to 64 squares).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/depth.hpp"
#include "core/wide.hpp"
#include "core/wide_symmetry.hpp"
#include "probe/answer.hpp"
#include "probe/engine.hpp"
#include "probe/probe.hpp"
#include "search/search.hpp"

namespace konane {

/// About the bytes one memoised wide position takes: a 64-bit one's (kSearchBytesPerPosition)
/// and its 56-byte wider key. A memory budget allows budget / this many positions.
inline constexpr std::size_t kWideSearchBytesPerPosition = kSearchBytesPerPosition + 56;

/// A legal move on a wide board, its child and its value for the mover (depth counted from
/// before the move), as probe/probe.hpp MoveValue.
struct WideMoveValue {
    WideMove move;
    BigPosition child;
    Value value;
};

/// The answer for a position of a wide board (probe/answer.hpp BasicAnswer).
using WideAnswer = BasicAnswer<BigPosition, WideMoveValue>;

/// Memoised negamax on a wide board: search/search.hpp Searcher's values and depths (the same
/// rule, order and tie-break) without a table. Options: the ruleset, jumps_only, max_positions
/// (throws SearchLimit past it) and progress, as Searcher's. Not thread-safe.
class WideSearcher {
  public:
    explicit WideSearcher(const BigBoard& b, const SearchOptions& options = {})
        : board_(b), options_(options), group_(b) {}

    const BigBoard& board() const { return board_; }

    /// The value of p for the side to move. @throws SearchLimit.
    Value value(const BigPosition& p) { return Value::from_depth(depth_of(p)); }

    /// Every legal move of p with its value for the mover (legal_moves() order).
    std::vector<WideMoveValue> moves(const BigPosition& p) {
        std::vector<WideMoveValue> out;
        for (const auto& mc : children(p)) {
            const Value v = Value::from_depth(depth_of(mc.child));
            out.push_back({mc.move, mc.child, move_value(v)});
        }
        return out;
    }

    /// The perfect move (better(), earliest on ties); nullopt when p has no move.
    std::optional<WideMoveValue> best_move(const BigPosition& p) { return best_move_of(*this, p); }

    /// Perfect moves until the side to move has none; length value(p).depth.
    std::vector<WideMoveValue> perfect_line(BigPosition p) { return perfect_line_of(*this, p); }

    /// Canonical positions in the memo.
    std::size_t positions() const { return memo_.size(); }

  private:
    struct Key {
        BigBits occ;
        Color to_move;
        friend bool operator==(const Key&, const Key&) = default;
    };
    struct KeyHash {
        std::size_t operator()(const Key& k) const {
            return WideBitsHash{}(k.occ) ^ static_cast<std::size_t>(k.to_move);
        }
    };

    std::vector<BigMoveChild> children(const BigPosition& p) const {
        return legal_moves(board_, options_.rules, p, options_.jumps_only);
    }

    /// The least image of p (side to move first, then occupancy), as SymmetryGroup::canonical.
    Key canonical(const BigPosition& p) const {
        Key best{p.occ, p.to_move};
        for (int g = 1; g < group_.size(); ++g) {
            const Key k{group_.apply(g, p.occ),
                        group_.swaps_colour(g) ? other(p.to_move) : p.to_move};
            if (k.to_move < best.to_move || (k.to_move == best.to_move && k.occ < best.occ))
                best = k;
        }
        return best;
    }

    int depth_of(const BigPosition& p) {
        if (in_opening(board_, options_.rules, p, options_.jumps_only)) {
            // Opening stage: not memoised (as Searcher: a colour swap can map the full board
            // with Black to move onto the full board with White to move).
            return opening_value(board_, options_.rules, p,
                                 [&](const BigMoveChild& mc, std::size_t, std::size_t) {
                                     return std::optional(Value::from_depth(depth_of(mc.child)));
                                 })
                ->depth;
        }
        const Key key = canonical(p);
        if (auto it = memo_.find(key); it != memo_.end()) return it->second;
        DepthAccumulator acc;
        rules::jumps(board_, p.occ, p.to_move, [&](int, int, const BigBits& child) {
            acc.add(depth_of(BigPosition{child, other(p.to_move)}));
        });
        const int d = acc.result();
        if (options_.max_positions && memo_.size() >= options_.max_positions) {
            throw SearchLimit("the search needs more than " +
                              std::to_string(options_.max_positions) +
                              " positions (raise the limit)");
        }
        memo_.emplace(key, static_cast<std::uint16_t>(d));
        if (options_.progress && (memo_.size() & 0xFFFF) == 0) options_.progress(memo_.size());
        return d;
    }

    BigBoard board_;
    SearchOptions options_;
    WideSymmetryGroup<kWideWords> group_;
    std::unordered_map<Key, std::uint16_t, KeyHash> memo_;
};

}  // namespace konane
