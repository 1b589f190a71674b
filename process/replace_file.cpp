#include "process/replace_file.hpp"

#include <xxhash.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "process/atomic_file.hpp"
#include "process/resource_error.hpp"

namespace konane::process {

namespace {

struct XXH64Deleter {
    void operator()(XXH64_state_t* s) const { XXH64_freeState(s); }
};

}  // namespace

void replace_file(const std::filesystem::path& path, std::initializer_list<std::string_view> parts,
                  const ReplaceOptions& options) {
    std::unique_ptr<XXH64_state_t, XXH64Deleter> st(options.xxh64_trailer ? XXH64_createState()
                                                                          : nullptr);
    if (options.xxh64_trailer && !st) throw std::bad_alloc();
    if (st) XXH64_reset(st.get(), 0);
    std::unique_ptr<AtomicFile> file;
    try {
        file = std::make_unique<AtomicFile>(path);
    } catch (const AtomicFileError& e) {
        throw std::runtime_error(path.string() + ": cannot create " + e.temporary.string() + ": " +
                                 std::strerror(e.error));
    }
    try {
        for (std::string_view p : parts) {
            if (st) XXH64_update(st.get(), p.data(), p.size());
            file->write(p.data(), p.size());
        }
        if (st) {
            const std::uint64_t sum = XXH64_digest(st.get());
            char trailer[8];
            for (int i = 0; i < 8; ++i)
                trailer[i] = static_cast<char>(sum >> (8 * i));
            file->write(trailer, 8);
        }
        file->commit();
    } catch (const AtomicFileError& e) {
        if (e.step == "write" || e.step == "fsync" || e.step == "close") {
            const std::string what = path.string() + ": writing " + e.temporary.string() +
                                     " failed: " + std::strerror(e.error);
            if (e.error == ENOSPC || e.error == EDQUOT) throw ResourceError(what);
            throw std::runtime_error(what);
        }
        if (e.step == "rename") {
            throw std::runtime_error(path.string() + ": cannot rename " + e.temporary.string() +
                                     " into place: " + std::strerror(e.error));
        }
        throw std::runtime_error(e.what());  // "replace", "fsync directory": as AtomicFile says
    }
}

}  // namespace konane::process
