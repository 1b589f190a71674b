#include "match/gtp_client.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <system_error>
#include <thread>

#include "core/text.hpp"

namespace konane::match {

namespace {

using Clock = std::chrono::steady_clock;

/// The longest answer taken: an engine that writes more without ending its answer (an empty
/// line) is answering garbage.
constexpr std::size_t kMaxAnswer = 64 * 1024;

std::string trim(std::string s) {
    const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n'; };
    while (!s.empty() && space(s.back()))
        s.pop_back();
    std::size_t i = 0;
    while (i < s.size() && space(s[i]))
        ++i;
    return s.substr(i);
}

std::string seconds_text(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", s);
    return buf;
}

std::atomic<int> g_signal{0};

void on_interrupt(int sig) {
    int none = 0;
    g_signal.compare_exchange_strong(none, sig);
}

}  // namespace

void install_interrupt_handlers() {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
        struct sigaction old {};
        if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        struct sigaction sa {};
        sa.sa_handler = on_interrupt;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = 0;  // no SA_RESTART: a blocked poll returns EINTR
        ::sigaction(sig, &sa, nullptr);
    }
}

int interrupt_signal() {
    return g_signal.load();
}

GtpClient::GtpClient(std::string command, bool quiet) : command_(std::move(command)) {
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) != 0)
        throw std::system_error(errno, std::generic_category(), "pipe");
    if (::pipe2(out, O_CLOEXEC) != 0) {
        const int e = errno;
        ::close(in[0]);
        ::close(in[1]);
        throw std::system_error(e, std::generic_category(), "pipe");
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
        const int e = errno;
        for (int fd : {in[0], in[1], out[0], out[1]})
            ::close(fd);
        throw std::system_error(e, std::generic_category(), "fork");
    }
    if (pid == 0) {
        // The child: only async-signal-safe calls until exec.
        ::setpgid(0, 0);
        ::signal(SIGPIPE, SIG_DFL);  // the match ignores it; an engine should not inherit that
        ::dup2(in[0], 0);
        ::dup2(out[1], 1);
        if (quiet) {
            const int null = ::open("/dev/null", O_WRONLY);
            if (null >= 0) ::dup2(null, 2);
        }
        // Nothing else of the runner's reaches the engine (a --record file, the other engine's
        // pipes were they inherited); a kernel without close_range leaves them, harmlessly.
        ::close_range(3, ~0U, 0);
        ::execl("/bin/sh", "sh", "-c", command_.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    ::setpgid(pid, pid);  // also here: whichever runs first, the group exists before a kill
    pid_ = group_ = pid;
    ::close(in[0]);
    ::close(out[1]);
    to_ = in[1];
    from_ = out[0];
}

GtpClient::~GtpClient() {
    kill();
}

std::string GtpClient::exit_description() const {
    if (status_ < 0) return "";
    if (WIFEXITED(status_)) return "exited with code " + std::to_string(WEXITSTATUS(status_));
    if (WIFSIGNALED(status_)) return "killed by signal " + std::to_string(WTERMSIG(status_));
    return "ended";
}

bool GtpClient::reap(double seconds) {
    if (pid_ <= 0) return true;
    const auto end = Clock::now() + std::chrono::duration<double>(seconds);
    for (;;) {
        int st = 0;
        const pid_t r = ::waitpid(pid_, &st, WNOHANG);
        if (r == pid_) {
            status_ = st;
            pid_ = -1;
            return true;
        }
        if (r < 0 && errno != EINTR) {  // not our child any more (cannot happen): forget it
            pid_ = -1;
            return true;
        }
        if (Clock::now() >= end) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

void GtpClient::terminate(double grace_seconds) {
    if (group_ > 0) ::kill(-group_, SIGTERM);
    if (pid_ > 0) ::kill(pid_, SIGTERM);
    reap(grace_seconds);
    kill();
}

void GtpClient::kill() {
    if (group_ > 0) ::kill(-group_, SIGKILL);  // what the shell started, too
    group_ = -1;
    if (pid_ > 0) {
        ::kill(pid_, SIGKILL);
        int st = 0;
        while (::waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
        }
        if (status_ < 0) status_ = st;
        pid_ = -1;
    }
    if (to_ >= 0) ::close(to_);
    if (from_ >= 0) ::close(from_);
    to_ = from_ = -1;
}

void GtpClient::fail(const std::string& reason) {
    failed_ = true;
    kill();
    throw EngineFailure(reason);
}

GtpReply GtpClient::command(const std::string& line, double timeout_seconds) {
    if (failed_ || to_ < 0) throw EngineFailure("not running");
    if (const int sig = interrupt_signal())
        throw Interrupted("interrupted by signal " + std::to_string(sig));
    const std::string quoted = "'" + excerpt(line) + "'";
    const std::string text = line + "\n";
    for (std::size_t done = 0; done < text.size();) {
        const ssize_t n = ::write(to_, text.data() + done, text.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            // EPIPE: the engine closed its input, normally by exiting.
            const std::string how = reap(0.5) ? exit_description() : "closed its input";
            fail(how + " (when sent " + quoted + ")");
        }
        done += static_cast<std::size_t>(n);
    }
    const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_seconds);
    for (;;) {
        // The answer: lines up to the first empty line, '\r' ignored, empty lines before it
        // skipped.
        std::size_t start = 0;
        while (start < buffer_.size() && (buffer_[start] == '\n' || buffer_[start] == '\r'))
            ++start;
        buffer_.erase(0, start);
        const std::size_t end = buffer_.find("\n\n");
        if (end != std::string::npos) {
            const std::string answer = buffer_.substr(0, end);
            buffer_.erase(0, end + 2);
            if (answer[0] != '=' && answer[0] != '?')
                fail("answered garbage '" + excerpt(answer) + "' to " + quoted);
            std::size_t i = 1;
            while (i < answer.size() && answer[i] >= '0' && answer[i] <= '9')
                ++i;  // the id (we send none; an engine may still echo one)
            return GtpReply{answer[0] == '=', trim(answer.substr(i))};
        }
        if (buffer_.size() > kMaxAnswer)
            fail("answered garbage '" + excerpt(buffer_.substr(0, buffer_.find('\n'))) +
                 "...' (no end of answer within 64 KiB) to " + quoted);
        if (const int sig = interrupt_signal())
            throw Interrupted("interrupted by signal " + std::to_string(sig));
        const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
        if (left <= 0)
            fail("no answer within " + seconds_text(timeout_seconds) + " s to " + quoted);
        pollfd pfd{from_, POLLIN, 0};
        // At most 100 ms a wait: a signal caught by another thread is seen here too.
        const int ms = static_cast<int>(std::ceil(std::min(left, 0.1) * 1000));
        const int r = ::poll(&pfd, 1, ms);
        if (r < 0) {
            if (errno == EINTR) continue;
            fail(std::string("poll: ") + std::generic_category().message(errno));
        }
        if (r == 0) continue;  // the deadline is checked above
        char buf[4096];
        const ssize_t n = ::read(from_, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            fail(std::string("read: ") + std::generic_category().message(errno));
        }
        if (n == 0) {
            const std::string how = reap(0.5) ? exit_description() : "closed its output";
            fail(how + (buffer_.empty() ? "" : " after '" + excerpt(buffer_) + "'") +
                 " (when sent " + quoted + ")");
        }
        for (ssize_t k = 0; k < n; ++k)
            if (buf[k] != '\r') buffer_ += buf[k];
    }
}

void GtpClient::quit(double grace_seconds) {
    if (alive()) {
        try {
            command("quit", grace_seconds);
        } catch (const EngineFailure&) {
            return;  // already killed
        } catch (const Interrupted&) {
            terminate(grace_seconds);
            return;
        }
        if (to_ >= 0) ::close(to_);
        to_ = -1;
        reap(grace_seconds);
    }
    kill();
}

}  // namespace konane::match
