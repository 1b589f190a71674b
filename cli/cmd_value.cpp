// `konane value`: the combinatorial game value of a position played by jumps alone (cgt/).
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "cgt/konane.hpp"
#include "cli/common.hpp"
#include "cli/progress.hpp"
#include "cli/value_json.hpp"
#include "core/notation.hpp"
#include "core/text.hpp"
#include "core/wide.hpp"
#include "solver/solve.hpp"

namespace konane::cli {

namespace {

struct ValueArgs {
    std::string position;
    std::string board;
    bool ascii = false;
    bool json = false;
    bool whole = false;
    bool quiet = false;
    std::uint64_t max_nodes = 0;
    std::string memory;
};

/// Values occ on board b (the 64-bit Board or the wide board: the same code) and prints it.
template <class BoardT, class Bits>
int value_on(const BoardT& b, const Bits& occ, const ValueArgs& a) {
    cgt::ValueOptions opt;
    opt.decompose = !a.whole;
    const std::uint64_t budget =
        a.memory.empty() ? solver::default_memory_budget() : parse_size(a.memory, "--memory");
    const std::uint64_t by_memory = budget / cgt::kValueBytesPerPosition;
    if (by_memory == 0) throw UsageError("--memory " + excerpt(a.memory) + ": too small");
    const bool memory_binds = a.max_nodes == 0 || by_memory < a.max_nodes;
    opt.max_positions = static_cast<std::size_t>(memory_binds ? by_memory : a.max_nodes);
    // Games of the store: a few per position at most in practice; bound them by the memory too.
    opt.max_games = static_cast<std::size_t>(std::max<std::uint64_t>(by_memory * 4, 1024));
    ProgressLine progress(!a.quiet);
    opt.progress = [&](std::size_t n, std::size_t) {
        progress.count("value", n, opt.max_positions);
    };
    cgt::GameStore store;
    cgt::BasicValuer<BoardT> v(b, store, opt);
    json j;
    try {
        j = value_json(b, occ, v);
    } catch (const cgt::ValueLimit& e) {
        progress.finish();
        throw cgt::ValueLimit(fmt::format(
            "value {} ({})", e.what(),
            memory_binds
                ? fmt::format("the memory budget {} MiB allows that many; --memory", budget >> 20)
                : std::string("--max-nodes")));
    }
    progress.finish();
    if (a.json) {
        std::printf("%s\n", dump(j).c_str());
        return kOk;
    }
    const std::string value = (a.ascii ? j["ascii"] : j["value"]).get<std::string>();
    std::printf("position:    %s (%s, jumps only, Black is Left)\n",
                j["position"].get<std::string>().c_str(), b.name().c_str());
    std::printf("value:       %s\n", value.c_str());
    const std::string letter = j["outcome"].get<std::string>();
    const std::string word = j["outcome_name"].get<std::string>();
    const char* says = "";  // the description of the outcome the JSON names
    for (const Outcome o : {Outcome::Black, Outcome::White, Outcome::First, Outcome::Second}) {
        if (word == outcome_name(o)) says = outcome_description(o);
    }
    std::printf("outcome:     %s (%s: %s)\n", letter.c_str(), word.c_str(), says);
    if (!j["number"].get<bool>()) {
        std::printf("mean:        %s\n", j["mean"].get<std::string>().c_str());
        std::printf("temperature: %s\n", j["temperature"].get<std::string>().c_str());
    }
    const auto& regions = j["regions"];
    if (regions.size() > 1) {
        std::printf("regions:     %zu\n", regions.size());
        for (const auto& r : regions) {
            std::printf("  %s  %s\n", r["position"].get<std::string>().c_str(),
                        r[a.ascii ? "ascii" : "value"].get<std::string>().c_str());
        }
    }
    std::printf("valued:      %zu position%s, %zu games\n", v.positions(),
                v.positions() == 1 ? "" : "s", store.size());
    return kOk;
}

int run_value(const ValueArgs& a) {
    // The side to move does not enter a value: it may be left out.
    std::string text = a.position;
    if (text.find(' ') == std::string::npos) text += " b";
    if (is_wide_text(text) || is_wide_text(a.board)) {  // past 64 squares
        std::optional<BigBoard> want;
        if (!a.board.empty()) want = parse_big_board(a.board);
        const ParsedBigPosition parsed = parse_big_position(text, want ? &*want : nullptr);
        return value_on(parsed.board, parsed.position.occ, a);
    }
    std::optional<Board> want;
    if (!a.board.empty()) want = Board::parse(a.board);
    const ParsedPosition parsed = parse_position(text, want ? &*want : nullptr);
    return value_on(parsed.board, parsed.position.occ, a);
}

}  // namespace

void add_value_command(CLI::App& app, Commands& out) {
    auto a = std::make_shared<ValueArgs>();
    auto* cmd = app.add_subcommand(
        "value",
        "Combinatorial game value of a position played by jumps alone (Black is Left): "
        "canonical form, outcome class, mean and temperature");
    cmd->add_option("POSITION", a->position,
                    "Position, e.g. '.ox./o..x/....' (the side to move may be left out: a value "
                    "does not depend on it)")
        ->required()
        ->check(non_empty());
    cmd->add_option("--board", a->board, "Board size RxC the position must have")
        ->check(non_empty());
    cmd->add_flag("--ascii", a->ascii, "^ and v for the arrows instead of Unicode");
    cmd->add_flag("--json", a->json, "JSON output: the form as text and as a tree");
    cmd->add_flag("--whole", a->whole,
                  "Value the board as one game instead of the sum of its independent regions");
    cmd->add_option("--max-nodes", a->max_nodes,
                    "Most positions (regions up to symmetry) to value (0: no limit but --memory)")
        ->check(decimal(0, std::uint64_t{1} << 40));
    cmd->add_option("--memory", a->memory,
                    "Memory budget, e.g. 500M: about 512 bytes a position (default as generate: "
                    "60% of the machine's memory, at most 16G)")
        ->check(non_empty());
    cmd->add_flag("-q,--quiet", a->quiet, "No progress line on stderr");
    out.push_back({cmd, [a] { return run_value(*a); }});
}

}  // namespace konane::cli
