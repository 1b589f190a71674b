// BBHash (Debian's libbbhash-dev, header BooPHF.h) as the benchmarks use it: its header
// without its warnings, and the instance over 64-bit keys.
#pragma once

#include <cstdint>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wall"
#pragma GCC diagnostic ignored "-Wextra"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wreorder"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <BooPHF.h>
#pragma GCC diagnostic pop

/// BBHash over 64-bit keys with its single hash function (Limasset et al., SEA 2017).
using BBHash = boomphf::mphf<std::uint64_t, boomphf::SingleHashFunctor<std::uint64_t>>;
