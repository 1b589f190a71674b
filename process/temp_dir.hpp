// A temporary directory that removes itself, also when a signal ends the process.
#pragma once

#include <filesystem>

namespace konane::process {

/// A fresh directory for temporary work under the system's temporary directory
/// ($TMPDIR or /tmp), removed with its contents on destruction and on SIGINT/SIGTERM/SIGHUP
/// (registered with register_temporary(), cleanup.hpp).
class TempDir {
  public:
    /// Creates "<prefix>-<pid>-<counter>". Throws std::runtime_error when it cannot be created.
    explicit TempDir(const char* prefix = "konane");
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return path_; }

  private:
    std::filesystem::path path_;
    int handle_ = -1;
};

}  // namespace konane::process
