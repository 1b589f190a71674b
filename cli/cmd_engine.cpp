// `konane engine`: the engine over the Go Text Protocol on standard input and output
// (engine/gtp.hpp; the commands and a transcript: docs/engine.md).
#include <unistd.h>

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
/// stop) and every later one.
class InputLines {
  public:
    explicit InputLines(std::atomic<bool>& stop) : stop_(stop) {
        std::thread([this] { read(); }).detach();  // blocked in read() at exit: harmless
    }

    /// The next line; false at the end of the input.
    bool next(std::string& line) {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return !lines_.empty() || ended_; });
        if (lines_.empty()) return false;
        line = std::move(lines_.front());
        lines_.pop_front();
        return true;
    }

  private:
    void read() {
        std::string partial;
        bool quit = false;
        char buf[4096];
        for (;;) {
            const ssize_t n = ::read(0, buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            std::lock_guard lock(mutex_);
            for (ssize_t i = 0; i < n; ++i) {
                if (buf[i] != '\n') {
                    partial += buf[i];
                    continue;
                }
                quit = quit || is_quit(partial);
                lines_.push_back(std::move(partial));
                partial.clear();
            }
            ready_.notify_one();
        }
        std::lock_guard lock(mutex_);
        if (!partial.empty()) {
            quit = quit || is_quit(partial);
            lines_.push_back(std::move(partial));
        }
        if (!quit) stop_.store(true);
        ended_ = true;
        ready_.notify_one();
    }

    std::atomic<bool>& stop_;
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::string> lines_;
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
    for (std::string line; !session.done() && input->next(line);) {
        const std::string answer = session.handle(line);
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
