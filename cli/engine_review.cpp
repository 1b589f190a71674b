// `konane analyse` without a table: a game reviewed by the engine (engine/review.hpp), in text
// or JSON.
#include <cstdio>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/engine_args.hpp"
#include "cli/json.hpp"
#include "core/notation.hpp"
#include "engine/review.hpp"

namespace konane::cli {

namespace {

const char* won_text(const std::optional<bool>& won) {
    return !won ? "unproven" : *won ? "won" : "lost";
}

/// The verdict column: a proven mistake, agreement, or the engine's judgement.
std::string verdict(const Board& b, const engine::PlyReview& r) {
    if (r.proven_mistake)
        return "MISTAKE (proven): threw the win away; " + format_move(b, r.choice.move.move) +
               " wins";
    if (r.agrees) return "= engine's move";
    if (r.before_won && !*r.before_won) return "lost whatever is played (proven)";
    if (r.after_won && !*r.after_won) return "keeps the win (proven)";
    if (r.choice_score && r.played_score) {
        const int drop = r.drop();
        if (drop <= 0) return "engine judgement: as good (" + std::to_string(*r.played_score) + ")";
        return "engine judgement: -" + std::to_string(drop) + " (" +
               std::to_string(*r.played_score) + " against " + std::to_string(*r.choice_score) +
               ")";
    }
    return "";
}

}  // namespace

int run_engine_review(const Board& b, const std::string& record, const EngineArgs& a, bool json) {
    bool brainking = false;
    const std::string moves = read_record(record, &brainking);
    const engine::EngineOptions options = engine_options(a);
    const Game game = parse_game(b, options.rules, moves);
    engine::Engine eng(b, options);
    const engine::MoveLimits limits = move_limits(a);
    const std::string budget = limits.nodes   ? std::to_string(limits.nodes) + " nodes"
                               : limits.depth ? "depth " + std::to_string(limits.depth)
                                              : fmt::format("{:g} s", limits.seconds);
    if (!json && !a.quiet) {
        std::fprintf(stderr, "reviewing %zu plies at %s a move%s\n", game.moves.size(),
                     budget.c_str(), brainking ? " (read in BrainKing's notation)" : "");
    }
    const auto reviews = engine::review_game(eng, game, limits);
    if (json) {
        cli::json j;
        j["board"] = b.name();
        j["record"] = moves;
        j["notation"] = brainking ? "brainking" : "konane";
        j["budget"] = budget;
        cli::json plies = cli::json::array();
        for (const engine::PlyReview& r : reviews) {
            cli::json p;
            p["mover"] = color_name(r.before.to_move);
            p["played"] = format_move(b, r.played.move);
            p["engine"] = format_move(b, r.choice.move.move);
            p["engine_source"] = r.choice.describe();
            p["before"] = won_text(r.before_won);
            p["after"] = won_text(r.after_won);
            p["proven_mistake"] = r.proven_mistake;
            p["agrees"] = r.agrees;
            p["choice_score"] = r.choice_score ? cli::json(*r.choice_score) : nullptr;
            p["played_score"] = r.played_score ? cli::json(*r.played_score) : nullptr;
            p["verdict"] = verdict(b, r);
            plies.push_back(p);
        }
        j["plies"] = plies;
        std::printf("%s\n", dump(j, 2).c_str());
        return kOk;
    }
    std::printf("game on %s, %zu plies, reviewed by the engine at %s a move%s\n", b.name().c_str(),
                game.moves.size(), budget.c_str(),
                brainking ? " (record read in BrainKing's notation)" : "");
    std::printf(
        "'before': the mover's position, proven won or lost, or unproven; scores in "
        "hundredths of a move\n");
    std::printf("%4s %-6s %-8s %-8s %-9s %s\n", "ply", "mover", "move", "engine", "before",
                "verdict");
    int mistakes = 0;
    for (std::size_t i = 0; i < reviews.size(); ++i) {
        const engine::PlyReview& r = reviews[i];
        mistakes += r.proven_mistake;
        std::printf("%4zu %-6s %-8s %-8s %-9s %s\n", i + 1, color_name(r.before.to_move),
                    format_move(b, r.played.move).c_str(),
                    format_move(b, r.choice.move.move).c_str(), won_text(r.before_won),
                    verdict(b, r).c_str());
    }
    std::printf("proven mistakes: %d\n", mistakes);
    const Position end = game.positions.back();
    if (legal_moves(b, options.rules, end).empty()) {
        std::printf("end: %s has no move; %s wins\n", color_name(end.to_move),
                    color_name(other(end.to_move)));
    }
    return kOk;
}

}  // namespace konane::cli
