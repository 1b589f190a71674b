#include "solver/spill.hpp"

#include "format/cleanup.hpp"

#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>

namespace konane::solver {

namespace {
constexpr std::size_t kChunk = std::size_t{1} << 20;

struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

[[noreturn]] void fail(const std::filesystem::path& p, const char* what) {
    throw std::runtime_error("spill file " + p.string() + ": " + what + ": " +
                             std::strerror(errno));
}
}  // namespace

KeySpill::KeySpill(std::filesystem::path dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw std::runtime_error("spill directory " + dir.string() + ": " + ec.message());
    // A directory of our own inside it, so that nothing of the user's is ever removed.
    for (unsigned i = 0;; ++i) {
        dir_ = dir / ("konane-spill-" + std::to_string(::getpid()) + "-" + std::to_string(i));
        if (std::filesystem::create_directory(dir_, ec)) {
            dir_handle_ = format::register_temporary(dir_, true);
            break;
        }
        if (ec || i > 1000) {
            throw std::runtime_error("spill directory " + dir_.string() + ": " +
                                     (ec ? ec.message() : std::string("cannot create")));
        }
    }
}

KeySpill::~KeySpill() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    for (const auto& [pieces, handle] : handles_)
        format::unregister_temporary(handle);
    format::unregister_temporary(dir_handle_);
}

void KeySpill::put(int pieces, std::vector<std::uint64_t>& keys) {
    const auto path = dir_ / ("layer-" + std::to_string(pieces) + ".keys");
    File f(std::fopen(path.c_str(), "wb"));
    if (!f) fail(path, "create");
    handles_[pieces] = format::register_temporary(path);
    std::vector<std::uint64_t> delta;
    std::vector<char> out;
    std::uint64_t prev = 0, written = 0;
    for (std::size_t at = 0; at < keys.size(); at += kChunk) {
        const std::size_t n = std::min(kChunk, keys.size() - at);
        delta.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            delta[i] = keys[at + i] - prev;
            prev = keys[at + i];
        }
        out.resize(ZSTD_compressBound(n * 8));
        const std::size_t c = ZSTD_compress(out.data(), out.size(), delta.data(), n * 8, 1);
        if (ZSTD_isError(c))
            throw std::runtime_error("spill: zstd: " + std::string(ZSTD_getErrorName(c)));
        const std::uint64_t head[2] = {n, c};
        if (std::fwrite(head, 8, 2, f.get()) != 2 || std::fwrite(out.data(), 1, c, f.get()) != c) {
            const int e = errno;
            f.reset();
            std::filesystem::remove(path);
            errno = e;
            fail(path, "write");
        }
        written += 16 + c;
    }
    if (std::fflush(f.get()) != 0) {
        std::filesystem::remove(path);
        fail(path, "write");
    }
    sizes_[pieces] = keys.size();
    bytes_ += written;
    peak_ = std::max(peak_, bytes_);
    keys = {};
}

std::vector<std::uint64_t> KeySpill::take(int pieces) {
    const auto path = dir_ / ("layer-" + std::to_string(pieces) + ".keys");
    const auto it = sizes_.find(pieces);
    if (it == sizes_.end())
        throw std::runtime_error("spill: layer " + std::to_string(pieces) + " was not stored");
    File f(std::fopen(path.c_str(), "rb"));
    if (!f) fail(path, "open");
    std::vector<std::uint64_t> keys;
    keys.reserve(it->second);
    std::vector<char> in;
    std::uint64_t prev = 0;
    while (keys.size() < it->second) {
        std::uint64_t head[2];
        if (std::fread(head, 8, 2, f.get()) != 2 || head[0] == 0 || head[0] > kChunk ||
            head[1] > ZSTD_compressBound(head[0] * 8)) {
            throw std::runtime_error("spill file " + path.string() + ": truncated or damaged");
        }
        in.resize(head[1]);
        if (std::fread(in.data(), 1, head[1], f.get()) != head[1]) {
            throw std::runtime_error("spill file " + path.string() + ": truncated");
        }
        const std::size_t at = keys.size();
        keys.resize(at + head[0]);
        const std::size_t d = ZSTD_decompress(keys.data() + at, head[0] * 8, in.data(), in.size());
        if (ZSTD_isError(d) || d != head[0] * 8) {
            throw std::runtime_error("spill file " + path.string() + ": damaged chunk");
        }
        for (std::size_t i = at; i < keys.size(); ++i)
            prev = keys[i] += prev;
    }
    f.reset();
    std::error_code ec;
    bytes_ -= std::min<std::uint64_t>(bytes_, std::filesystem::file_size(path, ec));
    std::filesystem::remove(path, ec);
    sizes_.erase(it);
    format::unregister_temporary(handles_[pieces]);
    handles_.erase(pieces);
    return keys;
}

}  // namespace konane::solver
