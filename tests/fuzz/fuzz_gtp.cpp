// libFuzzer target: `konane engine`, the Go Text Protocol session (engine/gtp.hpp) reading its
// commands from the input through its bounded line reader (process/line_reader.hpp), as the
// command reads standard input. The engine plays 200 nodes a move in 2 MiB, so that genmove
// stays cheap.
// Properties: run() never throws; every answer begins with '=' or '?' and ends with an empty
// line, no answer holds a control character but the newline, and there are no more answers
// than input lines.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "engine/gtp.hpp"
#include "tests/fuzz/check.hpp"

using namespace konane;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    engine::GtpOptions o;
    o.engine.memory_bytes = std::size_t{2} << 20;
    o.limits.nodes = 200;
    engine::GtpSession s(o);
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    std::ostringstream out;
    s.run(in, out);
    const std::string answers = out.str();
    const auto lines = static_cast<std::size_t>(std::count(data, data + size, '\n')) + 1;
    std::size_t count = 0;
    for (std::size_t at = 0; at < answers.size(); ++count) {
        FUZZ_CHECK(answers[at] == '=' || answers[at] == '?');
        const std::size_t end = answers.find("\n\n", at);
        FUZZ_CHECK(end != std::string::npos);
        for (std::size_t i = at; i < end; ++i) {
            const auto c = static_cast<unsigned char>(answers[i]);
            FUZZ_CHECK(c == '\n' || (c >= 32 && c != 127));
        }
        at = end + 2;
    }
    FUZZ_CHECK(count <= lines);
    return 0;
}
