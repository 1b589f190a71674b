// `konane moves`, `perft` and `solve` on boards past 64 squares (cli/wide_cmd.hpp).
#include <cstdio>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/json.hpp"
#include "cli/progress.hpp"
#include "cli/wide_cmd.hpp"
#include "core/text.hpp"
#include "core/wide.hpp"
#include "probe/wide_search.hpp"
#include "solver/solve.hpp"

namespace konane::cli {

namespace {

std::string describe(const Value& v) {
    if (!v.win && v.depth == 0) return "loss (no move)";
    return fmt::format("{} in {} pl{}", value_word(v), v.depth, v.depth == 1 ? "y" : "ies");
}

const char* outcome_words(Outcome o) {
    return o == Outcome::Black   ? "Black wins whoever starts"
           : o == Outcome::White ? "White wins whoever starts"
           : o == Outcome::First ? "the player to move wins"
                                 : "the player to move loses";
}

}  // namespace

int run_moves_wide(const std::string& board_text, const std::string& position,
                   const std::string& rules_text, const std::string& game, bool game_given,
                   bool json) {
    const Ruleset rules = parse_ruleset(rules_text);
    std::optional<BigBoard> board;
    if (!board_text.empty()) board = parse_big_board(board_text);
    if (!position.empty() && game_given)
        throw UsageError("give either a POSITION or --game, not both");
    BigPosition pos;
    if (!position.empty()) {
        const auto parsed = parse_big_position(position, board ? &*board : nullptr);
        board = parsed.board;
        pos = parsed.position;
    } else {
        pos = parse_game(*board, rules, game, board->start()).positions.back();
    }
    const auto moves = legal_moves(*board, rules, pos);
    if (json) {
        nlohmann::ordered_json j;
        j["position"] = format_position(*board, pos);
        j["to_move"] = color_name(pos.to_move);
        j["moves"] = nlohmann::ordered_json::array();
        for (const auto& mc : moves)
            j["moves"].push_back(format_move(*board, mc.move));
        std::printf("%s\n", dump(j).c_str());
        return kOk;
    }
    std::printf("position: %s\n", format_position(*board, pos).c_str());
    std::printf("to move:  %s\n", color_name(pos.to_move));
    std::printf("%zu legal %s%s\n", moves.size(),
                stage_of(*board, rules, pos) == Stage::Play ? "jump" : "removal",
                moves.size() == 1 ? "" : "s");
    for (const auto& mc : moves)
        std::printf("%s\n", format_move(*board, mc.move).c_str());
    return kOk;
}

int run_perft_wide(const std::string& board_text, int depth, const std::string& rules_text,
                   bool json) {
    const BigBoard board = parse_big_board(board_text);
    const Ruleset rules = parse_ruleset(rules_text);
    const std::uint64_t nodes = perft(board, rules, board.start(), depth);
    if (json) {
        nlohmann::ordered_json j{{"board", board.name()}};
        j["rules"] = ruleset_name(rules);
        j["depth"] = depth;
        j["nodes"] = nodes;
        std::printf("%s\n", dump(j).c_str());
    } else {
        std::printf("%llu\n", static_cast<unsigned long long>(nodes));
    }
    return kOk;
}

int run_solve_wide(const SolveArgs& a) {
    if (!a.table.empty()) throw UsageError("--table: tables are for boards of at most 64 squares");
    if (a.wdl || !a.gap.empty() || a.plain || a.dfpn || a.max_nodes || !a.certificate.empty() ||
        !a.work.empty()) {
        throw UsageError(
            "--wdl, --gap, --plain, --dfpn, --max-nodes, --certificate and --work are for boards "
            "of at most 64 squares; past 64 squares solve searches with depths (--max-positions, "
            "--memory)");
    }
    std::optional<BigBoard> want;
    if (!a.board.empty()) want = parse_big_board(a.board);
    std::string text = a.position;
    if (text.empty() && want) text = format_position(*want, want->start());
    const ParsedBigPosition parsed = parse_big_position(text, want ? &*want : nullptr);
    const BigBoard& b = parsed.board;
    const BigPosition p = parsed.position;
    SearchOptions opt;
    opt.rules = parse_ruleset(a.rules);
    opt.jumps_only = a.jumps_only;
    opt.max_positions = a.max_positions;
    const std::uint64_t budget =
        a.memory.empty() ? solver::default_memory_budget() : parse_size(a.memory, "--memory");
    // A wide position takes its 56-byte key more than a 64-bit one.
    const std::uint64_t by_memory = budget / (kSearchBytesPerPosition + 56);
    if (by_memory == 0) throw UsageError("--memory " + excerpt(a.memory) + ": too small");
    const bool memory_binds = opt.max_positions == 0 || by_memory < opt.max_positions;
    if (memory_binds) opt.max_positions = static_cast<std::size_t>(by_memory);
    ProgressLine progress(!a.quiet);
    opt.progress = [&](std::size_t n) { progress.count("search", n, opt.max_positions); };
    WideSearcher s(b, opt);
    Value value;
    std::vector<WideMoveValue> moves, line;
    std::optional<Value> black_starts, white_starts;
    try {
        value = s.value(p);
        moves = s.moves(p);
        line = s.perfect_line(p);
        if (a.both) {
            black_starts = s.value(BigPosition{p.occ, Color::Black});
            white_starts = s.value(BigPosition{p.occ, Color::White});
        }
    } catch (const SearchLimit& e) {
        progress.finish();
        if (!memory_binds) throw;
        throw SearchLimit(fmt::format("{}; the memory budget {} MiB allows that many (--memory)",
                                      e.what(), budget >> 20));
    }
    progress.finish();
    std::optional<WideMoveValue> best;
    for (const auto& m : moves)
        if (!best || better(m.value, best->value)) best = m;
    const char* kind = opt.jumps_only                             ? "jumps only"
                       : stage_of(b, opt.rules, p) == Stage::Play ? "jumps"
                                                                  : "opening";
    if (a.json) {
        json j;
        j["position"] = format_position(b, p);
        j["to_move"] = color_name(p.to_move);
        j["value"] = value_word(value);
        j["depth"] = value.depth;
        j["best"] = best ? json(format_move(b, best->move)) : json(nullptr);
        j["moves"] = json::array();
        for (const auto& mv : moves) {
            j["moves"].push_back({{"move", format_move(b, mv.move)},
                                  {"value", value_word(mv.value)},
                                  {"depth", mv.value.depth},
                                  {"child", format_position(b, mv.child)}});
        }
        j["line"] = json::array();
        for (const auto& mv : line)
            j["line"].push_back(format_move(b, mv.move));
        if (a.both) {
            j["outcome"] = outcome_name(outcome_of(*black_starts, *white_starts));
            j["black_starts"] = {{"value", value_word(*black_starts)},
                                 {"depth", black_starts->depth}};
            j["white_starts"] = {{"value", value_word(*white_starts)},
                                 {"depth", white_starts->depth}};
        }
        j["board"] = b.name();
        j["search"] = {{"positions", s.positions()}, {"table_hits", 0}, {"table_rejections", 0}};
        j["game"] = kind;
        std::printf("%s\n", dump(j).c_str());
        return kOk;
    }
    std::printf("position: %s  (%s, search, ruleset %s%s)\n", format_position(b, p).c_str(),
                b.name().c_str(), ruleset_name(opt.rules), opt.jumps_only ? ", jumps only" : "");
    std::printf("to move:  %s\n", color_name(p.to_move));
    std::printf("value:    %s for %s\n", describe(value).c_str(), color_name(p.to_move));
    if (best) {
        std::printf("perfect move: %s (%s)\n", format_move(b, best->move).c_str(),
                    describe(best->value).c_str());
    } else {
        std::printf("perfect move: none (%s has no move and loses)\n", color_name(p.to_move));
    }
    if (!moves.empty()) {
        std::printf("moves (value for %s, depth from before the move):\n", color_name(p.to_move));
        for (const auto& mv : moves) {
            std::printf("  %-8s %-4s %3d%s\n", format_move(b, mv.move).c_str(),
                        value_word(mv.value), mv.value.depth,
                        best && mv.move == best->move ? "  *" : "");
        }
    }
    std::string ltext;
    for (const auto& mv : line)
        ltext += (ltext.empty() ? "" : " ") + format_move(b, mv.move);
    std::printf("perfect line: %s\n",
                ltext.empty() ? "(none: the side to move has no move)" : ltext.c_str());
    std::printf("game:     %s\n", kind);
    if (a.both) {
        const Outcome o = outcome_of(*black_starts, *white_starts);
        std::printf("outcome:  %s (%s): Black to move: %s; White to move: %s\n", outcome_name(o),
                    outcome_words(o), describe(*black_starts).c_str(),
                    describe(*white_starts).c_str());
    }
    std::printf("searched: %zu position%s\n", s.positions(), s.positions() == 1 ? "" : "s");
    return kOk;
}

}  // namespace konane::cli
