#include "cli/engine_args.hpp"

#include <cctype>
#include <cstdio>
#include <optional>
#include <string>

#include "cli/common.hpp"
#include "cli/help.hpp"
#include "core/notation.hpp"
#include "core/notation_generic.hpp"
#include "core/text.hpp"
#include "probe/probe.hpp"

namespace konane::cli {

void add_engine_options(CLI::App* cmd, EngineArgs& a) {
    a.time_option =
        cmd->add_option("--time", a.seconds,
                        "Seconds a move (wall clock; default 1 when neither --nodes nor --depth "
                        "is given)")
            ->check(decimal_fraction(0.001, kMaxSeconds));
    cmd->add_option("--nodes", a.nodes,
                    "Nodes a move, of the proof and heuristic searches together (reproducible)")
        ->check(decimal(1, kMaxNodes));
    cmd->add_option("--depth", a.depth,
                    "Deepest iteration of the heuristic search, in plies (reproducible)")
        ->check(decimal(1, 128));
    cmd->add_option("--table", a.table, "Table of the board: its positions are played perfectly")
        ->check(non_empty());
    add_load_option(cmd, a.load, "map");
    a.rules_option = cmd->add_option("--rules", a.rules, "Opening ruleset (brainking, center, any)")
                         ->capture_default_str()
                         ->check(non_empty());
    cmd->add_option("--memory", a.memory,
                    "Memory of the searches' tables, e.g. 64M, 1G (a quarter for the heuristic "
                    "search, an eighth for the valuer, the rest for the proof search)")
        ->capture_default_str()
        ->check(non_empty());
    cmd->add_option("-j,--threads", a.threads,
                    "Threads of the proof and heuristic searches, at most 256 (more than one: "
                    "not reproducible). Each thread past the first takes its own state (about "
                    "3 MiB) out of --memory; those that do not fit in half of it are not "
                    "started (a warning says so)")
        ->capture_default_str()
        ->check(CLI::Validator(
            [](std::string& s) -> std::string {
                std::uint64_t v = 0;
                const std::string problem = decimal_problem(s, 1, kMaxEngineThreads, v);
                if (problem.empty()) return {};
                return problem + " (-j: at most " + std::to_string(kMaxEngineThreads) +
                       " threads, each with its own state and share of the time)";
            },
            "INT in [1 - " + std::to_string(kMaxEngineThreads) + "]"));
    cmd->add_option("--evaluation", a.evaluation,
                    "Evaluation weights for experiments, e.g. mobility=100,movable=30,safe=50 "
                    "(hundredths of a move; default: docs/engine.md)")
        ->check(non_empty());
    cmd->add_option("--features", a.features,
                    "Search features switched on, for experiments: any of "
                    "tt,pvs,killers,history,aspiration, or none (default: docs/engine.md)")
        ->check(non_empty());
    cmd->add_option("--proof-share", a.proof_share,
                    "Share of a move's budget the proof search gets first (0: none)")
        ->capture_default_str()
        ->check(decimal_fraction(0.0, 1.0));
    cmd->add_flag("--no-values", a.no_values,
                  "No CGT value as a source (by default a position the proof search leaves "
                  "undecided that splits into regions is decided by the sum of their values)");
    cmd->add_flag("--baseline", a.baseline,
                  "The baseline player instead: alpha-beta to depth 4 on the mobility "
                  "difference (the control player of course tournaments)");
}

engine::EngineOptions engine_options(const EngineArgs& a) {
    engine::EngineOptions o;
    o.rules = parse_ruleset(a.rules);
    o.baseline = a.baseline;
    o.memory_bytes = static_cast<std::size_t>(parse_size(a.memory, "--memory"));
    if (o.memory_bytes < (std::size_t{1} << 20))
        throw UsageError("--memory: at least 1M (the searches' tables need it)");
    // Always (--quiet drops progress lines only): the run would fill the machine's memory.
    warn_memory_over_physical(o.memory_bytes, a.memory, false);
    o.threads = static_cast<int>(a.threads);
    // The engine runs the threads whose own state fits in its memory (threads_within()).
    const int fit = engine::threads_within(o.memory_bytes, o.threads);
    if (!a.baseline && fit < o.threads) {
        warn_threads_within(o.threads, engine::engine_thread_bytes(), a.memory,
                            static_cast<std::size_t>(fit));
    }
    o.proof_share = a.proof_share;
    o.values = !a.no_values;
    if (!a.evaluation.empty()) o.evaluation = engine::parse_evaluation(a.evaluation);
    if (!a.features.empty()) o.features = engine::parse_features(a.features);
    if (!a.table.empty()) {
        o.table = Tablebase::open(a.table, {}, open_options(a.load, format::Load::map));
        o.rules = engine_rules(a, *o.table);
    }
    return o;
}

Ruleset engine_rules(const EngineArgs& a, const Tablebase& table) {
    if (a.rules_option && a.rules_option->count() > 0 && parse_ruleset(a.rules) != table.rules()) {
        throw UsageError("--rules " + safe_message(a.rules) + " differs from the table's ruleset " +
                         ruleset_name(table.rules()) + " (--table " + safe_message(a.table) +
                         "): leave --rules out to play the table's");
    }
    return table.rules();
}

engine::MoveLimits move_limits(const EngineArgs& a) {
    engine::MoveLimits l;
    l.nodes = a.nodes;
    l.depth = static_cast<int>(a.depth);
    // --time alone, or by default when no reproducible limit is given.
    if ((a.time_option && a.time_option->count() > 0) || (!a.nodes && !a.depth))
        l.seconds = a.seconds;
    return l;
}

std::string line_text(const Board& b, const std::vector<Move>& pv) {
    std::string s;
    for (const Move& m : pv)
        s += (s.empty() ? "" : " ") + format_move(b, m);
    return s;
}

ParsedPosition engine_position(std::string position, std::string board, const char* default_board) {
    if (is_board_text(position)) merge_board(position, board);  // `bestmove 8x8`
    if (board.empty() && position.empty() && default_board) board = default_board;
    std::optional<Board> want;
    if (!board.empty()) want = Board::parse(board);
    std::string text = position;
    if (text.empty()) {
        if (!want) throw UsageError("give a POSITION or a board RxC (its full board)");
        text = format_position(*want, want->start());
    }
    text = with_side(std::move(text));
    return parse_position(text, want ? &*want : nullptr);
}

std::string read_record(const std::string& text, bool* brainking) {
    std::string out;
    bool bk = false;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
            ++i;
        std::size_t j = i;
        while (j < text.size() && !std::isspace(static_cast<unsigned char>(text[j])))
            ++j;
        std::string word = text.substr(i, j - i);
        i = j;
        if (word.empty()) continue;
        if (notation::is_move_number(word)) {
            bk = true;
            continue;
        }
        for (char& c : word) {
            if (c >= 'A' && c <= 'Z') {
                c = static_cast<char>(c - 'A' + 'a');
                bk = true;
            }
        }
        out += (out.empty() ? "" : " ") + word;
    }
    if (brainking) *brainking = bk;
    return out;
}

}  // namespace konane::cli
