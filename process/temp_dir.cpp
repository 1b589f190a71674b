#include "process/temp_dir.hpp"

#include <unistd.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <system_error>

#include "process/cleanup.hpp"

namespace konane::process {

TempDir::TempDir(const char* prefix) {
    std::error_code ec;
    const auto base = std::filesystem::temp_directory_path(ec);
    if (ec) throw std::runtime_error("temporary directory: " + ec.message());
    static std::atomic<unsigned> counter{0};
    for (int tries = 0;; ++tries) {
        path_ = base / (std::string(prefix) + "-" + std::to_string(::getpid()) + "-" +
                        std::to_string(counter++));
        if (std::filesystem::create_directory(path_, ec)) break;
        if (ec || tries > 1000) {
            throw std::runtime_error("temporary directory " + path_.string() + ": " +
                                     (ec ? ec.message() : std::string("cannot create")));
        }
    }
    handle_ = register_temporary(path_, true);
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
    unregister_temporary(handle_);
}

}  // namespace konane::process
