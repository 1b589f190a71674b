#include "solver/keyfile.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>

#include <omp.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "process/atomic_file.hpp"

namespace konane::solver {

namespace {

constexpr char kMagic[8] = {'K', 'N', 'K', 'E', 'Y', 'S', '0', '1'};
constexpr char kWordMagic[8] = {'K', 'N', 'W', 'O', 'R', 'D', '0', '1'};

[[noreturn]] void fail(const std::filesystem::path& p, const std::string& what) {
    throw KeyFileError("work file " + p.string() + ": " + what);
}
[[noreturn]] void fail_errno(const std::filesystem::path& p, const char* what) {
    fail(p, std::string(what) + ": " + std::strerror(errno));
}

std::uint64_t chunk_hash(const char* data, std::size_t n, std::uint32_t words) {
    return XXH3_64bits_withSeed(data, n, words);
}

}  // namespace

KeyFileWriter::KeyFileWriter(std::filesystem::path path, int threads, bool delta)
    : path_(std::move(path)), threads_(std::max(1, threads)), delta_(delta) {
    try {
        file_ = std::make_unique<process::AtomicFile>(path_);
    } catch (const process::AtomicFileError& e) {
        fail(e.temporary, "create: " + std::string(std::strerror(e.error)));
    }
    const std::uint64_t zero = 0;
    write(delta_ ? kMagic : kWordMagic, 8);
    write(&zero, 8);
    bytes_ = 16;
}

KeyFileWriter::~KeyFileWriter() = default;  // the AtomicFile removes the temporary unless finished

// Writes through the AtomicFile: a failure is a KeyFileError naming the temporary file.
void KeyFileWriter::write(const void* data, std::size_t n) {
    try {
        file_->write(data, n);
    } catch (const process::AtomicFileError& e) {
        fail(e.temporary, e.step + ": " + std::strerror(e.error));
    }
}

void KeyFileWriter::append(std::span<const std::uint64_t> words) {
    std::size_t at = 0;
    while (at < words.size()) {
        const std::size_t room = kKeyChunkWords * 4 - buf_.size();
        const std::size_t n = std::min(room, words.size() - at);
        buf_.insert(buf_.end(), words.begin() + static_cast<std::ptrdiff_t>(at),
                    words.begin() + static_cast<std::ptrdiff_t>(at + n));
        at += n;
        if (buf_.size() == kKeyChunkWords * 4) flush(false);
    }
}

// Compresses the buffered words in chunks (in parallel), writes them in order. With all ==
// false only whole chunks are written and the rest stays buffered.
void KeyFileWriter::flush(bool all) {
    const std::size_t chunks =
        all ? (buf_.size() + kKeyChunkWords - 1) / kKeyChunkWords : buf_.size() / kKeyChunkWords;
    if (chunks == 0) return;
    // Delta-code in place (sequential: each delta needs the previous word).
    const std::size_t used = std::min(buf_.size(), chunks * kKeyChunkWords);
    std::vector<std::uint64_t> delta(used);
    for (std::size_t i = 0; i < used; ++i) {
        delta[i] = buf_[i] - prev_;
        if (delta_) prev_ = buf_[i];
    }
    std::vector<std::vector<char>> out(chunks);
    bool bad = false;
#pragma omp parallel for num_threads(threads_) if (chunks > 1) schedule(dynamic, 1)
    for (std::int64_t c = 0; c < static_cast<std::int64_t>(chunks); ++c) {
        const std::size_t lo = static_cast<std::size_t>(c) * kKeyChunkWords;
        const std::size_t n = std::min(kKeyChunkWords, used - lo);
        auto& o = out[static_cast<std::size_t>(c)];
        o.resize(16 + ZSTD_compressBound(n * 8));
        const std::size_t z =
            ZSTD_compress(o.data() + 16, o.size() - 16, delta.data() + lo, n * 8, 1);
        if (ZSTD_isError(z)) {
#pragma omp critical(konane_keyfile_bad)
            bad = true;
            continue;
        }
        const std::uint32_t head[2] = {static_cast<std::uint32_t>(n),
                                       static_cast<std::uint32_t>(z)};
        const std::uint64_t h = chunk_hash(o.data() + 16, z, head[0]);
        std::memcpy(o.data(), head, 8);
        std::memcpy(o.data() + 8, &h, 8);
        o.resize(16 + z);
    }
    if (bad) fail(file_->temporary(), "zstd compression failed");
    for (const auto& o : out) {
        write(o.data(), o.size());
        bytes_ += o.size();
    }
    words_ += used;
    buf_.erase(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(used));
}

std::uint64_t KeyFileWriter::finish() {
    flush(true);
    if (::pwrite(file_->fd(), &words_, 8, 8) != 8) fail_errno(file_->temporary(), "write");
    try {
        file_->commit();
    } catch (const process::AtomicFileError& e) {
        if (e.step == "fsync directory") fail(path_, e.step + ": " + std::strerror(e.error));
        if (e.step == "rename" || e.step == "replace")
            fail(path_, e.step == "rename" ? "rename: " + std::string(std::strerror(e.error))
                                           : std::string(e.what()));
        fail(e.temporary, e.step + ": " + std::strerror(e.error));
    }
    return bytes_;
}

KeyFileReader::KeyFileReader(std::filesystem::path path) : path_(std::move(path)) {
    f_ = std::fopen(path_.c_str(), "rb");
    if (!f_) fail_errno(path_, "open");
    char magic[8];
    const bool ok = std::fread(magic, 1, 8, f_) == 8;
    delta_ = ok && std::memcmp(magic, kMagic, 8) == 0;
    if (!ok || (!delta_ && std::memcmp(magic, kWordMagic, 8) != 0) ||
        std::fread(&words_, 8, 1, f_) != 1) {
        fail(path_, "not a key file (bad header)");
    }
    // Every chunk of at most kKeyChunkWords words takes at least 16 + 9 bytes (header, zstd).
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(path_, ec);
    if (ec || words_ / kKeyChunkWords > (bytes - 16) / 25)
        fail(path_, "damaged header: " + std::to_string(words_) + " words in " +
                        std::to_string(ec ? 0 : bytes) + " bytes");
}

KeyFileReader::~KeyFileReader() {
    if (f_) std::fclose(f_);
}

bool KeyFileReader::next(std::vector<std::uint64_t>& out) {
    out.clear();
    if (read_ == words_) {
        if (std::fgetc(f_) != EOF) fail(path_, "damaged: data after the last chunk");
        return false;
    }
    std::uint32_t head[2];
    std::uint64_t h;
    if (std::fread(head, 4, 2, f_) != 2 || std::fread(&h, 8, 1, f_) != 1)
        fail(path_, "truncated: " + std::to_string(words_ - read_) + " words missing");
    if (head[0] == 0 || head[0] > kKeyChunkWords || head[0] > words_ - read_ ||
        head[1] > ZSTD_compressBound(std::size_t{head[0]} * 8)) {
        fail(path_, "damaged chunk header at word " + std::to_string(read_));
    }
    in_.resize(head[1]);
    if (std::fread(in_.data(), 1, head[1], f_) != head[1])
        fail(path_, "truncated chunk at word " + std::to_string(read_));
    if (chunk_hash(in_.data(), head[1], head[0]) != h)
        fail(path_, "checksum mismatch in the chunk at word " + std::to_string(read_));
    out.resize(head[0]);
    const std::size_t d = ZSTD_decompress(out.data(), out.size() * 8, in_.data(), in_.size());
    if (ZSTD_isError(d) || d != out.size() * 8)
        fail(path_, "damaged chunk at word " + std::to_string(read_));
    if (delta_) {
        for (auto& w : out)
            prev_ = w += prev_;
    }
    read_ += head[0];
    return true;
}

std::vector<std::uint64_t> read_key_file(const std::filesystem::path& path) {
    KeyFileReader r(path);
    std::vector<std::uint64_t> all, chunk;
    all.reserve(r.words());
    while (r.next(chunk))
        all.insert(all.end(), chunk.begin(), chunk.end());
    return all;
}

std::uint64_t write_key_file(const std::filesystem::path& path,
                             std::span<const std::uint64_t> words, int threads, bool delta) {
    KeyFileWriter w(path, threads, delta);
    w.append(words);
    return w.finish();
}

void write_byte_file(const std::filesystem::path& path, std::span<const std::uint8_t> bytes,
                     int threads) {
    std::vector<std::uint64_t> words((bytes.size() + 7) / 8, 0);
    if (!bytes.empty()) std::memcpy(words.data(), bytes.data(), bytes.size());
    write_key_file(path, words, threads, false);
}

std::vector<std::uint8_t> read_byte_file(const std::filesystem::path& path, std::size_t length) {
    const auto words = read_key_file(path);
    // Exactly the words write_byte_file() wrote for `length` bytes, the padding zero: a file
    // of another layer (or one cut or extended consistently) is not taken for this one.
    if (words.size() != (length + 7) / 8) {
        throw KeyFileError("work file " + path.string() + ": holds " +
                           std::to_string(words.size() * 8) + " bytes, " + std::to_string(length) +
                           " expected");
    }
    std::vector<std::uint8_t> out(length);
    if (length) std::memcpy(out.data(), words.data(), length);
    if (length % 8 != 0 && (words.back() >> (8 * (length % 8))) != 0)
        throw KeyFileError("work file " + path.string() + ": damaged: padding bytes are not zero");
    return out;
}

}  // namespace konane::solver
