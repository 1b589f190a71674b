// The value of a position as a combinatorial game (cgt/), as `konane value --json` prints it and
// `GET /api/value` answers: one builder for both.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cgt/konane.hpp"
#include "cli/json.hpp"
#include "core/board.hpp"
#include "core/wide.hpp"
#include "query/value.hpp"

namespace konane::cli {

/// {"position" (the rows alone), "board", "value" (CGSuite notation, Unicode arrows), "ascii"
/// (the same with ^ and v), "outcome" (L, R, N or P), "outcome_name" (black, white, first,
/// second), "number" (true when the value is a number), for a non-number "mean",
/// "temperature", "left_stop", "right_stop" (exact rationals as text); "regions": [{"position",
/// "value", "ascii"}] the independent regions and their values (empty when nobody can ever move);
/// "tree": the canonical form as a tree ({"form", and for a general form "left" and "right"
/// arrays of trees; numbers, nimbers and ups are leaves}, at most max_tree nodes written in
/// full, then leaves, "tree_truncated": true); "positions" and "games": the work done.
/// Renders the answer a (query/value.hpp value_answer()) whose games are in s.
json value_json(const Board& b, const query::ValueAnswer& a, cgt::GameStore& s,
                std::size_t max_tree = 2000);
/// The same on a wide board (core/wide.hpp), one builder for both.
json value_json(const BigBoard& b, const query::WideValueAnswer& a, cgt::GameStore& s,
                std::size_t max_tree = 2000);

/// The rows of a position without the side to move ("..xo/oxox").
std::string rows_text(const Board& b, std::uint64_t occ);
std::string rows_text(const BigBoard& b, const BigBits& occ);

}  // namespace konane::cli
