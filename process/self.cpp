#include "process/self.hpp"

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <string>

namespace konane::process {

std::uint64_t peak_rss_bytes() {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
    }
    return 0;
}

std::uint64_t resident_bytes() {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
    }
    return 0;
}

void kill_point() {
    static const long limit = [] {
        const char* s = std::getenv("KONANE_KILL_AT");
        return s ? std::strtol(s, nullptr, 10) : 0L;
    }();
    static std::atomic<long> count{0};
    if (limit > 0 && ++count == limit) ::kill(::getpid(), SIGKILL);
}

std::uint64_t machine_memory_bytes() {
    std::ifstream in("/proc/meminfo");
    std::string line;
    std::uint64_t total = 0;
    while (std::getline(in, line)) {
        if (line.rfind("MemTotal:", 0) == 0) total = std::stoull(line.substr(9)) * 1024;
    }
    return total;
}

double cpu_seconds() {
    timespec ts{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace konane::process
