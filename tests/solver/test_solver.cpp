// The generator against the plain reference engine of tests/reference.hpp: class and raw counts
// per layer, and every stored value and depth (issue: konane generate).
#include <catch2/catch.hpp>

#include <unistd.h>
#include <algorithm>
#include <bit>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <set>

#include "format/table.hpp"
#include "solver/entry_packing.hpp"
#include "solver/estimate.hpp"
#include "solver/keyfile.hpp"
#include "solver/radix_sort.hpp"
#include "solver/solve.hpp"
#include "solver/verify.hpp"
#include "solver/workdir.hpp"
#include "tests/reference.hpp"
#include "tests/solved_check.hpp"

using namespace konane;

namespace {

struct TempDir {
    std::filesystem::path path;
    TempDir() {
        path = std::filesystem::temp_directory_path() /
               ("konane-solver-test-" + std::to_string(::getpid()) + "-" +
                std::to_string(reinterpret_cast<std::uintptr_t>(this)));
        std::filesystem::create_directories(path);
    }
    ~TempDir() { std::filesystem::remove_all(path); }
};

std::vector<char> read_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Checks every stored class of board b under ruleset r against the reference engine: the
// per-layer class and raw counts against a plain enumeration, and every depth against a plain
// memoised negamax (no symmetry, no hashing).
void check_against_reference(int rows, int cols, Ruleset r) {
    INFO("board " << rows << "x" << cols << " ruleset " << ruleset_name(r));
    const Board b = Board::make(rows, cols);
    solver::GenerateOptions o;
    o.board = b;
    o.rules = r;
    o.threads = 2;
    o.keep_layers = true;
    const auto rep = solver::generate(o);

    const ref::RefBoard rb{rows, cols};
    ref::RefMemo memo(rb, ref::rules_of(r));
    test::check_solved_against_reference(rb, rep, ref::enumerate_reachable(rb, ref::rules_of(r)),
                                         memo);
}

}  // namespace

TEST_CASE(
    "generate solved by sort-merge joins from a layer size, if the budget holds them, "
    "writes the same table",
    "[solver][join]") {
    TempDir d;
    solver::GenerateOptions o;
    o.board = Board::make(5, 5);
    o.threads = 2;
    o.solve_by = solver::SolveMethod::hash;
    o.output = d.path / "hash.kbt";
    const auto h = solver::generate(o);
    CHECK(h.join_layers == 0);
    const auto want = read_file(o.output);
    REQUIRE(!want.empty());
    // From the first layer of 2,000 positions up, every layer joins, the small top ones too.
    o.solve_by = solver::SolveMethod::automatic;
    o.join_from_positions = 2000;
    o.output = d.path / "from.kbt";
    const auto a = solver::generate(o);
    CHECK(read_file(o.output) == want);
    bool joined = false;
    for (const auto& l : a.layers) {
        INFO("layer " << l.pieces << ", " << l.classes << " positions");
        joined = joined || l.classes >= 2000;
        CHECK(l.by_join == joined);
    }
    CHECK(a.join_layers > 0);
    CHECK(a.join_layers < static_cast<int>(a.layers.size()));
    // Every layer would join, but a 24 MiB budget cannot hold the largest ones' joins: then no
    // layer joins (a layer looked up by perfect hash above joined ones would hold both forms).
    o.join_from_positions = 0;
    o.memory_bytes = std::uint64_t{24} << 20;
    o.output = d.path / "budget.kbt";
    const auto m = solver::generate(o);
    CHECK(read_file(o.output) == want);
    CHECK(m.join_layers == 0);
    // With room for them, every layer joins.
    o.memory_bytes = std::uint64_t{256} << 20;
    o.output = d.path / "all.kbt";
    const auto all = solver::generate(o);
    CHECK(read_file(o.output) == want);
    CHECK(all.join_layers == static_cast<int>(all.layers.size()));
}

TEST_CASE("generate resumed by joins over layers stored by slot, with no table to write",
          "[solver][join]") {
    TempDir d;
    solver::GenerateOptions o;
    o.board = Board::make(5, 5);
    o.threads = 2;
    o.work_dir = d.path / "work";
    o.keep_work = true;
    o.solve_by = solver::SolveMethod::hash;
    const auto first = solver::generate(o);
    REQUIRE(std::filesystem::exists(o.work_dir / "manifest"));
    // Every layer read back by slot; from 2,000 positions up the layers would join, so the
    // layers just below are needed both ways, and no writer has put them in key order.
    o.solve_by = solver::SolveMethod::automatic;
    o.join_from_positions = 2000;
    const auto again = solver::generate(o);
    REQUIRE(again.layers.size() == first.layers.size());
    for (std::size_t i = 0; i < again.layers.size(); ++i) {
        CHECK(again.layers[i].max_depth == first.layers[i].max_depth);
        CHECK_FALSE(again.layers[i].by_join);  // as stored
    }
    o.output = d.path / "t.kbt";
    solver::generate(o);
    o.solve_by = solver::SolveMethod::hash;
    o.work_dir = d.path / "fresh";
    o.keep_work = false;
    o.output = d.path / "ref.kbt";
    solver::generate(o);
    CHECK(read_file(d.path / "t.kbt") == read_file(d.path / "ref.kbt"));
}

TEST_CASE("every board of at most 20 squares: counts and values equal the reference", "[solver]") {
    // Rows and columns past 8 included: 1x9 .. 1x20, 2x9, 2x10 and their transposes.
    for (Ruleset r : {Ruleset::Brainking, Ruleset::Center, Ruleset::Any}) {
        for (int rows = 1; rows <= 20; ++rows) {
            for (int cols = 1; rows * cols <= 20; ++cols)
                check_against_reference(rows, cols, r);
        }
    }
}

TEST_CASE("boards past 8 per side up to 28 squares: counts and values equal the reference",
          "[solver][wide]") {
    for (const auto& [rows, cols] :
         {std::pair{2, 12}, std::pair{12, 2}, std::pair{1, 28}, std::pair{2, 14}}) {
        check_against_reference(rows, cols, Ruleset::Brainking);
    }
    check_against_reference(1, 24, Ruleset::Any);
}

TEST_CASE("5x5 and 4x6 brainking: counts and values equal the reference", "[solver][slow]") {
    check_against_reference(5, 5, Ruleset::Brainking);
    check_against_reference(4, 6, Ruleset::Brainking);
}

TEST_CASE("4x4 brainking: 975 classes and 3858 raw positions (rules.md)", "[solver]") {
    solver::GenerateOptions o;
    o.board = Board::make(4, 4);
    const auto rep = solver::generate(o);
    CHECK(rep.classes == 975);
    CHECK(rep.raw == 3858);
}

TEST_CASE("threads 1 and 2 write identical files", "[solver][determinism]") {
    TempDir dir;
    for (auto [rows, cols, r] :
         {std::tuple{4, 5, Ruleset::Any}, std::tuple{5, 5, Ruleset::Brainking}}) {
        std::vector<std::vector<char>> files;
        for (int threads : {1, 2}) {
            solver::GenerateOptions o;
            o.board = Board::make(rows, cols);
            o.rules = r;
            o.threads = threads;
            o.output = dir.path / ("j" + std::to_string(threads) + ".kbt");
            solver::generate(o);
            files.push_back(read_file(o.output));
        }
        REQUIRE(files[0].size() > 100);
        CHECK(files[0] == files[1]);
    }
}

TEST_CASE("a small memory budget spills sorted runs and gives the same layers", "[solver][spill]") {
    TempDir dir;
    for (const auto& [board, rules] : {std::pair{Board::make(4, 5), Ruleset::Any},
                                       std::pair{Board::make(5, 5), Ruleset::Brainking}}) {
        INFO(board.name());
        std::vector<std::vector<std::vector<std::uint64_t>>> layers;
        std::vector<std::vector<std::uint64_t>> raws;
        std::vector<std::uint64_t> runs;
        // 1 MiB: the arena of waiting children holds 2^16 entries, so the children of every
        // large layer are sorted and written to disk in several runs, then merged.
        for (std::uint64_t memory : {std::uint64_t{1} << 30, std::uint64_t{1} << 20}) {
            for (int threads : {1, 2}) {
                const auto path =
                    dir.path / ("w" + std::to_string(memory) + std::to_string(threads));
                solver::WorkDir wd(path, board, rules);
                solver::EnumerateOptions eo;
                eo.threads = threads;
                eo.memory_bytes = memory;
                runs.push_back(solver::enumerate_to(wd, board, rules, eo));
                CHECK(wd.enumeration_complete());
                layers.emplace_back();
                raws.emplace_back();
                for (int n = solver::first_layer_pieces(board); n >= 0; --n) {
                    layers.back().push_back(solver::read_key_file(wd.layer_keys(n)));
                    CHECK(layers.back().back().size() == wd.layer(n).classes);
                    raws.back().push_back(wd.layer(n).raw);
                }
                wd.remove_all();
            }
        }
        // The reference engine's plain enumeration agrees on every layer's count.
        const ref::RefBoard rb{board.rows, board.cols};
        const auto reach = ref::enumerate_reachable(rb, ref::rules_of(rules));
        REQUIRE(reach.classes > 10000);
        for (int n = solver::first_layer_pieces(board), i = 0; n >= 0; --n, ++i) {
            const auto it = reach.classes_by_pieces.find(n);
            CHECK(layers[1][i].size() == (it == reach.classes_by_pieces.end() ? 0 : it->second));
        }
        for (std::size_t i = 1; i < layers.size(); ++i) {
            CHECK(layers[i] == layers[0]);
            CHECK(raws[i] == raws[0]);
        }
        CHECK(runs[2] >= runs[0]);
        if (board.squares() == 25) {
            CHECK(runs[2] > runs[0]);  // 5x5: more than one run for some layers
        }
    }
}

TEST_CASE("generate gives the same file under any budget and thread count", "[solver][spill]") {
    TempDir dir;
    std::vector<std::vector<char>> files;
    for (std::uint64_t memory : {std::uint64_t{1} << 30, std::uint64_t{16} << 20}) {
        for (int threads : {1, 2}) {
            solver::GenerateOptions o;
            o.board = Board::make(4, 5);
            o.rules = Ruleset::Any;
            o.threads = threads;
            o.memory_bytes = memory;
            o.output =
                dir.path / ("m" + std::to_string(memory) + "j" + std::to_string(threads) + ".kbt");
            o.work_dir = dir.path / "work";
            const auto rep = solver::generate(o);
            CHECK_FALSE(std::filesystem::exists(o.work_dir));  // removed once complete
            CHECK(rep.peak_work_bytes > 0);
            files.push_back(read_file(o.output));
        }
    }
    REQUIRE(files[0].size() > 100);
    for (const auto& f : files)
        CHECK(f == files[0]);
}

TEST_CASE("generate refuses a budget that cannot hold a layer's solve", "[solver][spill]") {
    TempDir dir;
    solver::GenerateOptions o;
    o.board = Board::make(5, 5);
    o.memory_bytes = std::uint64_t{1} << 20;
    o.output = dir.path / "t.kbt";
    o.work_dir = dir.path / "work";
    // Known board and ruleset: refused from the estimate, before any work.
    CHECK_THROWS_WITH(solver::generate(o),
                      Catch::Contains("cannot hold the solve of 5x5 brainking") &&
                          Catch::Contains("largest layer"));
    CHECK_FALSE(std::filesystem::exists(o.work_dir));
    // Ruleset `any` has no estimate: refused once its layers are counted, the enumeration kept.
    o.rules = Ruleset::Any;
    CHECK_THROWS_WITH(solver::generate(o), Catch::Contains("cannot hold the solve of 5x5") &&
                                               Catch::Contains("its largest layer") &&
                                               Catch::Contains("to resume"));
    CHECK_FALSE(std::filesystem::exists(o.output));
    CHECK(std::filesystem::exists(o.work_dir / "manifest"));
    // A larger budget resumes and completes, with the file of a run never interrupted.
    o.memory_bytes = std::uint64_t{256} << 20;
    const auto rep = solver::generate(o);
    CHECK(rep.resumed);
    CHECK_FALSE(std::filesystem::exists(o.work_dir));
    solver::GenerateOptions fresh = o;
    fresh.output = dir.path / "fresh.kbt";
    fresh.work_dir = dir.path / "fresh-work";
    const auto rep2 = solver::generate(fresh);
    CHECK_FALSE(rep2.resumed);
    CHECK(rep.classes == rep2.classes);
    CHECK(read_file(o.output) == read_file(fresh.output));
}

TEST_CASE("the size estimates agree with the tables generated here", "[solver]") {
    // 9x2 and 12x1 were not measured: their transposes' figures stand for them.
    for (auto [r, c] : {std::pair{3, 5}, {4, 4}, {4, 5}, {5, 4}, {3, 6}, {2, 9}, {9, 2}, {12, 1}}) {
        const Board b = Board::make(r, c);
        INFO(b.name());
        const auto e = solver::estimate_resources(b, Ruleset::Brainking);
        REQUIRE(e.has_value());
        CHECK_FALSE(e->upper_bound);
        solver::GenerateOptions o;
        o.board = b;
        o.keep_layers = true;
        const auto rep = solver::generate(o);
        CHECK(rep.classes == e->classes);
        // The largest layer and its window are among the measured layers.
        bool found = false;
        for (const auto& l : rep.layers)
            found = found || l.classes == e->largest_layer;
        CHECK(found);
        CHECK(e->memory_bytes == solver::solve_memory_bytes_streamed(e->largest_layer, e->window));
        const auto center = solver::estimate_resources(b, Ruleset::Center);
        REQUIRE(center.has_value());
        CHECK(center->upper_bound);
    }
    CHECK_FALSE(solver::estimate_resources(Board::make(5, 5), Ruleset::Any).has_value());
    CHECK_FALSE(solver::estimate_resources(Board::make(6, 7), Ruleset::Brainking).has_value());
    CHECK_FALSE(solver::estimate_resources(Board::make(7, 6), Ruleset::Brainking).has_value());
}

TEST_CASE("verify accepts a generated table and finds a wrong value", "[solver][verify]") {
    TempDir dir;
    solver::GenerateOptions o;
    o.board = Board::make(4, 5);
    o.keep_layers = true;
    o.output = dir.path / "good.kbt";
    const auto rep = solver::generate(o);
    {
        const auto t = format::Table::open(o.output);
        solver::VerifyOptions vo;
        vo.threads = 2;
        const auto r = solver::verify_table(*t, vo);
        CHECK(r.ok);
        CHECK(r.problems.empty());
        CHECK(r.positions_checked == rep.classes);
        CHECK(r.wrong_values == 0);
    }
    // The same layers with one depth changed, written with valid checksums: only the
    // retrograde consistency pass can tell.
    format::TableMeta meta;
    meta.rows = 4;
    meta.cols = 5;
    meta.ruleset = "brainking";
    meta.generator = "test";
    const auto bad = dir.path / "bad.kbt";
    {
        format::TableWriter w(bad, meta, 1);
        for (std::size_t i = 0; i < rep.solved.size(); ++i) {
            const auto& l = rep.solved[i];
            std::vector<std::uint8_t> depth(l.keys.size());
            for (std::size_t k = 0; k < l.keys.size(); ++k)
                depth[k] = l.depth[l.mphf(l.keys[k])];
            if (l.pieces == 10) depth[depth.size() / 2] ^= 1;  // WIN <-> LOSS
            w.add_layer({static_cast<std::uint32_t>(l.pieces), l.keys.size(), l.raw}, l.keys,
                        depth);
        }
        w.commit();
    }
    const auto t = format::Table::open(bad);
    solver::VerifyOptions vo;
    vo.threads = 2;
    const auto r = solver::verify_table(*t, vo);
    CHECK_FALSE(r.ok);
    // The changed position, and possibly parents whose values depend on it.
    CHECK(r.wrong_values >= 1);

    // One position of the 10-piece layer replaced by another position of 10 pieces that is not
    // reachable: the stored set differs from the enumerated one.
    const auto other = dir.path / "other.kbt";
    {
        format::TableWriter w(other, meta, 1);
        for (std::size_t i = 0; i < rep.solved.size(); ++i) {
            const auto& l = rep.solved[i];
            std::vector<std::uint64_t> keys = l.keys;
            std::vector<std::uint8_t> depth(l.keys.size());
            for (std::size_t k = 0; k < l.keys.size(); ++k)
                depth[k] = l.depth[l.mphf(l.keys[k])];
            if (l.pieces == 10) {
                std::uint64_t fresh = 0;
                for (std::uint64_t occ = (1u << 10) - 1; fresh == 0; ++occ)
                    if (std::popcount(occ) == 10 &&
                        !std::binary_search(keys.begin(), keys.end(), occ))
                        fresh = occ;
                keys[0] = fresh;
                std::sort(keys.begin(), keys.end());
            }
            w.add_layer({static_cast<std::uint32_t>(l.pieces), keys.size(), l.raw}, keys, depth);
        }
        w.commit();
    }
    solver::VerifyOptions vo2;
    vo2.threads = 2;
    const auto r2 = solver::verify_table(*format::Table::open(other), vo2);
    CHECK_FALSE(r2.ok);
    CHECK(r2.key_mismatches == 1);
}

TEST_CASE("generate refuses boards over 36 squares", "[solver]") {
    solver::GenerateOptions o;
    o.board = Board::make(6, 7);
    CHECK_THROWS_AS(solver::generate(o), std::invalid_argument);
}

TEST_CASE("enumeration entries with the longest jumps' tags sort by the radix path",
          "[solver][sort]") {
    // The enumeration tags each child with the pieces its jump captured and radix-sorts the
    // arena by sort_bits(), which must cover the tag: 1x36 has jumps of up to 17 captures. The
    // buffers are large enough (2^17 entries) for the parallel pass by the top bits.
    std::mt19937_64 rng(21);
    for (const auto& [rows, cols] : {std::pair{1, 36}, {2, 18}, {1, 17}, {6, 6}, {4, 4}}) {
        const Board b = Board::make(rows, cols);
        for (const int flag_bits : {2, SymmetryGroup(b).size()}) {
            const auto pk = solver::EntryPacking::of(b, flag_bits);
            INFO(b.name() << " flags " << flag_bits << " sort bits " << pk.sort_bits());
            REQUIRE(pk.sort_bits() <= 64);
            std::vector<std::uint64_t> v(std::size_t{1} << 17);
            for (auto& e : v) {
                const std::uint64_t key = (rng() & b.all) | (rng() & (std::uint64_t{1} << 63));
                const std::uint64_t flags = rng() & pk.flag_mask();
                // Mostly the longest captures, so the top bits of the tag are set.
                const std::uint64_t captured =
                    rng() % 2 ? solver::max_capture(b) : 1 + rng() % solver::max_capture(b);
                e = pk.tagged(pk.pack(key, flags), captured);
                REQUIRE(pk.tag(e) == captured);
                REQUIRE(pk.key(pk.untagged(e)) == key);
                REQUIRE((e & pk.flag_mask()) == flags);
                if (pk.sort_bits() < 64) REQUIRE((e >> pk.sort_bits()) == 0);
            }
            std::vector<std::uint64_t> want = v;
            std::sort(want.begin(), want.end());
            for (const int threads : {1, 2}) {
                std::vector<std::uint64_t> got = v, scratch;
                solver::radix_sort(got, scratch, pk.sort_bits(), threads);
                REQUIRE(got == want);
            }
        }
    }
}

TEST_CASE("radix_sort sorts like std::sort for any size, width, skew and thread count",
          "[solver][sort]") {
    std::mt19937_64 rng(11);
    for (const std::size_t n : {0, 1, 2, 100, 5000, 70000, 300000}) {
        for (const int bits : {8, 20, 23, 33, 42, 61}) {
            for (const int skew : {0, 1, 2}) {
                std::vector<std::uint64_t> v(n);
                const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
                for (auto& x : v) {
                    x = rng() & mask;
                    // 1: the top bits mostly zero (one bucket holds nearly all), 2: few values.
                    if (skew == 1 && rng() % 8 != 0) x >>= std::min(bits - 1, 12);
                    if (skew == 2) x %= 37;
                }
                std::vector<std::uint64_t> want = v;
                std::sort(want.begin(), want.end());
                for (const int threads : {1, 2}) {
                    std::vector<std::uint64_t> got = v, scratch;
                    solver::radix_sort(got, scratch, bits, threads);
                    INFO("n " << n << " bits " << bits << " skew " << skew << " threads "
                              << threads);
                    REQUIRE(got == want);
                }
            }
        }
    }
}

TEST_CASE("msd_lsd_serial sorts by a field above free low bits, as the join's records",
          "[solver][sort]") {
    // The join sorts records by the key in bits [lo, lo + bits), the parent's index below it in
    // any order: the result must be a permutation ordered by the field, however skewed the
    // field's top bits (buckets past the cache split again).
    std::mt19937_64 rng(12);
    for (const std::size_t n : {3, 300, 70000, 400000}) {
        for (const int lo : {0, 5, 21}) {
            for (const int bits : {9, 30, 37}) {
                for (const int skew : {0, 1}) {
                    std::vector<std::uint64_t> v(n), scratch(n);
                    for (auto& x : v) {
                        std::uint64_t field = rng() & ((std::uint64_t{1} << bits) - 1);
                        if (skew == 1 && rng() % 8 != 0) field >>= std::min(bits - 1, 14);
                        x = field << lo | (rng() & ((std::uint64_t{1} << lo) - 1));
                    }
                    std::vector<std::uint64_t> got = v;
                    if (solver::radix_detail::msd_lsd_serial(got.data(), scratch.data(), n, bits,
                                                             lo)) {
                        got = scratch;
                    }
                    INFO("n " << n << " lo " << lo << " bits " << bits << " skew " << skew);
                    REQUIRE(std::is_sorted(got.begin(), got.end(),
                                           [&](auto a, auto b) { return (a >> lo) < (b >> lo); }));
                    std::vector<std::uint64_t> a = v, b = got;
                    std::sort(a.begin(), a.end());
                    std::sort(b.begin(), b.end());
                    REQUIRE(a == b);
                }
            }
        }
    }
}
