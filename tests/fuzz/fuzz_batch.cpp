// libFuzzer target: `konane probe FILE --batch`, whose every input line goes through
// cli/json.hpp batch_line(), against a real 4x4 brainking table written at start-up.
// The input is split into lines as the command splits standard input.
// Properties: batch_line never throws; each answer is one line of valid JSON, an object with
// "position" and either "error" or "stored" (with "value" and "depth" when stored).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "cli/json.hpp"
#include "probe/probe.hpp"
#include "tests/fuzz/check.hpp"
#include "tests/fuzz/tables.hpp"

using namespace konane;

namespace {
std::optional<Tablebase> table;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    char dir[] = "/tmp/konane-fuzz-batch-XXXXXX";
    if (::mkdtemp(dir) == nullptr) {
        std::perror("fuzz_batch: mkdtemp");
        std::abort();
    }
    const auto path = fuzz::write_table(dir, Board::make(4, 4), Ruleset::Brainking);
    table = Tablebase::open(path);
    std::filesystem::remove_all(dir);  // the mapping stays valid
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view in(reinterpret_cast<const char*>(data), size);
    while (!in.empty()) {
        const auto nl = in.find('\n');
        const std::string_view line = in.substr(0, nl);
        in.remove_prefix(nl == std::string_view::npos ? in.size() : nl + 1);
        const std::string out = cli::batch_line(*table, line);
        FUZZ_CHECK(out.find('\n') == std::string::npos);
        const cli::json j = cli::json::parse(out);
        FUZZ_CHECK(j.is_object() && j.contains("position"));
        FUZZ_CHECK(j.contains("error") != j.contains("stored"));
        if (j.contains("stored") && j["stored"].get<bool>())
            FUZZ_CHECK(j.contains("value") && j.contains("depth"));
    }
    return 0;
}
