// The table reader and verify against files that change under them or whose parts do not belong
// together (issue 11, "Crashes and silent wrong answers"): a table truncated or rewritten while
// open is reported as damaged, never a signal; a header on another table's body, a layer table
// that does not describe its body, a header naming another board are refused before any
// expensive work; every work file read back is checked, and a mismatch names the file.
#include <xxhash.h>
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "core/movegen.hpp"
#include "core/notation.hpp"
#include "format/block.hpp"
#include "format/table.hpp"
#include "probe/probe.hpp"
#include "solver/keyfile.hpp"
#include "solver/solve.hpp"
#include "solver/verify.hpp"
#include "solver/workdir.hpp"
#include "tests/cli_helpers.hpp"
#include "tests/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace konane;
using namespace konane::test;

namespace {

fs::path make_table(const fs::path& dir, int rows, int cols, Ruleset r) {
    solver::GenerateOptions o;
    o.board = Board::make(rows, cols);
    o.rules = r;
    o.threads = 1;
    o.output = dir / solver::default_table_name(o.board, r);
    solver::generate(o);
    return o.output;
}

std::vector<std::uint8_t> read_bytes(const fs::path& p) {
    std::vector<std::uint8_t> b(fs::file_size(p));
    std::FILE* f = std::fopen(p.c_str(), "rb");
    REQUIRE(f != nullptr);
    REQUIRE(std::fread(b.data(), 1, b.size(), f) == b.size());
    std::fclose(f);
    return b;
}

void write_bytes(const fs::path& p, const std::vector<std::uint8_t>& b) {
    std::FILE* f = std::fopen(p.c_str(), "wb");
    REQUIRE(f != nullptr);
    REQUIRE(std::fwrite(b.data(), 1, b.size(), f) == b.size());
    std::fclose(f);
}

/// Writes `b` over the file from `offset` on, in place (as dd conv=notrunc does).
void overwrite(const fs::path& p, std::size_t offset, const std::vector<std::uint8_t>& b) {
    std::FILE* f = std::fopen(p.c_str(), "r+b");
    REQUIRE(f != nullptr);
    std::fseek(f, static_cast<long>(offset), SEEK_SET);
    REQUIRE(std::fwrite(b.data(), 1, b.size(), f) == b.size());
    std::fclose(f);
}

std::uint64_t get64(const std::vector<std::uint8_t>& b, std::size_t off) {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
        v |= std::uint64_t{b[off + i]} << (8 * i);
    return v;
}
void put64(std::vector<std::uint8_t>& b, std::size_t off, std::uint64_t v) {
    for (int i = 0; i < 8; ++i)
        b[off + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

// FORMAT.md §3, §5, §7.
constexpr std::size_t kTrailer = 80, kEntry = 416;
std::size_t trailer(const std::vector<std::uint8_t>& b) {
    return b.size() - kTrailer;
}
std::size_t layer_entry(const std::vector<std::uint8_t>& b, std::size_t layer) {
    return get64(b, trailer(b) + 24) + layer * kEntry;
}

/// Recomputes every checksum, as a careful forger would: the header's, every block's (seeded
/// by the header and its layer's entry, FORMAT.md §4.3), the trailer's copy of the header's,
/// the layer table's, the whole-file XXH3-128 and the trailer's own.
void reseal(std::vector<std::uint8_t>& b) {
    namespace d = konane::format::detail;
    const std::size_t t = trailer(b);
    put64(b, 248, XXH3_64bits(b.data(), 248));
    const std::uint32_t q = static_cast<std::uint32_t>(get64(b, 20));
    const std::uint32_t v = static_cast<std::uint32_t>(get64(b, 24));
    for (std::size_t e = get64(b, t + 24); e < t; e += kEntry) {
        const std::uint64_t n = get64(b, e + 8), u = get64(b, e + 24);
        if (n == 0) continue;
        const auto g = d::LayerGeometry::make(n, u, q, v);
        const std::uint64_t w = get64(b, e + 48) & 0xFFFFFFFF;
        const std::uint64_t dir = get64(b, e + 56), dir_size = get64(b, e + 64);
        const std::uint64_t blocks = get64(b, e + 72), blocks_size = get64(b, e + 80);
        const std::uint64_t key = d::xxh3_64_seeded(b.data() + e, kEntry, get64(b, 248));
        // Only where the edited header still leaves the entries inside the directory.
        for (std::uint64_t j = 0; j < g.blocks && 2 * w * (j + 2) <= dir_size; ++j) {
            const std::uint8_t* at = b.data() + dir + 2 * w * j;
            const std::uint64_t off0 = d::load_le(at, w), first0 = d::load_le(at + w, w);
            const std::uint64_t off1 = d::load_le(at + 2 * w, w),
                                first1 = d::load_le(at + 3 * w, w);
            if (off0 + 4 > off1 || off1 > blocks_size) continue;
            std::uint8_t* blk = b.data() + blocks + off0;
            d::put32(blk, d::block_check(blk, off1 - off0,
                                         d::block_seed(key, j, off0, first0, off1, first1)));
        }
    }
    put64(b, t + 48, get64(b, 248));
    put64(b, t + 40, XXH3_64bits(b.data() + get64(b, t + 24), get64(b, t + 32)));
    const XXH128_hash_t h = XXH3_128bits(b.data(), b.size() - 24);
    put64(b, t + 56, h.low64);
    put64(b, t + 64, h.high64);
    put64(b, t + 72, XXH3_64bits(b.data() + t, 72));
}

/// The error of opening `p` as a Tablebase, or "" when it opens.
std::string open_error(const fs::path& p) {
    try {
        Tablebase::open(p);
        return "";
    } catch (const format::FormatError& e) {
        return e.what();
    }
}

/// Distinct positions of random games on the table's board (the opening stage included).
std::vector<Position> positions(const Tablebase& tb, int games, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<Position> out;
    for (int g = 0; g < games; ++g) {
        Position p = tb.board().start();
        for (;;) {
            out.push_back(p);
            const auto ms = legal_moves(tb.board(), tb.rules(), p);
            if (ms.empty()) break;
            p = ms[rng() % ms.size()].child;
        }
    }
    return out;
}

/// Probes every position's value and perfect move; counts the FormatErrors. Any other
/// exception fails the test (a signal would end it).
int probe_all(const Tablebase& tb, const std::vector<Position>& ps) {
    int errors = 0;
    for (const Position& p : ps) {
        try {
            (void)tb.value(p);
            (void)tb.best_move(p);
        } catch (const format::FormatError&) {
            ++errors;
        } catch (const NotStored&) {
            // a rewritten index may no longer hold a position: an answer, not a crash
        }
    }
    return errors;
}

}  // namespace

TEST_CASE("reader: a table truncated while open is reported as damaged and never a signal",
          "[format][damage]") {
    TempDir d("konane-reader-test");
    const fs::path src = make_table(d.path, 5, 5, Ruleset::Brainking);
    const fs::path victim = d.path / "victim.kbt";
    fs::copy_file(src, victim);
    const Tablebase tb = Tablebase::open(victim);
    const auto ps = positions(tb, 40, 7);
    REQUIRE(probe_all(tb, ps) == 0);  // every chunk these positions need is checked now
    REQUIRE(::truncate(victim.c_str(), 50000) == 0);
    // Pages past the new end fault (SIGBUS) on the next access, checked chunks or not: every
    // probe that needs one reports the table as changed while open, and so does every later
    // read.
    REQUIRE(probe_all(tb, ps) > 0);
    try {
        (void)tb.value(ps.back());
        FAIL("a probe after the fault gave an answer");
    } catch (const format::FormatError& e) {
        REQUIRE_THAT(e.what(), Catch::StartsWith(victim.string() + ": file: changed while open"));
    }
    const format::Table& t = tb.table();
    const auto r = t.verify_checksums(2);
    REQUIRE_FALSE(r.ok);
    std::vector<std::uint64_t> keys;
    std::vector<std::uint8_t> values;
    REQUIRE_THROWS_AS(t.read_keys(t.layers().size() - 1, keys), format::FormatError);
    REQUIRE_THROWS_AS(t.read_values(0, values), format::FormatError);
    // A fresh open sees the shorter file and refuses it.
    REQUIRE_THAT(open_error(victim), Catch::Contains("trailer"));
}

TEST_CASE(
    "reader: a table rewritten in place while open gives errors or answers and never a signal",
    "[format][damage]") {
    TempDir d("konane-reader-test");
    const fs::path t55 = make_table(d.path, 5, 5, Ruleset::Brainking);
    const fs::path t44 = make_table(d.path, 4, 4, Ruleset::Brainking);
    const auto other = read_bytes(t44);
    const auto size = fs::file_size(t55);
    std::mt19937_64 rng(11);
    int errors = 0;
    for (int round = 0; round < 6; ++round) {
        const fs::path victim = d.path / ("victim" + std::to_string(round) + ".kbt");
        fs::copy_file(t55, victim);
        const Tablebase tb = Tablebase::open(victim);
        const auto ps = positions(tb, 30, round);
        // Half the positions read (and check) their chunks before the file changes.
        const std::vector<Position> before(ps.begin(), ps.begin() + ps.size() / 2);
        REQUIRE(probe_all(tb, before) == 0);
        for (int k = 0; k < 8; ++k) {
            // Another table's bytes (round 0..2) or random bytes, at any offset, in place.
            std::vector<std::uint8_t> chunk = other;
            if (round >= 3) {
                chunk.resize(4096 + rng() % 16384);
                for (auto& c : chunk)
                    c = static_cast<std::uint8_t>(rng());
            }
            overwrite(victim, rng() % (size - chunk.size()), chunk);
            errors += probe_all(tb, ps);
        }
        (void)tb.table().verify_checksums(1);  // reports, never throws
    }
    REQUIRE(errors > 0);
}

TEST_CASE("reader: a header from another table is refused by the library and the commands",
          "[format][damage]") {
    TempDir d("konane-reader-test");
    const auto center = read_bytes(make_table(d.path, 4, 4, Ruleset::Center));
    auto body = read_bytes(make_table(d.path, 4, 4, Ruleset::Brainking));
    std::copy(center.begin(), center.begin() + 256, body.begin());
    const fs::path spliced = d.path / "spliced.kbt";
    write_bytes(spliced, body);
    REQUIRE_THAT(open_error(spliced),
                 Catch::StartsWith(spliced.string() + ": header: does not belong"));
    for (const char* cmd : {"info", "openings", "probe"}) {
        INFO(cmd);
        const Run r = run(std::string(cmd) + " " + spliced.string());
        CHECK(r.code == 2);
        CHECK(r.out.find("does not belong") != std::string::npos);
    }
}

TEST_CASE("reader: every header field is bound to the body with or without recomputed checksums",
          "[format][damage]") {
    TempDir d("konane-reader-test");
    const auto good = read_bytes(make_table(d.path, 4, 5, Ruleset::Brainking));
    const fs::path bad = d.path / "bad.kbt";
    // Each field that says how to read the file, changed to another valid value: rows and
    // columns swapped (the same squares), the ruleset, each writer parameter.
    struct Edit {
        const char* what;
        std::size_t offset;
        std::vector<std::uint8_t> bytes;
    };
    const std::vector<Edit> edits = {
        {"rows and cols", 16, {5, 4}},
        {"ruleset", 40, {'c', 'e', 'n', 't', 'e', 'r', 0, 0, 0}},
        {"block buckets", 20, {0, 2, 0, 0}},
        {"value group", 24, {32, 0, 0, 0}},
    };
    for (const Edit& e : edits) {
        INFO(e.what);
        auto copy = good;
        std::copy(e.bytes.begin(), e.bytes.end(), copy.begin() + e.offset);
        put64(copy, 248, XXH3_64bits(copy.data(), 248));  // the header's own checksum is right
        write_bytes(bad, copy);
        CHECK_THAT(open_error(bad), Catch::Contains("does not belong"));
        // Even with the trailer's copy and every other checksum recomputed, a field that changes
        // how the file reads (or what it means) is refused at open.
        reseal(copy);
        write_bytes(bad, copy);
        CHECK_FALSE(open_error(bad).empty());
    }
}

TEST_CASE("probe --batch on a damaged table writes the answers before the line that met it",
          "[format][damage][cli]") {
    TempDir d("konane-reader-test");
    const fs::path src = make_table(d.path, 5, 5, Ruleset::Brainking);
    const auto good = read_bytes(src);
    const fs::path bad = d.path / "bad.kbt", in = d.path / "in.txt", out = d.path / "out.txt";
    std::vector<std::string> lines;  // every stored position, layer by layer
    {
        const auto t = format::Table::open(src);
        const Board b = Board::make(5, 5);
        std::vector<std::uint64_t> keys;
        for (std::size_t l = 0; l < t->layers().size(); ++l) {
            t->read_keys(l, keys);
            for (const std::uint64_t k : keys)
                lines.push_back(
                    format_position(b, Position{k & ~(std::uint64_t{1} << 63),
                                                (k >> 63) != 0 ? Color::White : Color::Black}));
        }
    }
    // The answers go to `out`, with the error line (run() sends stderr there too): answers()
    // keeps the JSON lines.
    auto batch = [&](std::size_t count) {  // exit code
        std::FILE* f = std::fopen(in.c_str(), "w");
        REQUIRE(f != nullptr);
        for (std::size_t i = 0; i < count; ++i)
            std::fprintf(f, "%s\n", lines[i].c_str());
        std::fclose(f);
        return run("probe " + bad.string() + " --batch < " + in.string() + " > " + out.string())
            .code;
    };
    auto answers = [&] {
        const auto text = read_bytes(out);
        std::vector<std::string> json;
        std::string line;
        for (const std::uint8_t c : text) {
            if (c != '\n') {
                line += static_cast<char>(c);
                continue;
            }
            if (line.rfind("{", 0) == 0) json.push_back(line);
            line.clear();
        }
        return json;
    };
    // A byte inside the data area [256, layer table) of a block open does not read (not a
    // layer's last): the batch meets it.
    const std::size_t lt = get64(good, trailer(good) + 24);
    bool met = false;
    for (int i = 1; i < 10 && !met; ++i) {
        const std::size_t at = 256 + (lt - 256) * i / 10;
        auto copy = good;
        copy[at] ^= 0x5A;
        write_bytes(bad, copy);
        if (batch(lines.size()) != 2) continue;
        const auto before = answers();
        const std::size_t k = before.size();
        if (k == 0) continue;  // open refused it
        met = true;
        INFO("byte " << at << ", " << k << " answers");
        REQUIRE(k < lines.size());
        // The answers written are those of lines 0..k-1, and line k is the one that met it.
        CHECK(batch(k) == 0);
        CHECK(answers() == before);
        CHECK(batch(k + 1) == 2);
        CHECK(answers().size() == k);
    }
    REQUIRE(met);
}

TEST_CASE("reader: a layer table that does not describe its body is refused at open",
          "[format][damage]") {
    TempDir d("konane-reader-test");
    const fs::path src = make_table(d.path, 5, 5, Ruleset::Brainking);
    const auto good = read_bytes(src);
    const auto t = format::Table::open(src);
    const fs::path bad = d.path / "bad.kbt";
    // A count or universe one lower, in a layer where that keeps every section's size (the
    // canonical layout alone does not notice), with every checksum recomputed.
    int edited = 0;
    for (std::size_t l = 0; l < t->layers().size(); ++l) {
        const std::size_t e = layer_entry(good, l);
        for (std::size_t field : {std::size_t{8}, std::size_t{24}}) {  // positions n, universe u
            auto copy = good;
            put64(copy, e + field, get64(copy, e + field) - 1);
            reseal(copy);
            write_bytes(bad, copy);
            const std::string err = open_error(bad);
            REQUIRE_FALSE(err.empty());
            UNSCOPED_INFO(err);
            if (err.find("does not describe") != std::string::npos) ++edited;
        }
    }
    REQUIRE(edited > 0);
}

TEST_CASE("verify and open refuse a header naming a larger board before enumerating it",
          "[solver][verify][damage]") {
    TempDir d("konane-reader-test");
    auto bytes = read_bytes(make_table(d.path, 4, 4, Ruleset::Brainking));
    bytes[16] = 6;
    bytes[17] = 6;
    reseal(bytes);
    const fs::path bad = d.path / "six.kbt";
    write_bytes(bad, bytes);
    REQUIRE_THAT(open_error(bad), Catch::Contains("largest layer has 14 pieces") &&
                                      Catch::Contains("6x6 brainking starts with 34"));
    const auto t = format::Table::open(bad);  // the format alone cannot tell
    const auto t0 = std::chrono::steady_clock::now();
    solver::VerifyOptions o;
    o.threads = 1;
    o.work_dir = d.path / "work";
    const auto r = solver::verify_table(*t, o);
    REQUIRE(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
    REQUIRE_FALSE(r.ok);
    REQUIRE(r.layer_count_mismatches == 1);
    REQUIRE(r.blocks_checked == 0);  // before the checksums of the whole file
    const Run cli = run("verify -q " + bad.string());
    CHECK(cli.code == 1);
    CHECK(cli.out.find("largest layer has 14 pieces") != std::string::npos);
}

TEST_CASE("verify stops at the first enumerated layer that differs from the table",
          "[solver][verify][damage]") {
    TempDir d("konane-reader-test");
    const fs::path src = make_table(d.path, 5, 5, Ruleset::Brainking);
    auto bytes = read_bytes(src);
    const auto t0 = format::Table::open(src);
    const int li = t0->layer_index(20);
    REQUIRE(li >= 0);
    const std::size_t e = layer_entry(bytes, static_cast<std::size_t>(li));
    put64(bytes, e + 16, get64(bytes, e + 16) + 1);  // raw positions: not in the body
    reseal(bytes);
    const fs::path bad = d.path / "raw.kbt";
    write_bytes(bad, bytes);
    const auto t = format::Table::open(bad);
    solver::VerifyOptions o;
    o.threads = 1;
    o.work_dir = d.path / "work";
    int lowest = 99;
    o.progress = [&](const char* phase, int pieces, std::uint64_t, std::uint64_t) {
        if (std::string(phase) == "enumerate") lowest = std::min(lowest, pieces);
    };
    const auto r = solver::verify_table(*t, o);
    REQUIRE_FALSE(r.ok);
    REQUIRE(r.layer_count_mismatches == 1);
    REQUIRE(r.positions_checked == 0);
    REQUIRE(lowest == 20);  // layer 19 and below were never enumerated
    REQUIRE(r.problems.at(0).find("layer 20: stored") != std::string::npos);
}

TEST_CASE("work files: every byte flipped in a key file is an error naming the file",
          "[solver][damage]") {
    TempDir d("konane-reader-test");
    const fs::path p = d.path / "layer-7.keys";
    std::vector<std::uint64_t> words;
    std::mt19937_64 rng(3);
    std::uint64_t x = 0;
    for (int i = 0; i < 300; ++i)
        words.push_back(x += 1 + rng() % 1000);
    solver::write_key_file(p, words);
    REQUIRE(solver::read_key_file(p) == words);
    const auto good = read_bytes(p);
    for (std::size_t i = 0; i < good.size(); ++i) {
        for (std::uint8_t mask : {std::uint8_t{0x01}, std::uint8_t{0x80}}) {
            auto copy = good;
            copy[i] ^= mask;
            write_bytes(p, copy);
            try {
                (void)solver::read_key_file(p);
                FAIL("byte " << i << " ^ " << int(mask) << " was not noticed");
            } catch (const solver::KeyFileError& e) {
                if (std::string(e.what()).find(p.string()) == std::string::npos)
                    FAIL("the message does not name the file: " << e.what());
            }
        }
    }
}

TEST_CASE("work files: a depth file is read back only for exactly its length", "[solver][damage]") {
    TempDir d("konane-reader-test");
    const fs::path p = d.path / "solved-9.depth";
    const std::vector<std::uint8_t> depth = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    solver::write_byte_file(p, depth);
    REQUIRE(solver::read_byte_file(p, depth.size()) == depth);
    // The depths of a shorter layer: another layer's file, not this one.
    REQUIRE_THROWS_WITH(solver::read_byte_file(p, 3), Catch::Contains(p.string()));
    REQUIRE_THROWS_WITH(solver::read_byte_file(p, 17), Catch::Contains(p.string()));
    // Nonzero bytes after the length.
    const std::vector<std::uint8_t> longer = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    solver::write_byte_file(p, longer);
    REQUIRE_THROWS_WITH(solver::read_byte_file(p, 11), Catch::Contains("padding"));
}

TEST_CASE("a damaged solved-layer file is refused on resume and named",
          "[cli][generate][resume][damage]") {
    for (const char* ext : {".depth", ".mphf"}) {
        INFO(ext);
        TempDir d("konane-reader-test");
        const fs::path table = d.path / "t.kbt";
        const fs::path work = d.path / "t.kbt.work";
        // Killed while solving: the solved layers of the finished steps are on disk.
        const Run killed =
            run("generate 5x5 -q -j 1 -o " + table.string(), "env KONANE_KILL_AT=125");
        REQUIRE(killed.code != 0);
        fs::path victim;
        for (const auto& e : fs::directory_iterator(work)) {
            const std::string name = e.path().filename().string();
            if (name.rfind("solved-", 0) == 0 && e.path().extension() == ext &&
                (victim.empty() || fs::file_size(e.path()) > fs::file_size(victim)))
                victim = e.path();
        }
        REQUIRE_FALSE(victim.empty());
        REQUIRE(fs::file_size(victim) > 40);
        auto bytes = read_bytes(victim);
        bytes[bytes.size() - 10] ^= 0x04;
        write_bytes(victim, bytes);
        const Run r = run("generate 5x5 -q -j 1 -o " + table.string());
        CHECK(r.code == 1);
        CHECK(r.out.find(victim.filename().string()) != std::string::npos);
        CHECK(r.out.find("checksum mismatch") != std::string::npos);
        CHECK_FALSE(fs::exists(table));
    }
}

TEST_CASE("work files: every byte flipped in a resume manifest is refused", "[solver][damage]") {
    TempDir d("konane-reader-test");
    const fs::path work = d.path / "work";
    const Board b = Board::make(4, 4);
    {
        solver::WorkDir wd(work, b, Ruleset::Brainking);
        wd.record_enumerated(14, 0, 0, 0.5);  // no positions: no keys file is needed
    }
    const fs::path manifest = work / "manifest";
    const auto good = read_bytes(manifest);
    REQUIRE(good.size() > 40);
    { solver::WorkDir resumed(work, b, Ruleset::Brainking); }  // the intact one is taken
    for (std::size_t i = 0; i < good.size(); ++i) {
        auto copy = good;
        copy[i] ^= 0x01;
        write_bytes(manifest, copy);
        try {
            solver::WorkDir wd(work, b, Ruleset::Brainking);
            FAIL("byte " << i << " of the manifest was not noticed");
        } catch (const std::runtime_error& e) {
            if (std::string(e.what()).find("manifest") == std::string::npos)
                FAIL("the message does not name the manifest: " << e.what());
        }
    }
    // And a line appended after the checksum.
    auto longer = good;
    longer.push_back('x');
    write_bytes(manifest, longer);
    REQUIRE_THROWS_WITH(solver::WorkDir(work, b, Ruleset::Brainking),
                        Catch::Contains("damaged manifest"));
}

TEST_CASE("work files: a solved line cut short or with an unknown form is refused",
          "[solver][damage]") {
    TempDir d("konane-reader-test");
    const fs::path work = d.path / "work";
    const Board b = Board::make(4, 4);
    {
        solver::WorkDir wd(work, b, Ruleset::Brainking);
        wd.record_enumerated(14, 0, 0, 0.5);
        wd.record_solved(14, 0, 0, 0, true);
    }
    const fs::path manifest = work / "manifest";
    const auto bytes = read_bytes(manifest);
    const std::string good(bytes.begin(), bytes.end());
    const auto at = good.find("solved 14 ");
    REQUIRE(at != std::string::npos);
    const auto eol = good.find('\n', at);
    REQUIRE(good.substr(at, eol - at).ends_with(" ranked"));
    // The same manifest with the solved line replaced, under a checksum that matches it.
    auto with_line = [&](const std::string& line) {
        std::string text = good.substr(0, at) + line + good.substr(eol, good.rfind("xxh3 ") - eol);
        char sum[17];
        std::snprintf(sum, sizeof sum, "%016llx",
                      static_cast<unsigned long long>(XXH3_64bits(text.data(), text.size())));
        text += "xxh3 " + std::string(sum) + "\n";
        write_bytes(manifest, std::vector<std::uint8_t>(text.begin(), text.end()));
    };
    with_line(good.substr(at, eol - at));  // the rebuilt manifest itself is taken
    CHECK(solver::WorkDir(work, b, Ruleset::Brainking).layer(14).by_rank);
    for (const std::string line : {"solved 14", "solved 14 0 0", "solved 14 0 0 0 rss 0 disk 0 x",
                                   "solved 14 0 0 0 rss 0 disk 0 ranked2"}) {
        INFO(line);
        with_line(line);
        REQUIRE_THROWS_WITH(solver::WorkDir(work, b, Ruleset::Brainking),
                            Catch::Contains("damaged manifest line"));
    }
    with_line("solved 14 0 0 0 rss 0 disk 0");  // no form: by slot
    CHECK_FALSE(solver::WorkDir(work, b, Ruleset::Brainking).layer(14).by_rank);
}
