// SIGBUS on a registered table mapping: set the table's flag, map zeros, retry (fault_guard.hpp).
#include "format/fault_guard.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>

namespace konane::format::detail {

namespace {

constexpr int kSlots = 4096;

// A slot is live while size != 0. Written under g_mutex; read lock-free by the handler (a slot
// is only cleared after its table stopped reading, so a fault never races with its removal).
struct Slot {
    std::atomic<std::uintptr_t> base{0};
    std::atomic<std::size_t> size{0};
    std::atomic<std::atomic<int>*> flag{nullptr};
};
Slot g_slots[kSlots];
std::mutex g_mutex;
bool g_installed = false;  // under g_mutex
struct sigaction g_previous {};

extern "C" void on_sigbus(int sig, siginfo_t* info, void* context) {
    const auto addr = reinterpret_cast<std::uintptr_t>(info->si_addr);
    for (Slot& s : g_slots) {
        const std::size_t size = s.size.load(std::memory_order_acquire);
        if (size == 0) continue;
        const std::uintptr_t base = s.base.load(std::memory_order_acquire);
        if (addr < base || addr - base >= size) continue;
        // Ours: raise the flag first, so that no thread reads the zeros without seeing it.
        if (std::atomic<int>* flag = s.flag.load(std::memory_order_acquire)) {
            flag->store(1, std::memory_order_seq_cst);
        }
        const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
        const std::uintptr_t from = addr & ~(page - 1);
        void* r = ::mmap(reinterpret_cast<void*>(from), base + size - from, PROT_READ,
                         MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (r != MAP_FAILED) return;  // the access is retried and reads zeros
        break;
    }
    // Not ours (or the zeros could not be mapped): what would have happened without us.
    if (g_previous.sa_flags & SA_SIGINFO) {
        if (g_previous.sa_sigaction != nullptr) {
            g_previous.sa_sigaction(sig, info, context);
            return;
        }
    } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
        g_previous.sa_handler(sig);
        return;
    }
    // Default action: restore it and return; the access faults again and ends the process.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    ::sigaction(sig, &dfl, nullptr);
}

}  // namespace

int register_mapping(const void* base, std::size_t size, std::atomic<int>* flag) {
    std::lock_guard lock(g_mutex);
    if (!g_installed) {
        struct sigaction sa {};
        sa.sa_sigaction = on_sigbus;
        // SA_NODEFER: a fault in a second table while handling one must not be blocked (a
        // blocked synchronous SIGBUS kills the process).
        sa.sa_flags = SA_SIGINFO | SA_NODEFER;
        sigemptyset(&sa.sa_mask);
        if (::sigaction(SIGBUS, &sa, &g_previous) != 0)
            throw std::runtime_error(std::string("cannot install the SIGBUS handler: ") +
                                     std::strerror(errno));
        g_installed = true;
    }
    for (int i = 0; i < kSlots; ++i) {
        Slot& s = g_slots[i];
        if (s.size.load(std::memory_order_relaxed) != 0) continue;
        s.flag.store(flag, std::memory_order_release);
        s.base.store(reinterpret_cast<std::uintptr_t>(base), std::memory_order_release);
        s.size.store(size, std::memory_order_release);
        return i;
    }
    throw std::runtime_error("more than 4096 tables open at once");
}

void unregister_mapping(int handle) {
    if (handle < 0 || handle >= kSlots) return;
    std::lock_guard lock(g_mutex);
    Slot& s = g_slots[handle];
    s.size.store(0, std::memory_order_release);
    s.base.store(0, std::memory_order_release);
    s.flag.store(nullptr, std::memory_order_release);
}

}  // namespace konane::format::detail
