// libFuzzer target: the certificate reader (cert/certificate.hpp parse_certificate) and the
// checker (cert/check.hpp) on any bytes as a certificate file. Each input is parsed twice: as it
// is, and "sealed", with its trailing XXH64 recomputed so that mutations reach the header parser,
// the zstd frame and the entry decoder behind the checksum. Whatever parses is checked.
// Properties: parsing and checking either succeed or throw CertificateError; any other
// exception, a crash, a hang or a sanitizer report is a finding. The reader's limits
// (CertificateLimits) are small here, so that a decompression bomb the fuzzer forges is refused
// at its header in microseconds, as the default limits refuse one of 2^29 entries, and the
// decoder's checks past the header (counts, order, pieces) are reached within the fuzzer's
// memory limit.
#include <xxhash.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "cert/certificate.hpp"
#include "cert/check.hpp"

using namespace konane;

namespace {

/// The reader's limits under fuzzing: at most 2^16 entries, 32 a compressed byte past 2^10.
CertificateLimits fuzz_limits() {
    CertificateLimits l;
    l.max_entries = std::uint64_t{1} << 16;
    l.free_entries = std::uint64_t{1} << 10;
    l.entries_per_byte = 32;
    return l;
}

void parse_and_check(std::string bytes) {
    Certificate c;
    try {
        c = parse_certificate(std::move(bytes), "fuzz", fuzz_limits());
    } catch (const CertificateError&) {
        return;
    }
    // A forged header may name a large board with few entries: the checker stops at the first
    // position without an entry, so its work stays bounded by the input.
    try {
        (void)check_certificate(c);
    } catch (const CertificateError&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string bytes(reinterpret_cast<const char*>(data), size);
    parse_and_check(bytes);
    if (size >= 8) {
        const std::uint64_t sum = XXH64(bytes.data(), size - 8, 0);
        for (int i = 0; i < 8; ++i)
            bytes[size - 8 + i] = static_cast<char>(sum >> (8 * i));
        parse_and_check(std::move(bytes));
    }
    return 0;
}
