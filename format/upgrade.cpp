#include "format/upgrade.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "format/cleanup.hpp"
#include "format/detail.hpp"
#include "format/xxh.hpp"

namespace konane::format {

namespace {

using namespace detail;

// Version 2's trailer (FORMAT.md §13): 112 bytes; the fields up to cs2_xxh where version 3 has
// them, then the whole-file XXH3-128 at 88 and the trailer's checksum at 104.
constexpr std::size_t kV2Trailer = 112, kV2FileXxh = 88, kV2Checksum = 104;
constexpr std::size_t kBuffer = std::size_t{4} << 20;

struct Fd {
    int fd = -1;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

struct Xxh128 {
    XXH3_state_t* s = XXH3_createState();
    Xxh128() { XXH3_128bits_reset(s); }
    ~Xxh128() { XXH3_freeState(s); }
    void add(const std::uint8_t* p, std::size_t n) { XXH3_128bits_update(s, p, n); }
    XXH128_hash_t done() const { return XXH3_128bits_digest(s); }
};

}  // namespace

std::uint64_t upgrade_v2_table(const std::filesystem::path& input,
                               const std::filesystem::path& output) {
    const std::string in_name = input.string();
    auto bad = [&](const std::string& what) -> FormatError {
        return FormatError(in_name + ": " + what);
    };
    Fd in;
    in.fd = ::open(input.c_str(), O_RDONLY | O_CLOEXEC);
    if (in.fd < 0) throw IoError(in_name + ": open: " + std::strerror(errno));
    struct stat st {};
    if (::fstat(in.fd, &st) != 0 || !S_ISREG(st.st_mode)) throw bad("not a regular file");
    const auto size = static_cast<std::uint64_t>(st.st_size);
    auto read_at = [&](std::uint8_t* p, std::size_t n, std::uint64_t off) {
        while (n > 0) {
            const ssize_t r = ::pread(in.fd, p, n, static_cast<off_t>(off));
            if (r < 0 && errno == EINTR) continue;
            if (r < 0) throw IoError(in_name + ": read: " + std::strerror(errno));
            if (r == 0) throw bad("file: changed while read (shorter than it was)");
            p += r, off += static_cast<std::uint64_t>(r), n -= static_cast<std::size_t>(r);
        }
    };
    if (size < kHeaderSize + kV2Trailer) throw bad("file: too short for a table");
    std::uint8_t h[kHeaderSize];
    read_at(h, kHeaderSize, 0);
    if (std::memcmp(h + hdr::magic, kMagic, 8) != 0) throw bad("header: not a konane table");
    const std::uint32_t version = le32(h + hdr::version);
    if (version == kFormatVersion) throw bad("header: already format version 3");
    if (version != 2) {
        throw bad("header: format version " + std::to_string(version) +
                  ": only version 2 can be upgraded (regenerate the table)");
    }
    if (le64(h + hdr::checksum) != xxh3_64(h, hdr::checksum))
        throw bad("header: checksum mismatch");
    std::uint8_t t2[kV2Trailer];
    read_at(t2, kV2Trailer, size - kV2Trailer);
    if (std::memcmp(t2 + trl::magic, kTrailerMagic, 8) != 0) throw bad("trailer: bad magic");
    if (le64(t2 + kV2Checksum) != xxh3_64(t2, kV2Checksum)) throw bad("trailer: checksum mismatch");
    if (le64(t2 + trl::file_size) != size)
        throw bad("trailer: declared size differs from the file's");
    const std::uint64_t lt_off = le64(t2 + trl::lt_offset), lt_size = le64(t2 + trl::lt_size);
    if (lt_off > size - kV2Trailer || size - kV2Trailer - lt_off != lt_size)
        throw bad("trailer: layer table not just before the trailer");

    // The new header: version 3, its checksum again (the old one is hashed as it was).
    std::uint8_t old_h[kHeaderSize];
    std::memcpy(old_h, h, kHeaderSize);
    put32(h + hdr::version, kFormatVersion);
    put64(h + hdr::checksum, xxh3_64(h, hdr::checksum));
    // The new trailer: version 2's fields up to cs2_xxh, the file 8 bytes longer (the layer
    // table stays where it is: it ends 120 bytes before the new end), the header's checksum.
    std::uint8_t t3[kTrailerSize] = {};
    std::memcpy(t3, t2, trl::header_xxh);
    const std::uint64_t new_size = size + (kTrailerSize - kV2Trailer);
    put64(t3 + trl::file_size, new_size);
    put64(t3 + trl::header_xxh, le64(h + hdr::checksum));

    // Output: a temporary name beside it, removed on any failure or signal.
    const std::filesystem::path tmp = temporary_path(output, random_suffix());
    const int handle = register_temporary(tmp);
    Fd out;
    out.fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (out.fd < 0) {
        const int err = errno;
        unregister_temporary(handle);
        throw IoError(output.string() + ": create " + tmp.string() + ": " + std::strerror(err));
    }
    struct Remove {
        const std::filesystem::path& p;
        int handle;
        bool keep = false;
        ~Remove() {
            if (!keep) ::unlink(p.c_str());
            unregister_temporary(handle);
        }
    } remove{tmp, handle};
    auto write_all = [&](const std::uint8_t* p, std::size_t n) {
        while (n > 0) {
            const ssize_t w = ::write(out.fd, p, n);
            if (w < 0 && errno == EINTR) continue;
            if (w < 0) {
                throw IoError(output.string() + ": write " + tmp.string() + ": " +
                              std::strerror(errno) + " (temporary file removed)");
            }
            p += w, n -= static_cast<std::size_t>(w);
        }
    };

    // Stream: the old file's hash over its bytes [0, size - 24) checks it; the new one's over
    // [0, new_size - 24) is written at its end.
    Xxh128 old_hash, new_hash;
    old_hash.add(old_h, kHeaderSize);
    new_hash.add(h, kHeaderSize);
    write_all(h, kHeaderSize);
    std::vector<std::uint8_t> buf(kBuffer);
    const std::uint64_t body_end = size - kV2Trailer;
    for (std::uint64_t off = kHeaderSize; off < body_end;) {
        const std::size_t n =
            static_cast<std::size_t>(std::min<std::uint64_t>(kBuffer, body_end - off));
        read_at(buf.data(), n, off);
        old_hash.add(buf.data(), n);
        new_hash.add(buf.data(), n);
        write_all(buf.data(), n);
        off += n;
    }
    old_hash.add(t2, kV2FileXxh);
    const XXH128_hash_t was = old_hash.done();
    if (was.low64 != le64(t2 + kV2FileXxh) || was.high64 != le64(t2 + kV2FileXxh + 8))
        throw bad("file: whole-file checksum mismatch: the table is damaged");
    new_hash.add(t3, trl::file_xxh128_lo);
    const XXH128_hash_t now = new_hash.done();
    put64(t3 + trl::file_xxh128_lo, now.low64);
    put64(t3 + trl::file_xxh128_hi, now.high64);
    put64(t3 + trl::checksum, xxh3_64(t3, trl::checksum));
    write_all(t3, kTrailerSize);
    if (::fsync(out.fd) != 0)
        throw IoError(output.string() + ": fsync " + tmp.string() + ": " + std::strerror(errno));
    if (::rename(tmp.c_str(), output.c_str()) != 0)
        throw IoError(output.string() + ": rename: " + std::strerror(errno));
    remove.keep = true;
    return new_size;
}

}  // namespace konane::format
