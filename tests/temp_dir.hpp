// A temporary folder for a test, removed with everything in it when the test is done.
#pragma once

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <system_error>

namespace konane::test {

/// A new empty folder `BASE/NAME-PID-N` (N counts the folders this process made), removed with
/// its content by the destructor.
struct TempDir {
    std::filesystem::path path;
    explicit TempDir(const std::string& name,
                     const std::filesystem::path& base = std::filesystem::temp_directory_path()) {
        static std::atomic<unsigned> made{0};
        path = base / (name + "-" + std::to_string(::getpid()) + "-" + std::to_string(made++));
        std::filesystem::remove_all(path);
        std::filesystem::create_directories(path);
    }
    /// The path of `name` in the folder.
    std::filesystem::path operator/(const std::string& name) const { return path / name; }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
};

}  // namespace konane::test
