// `--gap SQUARE,SQUARE` of generate, openings, solve and perft (core/gap.hpp, docs/gap.md).
#pragma once

#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "core/gap.hpp"
#include "core/notation.hpp"

namespace konane::cli {

/// Help text of --gap.
inline constexpr const char* kGapHelp =
    "Start from one gap: two orthogonally adjacent squares, one of each colour, empty with "
    "Black to move (e.g. c3,c4), instead of the opening removals";

/// Parses --gap `text` on board b. With --rules given too (`rules_given`), the ruleset must
/// allow the gap as one of its removal pairs: otherwise the refusal says why and that a gap
/// needs no ruleset. Throws UsageError (exit 2) naming --gap and what is wrong.
inline Gap gap_arg(const Board& b, const std::string& text, bool rules_given,
                   const std::string& rules) {
    Gap g;
    try {
        g = parse_gap(b, text);
    } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--") + e.what());
    }
    if (rules_given) {
        const std::string why = gap_rules_conflict(b, g, parse_ruleset(rules));
        if (!why.empty()) throw UsageError(why);
    }
    return g;
}

/// The first line of `konane openings --gap` (from a table or by --search), without the
/// newline: "4x5 gap c2,c3: Black removed c2, White c3; Black to move: POSITION".
inline std::string gap_heading(const Board& b, const Gap& g) {
    return b.name() + " gap " + gap_name(b, g) + ": Black removed " + square_name(b, g.black) +
           ", White " + square_name(b, g.white) +
           "; Black to move: " + format_position(b, gap_start(b, g));
}

/// The opening in a one-line summary: "brainking", or "gap c3,c4".
inline std::string opening_label(const Board& b, const Opening& o) {
    return o.gap ? "gap " + gap_name(b, *o.gap) : std::string(ruleset_name(o.rules));
}

/// Sets "rules" (the ruleset's name; null for a gap) and, for a gap, "gap" ("c3,c4").
inline void put_opening(nlohmann::ordered_json& j, const Board& b, const Opening& o) {
    if (o.gap) {
        j["rules"] = nullptr;
        j["gap"] = gap_name(b, *o.gap);
    } else {
        j["rules"] = ruleset_name(o.rules);
    }
}

}  // namespace konane::cli
