// Per-slot fingerprints that tell a stored position from one that merely hashes to its slot.
#pragma once

#include <cstdint>

namespace konane {

/// The fingerprint of a tablebase key: the top `bits` bits (1..16) of XXH3-64 of the key's
/// 8 little-endian bytes with seed kFingerprintSeed. The minimal perfect hash maps a key that
/// is not stored to some slot; it is taken for a stored one only when the fingerprints agree,
/// which for independent hashes happens with probability 2^-bits (1/65536 for 16 bits).
std::uint16_t fingerprint(std::uint64_t key, unsigned bits);

/// The seed of fingerprint(): fixed by the file format (format/FORMAT.md).
inline constexpr std::uint64_t kFingerprintSeed = 0x4b6f6e616e654650ULL;  // "KonaneFP"

}  // namespace konane
