#include "solver/preflight.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>

#include "format/table.hpp"
#include "process/cleanup.hpp"
#include "process/output_path.hpp"
#include "process/resource_error.hpp"
#include "solver/distributed.hpp"
#include "solver/estimate.hpp"
#include "solver/workdir.hpp"

namespace konane::solver {

namespace {

std::string mib(std::uint64_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / 1048576.0);
    return buf;
}

// Paths go into the messages as they are: the command makes a message printable when it
// prints it (cli safe_message), the Python module keeps the bytes.

// process::check_creatable(), its refusal a format::IoError (konane.IoError in Python).
void check_creatable(const std::filesystem::path& dir, const std::string& what) {
    try {
        process::check_creatable(dir, what);
    } catch (const process::OutputDirectoryError& e) {
        throw format::IoError(e.what());
    }
}

}  // namespace

void check_output_file(const std::filesystem::path& output, const std::string& what) {
    try {
        process::check_output_path(output, what);
    } catch (const process::OutputDirectoryError& e) {
        throw format::IoError(e.what());
    }
}

// Throws unless `work` can serve as a work directory: std::invalid_argument when it exists and
// is not a directory, format::IoError when it (or, when missing, the directory it would be
// created in) does not take new files.
void check_work_dir(const std::filesystem::path& work) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const std::string what = "--work " + work.string();
    if (fs::exists(work, ec) && !fs::is_directory(work, ec)) {
        throw std::invalid_argument(what + ": exists and is not a directory");
    }
    const fs::path base = existing_parent(work);
    if (!fs::is_directory(base, ec)) {
        throw std::invalid_argument(what + ": " + base.string() + " is not a directory");
    }
    check_creatable(base, what);
}

// Starts and joins `threads` - 1 threads, so that a machine that cannot give them is refused
// before any work, with a message, instead of the OpenMP runtime ending the process later.
void check_threads(int threads) {
    const unsigned n = threads > 0 ? static_cast<unsigned>(threads)
                                   : std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> pool;
    try {
        for (unsigned i = 1; i < n; ++i)
            pool.emplace_back([] {});
    } catch (const std::system_error& e) {
        for (auto& t : pool)
            t.join();
        throw std::system_error(e.code(), "cannot start " + std::to_string(n) + " threads");
    }
    for (auto& t : pool)
        t.join();
}

void check_memory_budget(std::uint64_t budget, std::uint64_t process_bytes) {
    const std::uint64_t least = least_memory_budget(process_bytes);
    if (budget >= least) return;
    throw ResourceError("memory budget of " + std::to_string(budget) + " bytes (" + mib(budget) +
                        ") is less than any run takes: the process holds " + mib(process_bytes) +
                        " before any work and the enumeration needs " + mib(kEnumerateLeastBytes) +
                        " more; give at least " + std::to_string((least >> 20) + 1) +
                        "M (--memory)");
}

Preflight preflight_generate(const GenerateOptions& o, int max_squares) {
    const int limit = std::max(max_squares, kMaxGenerateSquares);
    if (o.board.squares() > limit && o.board.squares() <= kMaxDistributedSquares) {
        const std::string name = o.board.name();
        throw std::invalid_argument(
            "board " + name + " has " + std::to_string(o.board.squares()) +
            " squares: one process generates tables of at most " +
            std::to_string(kMaxGenerateSquares) + "; " + estimate_text(o.board) +
            "; use the MPI generator on a cluster: mpirun -np N konane generate " + name +
            " (an MPI build, docs/distributed.md; `konane generate " + name +
            " --estimate --ranks N` sizes it)");
    }
    require_generatable(o.board, limit);
    Preflight p;
    std::filesystem::path work = o.work_dir;
    if (!o.output.empty()) {
        check_output_file(o.output, o.output.string());
        if (work.empty()) work = default_work_dir(o.output);
    }
    if (!work.empty()) check_work_dir(work);
    check_threads(o.threads);
    if (!o.output.empty()) p.removed_temporaries = process::remove_stale_temporaries(o.output);
    std::error_code ec;
    const auto where = work.empty() ? std::filesystem::temp_directory_path(ec) : work;
    if (!ec) {
        const auto space = std::filesystem::space(existing_parent(where), ec);
        if (!ec) p.work_free_bytes = space.available;
    }
    if (p.work_free_bytes < kMinGenerateDisk) {
        throw ResourceError("work directory " + where.string() + ": only " +
                            mib(p.work_free_bytes) +
                            " free on its file system (a generation starts with at least " +
                            mib(kMinGenerateDisk) + ")");
    }
    return p;
}

}  // namespace konane::solver
