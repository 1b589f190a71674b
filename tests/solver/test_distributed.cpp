// The generator of layer parts (solver/distributed.hpp) against the single-process generator
// (solver::generate), the independent reference here: the same table file, byte for byte, for
// 1 to 4 ranks. Ranks are threads of this process over an in-memory Exchange, so that these
// tests run in every build (the MPI runs are tests/mpi/*.sh, registered when KONANE_MPI is on).
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <barrier>
#include <bit>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include "core/gap.hpp"
#include "format/table.hpp"
#include "process/resource_error.hpp"
#include "solver/distributed.hpp"
#include "solver/solve.hpp"
#include "tests/cli_helpers.hpp"
#include "tests/temp_dir.hpp"

using namespace konane;

namespace {

// N ranks as N threads: each collective writes into shared mailboxes, waits for every rank,
// reads, and waits again. A rank that throws marks the group failed and leaves the barrier,
// so that the others throw at their next collective instead of waiting forever.
struct Group {
    explicit Group(int n)
        : ranks(n),
          bar(n),
          box(static_cast<std::size_t>(n * n)),
          vals(static_cast<std::size_t>(n)) {}
    int ranks;
    std::barrier<> bar;
    std::vector<std::vector<std::uint8_t>> box;  // box[from * ranks + to]
    std::vector<std::uint64_t> vals;
    std::atomic<bool> failed{false};
};

class ThreadExchange final : public solver::Exchange {
  public:
    ThreadExchange(Group& g, int rank) : g_(g), rank_(rank) {}
    int rank() const override { return rank_; }
    int size() const override { return g_.ranks; }
    std::uint64_t sum(std::uint64_t v) override {
        return reduce(v, [](std::uint64_t a, std::uint64_t b) { return a + b; });
    }
    std::uint64_t max(std::uint64_t v) override {
        return reduce(v, [](std::uint64_t a, std::uint64_t b) { return std::max(a, b); });
    }
    std::uint64_t min(std::uint64_t v) override {
        return reduce(v, [](std::uint64_t a, std::uint64_t b) { return std::min(a, b); });
    }
    std::vector<std::uint64_t> all(std::uint64_t v) override {
        g_.vals[rank_] = v;
        wait();
        auto out = g_.vals;
        wait();
        return out;
    }
    void leave() {
        g_.failed = true;
        g_.bar.arrive_and_drop();
    }

  protected:
    void alltoall_bytes(const std::uint8_t* send, const std::vector<std::uint64_t>& send_counts,
                        std::size_t size, const Receive& receive,
                        std::vector<std::uint64_t>& recv_counts) override {
        std::size_t at = 0;
        for (int r = 0; r < g_.ranks; ++r) {
            const std::size_t n = send_counts.at(r) * size;
            g_.box[rank_ * g_.ranks + r].assign(send + at, send + at + n);
            if (r != rank_) bytes_sent_ += n;
            at += n;
        }
        wait();
        recv_counts.assign(g_.ranks, 0);
        std::size_t total = 0;
        for (int r = 0; r < g_.ranks; ++r)
            total += g_.box[r * g_.ranks + rank_].size();
        std::uint8_t* out = receive(total);
        for (int r = 0; r < g_.ranks; ++r) {
            const auto& b = g_.box[r * g_.ranks + rank_];
            if (!b.empty()) std::memcpy(out, b.data(), b.size());
            out += b.size();
            recv_counts[r] = b.size() / size;
        }
        wait();
    }
    std::vector<std::vector<std::uint8_t>> gather_bytes(
        std::span<const std::uint8_t> mine) override {
        g_.box[rank_ * g_.ranks].assign(mine.begin(), mine.end());
        wait();
        std::vector<std::vector<std::uint8_t>> out;
        if (rank_ == 0) {
            for (int r = 0; r < g_.ranks; ++r)
                out.push_back(g_.box[r * g_.ranks]);
        }
        wait();
        return out;
    }

  private:
    template <class F>
    std::uint64_t reduce(std::uint64_t v, F f) {
        const auto all_v = all(v);
        std::uint64_t out = all_v[0];
        for (std::size_t r = 1; r < all_v.size(); ++r)
            out = f(out, all_v[r]);
        return out;
    }
    void wait() {
        if (g_.failed) throw std::runtime_error("another rank failed");
        g_.bar.arrive_and_wait();
        if (g_.failed) throw std::runtime_error("another rank failed");
    }
    Group& g_;
    int rank_;
};

// Runs generate_parts over `ranks` threads; returns rank 0's report; rethrows a rank's error.
solver::PartsReport run_parts(const solver::GenerateOptions& o, int ranks) {
    Group g(ranks);
    std::vector<solver::PartsReport> reps(static_cast<std::size_t>(ranks));
    std::vector<std::string> errors(static_cast<std::size_t>(ranks));
    std::vector<std::thread> pool;
    for (int r = 0; r < ranks; ++r) {
        pool.emplace_back([&, r] {
            ThreadExchange ex(g, r);
            try {
                reps[r] = solver::generate_parts(o, ex);
            } catch (const std::exception& e) {
                errors[r] = e.what();
                ex.leave();
            }
        });
    }
    for (auto& t : pool)
        t.join();
    for (int r = 0; r < ranks; ++r) {
        if (!errors[r].empty())
            throw std::runtime_error("rank " + std::to_string(r) + ": " + errors[r]);
    }
    return reps[0];
}

std::string reference_file(const solver::GenerateOptions& base, const std::filesystem::path& p) {
    solver::GenerateOptions o = base;
    o.output = p;
    o.threads = 1;
    solver::generate(o);
    return test::slurp(p);
}

}  // namespace

TEST_CASE("generate over layer parts writes generate()'s file for 1 to 4 ranks",
          "[solver][parts]") {
    struct Case {
        int rows, cols;
        Ruleset rules;
        std::optional<Gap> gap;
    };
    const std::vector<Case> cases = {
        {4, 4, Ruleset::Brainking, {}}, {3, 5, Ruleset::Any, {}}, {4, 5, Ruleset::Brainking, {}},
        {2, 8, Ruleset::Center, {}},    {1, 9, Ruleset::Any, {}}, {3, 6, Ruleset::Brainking, {}},
    };
    test::TempDir dir("konane-parts");
    for (const Case& c : cases) {
        solver::GenerateOptions o;
        o.board = Board::make(c.rows, c.cols);
        o.rules = c.rules;
        o.gap = c.gap;
        const std::string want = reference_file(o, dir.path / "one.kbt");
        for (int ranks = 1; ranks <= 4; ++ranks) {
            INFO(o.board.name() << " " << ruleset_name(c.rules) << ", " << ranks << " ranks");
            o.threads = 1;
            o.output = dir.path / ("parts" + std::to_string(ranks) + ".kbt");
            o.work_dir = dir.path / ("work" + std::to_string(ranks));
            const auto rep = run_parts(o, ranks);
            CHECK(test::slurp(o.output) == want);
            CHECK(rep.ranks == ranks);
            CHECK(rep.by_rank.size() == static_cast<std::size_t>(ranks));
            std::uint64_t owned = 0;
            for (const auto& r : rep.by_rank)
                owned += r.classes;
            CHECK(owned == rep.classes);
            CHECK_FALSE(std::filesystem::exists(o.work_dir));
        }
    }
}

TEST_CASE("generate over layer parts: a gap's table equals generate()'s", "[solver][parts]") {
    test::TempDir dir("konane-parts-gap");
    solver::GenerateOptions o;
    o.board = Board::make(4, 5);
    o.gap = parse_gap(o.board, "b2,b3");
    const std::string want = reference_file(o, dir.path / "one.kbt");
    for (int ranks : {1, 3}) {
        o.threads = 1;
        o.output = dir.path / "parts.kbt";
        o.work_dir = dir.path / "work";
        run_parts(o, ranks);
        CHECK(test::slurp(o.output) == want);
    }
}

TEST_CASE("generate over layer parts: a tiny budget spills every rank's enumeration, same file",
          "[solver][parts]") {
    // Issue 22: under a budget that leaves the waiting children almost no room, every rank
    // spills them as sorted runs to its folder and expands each layer's part from its runs
    // merged in chunks; the file is still generate()'s, byte for byte. The runs counted per
    // rank show that the spill happened (the test cannot pass without it).
    test::TempDir dir("konane-parts-spill");
    // (4x5's parts at 3 ranks fit in the least share, 2^12 children: no spill there; 5x5 at
    // one rank writes some 300 runs, slow on a busy disk, and adds nothing to 4x5's.)
    for (const auto& [rows, cols, fewest, most] :
         {std::tuple{4, 5, 1, 2}, std::tuple{5, 5, 2, 3}}) {
        solver::GenerateOptions o;
        o.board = Board::make(rows, cols);
        const std::string want = reference_file(o, dir.path / "one.kbt");
        for (int ranks = fewest; ranks <= most; ++ranks) {
            INFO(o.board.name() << ", " << ranks << " ranks");
            o.threads = ranks == 2 ? 2 : 1;
            o.memory_bytes = std::uint64_t{16} << 20;
            o.output = dir.path / ("parts" + std::to_string(ranks) + ".kbt");
            o.work_dir = dir.path / ("work" + std::to_string(ranks));
            const auto rep = run_parts(o, ranks);
            CHECK(test::slurp(o.output) == want);
            REQUIRE(rep.by_rank.size() == static_cast<std::size_t>(ranks));
            for (const auto& r : rep.by_rank)
                CHECK(r.enumerate_runs > 1);
            CHECK_FALSE(std::filesystem::exists(o.work_dir));
            // A large budget spills nothing and writes the same bytes.
            o.memory_bytes = std::uint64_t{1} << 30;
            const auto big = run_parts(o, ranks);
            CHECK(test::slurp(o.output) == want);
            for (const auto& r : big.by_rank)
                CHECK(r.enumerate_runs == 0);
        }
    }
}

TEST_CASE("generate over layer parts: the ranks encode by key range, same file under small budgets",
          "[solver][parts]") {
    // The encode and write (write_layer_parts): the ranks exchange their keys by ranges of
    // blocks and each encodes its range; under a budget of 16 MiB a layer of 5x5 takes several
    // rounds of batches. The file is generate()'s for 1 to 4 ranks, an `any` ruleset and a gap.
    struct Case {
        int rows, cols;
        Ruleset rules;
        const char* gap;
    };
    const std::vector<Case> cases = {{4, 4, Ruleset::Brainking, nullptr},
                                     {4, 5, Ruleset::Brainking, nullptr},
                                     {5, 5, Ruleset::Brainking, nullptr},
                                     {3, 5, Ruleset::Any, nullptr},
                                     {4, 5, Ruleset::Brainking, "b2,b3"}};
    test::TempDir dir("konane-parts-encode");
    for (const Case& c : cases) {
        solver::GenerateOptions o;
        o.board = Board::make(c.rows, c.cols);
        o.rules = c.rules;
        if (c.gap) o.gap = parse_gap(o.board, c.gap);
        const std::string want = reference_file(o, dir.path / "one.kbt");
        for (int ranks = 1; ranks <= 4; ++ranks) {
            INFO(o.board.name() << " " << ruleset_name(c.rules) << (c.gap ? c.gap : "") << ", "
                                << ranks << " ranks");
            o.threads = ranks == 2 ? 2 : 1;
            o.memory_bytes = std::uint64_t{16} << 20;
            o.output = dir.path / "parts.kbt";
            o.work_dir = dir.path / "work";
            const auto rep = run_parts(o, ranks);
            CHECK(test::slurp(o.output) == want);
            REQUIRE(rep.by_rank.size() == static_cast<std::size_t>(ranks));
            for (const auto& r : rep.by_rank)
                CHECK(r.write_seconds > 0);
            if (c.rows == 5) CHECK(rep.write_rounds > rep.layers.size());
        }
    }
}

TEST_CASE("write_layer_parts: the ranks encode by ranges in small batches into add_layer's bytes",
          "[solver][parts]") {
    // Random layers of a 4x5 board split into parts as the generator splits them (part_of),
    // exchanged by ranges of blocks in batches of a few positions, encoded by the ranks and
    // copied by rank 0 in chunks of 100 bytes (spill chunks of 100 bytes), against
    // TableWriter::add_layer of each whole layer.
    test::TempDir dir("konane-parts-write");
    format::TableMeta meta;
    meta.rows = 4;
    meta.cols = 5;
    meta.ruleset = "brainking";
    meta.generator = "test";
    struct Layer {
        format::LayerInfo info;
        std::vector<std::uint64_t> keys;
        std::vector<std::uint8_t> depth;
    };
    std::mt19937_64 rng(22);
    std::vector<Layer> layers;
    // 1 and 2 keys: some ranks have an empty part.
    for (const auto& [pieces, n] :
         std::vector<std::pair<int, int>>{{3, 1}, {4, 2}, {9, 3000}, {12, 8000}}) {
        Layer l;
        std::set<std::uint64_t> keys;
        while (keys.size() < static_cast<std::size_t>(n)) {
            std::uint64_t k = (rng() & 1) << 63;
            while (std::popcount(k & 0xFFFFF) < pieces)
                k |= std::uint64_t{1} << (rng() % 20);
            keys.insert(k);
        }
        l.keys.assign(keys.begin(), keys.end());
        for (std::size_t i = 0; i < l.keys.size(); ++i)
            l.depth.push_back(
                static_cast<std::uint8_t>(std::min<int>(rng() % 7 * (rng() % 5), 30)));
        l.info = {static_cast<std::uint32_t>(pieces), l.keys.size(), l.keys.size() * 2};
        layers.push_back(std::move(l));
    }
    {
        format::TableWriter w(dir.path / "ref.kbt", meta, 1);
        for (const Layer& l : layers)
            w.add_layer(l.info, l.keys, l.depth);
        w.commit();
    }
    const std::string want = test::slurp(dir.path / "ref.kbt");
    for (int ranks = 1; ranks <= 4; ++ranks) {
        for (const std::uint64_t per_rank : {std::uint64_t{64}, std::uint64_t{1000}}) {
            INFO(ranks << " ranks, batches of " << per_rank);
            solver::WriteBatches wb;
            wb.per_rank = per_rank;
            wb.spill_chunk = 100;
            Group g(ranks);
            std::vector<std::string> errors(static_cast<std::size_t>(ranks));
            std::vector<std::uint64_t> rounds(static_cast<std::size_t>(ranks), 0);
            std::vector<std::thread> pool;
            for (int r = 0; r < ranks; ++r) {
                pool.emplace_back([&, r] {
                    ThreadExchange ex(g, r);
                    try {
                        std::unique_ptr<format::TableWriter> w;
                        if (r == 0)
                            w = std::make_unique<format::TableWriter>(dir.path / "parts.kbt", meta,
                                                                      1);
                        for (const Layer& l : layers) {
                            std::vector<std::uint64_t> keys;
                            std::vector<std::uint8_t> depth;
                            for (std::size_t i = 0; i < l.keys.size(); ++i) {
                                if (solver::part_of(l.keys[i], ranks) != r) continue;
                                keys.push_back(l.keys[i]);
                                depth.push_back(l.depth[i]);
                            }
                            rounds[r] += solver::write_layer_parts(ex, w.get(), meta, l.info, keys,
                                                                   depth, wb, dir.path);
                        }
                        if (w) w->commit();
                    } catch (const std::exception& e) {
                        errors[r] = e.what();
                        ex.leave();
                    }
                });
            }
            for (auto& t : pool)
                t.join();
            for (int r = 0; r < ranks; ++r)
                CHECK(errors[r].empty());
            CHECK(test::slurp(dir.path / "parts.kbt") == want);
            // Every rank took part in every round, and no batch was larger than asked: the
            // 11003 positions need at least 11003 / (per_rank * ranks) rounds.
            CHECK(std::equal(rounds.begin() + 1, rounds.end(), rounds.begin()));
            CHECK(rounds[0] >= 11003 / (per_rank * static_cast<std::uint64_t>(ranks)));
        }
    }
    // No spill file is left in the directory given.
    for (const auto& e : std::filesystem::directory_iterator(dir.path))
        CHECK(e.path().filename().string().rfind(".konane", 0) != 0);
}

TEST_CASE("generate over layer parts resumes from the ranks' work directories", "[solver][parts]") {
    test::TempDir dir("konane-parts-resume");
    solver::GenerateOptions o;
    o.board = Board::make(4, 5);
    const std::string want = reference_file(o, dir.path / "one.kbt");
    o.threads = 1;
    o.output = dir.path / "parts.kbt";
    o.work_dir = dir.path / "work";
    o.keep_work = true;
    const auto first = run_parts(o, 3);
    CHECK_FALSE(first.resumed);
    CHECK(first.layers_resumed == 0);
    const int layers = static_cast<int>(first.layers.size());

    // Everything kept: the rerun solves nothing again.
    std::filesystem::remove(o.output);
    const auto again = run_parts(o, 3);
    CHECK(again.resumed);
    CHECK(again.layers_resumed == layers);
    CHECK(test::slurp(o.output) == want);

    // One rank lost a middle layer's depths (as a kill before it wrote them would leave it):
    // every rank solves from that layer on.
    const int middle = first.layers[static_cast<std::size_t>(layers / 2)].pieces;
    const auto lost = o.work_dir / "rank-1-of-3" / ("solved-" + std::to_string(middle) + ".depth");
    REQUIRE(std::filesystem::remove(lost));
    std::filesystem::remove(o.output);
    const auto third = run_parts(o, 3);
    CHECK(third.layers_resumed == layers / 2);
    CHECK(test::slurp(o.output) == want);

    // Another number of ranks is refused, saying how to resume, and leaves no folder of its
    // own (it started over silently and left the old folders behind, issue 51).
    std::filesystem::remove(o.output);
    try {
        run_parts(o, 2);
        FAIL("the work of 3 ranks was taken by 2");
    } catch (const std::runtime_error& e) {
        CHECK_THAT(e.what(), Catch::Contains("an MPI generation of 3 ranks, not 2") &&
                                 Catch::Contains("mpirun -np 3") && Catch::Contains("rank-*-of-3"));
    }
    CHECK_FALSE(std::filesystem::exists(o.work_dir / "rank-0-of-2"));
    // One process is told what the directory is, not "no konane work".
    try {
        solver::GenerateOptions single = o;
        single.threads = 1;
        solver::generate(single);
        FAIL("one process took an MPI work directory");
    } catch (const std::runtime_error& e) {
        CHECK_THAT(e.what(), Catch::Contains("an MPI generation of 3 ranks") &&
                                 Catch::Contains("mpirun -np 3"));
        CHECK_THAT(e.what(), !Catch::Contains("no konane work"));
    }
    // A second job on the same --work finds each rank's folder locked.
    {
        std::vector<int> held;
        for (int r = 0; r < 3; ++r) {
            const auto lock = o.work_dir / ("rank-" + std::to_string(r) + "-of-3") / "lock";
            const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
            REQUIRE(fd >= 0);
            REQUIRE(::flock(fd, LOCK_EX | LOCK_NB) == 0);
            held.push_back(fd);
        }
        CHECK_THROWS_WITH(run_parts(o, 3), Catch::Contains("in use by another konane process"));
        for (const int fd : held)
            ::close(fd);
    }
    CHECK_FALSE(std::filesystem::exists(o.output));

    // A work directory of another board is refused, naming both, on one line.
    o.board = Board::make(5, 4);
    try {
        run_parts(o, 3);
        FAIL("a work directory of another board was used");
    } catch (const std::runtime_error& e) {
        const std::string m = e.what();
        CHECK(m.find("4x5") != std::string::npos);
        CHECK(m.find("5x4") != std::string::npos);
        CHECK(m.find('\n') == std::string::npos);
    }
}

TEST_CASE("generate over layer parts refuses a memory budget too small, as a shortage",
          "[solver][parts]") {
    // A shortage of memory is a ResourceError (exit 4), as in the one-process generator, not
    // bad input; the message names the budget and what it should be.
    test::TempDir dir("konane-parts-budget");
    solver::GenerateOptions o;
    o.board = Board::make(4, 5);
    o.work_dir = dir.path / "work";
    o.output = dir.path / "t.kbt";
    o.memory_bytes = std::uint64_t{64} << 10;
    solver::LocalExchange ex;
    try {
        solver::generate_parts(o, ex);
        FAIL("a 64 KiB budget was accepted");
    } catch (const ResourceError& e) {
        const std::string m = e.what();
        CHECK(m.find("memory budget") != std::string::npos);
        CHECK(m.find("--memory") != std::string::npos);
    }
}

TEST_CASE("generate over layer parts takes boards of up to 42 squares, no more",
          "[solver][parts]") {
    CHECK(solver::kMaxDistributedSquares == 42);
    solver::GenerateOptions o;
    o.board = Board::make(6, 8);
    o.work_dir = "unused";
    solver::LocalExchange ex;
    CHECK_THROWS_AS(solver::generate_parts(o, ex), std::invalid_argument);
    // 6x7 and 7x6 have an estimate (a model), which one process's refusal quotes.
    const auto e = solver::estimate_parts(Board::make(6, 7), 16);
    REQUIRE(e.has_value());
    CHECK_FALSE(e->measured);
    CHECK(e->classes > solver::estimate_parts(Board::make(6, 6), 16)->classes * 10);
    CHECK(solver::estimate_parts(Board::make(7, 6), 4)->classes == e->classes);
}

TEST_CASE("cli: one process refuses 6x7 before any work, with the estimate and the MPI advice",
          "[cli][parts]") {
    test::TempDir d("konane-cli-parts");
    const std::string out = (d.path / "t.kbt").string();
    const test::Run r = test::run("generate 6x7 -q -o " + out);
    CHECK(r.code == 2);
    CHECK(r.out.find("42 squares") != std::string::npos);
    CHECK(r.out.find("estimate") != std::string::npos);
    CHECK(r.out.find("mpirun -np N konane generate 6x7") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(out));
    CHECK_FALSE(std::filesystem::exists(out + ".work"));

    const test::Run e = test::run("generate 7x6 --estimate --ranks 64");
    CHECK(e.code == 0);
    CHECK(e.out.find("7x6 over 64 ranks") != std::string::npos);
    CHECK(e.out.find("memory per rank") != std::string::npos);
    CHECK(test::run("generate 9x9 --estimate").code == 2);

    // --staged: the one-rank case in one process writes the same file.
    REQUIRE(test::run("generate 4x5 -q -o " + out).code == 0);
    const std::string plain = test::slurp(out);
    const test::Run s = test::run("generate 4x5 --staged -q -o " + out);
    CHECK(s.code == 0);
    CHECK(test::slurp(out) == plain);
}
