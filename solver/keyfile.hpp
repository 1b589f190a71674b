// Sorted 64-bit words on disk: the layers and sorted runs of an external-memory generation
// (README.md "How it works": every byte written to scratch and read back is
// checksummed).
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <span>
#include <vector>

namespace konane::process {
class AtomicFile;
}

namespace konane::solver {

/// Words per chunk of a key file: 2^16 words, 512 KiB raw. Small enough that a merge of many
/// runs holds one decoded chunk per run in little memory.
inline constexpr std::size_t kKeyChunkWords = std::size_t{1} << 16;

/// Thrown for a missing, truncated or damaged key file, or an I/O failure writing one; the
/// message names the file.
struct KeyFileError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Writes an ascending sequence of 64-bit words to a key file.
///
/// Layout (little-endian): a 16-byte header "KNKEYS01" + u64 word count (written at finish()),
/// then chunks of at most kKeyChunkWords words, each [u32 words][u32 compressed bytes]
/// [u64 XXH3-64 of the compressed bytes][zstd frame (level 1) of the word deltas]. The file is
/// written through a process::AtomicFile (a temporary name "PATH.tmp.<16 hex>" beside it,
/// removed on a signal, renamed to PATH by finish() after fsync, then fsync of the directory),
/// so PATH exists only complete. Chunks are compressed in parallel (OpenMP) when many are appended
/// at once.
class KeyFileWriter {
  public:
    /// Creates the temporary file. With `delta` false the words are stored as they are (any order;
    /// header "KNWORD01"), for data that is not sorted. Throws KeyFileError naming the path and the
    /// system error.
    explicit KeyFileWriter(std::filesystem::path path, int threads = 1, bool delta = true);
    ~KeyFileWriter();  ///< removes the temporary file unless finish() succeeded
    KeyFileWriter(const KeyFileWriter&) = delete;
    KeyFileWriter& operator=(const KeyFileWriter&) = delete;

    /// Appends words, which must continue the ascending order (not checked in release builds).
    /// Throws KeyFileError on a write failure (e.g. "No space left on device").
    void append(std::span<const std::uint64_t> words);
    /// Writes the buffered words and the count, fsyncs, renames to PATH, fsyncs the directory.
    /// Returns bytes written.
    std::uint64_t finish();
    std::uint64_t words() const { return words_; }

  private:
    void flush(bool all);
    void write(const void* data, std::size_t n);
    std::filesystem::path path_;
    std::unique_ptr<process::AtomicFile> file_;
    int threads_;
    bool delta_;
    std::vector<std::uint64_t> buf_;
    std::uint64_t prev_ = 0, words_ = 0, bytes_ = 0;
};

/// Reads a key file chunk by chunk, checking every checksum.
class KeyFileReader {
  public:
    /// Opens PATH and reads its header. Throws KeyFileError for a missing or foreign file.
    explicit KeyFileReader(std::filesystem::path path);
    ~KeyFileReader();
    KeyFileReader(const KeyFileReader&) = delete;
    KeyFileReader& operator=(const KeyFileReader&) = delete;

    /// Total words in the file (from its header).
    std::uint64_t words() const { return words_; }
    /// Decodes the next chunk into `out` (replacing its contents); false at the end of the
    /// file. Throws KeyFileError naming the file for a truncated or damaged chunk.
    bool next(std::vector<std::uint64_t>& out);

  private:
    std::filesystem::path path_;
    std::FILE* f_ = nullptr;
    std::uint64_t words_ = 0, read_ = 0, prev_ = 0;
    bool delta_ = true;
    std::vector<char> in_;
};

/// Reads a whole key file into memory. Throws KeyFileError.
std::vector<std::uint64_t> read_key_file(const std::filesystem::path& path);

/// Writes `words` (ascending unless `delta` is false) to PATH as a key file; returns the bytes
/// written. Throws KeyFileError.
std::uint64_t write_key_file(const std::filesystem::path& path,
                             std::span<const std::uint64_t> words, int threads = 1,
                             bool delta = true);

/// Writes bytes as a word file (zero-padded to whole words; the caller knows the length).
/// Throws KeyFileError.
void write_byte_file(const std::filesystem::path& path, std::span<const std::uint8_t> bytes,
                     int threads = 1);
/// Reads the `length` bytes of a file written by write_byte_file(). Throws KeyFileError
/// naming the file when it is damaged (checksums) or was not written for exactly `length`
/// bytes.
std::vector<std::uint8_t> read_byte_file(const std::filesystem::path& path, std::size_t length);

}  // namespace konane::solver
