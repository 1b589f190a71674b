#include "process/output_path.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace konane::process {

std::string non_regular_kind(const std::filesystem::path& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return "";  // nothing there (or nothing we can see)
    if (S_ISREG(st.st_mode)) return "";
    if (S_ISDIR(st.st_mode)) return "a directory";
    if (S_ISLNK(st.st_mode)) return "a symbolic link";
    if (S_ISFIFO(st.st_mode)) return "a named pipe";
    if (S_ISCHR(st.st_mode)) return "a character device";
    if (S_ISBLK(st.st_mode)) return "a block device";
    if (S_ISSOCK(st.st_mode)) return "a socket";
    return "not a regular file";
}

void check_creatable(const std::filesystem::path& dir, const std::string& what) {
    const auto probe = dir / (".konane-write-check-" + std::to_string(::getpid()));
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        throw OutputDirectoryError(what + ": cannot create files in " + dir.string() + " (" +
                                   std::strerror(errno) + ")");
    }
    ::close(fd);
    ::unlink(probe.c_str());
}

void check_output_path(const std::filesystem::path& path, const std::string& what) {
    namespace fs = std::filesystem;
    // As the writers will (lstat): a link, even to a regular file or to nothing, would be
    // replaced by the file, and a device or a pipe would be replaced too.
    const std::string kind = non_regular_kind(path);
    if (!kind.empty()) {
        throw std::invalid_argument(what + ": exists and is not a regular file (" + kind +
                                    (kind == "a symbolic link" ? ": it would be replaced" : "") +
                                    ")");
    }
    const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        throw OutputDirectoryError(what + ": " + dir.string() + ": no such directory");
    }
    check_creatable(dir, what);
}

}  // namespace konane::process
