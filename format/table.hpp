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

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
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

/// The version of the layout this library writes and the only one it reads (FORMAT.md §13).
inline constexpr std::uint32_t kFormatVersion = 4;

/// Defaults chosen by measurement (FORMAT.md §10): buckets of the Elias-Fano high bits per
/// block, and values per group of a block's group directory.
inline constexpr std::uint32_t kDefaultBlockBuckets = 256;
inline constexpr std::uint32_t kDefaultValueGroup = 64;

/// Bytes of encoded blocks (and of block directory) a streamed layer holds before it writes
/// them to its spill file (TableWriter::begin_layer).
inline constexpr std::size_t kSpillChunk = std::size_t{8} << 20;

/// At most this many layers per file.
inline constexpr std::size_t kMaxLayers = 64;
/// Longest ruleset name and generator string, in bytes (ASCII), a file can hold.
inline constexpr std::size_t kMaxRulesetLength = 15;
inline constexpr std::size_t kMaxGeneratorLength = 63;

/// Everything the header says about a table. All fields are written to the file and read back
/// verbatim; nothing depends on time, host or thread count, so the same input gives the same
/// file byte for byte.
struct TableMeta {
    unsigned rows = 0;  ///< board rows, 1..63 (rows * cols <= 63: a key's squares)
    unsigned cols = 0;  ///< board columns, 1..63
    /// The opening: a ruleset name ("brainking", "center" or "any") or a gap's tag ("gap-c3-c4",
    /// core/gap.hpp opening_tag); the format keeps the field's name. 1..15 characters of
    /// [a-z0-9_-].
    std::string ruleset;
    /// Generator version, e.g. "konane 0.2.0": 0..63 printable ASCII characters.
    std::string generator;
    /// Writer parameters (stored in the header; the reader uses what the file holds):
    /// buckets of the Elias-Fano high bits per block (FORMAT.md §4), a power of two, 8..65536;
    std::uint32_t block_buckets = kDefaultBlockBuckets;
    /// values per group of a block's group directory, a power of two, 1..1024.
    std::uint32_t value_group = kDefaultValueGroup;

    bool operator==(const TableMeta&) const = default;
};

/// One layer: all positions with the same number of pieces.
struct LayerInfo {
    std::uint32_t pieces = 0;   ///< pieces on the board; strictly increasing along the file
    std::uint64_t classes = 0;  ///< n: positions (symmetry classes) stored in this layer
    std::uint64_t raw = 0;      ///< positions before symmetry reduction (>= classes)

    bool operator==(const LayerInfo&) const = default;
};

/// Streams a table to "<final>.tmp.<random>" beside the final path (process/atomic_file.hpp) and
/// renames it over the final path only in commit(), after everything is written and synced. A
/// crash, a kill, a full disk or an exception never leaves a file under the final name; on any
/// error the temporary file is removed (except after SIGKILL or power loss, where a stale
/// "*.tmp.*" may remain - never a file under the final name). Not thread-safe; non-copyable.
class TableWriter {
  public:
    /// Creates the temporary file and writes the header.
    /// @param final_path where the finished table will appear (replaced atomically if present)
    /// @param meta       board, ruleset, generator and writer parameters
    /// @param threads    threads for ranking keys; 0 = hardware concurrency. Does not change
    ///                   the output.
    /// @throws std::invalid_argument if meta is out of range (see TableMeta)
    /// @throws FormatError "<final>: create <tmp>: <strerror>" if the file cannot be created
    TableWriter(const std::filesystem::path& final_path, const TableMeta& meta, int threads = 0);
    TableWriter(const TableWriter&) = delete;
    TableWriter& operator=(const TableWriter&) = delete;
    /// Removes the temporary file unless commit() completed. Never throws.
    ~TableWriter();

    /// Appends one layer: its positions and their values, by rank. Memory: the layer's encoded
    /// blocks (about n * (2 + log2(C(squares, pieces) / n) + 3.5) bits), not the table's.
    /// @param info        pieces (> previous layer's), classes n, raw count (>= n)
    /// @param sorted_keys n canonical keys (core/board.hpp key_of), ascending and distinct,
    ///                    each with `pieces` occupied squares, all on the board
    /// @param depth_by_rank n depths to end in plies, depth_by_rank[i] that of sorted_keys[i]
    ///                    (odd = WIN, even = LOSS for the side to move)
    /// @throws std::invalid_argument on a broken contract (nothing is written then; the
    ///         writer stays usable)
    /// @throws std::logic_error after commit() or after an earlier I/O failure
    /// @throws FormatError on an I/O failure; the temporary file is then already removed
    void add_layer(const LayerInfo& info, std::span<const std::uint64_t> sorted_keys,
                   std::span<const std::uint8_t> depth_by_rank);

    /// Begins a layer whose keys and values arrive in pieces (add_to_layer(), in key order),
    /// so that the caller need not hold the layer: the file is the same bytes as add_layer()
    /// of the whole layer writes. Memory: a few chunks of spill_chunk (8 MiB by default) when
    /// spill_dir is given (the encoded blocks and the block directory, 16 bytes a block, go to two
    /// anonymous files there, unlinked at once, and are read back by end_layer()); else the
    /// layer's encoded blocks, as add_layer().
    /// @param info            as add_layer()
    /// @param last_key        the layer's greatest key (it sets the layer's universe of ranks)
    /// @param value_histogram how many of the layer's values are 0, 1, ..., 255 (summing to
    ///                        info.classes): the layer's Huffman code (FORMAT.md §4.2)
    /// @param spill_dir       a directory for the spill files, or empty to keep them in memory
    /// @param spill_chunk     bytes held before they go to a spill file (>= 1; tests use few)
    /// @throws std::invalid_argument on a broken contract (the writer stays usable)
    /// @throws std::logic_error after commit(), an earlier failure, or with a layer open
    /// @throws FormatError (IoError) when a spill file cannot be created (temporary removed)
    void begin_layer(const LayerInfo& info, std::uint64_t last_key,
                     const std::array<std::uint64_t, 256>& value_histogram,
                     const std::filesystem::path& spill_dir, std::size_t spill_chunk = kSpillChunk);
    /// Appends the next keys of the layer begun, ascending and distinct across calls, with
    /// their values. Any number per call, zero included.
    /// @throws std::invalid_argument on a broken contract (the layer is dropped; the writer
    ///         stays usable), std::logic_error without a layer begun, FormatError on I/O
    void add_to_layer(std::span<const std::uint64_t> sorted_keys,
                      std::span<const std::uint8_t> depth_by_rank);
    /// Writes the layer begun: every key added (info.classes of them), the last one the one
    /// announced, the values matching the histogram, else std::invalid_argument (the layer is
    /// dropped, nothing written). @throws FormatError on I/O (temporary removed)
    void end_layer();

    /// The header's checksum (XXH3-64 of its first 248 bytes): it seeds the layers' keys
    /// (format/layer_encoder.hpp LayerEncoder::layout).
    std::uint64_t header_checksum() const;
    /// Begins a layer encoded elsewhere (format/layer_encoder.hpp, in pieces): `entry` is its
    /// layer table entry (LayerLayout::entry), whose directory must start at bytes_written();
    /// then append_encoded() takes its directory and blocks in the file's form (checks
    /// filled, paddings included: the entry's dir_size + blocks_size bytes in all), and
    /// end_encoded_layer() ends it. The writer only copies the bytes (and hashes the file).
    /// @throws std::invalid_argument when the entry does not fit info, the file's position or
    ///         the previous layer (the writer stays usable); std::logic_error as begin_layer()
    void begin_encoded_layer(const LayerInfo& info, std::span<const std::uint8_t> entry);
    /// The next bytes of the encoded layer begun. @throws std::invalid_argument past its size
    /// (the file is then discarded), FormatError on I/O
    void append_encoded(std::span<const std::uint8_t> bytes);
    /// Ends the encoded layer: every byte appended, else std::invalid_argument (the file is
    /// then discarded).
    void end_encoded_layer();

    /// Writes the layer table and trailer (with the whole-file XXH3-128),
    /// fsyncs, renames over the final path and fsyncs the directory. At least one layer.
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

/// Stored size of one layer's parts, in bits (FORMAT.md §4; the blocks' parts are bit fields,
/// so bits add up exactly): the index (block directory, Elias-Fano high and low bits), the
/// values (code lengths, group directories, Huffman codes), the blocks' checks and padding.
struct SectionSizes {
    std::uint64_t directory = 0;  ///< the block directory, with its padding
    std::uint64_t high = 0;       ///< Elias-Fano high bits: n + buckets
    std::uint64_t low = 0;        ///< Elias-Fano low bits: n * l
    std::uint64_t code = 0;       ///< code lengths (256 bytes, in the layer table)
    std::uint64_t groups = 0;     ///< the blocks' group directories
    std::uint64_t codes = 0;      ///< the Huffman codes of the values
    std::uint64_t checks = 0;     ///< the blocks' checks: 32 bits each
    std::uint64_t padding = 0;    ///< zero bits ending each block and the layer
    /// Bits of the index: membership and rank.
    std::uint64_t index() const { return directory + high + low; }
    /// Bits of the values.
    std::uint64_t values() const { return code + groups + codes; }
    /// Every bit of the layer.
    std::uint64_t total() const { return index() + values() + checks + padding; }
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
    std::uint64_t blocks_checked = 0;   ///< blocks whose check was computed
};

/// Where an open table's bytes are read from (OpenOptions::load; the figures of each:
/// docs/results.md, "Probes on a kernel without file huge pages").
enum class Load {
    /// The file mapped read-only: the page cache's pages, shared by every process that has the
    /// table open, read on demand. Opening costs milliseconds and no memory of the process's
    /// own. Pages are 4 KiB unless the kernel maps the file's folios with huge pages (/proc/
    /// meminfo FilePmdMapped), so a multi-GB table misses the TLB on most seen-once probes.
    map,
    /// The whole file read into the process's own anonymous memory (its size, rounded up to
    /// 2 MiB), advised to 2 MiB transparent huge pages (madvise MADV_HUGEPAGE) before it is
    /// written, read-only after. Opening reads the whole file; probes then take no page fault
    /// and, with huge pages, few TLB misses. Checks as for map: structure at open, each block
    /// when first read. The copy does not follow the file: a file changed on disk after open is
    /// not seen.
    memory,
    /// memory when the kernel gives anonymous memory huge pages (THP "always" or "madvise") and
    /// the file takes at most a quarter of the available memory (/proc/meminfo MemAvailable);
    /// map otherwise (no THP, too little memory, or either cannot be read).
    automatic,
};

/// The name of a Load: "map", "memory" or "auto".
const char* load_name(Load load);
/// Parses "map", "memory" or "auto". @throws std::invalid_argument naming the accepted words
Load parse_load(const std::string& text);

/// How Table::open reads the file.
struct OpenOptions {
    Load load = Load::map;  ///< where the table's bytes are read from (Load)
};

/// What an open table holds in memory of its own (Table::memory_use()).
struct MemoryUse {
    Load load = Load::map;    ///< what open chose: map or memory, never automatic
    std::uint64_t bytes = 0;  ///< anonymous memory holding the file: 0 when mapped; else the
                              ///< file's size rounded up to 2 MiB
    std::int64_t huge = 0;    ///< bytes of it in transparent huge pages (/proc/self/smaps
                              ///< AnonHugePages of its mapping); -1 when unknown
};

/// The machine's huge-page state as a table's probes meet it, for reports: the THP modes for
/// anonymous and shared memory (/sys/kernel/mm/transparent_hugepage/enabled and
/// shmem_enabled, "" when absent) and /proc/meminfo's AnonHugePages, FileHugePages and
/// FilePmdMapped in bytes (-1 when absent).
struct HugePageState {
    std::string anon_mode, shmem_mode;
    std::int64_t anon_huge_pages = -1, file_huge_pages = -1, file_pmd_mapped = -1;
};
/// Reads HugePageState now. Never throws for a missing file (the fields say unknown).
HugePageState huge_page_state();

/// A read-only, validated table, mapped from its file or read into memory (Load). All const
/// members are thread-safe.
class Table {
  public:
    /// Maps the file read-only and validates its structure: magic, version, declared and real
    /// size, header / trailer / layer table, every offset, size and count, the canonical
    /// placement of every section, and `expect`. Costs O(layers): milliseconds whatever the
    /// table. Each block is checked (its 32-bit check, bound to its directory entries) when
    /// first read (see verify_checksums for all at once). Also checks that the header belongs
    /// to the file (the trailer repeats its checksum) and that each layer's entry describes
    /// its body (its directory's ends, its last element, its value code).
    /// A file rewritten or truncated in place while open is reported by the reads that meet
    /// it (FormatError "<path>: file: changed while open ..." or a checksum mismatch), never
    /// by a signal: a SIGBUS on the mapping is absorbed (format/fault_guard.hpp).
    /// @throws FormatError "<path>: <section>: <what is wrong>" for an empty, truncated,
    ///         damaged or foreign file, a file of another format version (naming the version
    ///         and how to regenerate it), a directory, or a table not matching `expect`
    /// With options.load memory (or automatic choosing it) the file is first read into
    /// memory (Load::memory), then validated alike; a file that cannot be read into memory is an
    /// IoError ("<path>: load: ...") and one that shrinks while read a FormatError.
    static std::shared_ptr<const Table> open(const std::filesystem::path& path,
                                             const Expect& expect = {},
                                             const OpenOptions& options = {});

    Table(const Table&) = delete;
    Table& operator=(const Table&) = delete;
    ~Table();

    const std::filesystem::path& path() const;
    const TableMeta& meta() const;
    /// The layers in ascending piece count.
    const std::vector<LayerInfo>& layers() const;
    /// Index into layers() of the layer with this piece count, or -1 if absent.
    int layer_index(std::uint32_t pieces) const;
    /// Stored bits of the layer's parts. @throws std::out_of_range
    SectionSizes section_sizes(std::size_t layer) const;
    /// Size of the file in bytes.
    std::uint64_t file_size() const;
    /// Where the table's bytes are read from (map or memory) and the memory of its own that
    /// costs (MemoryUse; reads /proc/self/smaps when loaded).
    MemoryUse memory_use() const;

    /// The rank of `key` in the layer (its index among the layer's sorted keys), or nullopt
    /// when the layer does not hold it: exact, no false positives. A key with another number
    /// of pieces than the layer, or with squares off the board, is not held.
    /// @throws FormatError on a damaged block; std::out_of_range for a bad layer
    std::optional<std::uint64_t> find(std::size_t layer, std::uint64_t key) const;
    /// Depth to end in plies of the position of rank `rank` (odd = WIN, even = LOSS for the
    /// side to move). Finds the block by a binary search of the directory, then decodes at
    /// most one group of its values.
    /// @throws FormatError on a damaged block; std::out_of_range for a bad layer or rank
    std::uint8_t value(std::size_t layer, std::uint64_t rank) const;

    /// Decodes a whole layer's keys, ascending, into `out` (resized to n); checks their
    /// blocks, order and range. @throws FormatError, std::out_of_range
    void read_keys(std::size_t layer, std::vector<std::uint64_t>& out) const;
    /// One look-up of probe_many(): a layer (index into layers()) and a canonical key.
    struct Query {
        std::size_t layer = 0;
        std::uint64_t key = 0;
    };
    /// Its answer: whether the layer holds the key and, when it does, value(layer, rank).
    struct Answer {
        bool stored = false;
        std::uint8_t depth = 0;
    };
    /// find() then value() for every query, the same answers, in two rounds of memory reads,
    /// each overlapped across the queries: (1) the two directory entries of the key's block;
    /// (2) the block, whose index and values lie side by side (its first check hashes only
    /// those bytes). A position and its children (a perfect move) thus wait for memory about
    /// as long as one position. The fastest way to probe one position too. `out` must have
    /// at least queries.size() elements; after an exception its contents are unspecified.
    /// @throws FormatError on a damaged block; std::out_of_range for a bad layer;
    ///         std::invalid_argument when `out` is too short
    void probe_many(std::span<const Query> queries, std::span<Answer> out) const;

    /// Decodes a whole layer's values by rank into `out` (resized to n), in parallel; checks
    /// their blocks and group directories. @throws FormatError, std::out_of_range
    void read_values(std::size_t layer, std::vector<std::uint8_t>& out) const;

    /// Checks every checksum: header, trailer, layer table, every block's check, and the
    /// whole-file XXH3-128. Never throws FormatError; reports each problem found. The blocks
    /// that pass count as checked for later probes, which then hash nothing.
    /// @param threads 0 = hardware concurrency
    VerifyReport verify_checksums(int threads = 0) const;

    struct Impl;

  private:
    explicit Table(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace konane::format
