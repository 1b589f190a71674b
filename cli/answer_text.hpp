// The text the command prints for moves, perft counts and answers, written once over the board
// type (Board, and the wide boards past 64 squares, core/wide.hpp).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/common.hpp"
#include "cli/json.hpp"
#include "core/notation.hpp"
#include "core/outcome.hpp"
#include "core/value.hpp"
#include "probe/answer.hpp"

namespace konane::cli {

/// "win in 7 plies", "loss in 6 plies", "loss (no move)".
inline std::string describe(const Value& v) {
    if (!v.win && v.depth == 0) return "loss (no move)";
    return fmt::format("{} in {} pl{}", value_word(v), v.depth, v.depth == 1 ? "y" : "ies");
}

/// The moves of a line in notation, separated by spaces; a note when the line is empty.
template <class BoardT, class MV>
std::string line_text(const BoardT& b, const std::vector<MV>& line) {
    std::string s;
    for (const auto& mv : line) {
        if (!s.empty()) s += ' ';
        s += format_move(b, mv.move);
    }
    return s.empty() ? "(none: the side to move has no move)" : s;
}

/// What `konane probe` and `konane solve` print for an answer: the position (with `source`,
/// where the answer came from), the side to move, its value, the perfect move, every move's
/// value (the perfect one starred) and the perfect line.
template <class BoardT, class Pos, class MV>
void print_answer(const BoardT& b, const BasicAnswer<Pos, MV>& a, const std::string& source) {
    std::printf("position: %s  (%s, %s)\n", format_position(b, a.position).c_str(),
                b.name().c_str(), source.c_str());
    std::printf("to move:  %s\n", color_name(a.position.to_move));
    std::printf("value:    %s for %s\n", describe(a.value).c_str(), color_name(a.position.to_move));
    const auto best = pick_best(a.moves);
    if (best) {
        std::printf("perfect move: %s (%s)\n", format_move(b, best->move).c_str(),
                    describe(best->value).c_str());
    } else {
        std::printf("perfect move: none (%s has no move and loses)\n",
                    color_name(a.position.to_move));
    }
    if (!a.moves.empty()) {
        std::printf("moves (value for %s, depth from before the move):\n",
                    color_name(a.position.to_move));
        for (const auto& mv : a.moves) {
            std::printf("  %-8s %-4s %3d%s\n", format_move(b, mv.move).c_str(),
                        value_word(mv.value), mv.value.depth,
                        best && mv.move == best->move ? "  *" : "");
        }
    }
    std::printf("perfect line: %s\n", line_text(b, a.line).c_str());
}

/// The `outcome:` line of `konane solve --both`: the outcome class, in words, and both values.
inline void print_outcome(const Value& black_starts, const Value& white_starts) {
    const Outcome o = outcome_of(black_starts, white_starts);
    std::printf("outcome:  %s (%s): Black to move: %s; White to move: %s\n", outcome_name(o),
                outcome_description(o), describe(black_starts).c_str(),
                describe(white_starts).c_str());
}

/// What `konane moves` prints: with `json` {"position", "to_move", "moves": [moves]}, else the
/// position, the side to move, the number of legal removals or jumps and one move a line.
/// `moves`: legal_moves(b, rules, pos) (with their children).
template <class BoardT, class Pos, class MC>
void print_moves(const BoardT& b, Ruleset rules, const Pos& pos, const std::vector<MC>& moves,
                 bool as_json) {
    if (as_json) {
        json j;
        j["position"] = format_position(b, pos);
        j["to_move"] = color_name(pos.to_move);
        j["moves"] = json::array();
        for (const auto& mc : moves)
            j["moves"].push_back(format_move(b, mc.move));
        std::printf("%s\n", dump(j).c_str());
        return;
    }
    std::printf("position: %s\n", format_position(b, pos).c_str());
    std::printf("to move:  %s\n", color_name(pos.to_move));
    std::printf("%zu legal %s%s\n", moves.size(), in_opening(b, rules, pos) ? "removal" : "jump",
                moves.size() == 1 ? "" : "s");
    for (const auto& mc : moves)
        std::printf("%s\n", format_move(b, mc.move).c_str());
}

/// What `konane perft` prints: with `json` the object `head` (the board and its opening) with
/// "depth" and "nodes" added, else the count alone.
inline void print_perft(json head, int depth, std::uint64_t nodes, bool as_json) {
    if (as_json) {
        head["depth"] = depth;
        head["nodes"] = nodes;
        std::printf("%s\n", dump(head).c_str());
    } else {
        std::printf("%llu\n", static_cast<unsigned long long>(nodes));
    }
}

/// The exit for a position the table does not hold: a message suggesting `solve`.
inline int not_stored(const char* cmd, const std::string& what, const Board& b, Position p) {
    std::fprintf(stderr,
                 "konane %s: %s\n  the table holds the positions reachable from its openings; "
                 "search finds any position's value: konane solve '%s'\n",
                 cmd, safe_message(what).c_str(), format_position(b, p).c_str());
    return kNotStored;
}

}  // namespace konane::cli
