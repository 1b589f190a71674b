// Internal to konane_format: xxHash, with XXH3 through the library's run-time dispatch where
// it has one (xxh_x86dispatch.h: AVX2 or AVX-512 when the CPU has them, SSE2 otherwise), so
// the checks of chunks on first read, verify and the writer hash at the CPU's best speed
// whatever -march the project was built with. The hashes are the same either way.
#pragma once

#include <xxhash.h>
#if defined(KONANE_HAVE_XXH_DISPATCH)
#include <xxh_x86dispatch.h>  // redefines XXH3_64bits, XXH3_128bits, ... as their _dispatch
#endif
