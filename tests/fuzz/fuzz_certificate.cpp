// libFuzzer target: the certificate reader (cert/certificate.hpp parse_certificate) and the
// checker (cert/check.hpp) on any bytes as a certificate file. Each input is parsed twice: as it
// is, and "sealed", with its trailing XXH64 recomputed so that mutations reach the header parser,
// the zstd frame and the entry decoder behind the checksum. Whatever parses is checked.
// Properties: parsing and checking either succeed or throw CertificateError; any other
// exception, a crash, a hang or a sanitizer report is a finding.
#include <xxhash.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "cert/certificate.hpp"
#include "cert/check.hpp"

using namespace konane;

namespace {

void parse_and_check(std::string bytes) {
    Certificate c;
    try {
        c = parse_certificate(std::move(bytes), "fuzz");
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
