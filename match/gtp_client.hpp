// The client side of the Go Text Protocol (GTP 2): an engine started as a child process from a
// shell command line (`/bin/sh -c CMD`, as cutechess-cli starts chess engines), spoken to over
// two pipes (its standard input and output; no sockets), every answer awaited with a timeout.
// `konane match` (match/match.hpp) plays games through it; docs/match.md.
#pragma once

#include <sys/types.h>
#include <stdexcept>
#include <string>

namespace konane::match {

/// What ended an engine's usefulness: it crashed, closed its output, did not answer in time or
/// answered something that is not a GTP answer. The message is the reason, for the game record
/// ("exited with code 1", "no answer within 5 s to 'genmove black'", ...).
struct EngineFailure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// The runner was interrupted by a signal (install_interrupt_handlers()) while it waited for an
/// engine: the game is abandoned, not scored.
struct Interrupted : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Installs handlers for SIGINT, SIGTERM and SIGHUP that record the signal (interrupt_signal())
/// and nothing else: every wait for an engine (GtpClient::command()) looks at it at least every
/// 100 ms and throws Interrupted, so that the runner can end its engines (terminate()), report
/// what it has and exit. Without SA_RESTART. A signal ignored when the process started (nohup)
/// stays ignored.
void install_interrupt_handlers();

/// The signal the handlers of install_interrupt_handlers() caught (the first), 0 if none.
int interrupt_signal();

/// An answer of the engine: success (`=`) or error (`?`), with its text (the id and the
/// leading space removed, surrounding white space trimmed; lines joined by '\n').
struct GtpReply {
    bool ok = false;
    std::string text;
};

/// A GTP engine in a child process. The child runs in its own process group, so that killing it
/// also ends what its shell started (`sh -c 'yes ...'`). Not thread-safe.
class GtpClient {
  public:
    /// Starts `/bin/sh -c command`: its standard input and output are pipes to this process,
    /// its standard error this process's, or /dev/null when `quiet`. Throws std::system_error
    /// when the pipes or the process cannot be made (a shell that then fails to run the
    /// command, exit code 127, is seen by the first command(): EngineFailure).
    GtpClient(std::string command, bool quiet);
    /// Ends the engine (kill()).
    ~GtpClient();
    GtpClient(const GtpClient&) = delete;
    GtpClient& operator=(const GtpClient&) = delete;

    /// Sends one command line (a newline added) and waits at most `timeout_seconds` for its
    /// answer: the lines up to the first empty line (GTP 2 §2.6; '\r' ignored, empty lines
    /// before the answer skipped). Returns the answer, ok or error. Throws Interrupted once
    /// interrupt_signal() is set (the engine is left running: terminate()). Throws EngineFailure
    /// when the engine has exited or closes its output (the reason names its exit code or signal),
    /// the time passes, the answer does not start with '=' or '?', or it grows past 64 KiB
    /// without ending. After a failure the engine is killed and every later command throws.
    GtpReply command(const std::string& line, double timeout_seconds);

    /// Asks the engine to quit (`quit`, waiting up to `grace_seconds` for its answer and its
    /// exit), then kills it if it still runs. Never throws.
    void quit(double grace_seconds = 1.0);

    /// Ends the engine's process group: SIGTERM, up to `grace_seconds` for the engine to exit,
    /// then kill(). Reaps it. Never throws.
    void terminate(double grace_seconds = 1.0);

    /// Kills the engine's process group (SIGKILL) and reaps the process. Never throws.
    void kill();

    /// The engine's process id (its shell's, which an `exec` makes the engine's), -1 once
    /// reaped.
    pid_t pid() const { return pid_; }

    /// True while the engine runs and has not failed.
    bool alive() const { return pid_ > 0 && !failed_; }

    /// The exit status of the engine once reaped (waitpid's), -1 before; and its description,
    /// "exited with code N" or "killed by signal N" ("" before).
    int exit_status() const { return status_; }
    std::string exit_description() const;

    const std::string& command_line() const { return command_; }

  private:
    [[noreturn]] void fail(const std::string& reason);
    /// Reaps the child if it has exited, waiting at most `seconds`; true when reaped.
    bool reap(double seconds);

    std::string command_;
    pid_t pid_ = -1;    ///< the engine's shell, until reaped
    pid_t group_ = -1;  ///< its process group (killed whole by kill())
    int to_ = -1;       ///< the engine's standard input (our writing end)
    int from_ = -1;     ///< the engine's standard output (our reading end)
    std::string buffer_;
    int status_ = -1;
    bool failed_ = false;
};

}  // namespace konane::match
