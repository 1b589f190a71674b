// The proof manager (manager/): its verdicts equal the tables' on every opening and on random
// positions of small boards, with leaf budgets small enough that the tree grows deep; the
// certificates it assembles check with cert/check.hpp alone; a run stopped at many points and
// resumed (also from a copy of its directory) reaches the same verdicts, as 1, 2 and 4 workers
// do (each with its own table or sharing one); a damaged or foreign tree file is refused.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <xxhash.h>

#include <catch2/catch.hpp>

#include "cert/certificate.hpp"
#include "cert/check.hpp"
#include "core/notation.hpp"
#include "manager/manager.hpp"
#include "manager/tree.hpp"
#include "tests/reference.hpp"
#include "tests/table_fixture.hpp"
#include "tests/temp_dir.hpp"

namespace {

using namespace konane;
using namespace konane::test;
namespace fs = std::filesystem;

ManagerOptions small_options(Ruleset r, std::uint64_t leaf_nodes, int workers = 1) {
    ManagerOptions o;
    o.search.rules = r;
    o.search.memory_bytes = std::size_t{1} << 16;  // small: leaves cannot lean on the table
    o.leaf_nodes = leaf_nodes;
    o.leaf_retries = 0;  // every undecided leaf expanded: the tree grows deep
    o.workers = workers;
    return o;
}

/// Every root's winner as the table gives it.
std::vector<Color> table_winners(const Tablebase& tb, const std::vector<Position>& roots) {
    std::vector<Color> out;
    for (const Position& p : roots) {
        const auto v = tb.value(p);
        REQUIRE(v.has_value());
        out.push_back(v->win ? p.to_move : other(p.to_move));
    }
    return out;
}

std::vector<Color> tree_winners(const ProofTree& t) {
    std::vector<Color> out;
    for (std::size_t r = 0; r < t.root_count(); ++r) {
        const auto v = t.root_value(r);
        REQUIRE(v.has_value());
        const Position p = t.root_positions()[r];
        out.push_back(*v ? p.to_move : other(p.to_move));
    }
    return out;
}

/// Checks the manager's certificate with the independent checker: it proves the same winners.
void check_proof(const ProofManager& m, const std::vector<Color>& want) {
    const Certificate c = m.certificate("test");
    const CertificateCheck check = check_certificate(c);
    CHECK(check.winners == want);
}

}  // namespace

TEST_CASE("proof manager: every opening equals the table, and its certificate checks",
          "[manager]") {
    struct Spec {
        int rows, cols;
        Ruleset r;
        std::uint64_t leaf_nodes;
    };
    for (const Spec spec : {Spec{4, 5, Ruleset::Brainking, 8}, Spec{5, 5, Ruleset::Brainking, 50},
                            Spec{4, 6, Ruleset::Any, 40}, Spec{3, 6, Ruleset::Center, 1}}) {
        const Tablebase& tb = table(spec.rows, spec.cols, spec.r);
        const Board& b = tb.board();
        INFO(b.name() << " " << ruleset_name(spec.r) << " leaf " << spec.leaf_nodes);
        const std::vector<Position> roots = start_positions(b, Opening(spec.r));
        TempDir dir("manager-openings");
        ProofManager m = ProofManager::create(
            dir / "w", ProofTree(b, Opening(spec.r), false, CertificateKind::Openings, roots));
        const ManagerReport rep = m.run(small_options(spec.r, spec.leaf_nodes));
        REQUIRE(rep.done);
        CHECK(rep.expanded > 0);  // the budget was small enough for the tree to grow
        const std::vector<Color> want = table_winners(tb, roots);
        CHECK(tree_winners(m.tree()) == want);
        check_proof(m, want);
        CHECK(rep.tree_bytes > 0);
    }
}

TEST_CASE("proof manager: leaves retried with growing budgets before expansion", "[manager]") {
    // leaf_retries: a leaf left undecided is searched again with 4 and 16 times the budget
    // before it is expanded; the verdicts and the certificate as without, a smaller tree, no
    // proof file left behind by a retried search, and the retries kept in the saved tree.
    for (const ProofAlgorithm a : {ProofAlgorithm::Enhanced, ProofAlgorithm::DfPn}) {
        const Tablebase& tb = table(5, 5, Ruleset::Brainking);
        const Board& b = tb.board();
        INFO((a == ProofAlgorithm::DfPn ? "df-pn" : "alpha-beta"));
        const std::vector<Position> roots = start_positions(b, Opening(Ruleset::Brainking));
        const std::vector<Color> want = table_winners(tb, roots);
        std::uint64_t sizes[2] = {0, 0};
        for (const int retries : {0, 2}) {
            TempDir dir("manager-retries");
            ProofManager m = ProofManager::create(
                dir / "w",
                ProofTree(b, Opening(Ruleset::Brainking), false, CertificateKind::Openings, roots));
            ManagerOptions o = small_options(Ruleset::Brainking, 20);
            o.search.algorithm = a;
            o.leaf_retries = retries;
            const ManagerReport rep = m.run(o);
            REQUIRE(rep.done);
            CHECK(tree_winners(m.tree()) == want);
            check_proof(m, want);
            sizes[retries == 0 ? 0 : 1] = m.tree().size();
            if (retries > 0) {
                CHECK(rep.retried > 0);
                // Every proof file is named by a node of the tree.
                std::size_t files = 0;
                for (const auto& e : fs::directory_iterator(dir / "w" / "proofs")) {
                    (void)e;
                    ++files;
                }
                std::size_t named = 0;
                for (std::uint32_t i = 0; i < m.tree().size(); ++i)
                    named += m.tree().node(i).proof_file != 0 ? 1 : 0;
                CHECK(files <= named);
                const ProofTree back = ProofTree::load(dir / "w" / "tree");
                REQUIRE(back.leaf_search().has_value());
                CHECK(back.leaf_search()->retries == 2);
                CHECK(back.leaf_search()->leaf_nodes == 20);
                CHECK(back.leaf_search()->dfpn == (a == ProofAlgorithm::DfPn));
            }
        }
        CHECK(sizes[1] < sizes[0]);  // fewer expansions
    }
}

TEST_CASE("proof manager: random positions equal the table, both sides to move", "[manager]") {
    const Tablebase& tb = table(5, 5, Ruleset::Brainking);
    const Board& b = tb.board();
    const ref::RefBoard rb(5, 5);
    std::vector<Position> roots;
    for (const ref::RefPos& rp : ref::random_positions(rb, ref::Rules::Brainking, 6, 77)) {
        const Position p = ref::to_core(rb, rp);
        if (stage_of(b, Ruleset::Brainking, p) != Stage::Play || piece_count(p) < 10) continue;
        roots.push_back(p);
        roots.push_back(Position{p.occ, other(p.to_move)});
    }
    // Positions with White to move that no game reaches are not in the table: keep those it holds.
    std::erase_if(roots, [&](const Position& p) { return !tb.value(p).has_value(); });
    REQUIRE(roots.size() > 20);
    TempDir dir("manager-positions");
    ProofManager m = ProofManager::create(
        dir / "w",
        ProofTree(b, Opening(Ruleset::Brainking), false, CertificateKind::Positions, roots));
    const ManagerReport rep = m.run(small_options(Ruleset::Brainking, 20));
    REQUIRE(rep.done);
    const std::vector<Color> want = table_winners(tb, roots);
    CHECK(tree_winners(m.tree()) == want);
    check_proof(m, want);
}

TEST_CASE(
    "proof manager: a run stopped again and again, resumed from a copy, gives the same "
    "verdicts",
    "[manager]") {
    const Tablebase& tb = table(5, 5, Ruleset::Brainking);
    const Board& b = tb.board();
    const std::vector<Position> roots = start_positions(b, Opening(Ruleset::Brainking));
    const std::vector<Color> want = table_winners(tb, roots);
    TempDir dir("manager-resume");
    fs::path work = dir / "w0";
    {
        ProofManager m = ProofManager::create(work, ProofTree(b, Opening(Ruleset::Brainking), false,
                                                              CertificateKind::Openings, roots));
    }
    int runs = 0;
    std::uint64_t positions = 0;
    for (;; ++runs) {
        REQUIRE(runs < 500);
        // Every third run continues from a copy of the directory (a move to another machine).
        if (runs % 3 == 2) {
            const fs::path next = dir / ("w" + std::to_string(runs));
            fs::copy(work, next, fs::copy_options::recursive);
            work = next;
        }
        ProofManager m = ProofManager::open(work);
        CHECK(m.tree().size() >= positions);  // nothing saved is lost
        positions = m.tree().size();
        ManagerOptions o = small_options(Ruleset::Brainking, 30);
        o.max_nodes = 300;  // a few leaves per run
        const ManagerReport rep = m.run(o);
        if (rep.done) {
            CHECK(tree_winners(m.tree()) == want);
            check_proof(m, want);
            break;
        }
    }
    CHECK(runs > 3);
    // The saved tree, read again, holds the same verdicts and proof.
    ProofManager again = ProofManager::open(work);
    REQUIRE(again.tree().done());
    CHECK(tree_winners(again.tree()) == want);
    check_proof(again, want);
}

TEST_CASE("proof manager: 1, 2 and 4 workers give the same verdicts", "[manager][concurrency]") {
    const Tablebase& tb = table(5, 5, Ruleset::Brainking);
    const Board& b = tb.board();
    const std::vector<Position> roots = start_positions(b, Opening(Ruleset::Brainking));
    const std::vector<Color> want = table_winners(tb, roots);
    for (const int workers : {1, 2, 4}) {
        for (const bool shared : {false, true}) {
            for (const bool dfpn : {false, true}) {
                INFO(workers << " workers, shared table " << shared << ", df-pn " << dfpn);
                TempDir dir("manager-workers");
                ProofManager m =
                    ProofManager::create(dir / "w", ProofTree(b, Opening(Ruleset::Brainking), false,
                                                              CertificateKind::Openings, roots));
                ManagerOptions o = small_options(Ruleset::Brainking, 25, workers);
                o.shared_table = shared;
                o.leaf_retries = 1;  // a retried leaf may go to another worker
                if (dfpn) o.search.algorithm = ProofAlgorithm::DfPn;
                const ManagerReport rep = m.run(o);
                REQUIRE(rep.done);
                CHECK(tree_winners(m.tree()) == want);
                check_proof(m, want);
            }
        }
    }
}

TEST_CASE("proof manager: a stop flag ends the run at once, the tree resumable", "[manager]") {
    const Board b = Board::make(6, 6);
    const std::vector<Position> roots = start_positions(b, Opening(Ruleset::Brainking));
    TempDir dir("manager-stop");
    ProofManager m = ProofManager::create(
        dir / "w",
        ProofTree(b, Opening(Ruleset::Brainking), false, CertificateKind::Openings, roots));
    std::atomic<bool> stop{true};
    ManagerOptions o = small_options(Ruleset::Brainking, 1'000'000'000, 2);
    o.stop = &stop;
    const ManagerReport rep = m.run(o);
    CHECK_FALSE(rep.done);
    CHECK(rep.tree.busy == 0);  // every leaf given back
    const std::size_t size = m.tree().size();
    m = ProofManager::create(dir / "other", ProofTree(b, Opening(Ruleset::Brainking), false,
                                                      CertificateKind::Openings, roots));
    ProofManager again = ProofManager::open(dir / "w");  // the first manager gone, its lock too
    CHECK(again.tree().size() == size);
    CHECK_THROWS_AS(again.certificate("x"), std::logic_error);
}

TEST_CASE("proof manager: the nodes of leaves stopped mid-search are counted in the tree",
          "[manager]") {
    const Board b = Board::make(6, 6);
    const std::vector<Position> roots = start_positions(b, Opening(Ruleset::Brainking));
    TempDir dir("manager-stopped-nodes");
    std::uint64_t total = 0;
    {
        ProofManager m = ProofManager::create(
            dir / "w",
            ProofTree(b, Opening(Ruleset::Brainking), false, CertificateKind::Openings, roots));
        ManagerOptions o = small_options(Ruleset::Brainking, 1'000'000'000, 2);
        o.max_seconds = 0.5;  // stops both leaves mid-search
        const ManagerReport rep = m.run(o);
        REQUIRE_FALSE(rep.done);
        CHECK(rep.nodes > 0);
        CHECK(m.tree().total_nodes() == rep.nodes);
        total = m.tree().total_nodes();
    }
    CHECK(ProofManager::open(dir / "w").tree().total_nodes() == total);  // saved with the tree
}

TEST_CASE("proof manager: a damaged, truncated or foreign tree file is refused", "[manager]") {
    const Board b = Board::make(4, 5);
    TempDir dir("manager-damaged");
    const std::vector<Position> roots = start_positions(b, Opening(Ruleset::Brainking));
    {
        ProofManager m = ProofManager::create(
            dir / "w",
            ProofTree(b, Opening(Ruleset::Brainking), false, CertificateKind::Openings, roots));
        ManagerOptions o = small_options(Ruleset::Brainking, 5);
        o.max_nodes = 40;
        m.run(o);
        REQUIRE(m.tree().size() > roots.size());
        // A second tree in the same directory is refused.
        CHECK_THROWS_WITH(
            ProofManager::create(dir / "w", ProofTree(b, Opening(Ruleset::Brainking), false,
                                                      CertificateKind::Openings, roots)),
            Catch::Contains("holds a proof tree already"));
    }
    const fs::path tree = dir / "w" / "tree";
    std::string bytes;
    {
        std::ifstream in(tree, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    auto write = [&](const std::string& s) {
        std::ofstream(tree, std::ios::binary | std::ios::trunc) << s;
    };
    std::string flipped = bytes;
    flipped[bytes.size() - 20] = static_cast<char>(flipped[bytes.size() - 20] ^ 1);
    write(flipped);
    CHECK_THROWS_WITH(ProofManager::open(dir / "w"), Catch::Contains("checksum"));
    write(bytes.substr(0, bytes.size() / 2));
    CHECK_THROWS_WITH(ProofManager::open(dir / "w"), Catch::Contains("checksum"));
    write("konane proof certificate 1\n");
    CHECK_THROWS_WITH(ProofManager::open(dir / "w"), Catch::Contains("not a konane proof tree"));
    write(bytes);
    CHECK_NOTHROW(ProofManager::open(dir / "w"));
    CHECK_THROWS_WITH(ProofManager::open(dir / "none"), Catch::Contains("holds no proof tree"));
}

TEST_CASE(
    "proof manager: a tree or checkpoint of gigabytes behind its first line is refused "
    "before its body is read",
    "[manager]") {
    const Board b = Board::make(4, 4);
    TempDir dir("manager-sparse");
    const std::vector<Position> roots = start_positions(b, Opening(Ruleset::Brainking));
    ProofManager::create(dir / "w", ProofTree(b, Opening(Ruleset::Brainking), false,
                                              CertificateKind::Openings, roots));
    const fs::path tree = dir / "w" / "tree";
    std::string bytes;
    {
        std::ifstream in(tree, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    const std::uintmax_t huge = std::uintmax_t{6} << 30;
    auto refused_fast = [&](const std::string& says) {
        const auto start = std::chrono::steady_clock::now();
        CHECK_THROWS_WITH(ProofManager::open(dir / "w"),
                          Catch::Contains(tree.string() + ": damaged") && Catch::Contains(says) &&
                              !Catch::Contains("memory"));
        CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
    };
    // The magic line, then a hole of 6 GiB: no header.
    std::ofstream(tree, std::ios::binary | std::ios::trunc) << "konane proof tree 1\n";
    fs::resize_file(tree, huge);
    refused_fast("no 'end' line in its first");
    // A whole header, then a hole: the size is not what the header's node count gives.
    const std::size_t end = bytes.find("\nend\n") + 5;
    std::ofstream(tree, std::ios::binary | std::ios::trunc) << bytes.substr(0, end);
    fs::resize_file(tree, huge);
    refused_fast("nodes do not fill the");
    // The proven-values checkpoint (solve --wdl --work): its header is read first too.
    ProofOptions po;
    po.memory_bytes = std::size_t{1} << 20;
    ProofSearch s(b, po);
    const fs::path proven = dir / "proven.bin";
    std::ofstream(proven, std::ios::binary | std::ios::trunc) << "konane proven positions 1\n";
    fs::resize_file(proven, 100'000);
    CHECK_THROWS_WITH(s.load_proven(proven), Catch::Contains("not a proven-positions checkpoint"));
    fs::resize_file(proven, huge);
    CHECK_THROWS_WITH(s.load_proven(proven), Catch::Contains("6442450944 bytes, more than"));
}

TEST_CASE("proof manager: links in a work directory are refused, never followed", "[manager]") {
    const Board b = Board::make(4, 4);
    TempDir dir("manager-links");
    const std::vector<Position> roots = start_positions(b, Opening(Ruleset::Brainking));
    auto tree = [&] {
        return ProofTree(b, Opening(Ruleset::Brainking), false, CertificateKind::Openings, roots);
    };
    const fs::path other = dir / "other";
    fs::create_directories(other);
    // `lock` a dangling link: refused, its target not created.
    fs::create_directories(dir / "a");
    fs::create_symlink(other / "made-by-lock", dir / "a" / "lock");
    CHECK_THROWS_WITH(ProofManager::create(dir / "a", tree()),
                      Catch::Contains("lock is a symbolic link"));
    CHECK_FALSE(fs::exists(other / "made-by-lock"));
    // `proofs` a link to another folder: refused, its files (one named like a temporary) kept.
    { std::ofstream(other / "backup.tmp.0123456789abcdef") << "someone's file"; }
    fs::create_directories(dir / "b");
    fs::create_directory_symlink(other, dir / "b" / "proofs");
    CHECK_THROWS_WITH(ProofManager::create(dir / "b", tree()),
                      Catch::Contains("proofs: a symbolic link"));
    ProofManager::create(dir / "c", tree());
    fs::remove_all(dir / "c" / "proofs");
    fs::create_directory_symlink(other, dir / "c" / "proofs");
    CHECK_THROWS_WITH(ProofManager::open(dir / "c"), Catch::Contains("proofs: a symbolic link"));
    CHECK(fs::exists(other / "backup.tmp.0123456789abcdef"));
    // `tree` a link (to a good tree): refused.
    ProofManager::create(dir / "d", tree());
    fs::rename(dir / "d" / "tree", other / "tree");
    fs::create_symlink(other / "tree", dir / "d" / "tree");
    CHECK_THROWS_WITH(ProofManager::open(dir / "d"), Catch::Contains("tree: a symbolic link"));
    // A proof file a link: refused when the directory is opened.
    {
        ProofManager m = ProofManager::create(dir / "e", tree());
        ManagerOptions o = small_options(Ruleset::Brainking, 1'000'000);
        REQUIRE(m.run(o).done);
    }
    const fs::path one = dir / "e" / "proofs" / "1.proof";
    REQUIRE(fs::exists(one));
    fs::rename(one, other / "1.proof");
    fs::create_symlink(other / "1.proof", one);
    CHECK_THROWS_WITH(ProofManager::open(dir / "e"), Catch::Contains("1.proof: a symbolic link"));
}

TEST_CASE("proof manager: a damaged proof file is found when the directory is opened",
          "[manager]") {
    const Board b = Board::make(4, 4);
    TempDir dir("manager-proof-damaged");
    const std::vector<Position> roots = start_positions(b, Opening(Ruleset::Brainking));
    {
        ProofManager m = ProofManager::create(
            dir / "w",
            ProofTree(b, Opening(Ruleset::Brainking), false, CertificateKind::Openings, roots));
        REQUIRE(m.run(small_options(Ruleset::Brainking, 1'000'000)).done);
    }
    const fs::path one = dir / "w" / "proofs" / "1.proof";
    std::string bytes;
    {
        std::ifstream in(one, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    REQUIRE(bytes.size() > 40);
    auto write = [&](const std::string& s) {
        std::ofstream(one, std::ios::binary | std::ios::trunc) << s;
    };
    std::string flipped = bytes;
    flipped[bytes.size() / 2] = static_cast<char>(flipped[bytes.size() / 2] ^ 1);
    write(flipped);
    CHECK_THROWS_WITH(ProofManager::open(dir / "w"),
                      Catch::Contains(one.string() + ": damaged (checksum mismatch)") &&
                          Catch::Contains("remove it and run again") &&
                          Catch::Contains("open again and searched anew"));
    write(bytes.substr(0, 10));
    CHECK_THROWS_WITH(ProofManager::open(dir / "w"),
                      Catch::Contains(one.string() + ": damaged (too short"));
    write("konane proof tree 1\n" + bytes);
    CHECK_THROWS_WITH(ProofManager::open(dir / "w"),
                      Catch::Contains(one.string() + ": damaged (not a konane proof certificate)"));
    // Removed, as the message says: its positions are open again.
    fs::remove(one);
    const ProofManager again = ProofManager::open(dir / "w");
    CHECK(again.reopened() > 0);
    CHECK_FALSE(again.tree().done());
}

namespace {

/// Workers "elsewhere" run in this process: each send() queues a leaf, each poll() searches one
/// queued leaf with that worker's own search and answers it (as an MPI rank would).
class FakeRemote final : public RemoteWorkers {
  public:
    FakeRemote(const Board& b, const ProofOptions& o, int n) : game_(b, Opening(o.rules), false) {
        for (int i = 0; i < n; ++i)
            searches_.push_back(std::make_unique<ProofSearch>(b, o));
        stop_.resize(static_cast<std::size_t>(n));
        for (auto& s : stop_)
            s = std::make_unique<std::atomic<bool>>(false);
    }
    int count() const override { return static_cast<int>(searches_.size()); }
    void send(int w, const ProofKey& key, std::uint64_t budget) override {
        REQUIRE(std::none_of(jobs_.begin(), jobs_.end(), [&](const Job& j) { return j.w == w; }));
        stop_[static_cast<std::size_t>(w)]->store(false);
        jobs_.push_back({w, key, budget});
        ++sent;
    }
    std::optional<std::pair<int, LeafResult>> poll() override {
        if (jobs_.empty()) return std::nullopt;
        const Job j = jobs_.front();
        jobs_.pop_front();
        auto& s = *searches_[static_cast<std::size_t>(j.w)];
        auto& stop = *stop_[static_cast<std::size_t>(j.w)];
        s.set_stop(&stop);
        LeafResult r = solve_leaf(s, game_, j.key, j.budget, stop);
        r.cpu_seconds = cpu_per_leaf;  // as a rank reports its search's CPU
        ++results;
        return std::make_pair(j.w, std::move(r));
    }
    void stop(int w) override {
        stop_[static_cast<std::size_t>(w)]->store(true);
        ++stops;
    }
    int sent = 0, stops = 0, results = 0;
    double cpu_per_leaf = 0;

  private:
    struct Job {
        int w;
        ProofKey key;
        std::uint64_t budget;
    };
    ProofGame game_;
    std::vector<std::unique_ptr<ProofSearch>> searches_;
    std::vector<std::unique_ptr<std::atomic<bool>>> stop_;
    std::deque<Job> jobs_;
};

}  // namespace

TEST_CASE("proof manager: workers elsewhere, alone or beside threads, give the table's verdicts",
          "[manager]") {
    const Tablebase& tb = table(5, 5, Ruleset::Brainking);
    const Board& b = tb.board();
    const std::vector<Position> roots = start_positions(b, Opening(Ruleset::Brainking));
    const std::vector<Color> want = table_winners(tb, roots);
    for (const int threads : {0, 1}) {
        INFO(threads << " threads beside 3 remote workers");
        TempDir dir("manager-remote");
        ProofManager m = ProofManager::create(
            dir / "w",
            ProofTree(b, Opening(Ruleset::Brainking), false, CertificateKind::Openings, roots));
        ManagerOptions o = small_options(Ruleset::Brainking, 25, threads);
        FakeRemote remote(b, o.search, 3);
        remote.cpu_per_leaf = 1000;
        o.remote = &remote;
        const ManagerReport rep = m.run(o);
        REQUIRE(rep.done);
        CHECK(remote.sent > 3);
        // The workers' CPU is the run's (under MPI: every rank's, not rank 0's alone).
        CHECK(rep.cpu_seconds >= 1000.0 * remote.results);
        CHECK(tree_winners(m.tree()) == want);
        check_proof(m, want);
    }
    // Stopped from the start: the remote workers are handed nothing, the run ends.
    TempDir dir("manager-remote-stop");
    ProofManager m = ProofManager::create(
        dir / "w",
        ProofTree(b, Opening(Ruleset::Brainking), false, CertificateKind::Openings, roots));
    std::atomic<bool> stop{true};
    ManagerOptions o = small_options(Ruleset::Brainking, 25, 0);
    FakeRemote remote(b, o.search, 2);
    o.remote = &remote;
    o.stop = &stop;
    const ManagerReport rep = m.run(o);
    CHECK_FALSE(rep.done);
    CHECK(remote.sent == 0);
    CHECK(rep.tree.busy == 0);
}

namespace {

/// Workers elsewhere that take leaves and never answer, not even a stop (frozen ranks).
class FrozenRemote final : public RemoteWorkers {
  public:
    explicit FrozenRemote(int n) : n_(n) {}
    int count() const override { return n_; }
    void send(int, const ProofKey&, std::uint64_t) override { ++sent; }
    std::optional<std::pair<int, LeafResult>> poll() override { return std::nullopt; }
    void stop(int) override { ++stops; }
    int sent = 0, stops = 0;

  private:
    int n_;
};

}  // namespace

TEST_CASE("proof manager: workers elsewhere that do not answer a stop are given up after the grace",
          "[manager]") {
    const Board b = Board::make(5, 5);
    const std::vector<Position> roots = start_positions(b, Opening(Ruleset::Brainking));
    TempDir dir("manager-frozen");
    ProofManager m = ProofManager::create(
        dir / "w",
        ProofTree(b, Opening(Ruleset::Brainking), false, CertificateKind::Openings, roots));
    ManagerOptions o = small_options(Ruleset::Brainking, 1000, 0);
    FrozenRemote remote(2);
    o.remote = &remote;
    o.max_seconds = 0.2;
    o.stop_grace_seconds = 0.5;
    const auto start = std::chrono::steady_clock::now();
    const ManagerReport rep = m.run(o);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
    CHECK(remote.sent == 2);
    CHECK(remote.stops == 2);
    CHECK(rep.lost_workers == 2);
    CHECK(rep.tree.busy == 0);  // their leaves given back
    CHECK_FALSE(rep.done);
    CHECK(rep.saves >= 1);
    ManagerOptions bad = o;
    bad.stop_grace_seconds = -1;
    CHECK_THROWS_AS(m.run(bad), std::invalid_argument);
}

TEST_CASE(
    "proof manager: proof files gone reopen what they proved and two managers cannot share "
    "a directory",
    "[manager]") {
    const Tablebase& tb = table(4, 5, Ruleset::Brainking);
    const Board& b = tb.board();
    const std::vector<Position> roots = start_positions(b, Opening(Ruleset::Brainking));
    const std::vector<Color> want = table_winners(tb, roots);
    TempDir dir("manager-reopen");
    {
        ProofManager m = ProofManager::create(
            dir / "w",
            ProofTree(b, Opening(Ruleset::Brainking), false, CertificateKind::Openings, roots));
        // The directory is held: a second manager is refused, naming why.
        CHECK_THROWS_WITH(ProofManager::open(dir / "w"), Catch::Contains("another konane prove"));
        REQUIRE(m.run(small_options(Ruleset::Brainking, 8)).done);
    }
    // Every proof file removed (a copy of the tree alone): the run starts over from the tree's
    // shape and reaches the same verdicts, with a certificate that checks.
    std::uint64_t removed = 0;
    for (const auto& e : fs::directory_iterator(dir / "w" / "proofs"))
        removed += fs::remove(e.path()) ? 1 : 0;
    REQUIRE(removed > 0);
    ProofManager m = ProofManager::open(dir / "w");
    CHECK(m.reopened() > 0);
    CHECK_FALSE(m.tree().done());
    REQUIRE(m.run(small_options(Ruleset::Brainking, 8)).done);
    CHECK(tree_winners(m.tree()) == want);
    check_proof(m, want);
}

TEST_CASE("proof manager: a tree whose derived value its children do not give is refused",
          "[manager]") {
    const Tablebase& tb = table(4, 5, Ruleset::Brainking);
    const Board& b = tb.board();
    const std::vector<Position> roots = start_positions(b, Opening(Ruleset::Brainking));
    TempDir dir("manager-forged");
    std::uint32_t derived = 0;
    {
        ProofManager m = ProofManager::create(
            dir / "w",
            ProofTree(b, Opening(Ruleset::Brainking), false, CertificateKind::Openings, roots));
        REQUIRE(m.run(small_options(Ruleset::Brainking, 3)).done);
        const ProofTree& t = m.tree();
        bool found = false;
        for (std::uint32_t i = 0; i < t.size() && !found; ++i) {
            const TreeNode& n = t.node(i);
            if (n.state == TreeState::Won && n.proof_file == 0) {
                derived = i;
                found = true;
            }
        }
        REQUIRE(found);
    }
    // Node `derived` forged from won to lost, with a checksum that matches again.
    const fs::path tree = dir / "w" / "tree";
    std::string bytes;
    {
        std::ifstream in(tree, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    const std::size_t data = bytes.find("\nend\n") + 5;
    bytes[data + derived * 32 + 25] = 2;  // the node's value: lost
    const std::size_t body = bytes.size() - 8;
    const std::uint64_t sum = XXH64(bytes.data(), body, 0);
    for (int i = 0; i < 8; ++i)
        bytes[body + static_cast<std::size_t>(i)] = static_cast<char>(sum >> (8 * i));
    std::ofstream(tree, std::ios::binary | std::ios::trunc) << bytes;
    CHECK_THROWS_WITH(ProofManager::open(dir / "w"),
                      Catch::Contains("a value its children do not give"));
}

TEST_CASE("proof manager: the trees of the long runs kept in docs/proofs/trees load", "[manager]") {
    // The 6x8, 7x8 and 8x8 runs of docs/beyond.md, kept so that a later run (here or on another
    // machine) goes on from them: `cp -r docs/proofs/trees/8x8-a8b8 W && konane prove --work W`.
    int n = 0;
    for (const auto& e : fs::directory_iterator(fs::path(KONANE_PROOFS_DIR) / "trees")) {
        INFO(e.path().string());
        const ProofTree t = ProofTree::load(e.path() / "tree");
        CHECK(t.size() > 10);
        CHECK(t.total_nodes() > 1'000'000'000);
        CHECK_FALSE(t.done());
        const int squares = t.game().board().squares();
        CHECK((squares == 48 || squares == 56 || squares == 64));
        // A copy of the tree alone opens as a work directory: what its missing proof files
        // proved is open again.
        TempDir dir("manager-kept");
        fs::create_directories(dir / "w");
        fs::copy_file(e.path() / "tree", dir / "w" / "tree");
        const ProofManager m = ProofManager::open(dir / "w");
        CHECK(m.tree().size() == t.size());
        // Every position a proof file decided is open again, and counted; what the tree had
        // derived from them opens too; what stays decided is derived from what is left.
        std::uint64_t by_file = 0, still_by_file = 0;
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            if (t.node(i).state != TreeState::Open && t.node(i).proof_file != 0) ++by_file;
            if (m.tree().node(i).state != TreeState::Open && m.tree().node(i).proof_file != 0)
                ++still_by_file;
        }
        CHECK(m.reopened() == by_file);
        CHECK(still_by_file == 0);
        CHECK(t.stats().won + t.stats().lost - m.tree().stats().won - m.tree().stats().lost >=
              m.reopened());
        ++n;
    }
    CHECK(n == 3);
}
