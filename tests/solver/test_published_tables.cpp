// The published sha256 of the small tables (docs/tables.sha256, written by scripts/build-tables
// and quoted in docs/solved.md) equal those of fresh builds: generation is deterministic byte for
// byte, so a rebuilt table can be checked without the published file. The list is read from the
// docs file itself, so the page and the test cannot drift apart.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "core/board.hpp"
#include "solver/solve.hpp"
#include "tests/cli_helpers.hpp"
#include "tests/temp_dir.hpp"

using namespace konane;

namespace {

/// Boards of at most this many squares are rebuilt (every board up to 5x5; the larger ones take
/// seconds to minutes each and are checked by scripts/check-tables after scripts/build-tables).
constexpr int kMaxRebuiltSquares = 25;

/// The lines of docs/tables.sha256: file name -> sha256 (hex).
std::map<std::string, std::string> published_sums() {
    std::ifstream in(std::string(KONANE_SOURCE_DIR) + "/docs/tables.sha256");
    REQUIRE(in.good());
    std::map<std::string, std::string> out;
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        std::string hash, name;
        REQUIRE(static_cast<bool>(words >> hash >> name));
        REQUIRE(hash.size() == 64);
        out.emplace(name, hash);
    }
    return out;
}

/// The sha256 of a file, in hex.
std::string sha256_of(const std::filesystem::path& file) {
    std::FILE* p = ::popen(("sha256sum " + test::quote(file.string()) + " 2>&1").c_str(), "r");
    REQUIRE(p != nullptr);
    char buf[256] = {};
    const std::size_t n = std::fread(buf, 1, sizeof buf - 1, p);
    REQUIRE(::pclose(p) == 0);
    return std::string(buf, n).substr(0, 64);
}

}  // namespace

TEST_CASE("published sha256: fresh builds of every table up to 25 squares match docs/tables.sha256",
          "[published]") {
    const auto sums = published_sums();
    // The file lists the small boards at least (an empty or cut file must not pass).
    REQUIRE(sums.count("konane-4x4-brainking.kbt") == 1);
    REQUIRE(sums.count("konane-5x5-brainking.kbt") == 1);
    test::TempDir dir("published", KONANE_TEST_TMPDIR);
    int checked = 0;
    for (const auto& [name, hash] : sums) {
        // konane-RxC-brainking.kbt
        const std::string prefix = "konane-", suffix = "-brainking.kbt";
        REQUIRE(name.rfind(prefix, 0) == 0);
        REQUIRE(name.size() > prefix.size() + suffix.size());
        const Board b =
            Board::parse(name.substr(prefix.size(), name.size() - prefix.size() - suffix.size()));
        if (b.squares() > kMaxRebuiltSquares) continue;
        CAPTURE(name);
        solver::GenerateOptions o;
        o.board = b;
        o.rules = Ruleset::Brainking;
        o.threads = 2;
        o.output = dir.path / name;
        solver::generate(o);
        CHECK(sha256_of(o.output) == hash);
        std::filesystem::remove(o.output);
        ++checked;
    }
    // 1x2..1x25, 2x2..2x12, 3x3..3x8, 4x4, 4x5, 5x4, 5x5 in the published list.
    CHECK(checked >= 40);
}

TEST_CASE(
    "published sha256: a budget too small for a layer's keys beside its perfect hash's "
    "build builds the hash from the key file, to the same bytes",
    "[published][slow]") {
    // 4x7's layers 11 and 12 (1.60 and 1.54 million positions) need about 43 MB each with their
    // keys held through the build (solve_memory_bytes), 34 MB when the hash is built from the
    // key file (solve_memory_bytes_streamed); the other layers fit 40 MiB whole.
    const auto sums = published_sums();
    REQUIRE(sums.count("konane-4x7-brainking.kbt") == 1);
    test::TempDir dir("streamed", KONANE_TEST_TMPDIR);
    solver::GenerateOptions o;
    o.board = Board::make(4, 7);
    o.threads = 2;
    o.memory_bytes = std::uint64_t{40} << 20;
    o.output = dir.path / "konane-4x7-brainking.kbt";
    const auto rep = solver::generate(o);
    CHECK(rep.streamed_layers == 2);
    CHECK(sha256_of(o.output) == sums.at("konane-4x7-brainking.kbt"));
}

TEST_CASE(
    "published sha256: layers solved by joins, resumed by look-ups under a budget too small "
    "for a layer's keys beside its perfect hash's build, index it from the key file",
    "[published][slow][join]") {
    const auto sums = published_sums();
    REQUIRE(sums.count("konane-4x7-brainking.kbt") == 1);
    test::TempDir dir("streamed-join", KONANE_TEST_TMPDIR);
    solver::GenerateOptions o;
    o.board = Board::make(4, 7);
    o.threads = 1;
    o.work_dir = dir.path / "work";
    o.keep_work = true;
    o.solve_by = solver::SolveMethod::join;
    o.memory_bytes = std::uint64_t{512} << 20;
    const auto joined = solver::generate(o);  // no table: the work directory keeps the layers
    REQUIRE(joined.join_layers == static_cast<int>(joined.layers.size()));
    // Each layer read back by rank is indexed by perfect hash for the look-ups of the layers
    // above; 11 and 12 from their key files (as in the test above).
    o.solve_by = solver::SolveMethod::hash;
    o.memory_bytes = std::uint64_t{40} << 20;
    o.output = dir.path / "konane-4x7-brainking.kbt";
    const auto rep = solver::generate(o);
    CHECK(rep.streamed_layers == 2);
    CHECK(rep.join_layers == static_cast<int>(rep.layers.size()));  // as stored
    CHECK(sha256_of(o.output) == sums.at("konane-4x7-brainking.kbt"));
}
