#include "format/cleanup.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

namespace konane::format {

namespace {
constexpr int kSlots = 256;
constexpr std::size_t kPathMax = 4096;

// 0 free, 1 being written, 2 a file, 3 a directory. The handler reads paths only in state 2/3.
std::atomic<int> g_state[kSlots];
char g_path[kSlots][kPathMax];
std::atomic<bool> g_installed{false};

extern "C" void on_interrupt(int sig) {
    for (int pass = 2; pass <= 3; ++pass) {
        for (int i = 0; i < kSlots; ++i) {
            if (g_state[i].load(std::memory_order_acquire) != pass) continue;
            if (pass == 2)
                ::unlink(g_path[i]);
            else
                ::rmdir(g_path[i]);
        }
    }
    ::signal(sig, SIG_DFL);
    ::raise(sig);
}
}  // namespace

int register_temporary(const std::filesystem::path& path, bool directory) {
    const std::string& s = path.native();
    if (s.size() >= kPathMax) return -1;
    for (int i = 0; i < kSlots; ++i) {
        int expected = 0;
        if (!g_state[i].compare_exchange_strong(expected, 1)) continue;
        std::memcpy(g_path[i], s.c_str(), s.size() + 1);
        g_state[i].store(directory ? 3 : 2, std::memory_order_release);
        return i;
    }
    return -1;
}

void unregister_temporary(int handle) {
    if (handle >= 0 && handle < kSlots) g_state[handle].store(0, std::memory_order_release);
}

void install_interrupt_cleanup() {
    if (g_installed.exchange(true)) return;
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGINT, SIGTERM, SIGHUP})
        ::sigaction(sig, &sa, nullptr);
}

}  // namespace konane::format
