// A progress line on stderr for long work: phase, layer, positions, rate and time left.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "process/self.hpp"
#include "solver/workdir.hpp"

namespace konane::cli {

/// Prints "[phase] layer N: done/total positions, R/s, T s left, memory M, disk D" on stderr, at
/// most four times a second; on a terminal the line is rewritten in place, elsewhere a line is
/// printed every five seconds. Memory is this process's resident set; disk the bytes in the
/// watched directory (if any). Silent when disabled.
class ProgressLine {
  public:
    explicit ProgressLine(bool enabled)
        : enabled_(enabled), tty_(isatty(STDERR_FILENO) != 0), last_(Clock::now()) {}
    ~ProgressLine() { finish(); }

    /// Whole-run progress (positions of the layers done, of all layers): each line then ends
    /// with the share done and the time left at the rate since the first report.
    void run(std::uint64_t done, std::uint64_t total) {
        if (run_total_ == 0) run_start_ = Clock::now();
        run_done_ = done;
        run_total_ = total;
    }

    /// Reports the bytes held in `dir` (a work directory) on each line.
    void watch_directory(std::filesystem::path dir) { dir_ = std::move(dir); }

    void operator()(const char* phase, int pieces, std::uint64_t done, std::uint64_t total) {
        if (!enabled_) return;
        const auto now = Clock::now();
        if (phase != phase_ || pieces != pieces_) {
            phase_ = phase;
            pieces_ = pieces;
            start_ = now;
        }
        const double gap = std::chrono::duration<double>(now - last_).count();
        if (gap < (tty_ ? 0.25 : 5.0) && done != total) return;
        if (!tty_ && gap < 5.0) return;
        last_ = now;
        const double el = std::chrono::duration<double>(now - start_).count();
        const double rate = el > 0 ? static_cast<double>(done) / el : 0;
        char eta[64] = "";
        if (total > done && rate > 0) {
            std::snprintf(eta, sizeof eta, ", %.0f s left",
                          static_cast<double>(total - done) / rate);
        }
        std::fprintf(stderr,
                     "%s[%s] layer %d: %llu/%llu positions, %.2f M/s%s, memory %.0f MiB%s%s",
                     tty_ ? "\r" : "", phase, pieces, static_cast<unsigned long long>(done),
                     static_cast<unsigned long long>(total), rate / 1e6, eta,
                     static_cast<double>(process::resident_bytes()) / 1048576.0,
                     (disk() + whole_run(now)).c_str(), tty_ ? "\x1b[K" : "\n");
        std::fflush(stderr);
        dirty_ = tty_;
    }

    /// A count without layers (a search): "[phase] N positions (limit L), R M/s, memory M",
    /// at the same pace as operator().
    void count(const char* phase, std::uint64_t done, std::uint64_t limit) {
        if (!enabled_) return;
        const auto now = Clock::now();
        if (phase != phase_) {
            phase_ = phase;
            start_ = now;
        }
        if (std::chrono::duration<double>(now - last_).count() < (tty_ ? 0.25 : 5.0)) return;
        last_ = now;
        const double el = std::chrono::duration<double>(now - start_).count();
        char lim[48] = "";
        if (limit) std::snprintf(lim, sizeof lim, " (limit %.2f M)", limit / 1e6);
        std::fprintf(stderr, "%s[%s] %.2f M positions%s, %.2f M/s, memory %.0f MiB%s",
                     tty_ ? "\r" : "", phase, done / 1e6, lim, el > 0 ? done / el / 1e6 : 0.0,
                     static_cast<double>(process::resident_bytes()) / 1048576.0,
                     tty_ ? "\x1b[K" : "\n");
        std::fflush(stderr);
        dirty_ = tty_;
    }

    /// Ends the line on a terminal.
    void finish() {
        if (dirty_) std::fputc('\n', stderr);
        dirty_ = false;
    }

  private:
    std::string disk() const {
        if (dir_.empty()) return "";
        const std::uint64_t sum = solver::directory_bytes(dir_);
        char buf[48];
        std::snprintf(buf, sizeof buf, ", disk %.0f MiB", static_cast<double>(sum) / 1048576.0);
        return buf;
    }
    std::string whole_run(std::chrono::steady_clock::time_point now) const {
        if (run_total_ == 0 || run_done_ == 0) return "";
        const double el = std::chrono::duration<double>(now - run_start_).count();
        const double left =
            el * static_cast<double>(run_total_ - run_done_) / static_cast<double>(run_done_);
        char buf[64];
        std::snprintf(buf, sizeof buf, "; run %.0f%%, about %.0f s left",
                      100.0 * static_cast<double>(run_done_) / static_cast<double>(run_total_),
                      left);
        return buf;
    }
    std::uint64_t run_done_ = 0, run_total_ = 0;
    std::chrono::steady_clock::time_point run_start_{};
    std::filesystem::path dir_;
    using Clock = std::chrono::steady_clock;
    bool enabled_;
    bool tty_;
    Clock::time_point last_;
    Clock::time_point start_{};
    bool dirty_ = false;
    std::string phase_;
    int pieces_ = -1;
};

}  // namespace konane::cli
