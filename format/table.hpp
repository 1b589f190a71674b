// The Konane tablebase file: a streaming, crash-safe writer and a validating, memory-mapped
// reader. The byte-level layout is specified in format/FORMAT.md.
//
// Error policy:
//  - FormatError: anything wrong with a file or with the file system. The message always
//    reads "<file>: <section>: <what is wrong>", e.g.
//    "/t/6x6.kbt: layer 3 (12 pieces) values block 17: checksum mismatch (...)".
//  - std::invalid_argument / std::out_of_range / std::logic_error: the caller broke the
//    contract (bad spans, layer or slot out of range, use after commit).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace konane::format {

/// Thrown for every problem with a table file or the file system it lives on.
/// what() is "<file>: <section>: <what is wrong>".
struct FormatError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// An input/output failure of the file system while writing (no space, no permission, a
/// missing directory): the work failed, the input was fine.
struct IoError : FormatError {
    using FormatError::FormatError;
};

/// The version of the layout this library writes and the only one it reads.
inline constexpr std::uint32_t kFormatVersion = 1;

/// Default number of slots (= raw bytes) per zstd block of a values section.
/// Chosen by measurement, see FORMAT.md "Block size and compression level".
inline constexpr std::uint32_t kDefaultValueBlockSlots = 16384;
/// Default number of slots per zstd block of a fingerprints section (16 KiB raw at 16 bits).
inline constexpr std::uint32_t kDefaultFingerprintBlockSlots = 8192;
/// Default zstd level for values blocks (see FORMAT.md for the measurement).
inline constexpr int kDefaultValueLevel = 12;
/// Default zstd level for fingerprint blocks (random data: a higher level gains nothing).
inline constexpr int kDefaultFingerprintLevel = 1;

/// Smallest and largest block size, in slots, a file may declare. Block sizes must be powers
/// of two.
inline constexpr std::uint32_t kMinBlockSlots = 64;
inline constexpr std::uint32_t kMaxBlockSlots = 1u << 22;
/// At most this many layers per file.
inline constexpr std::size_t kMaxLayers = 64;
/// Longest ruleset name and generator string, in bytes (ASCII), a file can hold.
inline constexpr std::size_t kMaxRulesetLength = 15;
inline constexpr std::size_t kMaxGeneratorLength = 63;

/// Everything the header says about a table. All fields are written to the file and read back
/// verbatim; nothing depends on time, host or thread count, so the same input gives the same
/// file byte for byte.
struct TableMeta {
    unsigned rows = 0;  ///< board rows, 1..8
    unsigned cols = 0;  ///< board columns, 1..8
    /// Ruleset name ("brainking", "center" or "any"): 1..15 characters of [a-z0-9_-].
    std::string ruleset;
    /// Generator version, e.g. "konane 0.1.0": 0..63 printable ASCII characters.
    std::string generator;
    /// Bits of fingerprint per slot: 0 (no fingerprints), 8 or 16.
    unsigned fingerprint_bits = 16;
    /// Writer parameters (stored in the header; the reader reports what the file holds).
    /// Slots per values block and per fingerprints block: powers of two in
    /// [kMinBlockSlots, kMaxBlockSlots].
    std::uint32_t value_block_slots = kDefaultValueBlockSlots;
    std::uint32_t fingerprint_block_slots = kDefaultFingerprintBlockSlots;
    /// zstd compression levels (1..22) of values and fingerprint blocks.
    int value_level = kDefaultValueLevel;
    int fingerprint_level = kDefaultFingerprintLevel;

    bool operator==(const TableMeta&) const = default;
};

/// One layer: all positions with the same number of pieces.
struct LayerInfo {
    std::uint32_t pieces = 0;   ///< pieces on the board; strictly increasing along the file
    std::uint64_t classes = 0;  ///< n: slots in this layer (symmetry classes, MPHF range)
    std::uint64_t raw = 0;      ///< positions before symmetry reduction (>= classes)

    bool operator==(const LayerInfo&) const = default;
};

/// Streams a table to "<final>.tmp.<random>" beside the final path and renames it over the
/// final path only in commit(), after everything is written and synced. A crash, a kill, a
/// full disk or an exception never leaves a file under the final name; on any error the
/// temporary file is removed (except after SIGKILL or power loss, where a stale
/// "*.tmp.*" may remain - never a file under the final name). Not thread-safe; non-copyable.
class TableWriter {
  public:
    /// Creates the temporary file and writes the header.
    /// @param final_path where the finished table will appear (replaced atomically if present)
    /// @param meta       board, ruleset, generator and writer parameters
    /// @param threads    compression threads; 0 = hardware concurrency. Does not change output.
    /// @throws std::invalid_argument if meta is out of range (see TableMeta)
    /// @throws FormatError "<final>: create <tmp>: <strerror>" if the file cannot be created
    TableWriter(const std::filesystem::path& final_path, const TableMeta& meta, int threads = 0);
    TableWriter(const TableWriter&) = delete;
    TableWriter& operator=(const TableWriter&) = delete;
    /// Removes the temporary file unless commit() completed. Never throws.
    ~TableWriter();

    /// Appends one layer. Streams: compresses and writes the data in bounded batches and keeps
    /// only the block index in memory.
    /// @param info         pieces (> previous layer's), classes n, raw count (>= n)
    /// @param mphf_blob    MPHF bytes, size a multiple of 8; stored uncompressed, 8-aligned
    /// @param fingerprints n values (each < 2^fingerprint_bits), or empty if fingerprint_bits==0
    /// @param values       n depths to end in plies (odd = WIN, even = LOSS for side to move)
    /// @throws std::invalid_argument on a broken contract (nothing is written then; the
    ///         writer stays usable)
    /// @throws std::logic_error after commit() or after an earlier I/O failure
    /// @throws FormatError on an I/O failure; the temporary file is then already removed
    void add_layer(const LayerInfo& info, std::span<const std::uint8_t> mphf_blob,
                   std::span<const std::uint16_t> fingerprints,
                   std::span<const std::uint8_t> values);

    /// Writes layer table, block index and trailer (with the whole-file XXH3-128), fsyncs,
    /// renames over the final path and fsyncs the directory. At least one layer is required.
    /// @throws std::logic_error if called twice, with no layer, or after an I/O failure
    /// @throws FormatError e.g. "<final>: write <tmp>: No space left on device"; the temporary
    ///         file is removed and no file appears under the final name
    void commit();

    /// Bytes written so far to the temporary file.
    std::uint64_t bytes_written() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Stored (on-disk) bytes of one layer's sections.
struct SectionSizes {
    std::uint64_t mphf = 0, fingerprints = 0, values = 0;
};

/// What the caller requires of a table; 0 / empty = don't care.
struct Expect {
    unsigned rows = 0, cols = 0;
    std::string ruleset;
};

/// Result of Table::verify_checksums.
struct VerifyReport {
    bool ok = true;                     ///< no problem found
    std::vector<std::string> problems;  ///< one "<file>: <section>: <what>" line per problem
    std::uint64_t blocks_checked = 0;   ///< zstd blocks whose checksum was checked and decoded
};

/// A read-only, memory-mapped, validated table. All const members are thread-safe; probes
/// from any number of threads share a small, bounded cache of decoded blocks.
class Table {
  public:
    /// Maps the file read-only and validates its structure: magic, version, declared and real
    /// size, header / trailer / layer table / block index checksums, every offset, length and
    /// count, the canonical placement of every section, zero padding, and `expect`.
    /// Does not read the data blocks (checked on first decode) nor the whole-file hash (see
    /// verify_checksums). The file must not be truncated in place while open (the writer
    /// never does that: it renames a new file over the old one, and the mapping keeps the old
    /// one alive); a file shrunk under a live mapping raises SIGBUS on access, as with any mmap.
    /// @throws FormatError "<path>: <section>: <what is wrong>" for an empty, truncated,
    ///         damaged or foreign file, a directory, or a table not matching `expect`
    static std::shared_ptr<const Table> open(const std::filesystem::path& path,
                                             const Expect& expect = {});

    Table(const Table&) = delete;
    Table& operator=(const Table&) = delete;
    ~Table();

    const std::filesystem::path& path() const;
    const TableMeta& meta() const;
    /// The layers in ascending piece count.
    const std::vector<LayerInfo>& layers() const;
    /// Index into layers() of the layer with this piece count, or -1 if absent.
    int layer_index(std::uint32_t pieces) const;
    /// Stored bytes of the layer's three sections. @throws std::out_of_range
    SectionSizes section_sizes(std::size_t layer) const;
    /// Size of the file in bytes.
    std::uint64_t file_size() const;

    /// The MPHF blob, in place in the mapping (8-byte aligned, valid while the Table lives).
    /// Its XXH3-64 is checked on the first call for this layer (once, thread-safe).
    /// @throws FormatError on checksum mismatch (every call); std::out_of_range
    std::span<const std::uint8_t> mphf_blob(std::size_t layer) const;

    /// Fingerprint of one slot (0 when fingerprint_bits == 0). Decodes at most one block,
    /// through the cache; a block's checksum is checked whenever it is decoded.
    /// @throws FormatError on a damaged block; std::out_of_range for a bad layer or slot
    std::uint16_t fingerprint(std::size_t layer, std::uint64_t slot) const;
    /// Depth to end in plies of one slot (odd = WIN, even = LOSS for the side to move).
    /// Same decoding and errors as fingerprint().
    std::uint8_t value(std::size_t layer, std::uint64_t slot) const;

    /// Decodes a whole layer's values into `out` (resized to n), in parallel, bypassing the
    /// cache; every block checksum is checked. @throws FormatError, std::out_of_range
    void read_values(std::size_t layer, std::vector<std::uint8_t>& out) const;
    /// Decodes a whole layer's fingerprints (all zero if fingerprint_bits == 0).
    void read_fingerprints(std::size_t layer, std::vector<std::uint16_t>& out) const;

    /// Checks everything: structure again, every MPHF and section checksum, every block's
    /// checksum and decoded size, and the whole-file XXH3-128. Never throws FormatError;
    /// reports each problem found.
    /// @param threads 0 = hardware concurrency
    VerifyReport verify_checksums(int threads = 0) const;

    struct Impl;

  private:
    explicit Table(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace konane::format
