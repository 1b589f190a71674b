// `konane play`: a game against the engine in the terminal, the board redrawn after each move,
// with takeback and hints (engine/engine.hpp, docs/engine.md).
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/common.hpp"
#include "cli/engine_args.hpp"
#include "cli/help.hpp"
#include "core/notation.hpp"
#include "core/text.hpp"
#include "engine/engine.hpp"
#include "process/line_reader.hpp"

namespace konane::cli {

namespace {

struct PlayArgs : EngineArgs {
    std::string board, position, side = "black";
};

/// The longest input line `play` reads, in bytes: a command or a move is a few; a longer line
/// is discarded in bounded memory and the prompt comes again.
constexpr std::size_t kMaxPlayLine = 4096;

std::string trimmed_lower(std::string s) {
    s.erase(0, s.find_first_not_of(" \t\r"));
    s.erase(s.find_last_not_of(" \t\r") + 1);
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

int run_play(PlayArgs a) {
    const ParsedPosition parsed = engine_position(a.position, a.board, "8x8");
    const Board& b = parsed.board;
    const Color human = a.side == "white" ? Color::White : Color::Black;
    const engine::EngineOptions options = engine_options(a);
    const Ruleset rules = options.rules;
    engine::Engine eng(b, options);
    const engine::MoveLimits limits = move_limits(a);

    std::printf(
        "Kōnane %s: you play %s (%s), the engine %s. Moves as d5 (a removal) or f5-d5 "
        "(a jump);\n'undo' takes your last move back, 'hint' asks the engine, 'moves' "
        "lists your moves, 'quit' ends.\n",
        b.name().c_str(), color_name(human), human == Color::Black ? "x" : "o",
        color_name(other(human)));
    std::vector<Position> history{parsed.position};
    std::vector<std::string> record;
    process::LineReader input = process::LineReader::of_stream(std::cin, kMaxPlayLine);
    std::string line;
    for (;;) {
        const Position p = history.back();
        std::printf("\n%s\n", board_diagram(b, p).c_str());
        const std::vector<MoveChild> moves = legal_moves(b, rules, p);
        if (moves.empty()) {
            std::printf("%s has no move: %s wins%s.\n", color_name(p.to_move),
                        color_name(other(p.to_move)),
                        other(p.to_move) == human ? " (you)" : " (the engine)");
            break;
        }
        if (p.to_move != human) {
            const auto d = eng.decide(p, limits);
            const std::string m = format_move(b, d->move.move);
            std::printf("engine plays %s  [%s]\n", m.c_str(), d->describe().c_str());
            history.push_back(d->move.child);
            record.push_back(m);
            continue;
        }
        std::printf("%s> ", color_name(human));
        std::fflush(stdout);
        const process::LineReader::Status status = input.next(line);
        if (status == process::LineReader::Status::end) {
            std::printf("\n");
            break;
        }
        if (status == process::LineReader::Status::too_long) {
            const std::uint64_t bytes = input.skip_rest();
            std::printf("line too long (%llu bytes, at most %zu): ignored\n",
                        static_cast<unsigned long long>(bytes), kMaxPlayLine);
            continue;
        }
        const std::string cmd = trimmed_lower(line);
        if (cmd.empty()) continue;
        if (cmd == "quit" || cmd == "exit") break;
        if (cmd == "moves") {
            std::string s;
            for (const MoveChild& mc : moves)
                s += " " + format_move(b, mc.move);
            std::printf("your moves:%s\n", s.c_str());
            continue;
        }
        if (cmd == "hint") {
            const auto d = eng.decide(p, limits);
            std::printf("hint: %s  [%s]\n", format_move(b, d->move.move).c_str(),
                        d->describe().c_str());
            continue;
        }
        if (cmd == "undo") {
            // Back to the last position where it was your turn before this one.
            std::size_t n = history.size() - 1;
            while (n > 0 && history[n - 1].to_move != human)
                --n;
            if (n == 0) {
                std::printf("nothing to take back\n");
                continue;
            }
            --n;
            history.resize(n + 1);
            record.resize(n);
            eng.clear();
            continue;
        }
        try {
            const MoveChild mc = parse_move(b, rules, p, cmd);
            history.push_back(mc.child);
            record.push_back(format_move(b, mc.move));
        } catch (const NotationError& e) {
            std::printf("%s\n", safe_message(e.what()).c_str());
        }
    }
    std::string game;
    for (const std::string& m : record)
        game += (game.empty() ? "" : " ") + m;
    std::printf("game: %s\n", game.c_str());
    return kOk;
}

}  // namespace

void add_play_command(CLI::App& app, Commands& out) {
    auto a = std::make_shared<PlayArgs>();
    auto* cmd = app.add_subcommand(
        "play",
        "Play against the engine in the terminal (any board of up to 64 squares). Input lines "
        "of more than 4096 bytes are ignored with a message and the move is asked again");
    cmd->add_option("BOARD", a->position, "Board RxC (default 8x8), or a position to start from")
        ->check(non_empty());
    cmd->add_option("--board", a->board, "Board size RxC")->check(non_empty());
    cmd->add_option("--as", a->side, "Your colour")
        ->capture_default_str()
        ->check(CLI::IsMember({"black", "white"}));
    add_engine_options(cmd, *a);
    help_footer(cmd, {"konane play 8x8 --time 2", "konane play 6x6 --as white --depth 6",
                      "konane play 5x5 --table konane-5x5-brainking.kbt"});
    out.push_back({cmd, [a] { return run_play(*a); }});
}

}  // namespace konane::cli
