// Encoding one layer of a table in pieces, without owning the file (FORMAT.md §4): a piece is
// a run of consecutive blocks of the layer, and the blocks depend only on the layer's sorted
// keys and depths, its code (the depths' histogram) and its geometry (its size and greatest
// key), so pieces can be encoded apart (by the ranks of solver/distributed.hpp) and their bytes
// put side by side. What depends on the layer's totals (its layer table entry, the directory's
// entry width, the blocks' checks seeded by the entry) is added once every piece is encoded
// (LayerEncoder::layout, seal_blocks, put_directory). TableWriter encodes its layers with it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "format/table.hpp"

namespace konane::format {

/// What the blocks of a piece (or of a whole layer, summed) add to the layer's entry.
struct EncodedTotals {
    std::uint64_t bytes = 0;        ///< bytes of the blocks, back to back (checks included)
    std::uint64_t value_bits = 0;   ///< bits of the values' Huffman codes
    std::uint64_t group_bytes = 0;  ///< bytes of the blocks' group directories
    EncodedTotals& operator+=(const EncodedTotals& o) {
        bytes += o.bytes;
        value_bits += o.value_bits;
        group_bytes += o.group_bytes;
        return *this;
    }
};

/// A layer's place in the file, from its totals (LayerEncoder::layout).
struct LayerLayout {
    unsigned width = 0;               ///< bytes of each directory field: 4 or 8 (0: empty layer)
    std::uint64_t dir_size = 0;       ///< bytes of the directory, padded to a multiple of 8
    std::uint64_t blocks_size = 0;    ///< bytes of the blocks and their padding
    std::vector<std::uint8_t> entry;  ///< the layer table entry (FORMAT.md §5, 416 bytes)
    std::uint64_t key = 0;  ///< the layer's key: XXH3-64 of entry seeded with the header's
};

/// Encodes consecutive blocks of one layer (a piece): start() names the piece's blocks and the
/// index of its first element in the layer; add() takes its keys in order; finish() encodes
/// what is left. The encoded blocks (checks 0) and the piece's directory (per block 16 bytes:
/// u64 offset from the piece's first block, u64 index of its first element in the layer)
/// accumulate in bytes() and directory(), which the caller empties as it likes (the flush
/// hook is called after each block). Encoding a layer in any number of pieces gives, put side
/// by side, the bytes of encoding it whole. Not thread-safe.
class LayerEncoder {
  public:
    /// The layer's code and geometry. `where` prefixes the messages of std::invalid_argument.
    /// @param meta      the table's header (rows, cols, block buckets, value group)
    /// @param info      pieces, classes n, raw count
    /// @param last_key  the layer's greatest key (sets its universe of ranks); any when n == 0
    /// @param histogram how many of its depths are 0..255 (summing to n)
    /// @throws std::invalid_argument on a broken contract (too many pieces, raw < n, the
    ///         histogram's sum, last_key not a position of the layer)
    LayerEncoder(const TableMeta& meta, const LayerInfo& info, std::uint64_t last_key,
                 const std::array<std::uint64_t, 256>& histogram, std::string where = {});
    ~LayerEncoder();
    LayerEncoder(const LayerEncoder&) = delete;
    LayerEncoder& operator=(const LayerEncoder&) = delete;

    /// Blocks of the layer (J, FORMAT.md §4.1); 0 for an empty layer.
    std::uint64_t blocks() const;
    /// The block a key of the layer falls in (its rank's bucket over the block buckets), at
    /// most blocks() - 1 for any key up to last_key. The key is not checked.
    std::uint64_t block_of(std::uint64_t key) const;

    /// Begins the piece of blocks [first_block, end_block) whose first element is element
    /// first_element of the layer; clears the totals, bytes() and directory().
    /// @throws std::invalid_argument when the blocks are out of range
    void start(std::uint64_t first_block, std::uint64_t end_block, std::uint64_t first_element);
    /// Appends keys of the piece, ascending and distinct across calls, all in its blocks, with
    /// their depths; ranks them on `threads` threads (0 = hardware concurrency).
    /// @throws std::invalid_argument on a broken contract (the piece is then unusable)
    void add(std::span<const std::uint64_t> keys, std::span<const std::uint8_t> depths,
             int threads = 1);
    /// Encodes the piece's blocks not yet encoded (after its last key).
    void finish();
    /// Calls `hook` after each block encoded (to empty bytes() and directory() as it likes).
    void on_block(std::function<void()> hook);

    /// Encoded blocks not yet taken by the caller, checks 0.
    std::vector<std::uint8_t>& bytes();
    /// Directory entries not yet taken: 16 bytes a block (offset from the piece's start,
    /// first element in the layer).
    std::vector<std::uint8_t>& directory();
    /// The piece's totals so far (bytes: every byte encoded, taken or not).
    const EncodedTotals& totals() const;
    /// Elements added to the piece so far.
    std::uint64_t elements() const;
    /// How many of the piece's depths are 0..255.
    const std::array<std::uint64_t, 256>& seen() const;
    /// The layer's histogram of depths (as given) and its low bits l (FORMAT.md §4.1).
    const std::array<std::uint64_t, 256>& histogram() const;
    unsigned low_bits() const;
    /// The rank of the last key added (valid when elements() > 0), and the layer's universe.
    std::uint64_t last_rank() const;
    std::uint64_t universe() const;

    /// The layer's directory field width, sizes and layer table entry from its totals (summed
    /// over every piece), its directory's offset in the file and the header's checksum.
    LayerLayout layout(const EncodedTotals& layer, std::uint64_t dir_offset,
                       std::uint64_t header_checksum) const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Fills the checks of blocks j0 .. j0 + c - 1 of a layer (FORMAT.md §4.3), held back to back
/// at `blocks`: offsets and firsts are the c + 1 directory entries from j0's (offsets from the
/// layer's first block: block j0 + k starts at blocks + offsets[k] - offsets[0]).
void seal_blocks(std::uint64_t layer_key, std::uint64_t j0, std::span<const std::uint64_t> offsets,
                 std::span<const std::uint64_t> firsts, std::uint8_t* blocks, int threads = 1);

/// Appends directory entries in the file's form: each (offset, first) as two fields of `width`
/// bytes, little-endian.
void put_directory(std::span<const std::uint64_t> offsets, std::span<const std::uint64_t> firsts,
                   unsigned width, std::vector<std::uint8_t>& out);

/// Bytes appended in order and read back in any order: with a spill file (spill()), all but
/// the last `limit` or so live in an anonymous file (unlinked as soon as it is created, so no
/// exit leaves it behind); without one, all stay in memory. Not thread-safe.
class SpillBytes {
  public:
    SpillBytes();
    ~SpillBytes();
    SpillBytes(const SpillBytes&) = delete;
    SpillBytes& operator=(const SpillBytes&) = delete;

    /// Spills to an anonymous file in `dir` from now on. @throws IoError naming `dir`
    void spill(const std::filesystem::path& dir);
    /// Uses `v` as the tail (the bytes not yet spilled) instead of its own vector.
    void use_tail(std::vector<std::uint8_t>& v);
    /// The bytes not yet spilled; append to it, then call flush_if().
    std::vector<std::uint8_t>& tail();
    /// Bytes appended so far.
    std::uint64_t size() const;
    /// Moves the tail to the file once it holds `limit` bytes or more (no-op without a file).
    /// @throws IoError
    void flush_if(std::size_t limit);
    /// Copies bytes [at, at + n) to `out`. @throws IoError
    void read(std::uint64_t at, std::uint8_t* out, std::size_t n) const;

  private:
    int fd_ = -1;
    std::filesystem::path dir_;
    std::uint64_t in_file_ = 0;
    std::vector<std::uint8_t> own_;
    std::vector<std::uint8_t>* tail_;
};

}  // namespace konane::format
