// `konane probe`: a position's value, depth and perfect move from a table, then every move's
// value; --batch: positions from standard input, answered as JSON lines.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/answer_text.hpp"
#include "cli/common.hpp"
#include "cli/gap_arg.hpp"
#include "cli/help.hpp"
#include "cli/json.hpp"
#include "core/notation.hpp"
#include "core/text.hpp"
#include "probe/probe.hpp"
#include "process/line_reader.hpp"

namespace konane::cli {

namespace {

struct ProbeArgs {
    std::string file;
    std::string position;
    std::string game;
    bool json = false;
    bool batch = false;
    std::string load;  ///< --load (add_load_option()); empty: map, auto with --batch
};

/// The longest line `probe --batch` takes (bytes): a position is at most 64 squares, 63 slashes,
/// a space and the side; longer lines end the batch with an error rather than grow a buffer.
constexpr std::size_t kMaxBatchLine = 4096;

/// `probe FILE --batch`: one position per line of standard input, one JSON object per line of
/// standard output in the same order: position, stored, and value and depth when stored; a
/// line that is no position of the table's board gets "error" and the batch goes on. A damaged
/// table ends the batch (format::FormatError, exit 2) after the answers to every line before
/// the one that met the damage are written: their count says which line it was.
int run_batch(const ProbeArgs& a) {
    const Tablebase tb = Tablebase::open(a.file, {}, open_options(a.load, format::Load::automatic));
    std::string line;
    std::string out;
    auto send = [&] {
        if (out.empty()) return;
        if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size() ||
            std::fflush(stdout) != 0)
            throw format::IoError(std::string("standard output: ") + std::strerror(errno));
        out.clear();
    };
    // One line's answer; a damaged table sends the answers before it first.
    auto answer = [&](std::string_view text) {
        try {
            out += batch_line(tb, text);
        } catch (const format::FormatError&) {
            send();
            throw;
        }
        out += '\n';
    };
    // Standard input is read with read(2) into the reader's buffer (process::LineReader, in
    // bounded memory); the reader reads again only when the lines received so far are all
    // answered: the answers are then sent before waiting for more, so that a client that
    // writes one line and waits for its answer gets it at once.
    process::LineReader reader(
        [&](char* buf, std::size_t n) -> std::size_t {
            send();
            for (;;) {
                const ssize_t r = ::read(STDIN_FILENO, buf, n);
                if (r < 0 && errno == EINTR) continue;
                if (r < 0)
                    throw format::IoError(std::string("standard input: ") + std::strerror(errno));
                return static_cast<std::size_t>(r);
            }
        },
        kMaxBatchLine);
    for (;;) {
        const process::LineReader::Status status = reader.next(line);
        if (status == process::LineReader::Status::end) break;
        if (status == process::LineReader::Status::too_long) {
            send();
            throw UsageError(fmt::format(
                "standard input: line {} is longer than {} bytes (a position is at most {})",
                reader.lines() + 1, kMaxBatchLine, 2 * kMaxSquares + 1));
        }
        answer(line);
        if (out.size() > (1 << 16)) send();
    }
    send();
    return kOk;
}

int run_probe(const ProbeArgs& a) {
    if (!a.position.empty() && !a.game.empty()) {
        throw UsageError("give either a POSITION or --game, not both");
    }
    if (a.batch) {
        if (!a.position.empty() || !a.game.empty())
            throw UsageError("--batch reads positions from standard input: no POSITION or --game");
        return run_batch(a);
    }
    const Tablebase tb = Tablebase::open(a.file, {}, open_options(a.load, format::Load::map));
    const Board& b = tb.board();
    // By default the start: the full board, or a gap's table's start position.
    Position p = tb.opening().gap ? gap_start(b, *tb.opening().gap) : b.start();
    if (!a.position.empty()) {
        p = parse_position(a.position, &b).position;
    } else if (!a.game.empty()) {
        p = parse_game(b, tb.rules(), a.game).positions.back();
    }
    std::optional<Answer> ans;
    try {
        ans = table_answer(tb, p);
        if (!ans) {
            return not_stored(
                "probe",
                fmt::format("position {} is not stored in {} (not reachable on {} "
                            "{} {})",
                            format_position(b, p), printable(a.file), b.name(),
                            tb.opening().gap ? "from" : "under", opening_text(b, tb.opening())),
                b, p);
        }
    } catch (const NotStored& e) {
        return not_stored("probe", e.what(), b, p);
    }
    if (a.json) {
        std::printf("%s\n", dump(answer_json(b, *ans)).c_str());
    } else {
        print_answer(b, *ans,
                     fmt::format("table {}, {}", printable(a.file), opening_text(b, tb.opening())));
    }
    return kOk;
}

}  // namespace

void add_probe_command(CLI::App& app, Commands& out) {
    auto p = std::make_shared<ProbeArgs>();
    auto* probe = app.add_subcommand(
        "probe",
        "Value, depth and perfect move of a position from a table, then every move's value");
    probe->add_option("FILE", p->file, "Table file")->required()->check(non_empty());
    probe
        ->add_option("POSITION", p->position,
                     "Position, e.g. '..xo/oxox/xoxo/oxox b' (default: the full board)")
        ->check(non_empty());
    probe->add_option("--game", p->game,
                      "Game record from the full board, e.g. 'a4 b4 a2-a4' on 4x4");
    probe->add_flag("--json", p->json, "JSON output");
    probe->add_flag("--batch", p->batch,
                    "Positions from standard input, one per line; one JSON object per line "
                    "(position, stored, value, depth; error for a malformed line)");
    add_load_option(probe, p->load, "map, auto with --batch");
    help_footer(probe, {"konane probe konane-4x4-brainking.kbt '..xo/oxox/xoxo/oxox b'",
                        "konane probe konane-4x4-brainking.kbt            the full board",
                        "konane probe konane-4x4-brainking.kbt --game 'a4 b4 a2-a4' --json",
                        "printf '..xo/oxox/xoxo/oxox b\n' | konane probe t.kbt --batch"});
    out.push_back({probe, [p] { return run_probe(*p); }});
}

}  // namespace konane::cli
