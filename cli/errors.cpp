// The command's edge: errors to exit codes and messages, strict numbers (cli/common.hpp).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <new>
#include <system_error>

#include <fmt/format.h>

#include "cli/common.hpp"
#include "core/text.hpp"
#include "format/table.hpp"
#include "probe/probe.hpp"
#include "process/resource_error.hpp"
#include "process/self.hpp"
#include "process/utf8_cut.hpp"
#include "solver/solve.hpp"

namespace konane::cli {

Failure failure_of(std::exception_ptr error, bool has_memory_option) {
    try {
        std::rethrow_exception(error);
    } catch (const UsageError& e) {
        return {kBadInput, e.what()};
    } catch (const ResourceError& e) {
        return {kResources, e.what()};
    } catch (const std::invalid_argument& e) {
        return {kBadInput, e.what()};
    } catch (const format::IoError& e) {
        return {kFailed, e.what()};
    } catch (const format::FormatError& e) {
        return {kBadInput, e.what()};
    } catch (const NotStored& e) {
        return {kNotStored, e.what()};
    } catch (const std::bad_alloc&) {
        return {kFailed, has_memory_option
                             ? "out of memory (give a smaller --memory, or free memory)"
                             : "out of memory (free memory, or raise the process's limit)"};
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
        process::cut_utf8(s, kMax);
        s += "...";
    }
    return s;
}

std::uint64_t parse_size(const std::string& text, const char* option) {
    auto bad = [&] {
        return UsageError(fmt::format("{} {}: expected a size such as 500M, 1.5G or 12GiB", option,
                                      excerpt(text)));
    };
    std::size_t i = 0;
    std::uint64_t whole = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
        if (whole > (std::uint64_t{1} << 50))
            throw UsageError(fmt::format("{} {}: too large", option, excerpt(text)));
        whole = whole * 10 + static_cast<std::uint64_t>(text[i++] - '0');
    }
    if (i == 0) throw bad();
    // A fraction, up to 6 digits, in millionths.
    std::uint64_t frac = 0, scale = 1;
    if (i < text.size() && text[i] == '.') {
        ++i;
        const std::size_t from = i;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
            if (scale < 1'000'000) {
                frac = frac * 10 + static_cast<std::uint64_t>(text[i] - '0');
                scale *= 10;
            }
            ++i;
        }
        if (i == from) throw bad();
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
                throw bad();
        }
        ++i;
        if (i < text.size() && (text[i] | 0x20) == 'i') ++i;
        if (i < text.size() && (text[i] | 0x20) == 'b') ++i;
    }
    if (i != text.size()) throw bad();
    if (frac != 0 && shift == 0)
        throw UsageError(
            fmt::format("{} {}: a size in bytes must be a whole number", option, excerpt(text)));
    if (whole > (std::uint64_t{1} << (62 - shift)))
        throw UsageError(fmt::format("{} {}: too large", option, excerpt(text)));
    return (whole << shift) + ((frac << shift) / scale);
}

void warn_threads_within(int asked, std::size_t each, const std::string& memory,
                         std::size_t running) {
    std::fprintf(stderr,
                 "warning: -j %d: each thread past the first takes %.1f MiB of --memory %s for "
                 "its own state, and at most half of it goes to threads: running %zu threads "
                 "(give more --memory for more)\n",
                 asked, static_cast<double>(each) / (1 << 20), safe_message(memory).c_str(),
                 running);
}

void warn_memory_over_physical(std::uint64_t budget, const std::string& text, bool quiet) {
    const std::uint64_t phys = process::machine_memory_bytes();
    if (quiet || phys == 0 || budget <= phys) return;
    std::fprintf(stderr,
                 "warning: --memory %s is more than this machine's memory (%.1f GiB): the run "
                 "may be killed when it uses it\n",
                 safe_message(text).c_str(), static_cast<double>(phys) / (1 << 30));
}

std::uint64_t parse_decimal(std::string_view text, const char* option, std::uint64_t lo,
                            std::uint64_t hi) {
    std::uint64_t v = 0;
    const std::string problem = decimal_problem(text, lo, hi, v);
    if (!problem.empty()) throw UsageError(fmt::format("{}: {}", option, problem));
    return v;
}

CLI::Validator decimal_fraction(double lo, double hi) {
    return CLI::Validator(
        [lo, hi](std::string& s) -> std::string {
            double v = 0;
            return decimal_fraction_problem(s, lo, hi, v);
        },
        fmt::format("NUMBER in [{:g} - {:g}]", lo, hi));
}

CLI::Validator decimal(std::uint64_t lo, std::uint64_t hi) {
    return CLI::Validator(
        [lo, hi](std::string& s) -> std::string {
            std::uint64_t v = 0;
            return decimal_problem(s, lo, hi, v);
        },
        fmt::format("INT in [{} - {}]", lo, hi));
}

}  // namespace konane::cli
