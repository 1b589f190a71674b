// Finished layers held on disk between enumeration and solve, so that only a few layers are in
// memory at once (shared/docs/design.md "Layers"; needed for 6x6).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <vector>

namespace konane::solver {

/// Sorted 64-bit keys of whole layers stored in a directory: delta-coded, then zstd-compressed
/// in chunks of 2^20 keys. File `layer-N.keys`: repeated [u64 key count][u64 compressed bytes]
/// [zstd frame], little-endian. The files live in a directory of their own,
/// DIR/konane-spill-PID-N, created on construction and removed with its files on destruction
/// (DIR itself is created if missing and left in place). Not thread-safe.
class KeySpill {
  public:
    /// Creates `dir` (and parents) and a fresh subdirectory in it. Throws std::runtime_error
    /// naming the path and the system error.
    explicit KeySpill(std::filesystem::path dir);
    ~KeySpill();
    KeySpill(const KeySpill&) = delete;
    KeySpill& operator=(const KeySpill&) = delete;

    /// Writes the keys of layer `pieces` (ascending) to disk and frees `keys`.
    /// Throws std::runtime_error on a write error (e.g. "No space left on device").
    void put(int pieces, std::vector<std::uint64_t>& keys);
    /// Reads back the keys of layer `pieces` and deletes its file. Throws std::runtime_error
    /// for a missing or damaged file.
    std::vector<std::uint64_t> take(int pieces);
    /// Bytes currently on disk.
    std::uint64_t bytes_on_disk() const { return bytes_; }
    /// Largest number of bytes on disk at once.
    std::uint64_t peak_bytes_on_disk() const { return peak_; }

  private:
    std::filesystem::path dir_;
    std::map<int, std::uint64_t> sizes_;
    std::map<int, int> handles_;  ///< format::register_temporary handles of the layer files
    int dir_handle_ = -1;
    std::uint64_t bytes_ = 0, peak_ = 0;
};

}  // namespace konane::solver
