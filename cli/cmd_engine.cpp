// `konane engine`: the engine over the Go Text Protocol on standard input and output
// (engine/gtp.hpp; the commands and a transcript: docs/engine.md).
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <deque>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

#include "cli/common.hpp"
#include "cli/engine_args.hpp"
#include "cli/help.hpp"
#include "engine/gtp.hpp"
#include "konane_version.hpp"
#include "process/line_reader.hpp"

namespace konane::cli {

namespace {

struct GtpArgs : EngineArgs {
    std::string board = "8x8";
};

/// True when GTP command line `line` is `quit` (an id before it allowed, a comment ignored).
bool is_quit(const std::string& line) {
    std::istringstream in(line.substr(0, line.find('#')));
    std::string word;
    if (!(in >> word)) return false;
    if (word.find_first_not_of("0123456789") == std::string::npos && !(in >> word)) return false;
    return word == "quit";
}

/// Standard input's lines, read by a thread of their own so that the end of the input is seen
/// while a command runs: when the input ends without `quit` (the controller is gone: killed,
/// or it closed the pipe), `stop` is set, which stops a genmove's search at once (MoveLimits
/// stop) and every later one. Lines are read in bounded memory (process::LineReader, at most
/// engine::kGtpMaxLine bytes): a longer one is kept as its length only.
class InputLines {
  public:
    /// A line of the input: its text, or (too_long > 0) the length of a line too long to keep.
    struct Line {
        std::string text;
        std::uint64_t too_long = 0;
    };

    explicit InputLines(std::atomic<bool>& stop) : stop_(stop) {
        std::thread([this] { read(); }).detach();  // blocked in read() at exit: harmless
    }

    /// The next line; false at the end of the input.
    bool next(Line& line) {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return !lines_.empty() || ended_; });
        if (lines_.empty()) return false;
        line = std::move(lines_.front());
        lines_.pop_front();
        return true;
    }

  private:
    void read() {
        process::LineReader reader(
            [](char* buf, std::size_t n) -> std::size_t {
                for (;;) {
                    const ssize_t got = ::read(0, buf, n);
                    if (got < 0 && errno == EINTR) continue;
                    return got > 0 ? static_cast<std::size_t>(got) : 0;
                }
            },
            engine::kGtpMaxLine);
        bool quit = false;
        for (;;) {
            Line line;
            const process::LineReader::Status status = reader.next(line.text);
            if (status == process::LineReader::Status::end) break;
            if (status == process::LineReader::Status::too_long) {
                line.too_long = std::max<std::uint64_t>(reader.skip_rest(), 1);
            } else {
                quit = quit || is_quit(line.text);
            }
            std::lock_guard lock(mutex_);
            lines_.push_back(std::move(line));
            ready_.notify_one();
        }
        std::lock_guard lock(mutex_);
        if (!quit) stop_.store(true);
        ended_ = true;
        ready_.notify_one();
    }

    std::atomic<bool>& stop_;
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<Line> lines_;
    bool ended_ = false;
};

int run_engine(const GtpArgs& a) {
    engine::GtpOptions o;
    o.engine = engine_options(a);
    o.limits = move_limits(a);
    o.version = kVersion;
    if (a.baseline) o.name = "konane-baseline";
    o.board = Board::parse(a.board);
    if (!a.quiet) o.log = &std::cerr;
    // Lives past the session and the reading thread (static: the thread is detached).
    static std::atomic<bool> stop{false};
    o.limits.stop = &stop;
    engine::GtpSession session(std::move(o));
    std::ios::sync_with_stdio(false);
    // Never destroyed: its thread may still be blocked reading when this returns.
    static InputLines* input = new InputLines(stop);
    for (InputLines::Line line; !session.done() && input->next(line);) {
        const std::string answer =
            line.too_long ? engine::gtp_line_too_long(line.too_long) : session.handle(line.text);
        if (answer.empty()) continue;
        std::cout << answer;
        std::cout.flush();
    }
    return kOk;
}

}  // namespace

void add_engine_command(CLI::App& app, Commands& out) {
    auto g = std::make_shared<GtpArgs>();
    auto* eng = app.add_subcommand(
        "engine",
        "The engine over the Go Text Protocol (GTP 2) on standard input and output, for GUIs, "
        "match runners and agents (docs/engine.md)");
    eng->add_option("--board", g->board, "Board before any boardsize command")
        ->capture_default_str()
        ->check(non_empty());
    add_engine_options(eng, *g);
    eng->add_flag("-q,--quiet", g->quiet, "No line per generated move on stderr");
    help_footer(eng,
                {"konane engine --time 1", "konane engine --baseline",
                 "printf 'boardsize 6\\ngenmove black\\nquit\\n' | konane engine --nodes 100000"});
    out.push_back({eng, [g] { return run_engine(*g); }});
}

}  // namespace konane::cli
