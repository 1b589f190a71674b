// The command's edge: errors to exit codes and messages, strict numbers (cli/common.hpp).
#include <new>
#include <system_error>

#include <fmt/format.h>

#include "cli/common.hpp"
#include "core/text.hpp"
#include "format/table.hpp"
#include "probe/probe.hpp"

namespace konane::cli {

Failure failure_of(std::exception_ptr error) {
    try {
        std::rethrow_exception(error);
    } catch (const UsageError& e) {
        return {kBadInput, e.what()};
    } catch (const std::invalid_argument& e) {
        return {kBadInput, e.what()};
    } catch (const format::IoError& e) {
        return {kFailed, e.what()};
    } catch (const format::FormatError& e) {
        return {kBadInput, e.what()};
    } catch (const NotStored& e) {
        return {kNotStored, e.what()};
    } catch (const std::bad_alloc&) {
        return {kFailed, "out of memory (give a smaller --memory, or free memory)"};
    } catch (const std::system_error& e) {
        if (e.code() == std::errc::resource_unavailable_try_again) {
            return {kFailed,
                    fmt::format("{} (out of threads or processes: try fewer, -j N)", e.what())};
        }
        return {kFailed, e.what()};
    } catch (const std::exception& e) {
        return {kFailed, e.what()};
    } catch (...) {
        return {kFailed, "unknown error"};
    }
}

std::string safe_message(std::string_view message) {
    constexpr std::size_t kMax = 1000;
    std::string s = printable(message);
    if (s.size() > kMax) {
        std::size_t cut = kMax;
        while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
            --cut;  // not inside a UTF-8 character
        s.resize(cut);
        s += "...";
    }
    return s;
}

std::uint64_t parse_size(const std::string& text, const char* option) {
    std::size_t i = 0;
    std::uint64_t v = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
        if (v > (std::uint64_t{1} << 50))
            throw UsageError(fmt::format("{} {}: too large", option, excerpt(text)));
        v = v * 10 + static_cast<std::uint64_t>(text[i++] - '0');
    }
    int shift = 0;
    if (i < text.size()) {
        switch (text[i] | 0x20) {
            case 'k':
                shift = 10;
                break;
            case 'm':
                shift = 20;
                break;
            case 'g':
                shift = 30;
                break;
            case 't':
                shift = 40;
                break;
            default:
                shift = -1;
        }
        ++i;
        if (i < text.size() && (text[i] | 0x20) == 'b') ++i;
    }
    if (i == 0 || i != text.size() || shift < 0) {
        throw UsageError(
            fmt::format("{} {}: expected a size such as 500M or 12G", option, excerpt(text)));
    }
    if (v > (std::uint64_t{1} << (62 - shift)))
        throw UsageError(fmt::format("{} {}: too large", option, excerpt(text)));
    return v << shift;
}

CLI::Validator decimal(std::uint64_t lo, std::uint64_t hi) {
    return CLI::Validator(
        [lo, hi](std::string& s) -> std::string {
            if (s.empty()) return "must not be empty";
            if (s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos)
                return fmt::format("'{}' is not a whole number in decimal digits", excerpt(s));
            const std::uint64_t v = std::stoull(s);
            if (v < lo || v > hi) return fmt::format("{} is not in {}..{}", v, lo, hi);
            return {};
        },
        fmt::format("INT in [{} - {}]", lo, hi));
}

}  // namespace konane::cli
