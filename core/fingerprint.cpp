#include "core/fingerprint.hpp"

#include <xxhash.h>

namespace konane {

std::uint16_t fingerprint(std::uint64_t key, unsigned bits) {
    if (bits == 0) return 0;
    unsigned char bytes[8];
    for (int i = 0; i < 8; ++i)
        bytes[i] = static_cast<unsigned char>(key >> (8 * i));
    return static_cast<std::uint16_t>(XXH3_64bits_withSeed(bytes, 8, kFingerprintSeed) >>
                                      (64 - bits));
}

}  // namespace konane
