// Reading a file that a run wrote earlier (a work directory's checkpoint, say) and that anything
// may have replaced since: only a regular file of bounded size is read. A checksummed file
// (replace_file.hpp's trailer: a text header up to an "end" line, a body, the XXH64 of every byte
// before it) is read header first, so that its sizes are checked against the header before the
// body is read: a file of terabytes behind a valid first line is refused without reading it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace konane::process {

/// Whether a symbolic link at the file's own name is followed or refused (a work directory's
/// own files: a link there would read or write where the run was not told to).
enum class Links { Follow, Refuse };

/// The bytes of `path`, which must be a regular file (a link to one is followed unless `links`
/// is Links::Refuse) of at most `max_bytes` bytes. Checked before anything is read, so that a
/// link to a device such as /dev/zero is not read without end, a named pipe does not block, and
/// a directory gets a message rather than a stream error. `advice` ends the message of a file
/// too large (what to do about it; may be empty).
/// @throws std::runtime_error "<path>: cannot open: <reason>", "<path>: a symbolic link (not
///         followed here: replace it by the file itself)", "<path>: not a regular file (a
///         directory|a named pipe|a character device|...)", "<path>: N bytes, more than the M
///         it can hold[; advice]", "<path>: grew while it was read" or "<path>: reading:
///         <reason>"
std::string read_regular_file(const std::filesystem::path& path, std::uint64_t max_bytes,
                              const std::string& advice = "", Links links = Links::Follow);

/// Whether the last 8 bytes of a `size`-byte file are the XXH64 (seed 0, little-endian) of the
/// bytes before them; `read(offset, n, out)` gives the file's bytes, asked for in pieces of at
/// most 1 MiB (so that a large file is never held whole). False for a file under 8 bytes.
/// Throws what `read` throws.
bool checksum_matches(std::uint64_t size,
                      const std::function<void(std::uint64_t, std::size_t, char*)>& read);

/// A checksummed file open for reading (replace_file()'s ReplaceOptions::with_trailer(),
/// certificates): its header read and checked first, then, against it, its size, then its
/// checksum and body. Move-only; closes the file when destroyed.
class ChecksummedFile {
  public:
    /// Opens `path` with read_regular_file()'s checks (same messages) and `links`.
    ChecksummedFile(const std::filesystem::path& path, std::uint64_t max_bytes, Links links,
                    const std::string& advice = "");
    ChecksummedFile(ChecksummedFile&& o) noexcept;
    ChecksummedFile& operator=(ChecksummedFile&&) = delete;
    ChecksummedFile(const ChecksummedFile&) = delete;
    ~ChecksummedFile();

    std::uint64_t size() const { return size_; }
    const std::string& name() const { return name_; }
    /// The file's first bytes through its first "\nend\n" (the header with its "end" line),
    /// read in pieces up to `max_header` bytes; nullopt when none ends within them (or before
    /// the trailer).
    std::optional<std::string> header(std::size_t max_header);
    /// Reads n bytes at `offset` (offset + n at most size()). @throws std::runtime_error
    /// "<path>: reading: <reason>" or "<path>: cut short while it was read".
    void read(std::uint64_t offset, std::size_t n, char* out);
    /// checksum_matches() over the file (read in pieces: memory stays small).
    bool checksum_matches();
    /// The bytes from `offset` to the trailer, read whole, and whether the checksum of the
    /// whole file matched (computed as they are read).
    std::pair<std::string, bool> body(std::uint64_t offset);

  private:
    std::string name_;
    int fd_ = -1;
    std::uint64_t size_ = 0;
};

}  // namespace konane::process
