#include "process/cleanup.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

#include "process/utf8_cut.hpp"

namespace konane::process {

namespace {
constexpr int kSlots = 256;
constexpr std::size_t kPathMax = 4096;
constexpr std::size_t kNameMax = 255;
constexpr std::size_t kSuffixHex = 16;

// 0 free, 1 being written, 2 a file, 3 a directory. The handler reads paths only in state 2/3.
std::atomic<int> g_state[kSlots];
char g_path[kSlots][kPathMax];
std::atomic<bool> g_installed{false};

// Async-signal-safe: unlink(), rmdir() only.
void remove_registered() {
    for (int pass = 2; pass <= 3; ++pass) {
        for (int i = 0; i < kSlots; ++i) {
            if (g_state[i].load(std::memory_order_acquire) != pass) continue;
            if (pass == 2)
                ::unlink(g_path[i]);
            else
                ::rmdir(g_path[i]);
        }
    }
}

// The interruption message: written before its length is published, read only by the
// handler (write(2) is async-signal-safe).
char g_message[1024];
std::atomic<std::size_t> g_message_len{0};

extern "C" void on_interrupt(int sig) {
    remove_registered();
    const std::size_t n = g_message_len.load(std::memory_order_acquire);
    if (n > 0 && sig != SIGPIPE) {
        const ssize_t w = ::write(STDERR_FILENO, g_message, n);
        (void)w;
    }
    ::signal(sig, SIG_DFL);
    ::raise(sig);
}

extern "C" void on_exit_cleanup() {
    remove_registered();
}

// Catchable signals whose default action ends the process (signal(7)).
constexpr int kSignals[] = {
    SIGINT,    SIGTERM, SIGHUP,  SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM,
    SIGVTALRM, SIGPROF, SIGPIPE, SIGXCPU, SIGIO,   SIGPWR,
#ifdef SIGSTKFLT
    SIGSTKFLT,
#endif
};
}  // namespace

void set_interrupt_message(std::string_view message) {
    g_message_len.store(0, std::memory_order_release);
    const std::size_t n = std::min(message.size(), sizeof g_message - 1);
    std::memcpy(g_message, message.data(), n);
    g_message_len.store(n, std::memory_order_release);
}

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
    for (int sig : kSignals) {
        struct sigaction old {};
        if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        ::sigaction(sig, &sa, nullptr);
    }
    ::signal(SIGXFSZ, SIG_IGN);
    std::atexit(on_exit_cleanup);
}

namespace {
// The file name of final_path cut so that "<name>.tmp.<16 hex>" fits NAME_MAX.
std::string temporary_stem(const std::filesystem::path& final_path) {
    std::string name = final_path.filename().string();
    const std::size_t room = kNameMax - 5 - kSuffixHex;  // ".tmp." and the suffix
    cut_utf8(name, room);
    return name + ".tmp.";
}
}  // namespace

std::filesystem::path temporary_path(const std::filesystem::path& final_path,
                                     const std::string& suffix) {
    return final_path.parent_path() / (temporary_stem(final_path) + suffix);
}

namespace {
// Removes the files of `dir` whose name `ours` accepts and that no process holds locked. Each
// file is opened and removed relative to the directory opened once, never through a link at its
// own name; with `follow_dir` false, a link at `dir` itself is not followed either (nothing is
// removed).
template <class Ours>
std::vector<std::filesystem::path> remove_unlocked(const std::filesystem::path& dir,
                                                   const Ours& ours, bool follow_dir) {
    namespace fs = std::filesystem;
    std::vector<fs::path> removed;
    const fs::path at = dir.empty() ? fs::path(".") : dir;
    const int dfd =
        ::open(at.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | (follow_dir ? 0 : O_NOFOLLOW));
    if (dfd < 0) return removed;
    DIR* d = ::fdopendir(dfd);
    if (d == nullptr) {
        ::close(dfd);
        return removed;
    }
    while (const dirent* e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (!ours(name)) continue;
        const int fd = ::openat(dfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0) continue;
        struct stat st {};
        // A live writer holds its lock: only a file nobody holds is stale.
        if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ::flock(fd, LOCK_EX | LOCK_NB) == 0 &&
            ::unlinkat(dfd, name.c_str(), 0) == 0) {
            removed.push_back(dir / name);
        }
        ::close(fd);
    }
    ::closedir(d);
    return removed;
}

// Whether `name` ends in ".tmp." and 16 hex digits after at least `stem` bytes.
bool hex_suffix_at(const std::string& name, std::size_t at) {
    return name.size() == at + kSuffixHex &&
           name.find_first_not_of("0123456789abcdef", at) == std::string::npos;
}
}  // namespace

std::vector<std::filesystem::path> remove_stale_temporaries(
    const std::filesystem::path& final_path) {
    const std::string stem = temporary_stem(final_path);
    return remove_unlocked(
        final_path.parent_path(),
        [&](const std::string& name) {
            return name.compare(0, stem.size(), stem) == 0 && hex_suffix_at(name, stem.size());
        },
        true);
}

std::vector<std::filesystem::path> remove_stale_temporaries_in(const std::filesystem::path& dir) {
    return remove_unlocked(
        dir,
        [](const std::string& name) {
            const std::size_t at = name.size() >= kSuffixHex + 5 ? name.size() - kSuffixHex - 5 : 0;
            return name.size() > kSuffixHex + 5 && name.compare(at, 5, ".tmp.") == 0 &&
                   hex_suffix_at(name, at + 5);
        },
        false);
}

}  // namespace konane::process
