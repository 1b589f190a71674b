// `konane prove` (the proof manager): a board's verdict with a certificate `check-proof`
// verifies; a run killed (SIGKILL) at random points and resumed, also from a copy of its work
// directory, reaches the same verdict; bad usage gets a clear error.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>

#include <xxhash.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/cli_helpers.hpp"
#include "tests/temp_dir.hpp"

namespace {

using namespace konane::test;
namespace fs = std::filesystem;
using nlohmann::json;

json parse_json(const Run& r) {
    INFO(r.out);
    REQUIRE(r.code == 0);
    return json::parse(r.out);
}

}  // namespace

TEST_CASE("cli: prove decides a board and its certificate checks", "[cli][manager]") {
    TempDir dir("cli-prove");
    const std::string work = quote((dir / "w").string());
    const std::string cert = quote((dir / "5x5.proof").string());
    const json j = parse_json(run("prove --board 5x5 --work " + work +
                                  " --leaf-nodes 40 --leaf-retries 0 -j 2 --memory 8M "
                                  "--certificate " +
                                  cert + " --json -q 2>/dev/null"));
    CHECK(j["done"] == true);
    CHECK(j["kind"] == "openings");
    CHECK(j["tree"]["positions"].get<int>() > 16);  // the tree grew past the 16 roots
    const json check = parse_json(run("check-proof " + cert + " --json -q 2>/dev/null"));
    CHECK(check["valid"] == true);
    CHECK(check["winner"] == j["board_winner"]);
    REQUIRE(check["roots"].size() == j["roots"].size());
    for (std::size_t i = 0; i < j["roots"].size(); ++i)
        CHECK(check["roots"][i]["winner"] == j["roots"][i]["winner"]);
    // The same verdict as the proof search in one run.
    const json search =
        parse_json(run("openings --board 5x5 --search --json -q --memory 8M 2>/dev/null"));
    CHECK(search["winner"] == j["board_winner"]);
    // The worker threads with a table each, not the default shared one: the same verdict.
    const json separate = parse_json(run("prove --board 5x5 --work " + quote((dir / "s").string()) +
                                         " --leaf-nodes 40 --leaf-retries 1 -j 2 --separate-tables "
                                         "--memory 8M --json -q 2>/dev/null"));
    CHECK(separate["done"] == true);
    CHECK(separate["run"]["shared_table"] == false);
    CHECK(j["run"]["shared_table"] == true);
    CHECK(separate["board_winner"] == j["board_winner"]);
    // --rank-threads without mpirun does nothing: said so.
    const Run ranks = run("prove --board 4x4 --work " + quote((dir / "r").string()) +
                          " --rank-threads 4 --json -q");
    CHECK(ranks.code == 0);
    CHECK_THAT(ranks.out, Catch::Contains("--rank-threads is for worker ranks under mpirun"));
    // Run again on the decided tree: nothing to do, the same answer.
    const json again = parse_json(run("prove --work " + work + " --json -q 2>/dev/null"));
    CHECK(again["done"] == true);
    CHECK(again["resumed"] == true);
    CHECK(again["run"]["nodes"] == 0);
    CHECK(again["board_winner"] == j["board_winner"]);
    // Its verdict is checked only where the certificate was built and checked: said so.
    CHECK(j["checked"] == true);
    CHECK(again["checked"] == false);
    const Run text = run("prove --work " + work + " -q");
    CHECK(text.code == 0);
    CHECK_THAT(text.out, Catch::Contains("every root decided (unchecked: no certificate built)"));
    CHECK_THAT(text.out, Catch::Contains("wins (unchecked: no certificate built)"));
    const Run unchecked = run("prove --work " + work + " -q --no-check --certificate " +
                              quote((dir / "again.proof").string()));
    CHECK_THAT(unchecked.out,
               Catch::Contains("(unchecked: the certificate was written unchecked)"));
    const Run checked = run("prove --work " + work + " -q --certificate " +
                            quote((dir / "checked.proof").string()));
    CHECK_THAT(checked.out,
               Catch::Contains("every root decided (checked: the certificate's check passed)"));
    CHECK_THAT(checked.out, !Catch::Contains("unchecked"));
}

TEST_CASE("cli: prove killed at random points resumes to the same verdict", "[cli][manager]") {
    TempDir dir("cli-prove-kill");
    std::mt19937 rng(20261206);
    fs::path work = dir / "w0";
    const std::string start =
        "prove --board 4x6 --rules any --leaf-nodes 4 --memory 1M "
        "--checkpoint 0 -q --json";
    int kills = 0;
    bool created = false;
    for (int i = 0; i < 40; ++i) {
        if (i % 4 == 3 && created) {  // continue on a copy (another machine)
            const fs::path next = dir / ("w" + std::to_string(i));
            fs::copy(work, next, fs::copy_options::recursive);
            work = next;
        }
        const double after = 0.05 + 0.01 * static_cast<double>(rng() % 30);
        const std::string args = created ? "prove --work " + quote(work.string()) + " -q --json"
                                         : start + " --work " + quote(work.string());
        const Run r = run(args + " 2>/dev/null", "timeout -s KILL " + std::to_string(after));
        created = created || fs::exists(work / "tree");
        if (r.code == 0) break;
        INFO(r.out);
        CHECK(r.code == 137);  // killed (timeout -s KILL), nothing else
        ++kills;
    }
    CHECK(kills > 0);
    const std::string cert = quote((dir / "4x6.proof").string());
    // To the end (on a slow machine every run may have been killed before its first save:
    // then this run starts the tree).
    const std::string last = created ? "prove --work " + quote(work.string()) + " -q --json"
                                     : start + " --work " + quote(work.string());
    const json j = parse_json(run(last + " --certificate " + cert + " 2>/dev/null"));
    REQUIRE(j["done"] == true);
    const json check = parse_json(run("check-proof " + cert + " --json -q 2>/dev/null"));
    CHECK(check["winner"] == j["board_winner"]);
    const json search = parse_json(
        run("openings --board 4x6 --rules any --search --json -q --memory 8M 2>/dev/null"));
    CHECK(search["winner"] == j["board_winner"]);
}

TEST_CASE("cli: prove stopped by SIGTERM saves its tree and says so and the next run resumes it",
          "[cli][manager]") {
    TempDir dir("cli-prove-term");
    const std::string work = quote((dir / "w").string());
    const Run r = run("prove --board 6x6 --work " + work +
                          " --leaf-nodes 5000 --memory 16M --checkpoint 1000 --json -q",
                      "timeout --preserve-status -s TERM 3");
    INFO(r.out);
    CHECK(r.code == 128 + 15);  // the signal's status, after a clean stop
    // stderr's line saying it stops comes before the JSON (run() joins the two streams).
    CHECK(r.out.find("konane prove: stopping") != std::string::npos);
    const json j = json::parse(r.out.substr(r.out.find('{')));
    CHECK(j["done"] == false);
    CHECK(j["stopped_by"] == "SIGTERM");
    // The tree was saved at the stop (the checkpoint interval is far longer than the run).
    CHECK(j["tree"]["positions"].get<int>() > 2);
    const json again =
        parse_json(run("prove --work " + work + " --max-nodes 20000 --json -q 2>/dev/null"));
    CHECK(again["resumed"] == true);
    CHECK(again["tree"]["positions"].get<int>() >= j["tree"]["positions"].get<int>());
}

TEST_CASE("cli: prove refuses what it cannot do, naming the problem", "[cli][manager]") {
    TempDir dir("cli-prove-bad");
    const std::string work = quote((dir / "w").string());
    Run r = run("prove --board 4x4");
    CHECK(r.code == 2);
    CHECK(r.out.find("--work") != std::string::npos);
    r = run("prove --work " + work);
    CHECK(r.code == 2);
    CHECK(r.out.find("--board") != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "w" / "tree"));
    r = run("prove --board 4x4 --work " + work + " --max-nodes 1 -q");
    CHECK(r.code == 0);
    r = run("prove --board 4x5 --work " + work);
    CHECK(r.code == 2);
    CHECK(r.out.find("holds a proof tree already") != std::string::npos);
    r = run("prove --board 4x4 --work " + work + " --leaf-nodes 0");
    CHECK(r.code == 2);
    r = run("prove 'xo/ox b' --board 4x4 --work " + quote((dir / "x").string()));
    CHECK(r.code == 2);
    r = run("prove --board 9x9 --work " + quote((dir / "y").string()));
    CHECK(r.code == 2);
    // Options are checked before the work directory is made: the corrected command runs.
    const std::string fresh = quote((dir / "z").string());
    r = run("prove --board 4x4 --work " + fresh + " --memory foo");
    CHECK(r.code == 2);
    CHECK(r.out.find("--memory") != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "z"));
    r = run("prove --board 4x4 --work " + fresh + " --certificate " +
            quote((dir / "missing" / "4x4.proof").string()) + " -q");
    CHECK(r.code != 0);
    CHECK(r.out.find("--certificate") != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "z"));
    r = run("prove --board 4x4 --work " + fresh + " --certificate " + quote(dir.path.string()) +
            " -q");
    CHECK(r.code == 2);
    CHECK_FALSE(fs::exists(dir / "z"));
    r = run("prove --board 4x4 --work " + fresh + " --memory 64M -q");
    CHECK(r.code == 0);
}

TEST_CASE("cli: a forged tree's verdict is marked unchecked and its certificate is refused",
          "[cli][manager]") {
    TempDir dir("cli-prove-forged");
    const fs::path work = dir / "w";
    // Leaves of 10^6 nodes: every root of 4x4 is decided by a worker (a proof file each), none
    // expanded, so the tree's loader takes any value for them.
    const json honest = parse_json(run("prove --board 4x4 --work " + quote(work.string()) +
                                       " --leaf-nodes 1000000 --json -q 2>/dev/null"));
    REQUIRE(honest["done"] == true);
    REQUIRE(honest["tree"]["expanded"] == 0);
    // Every root's value flipped, the checksum resealed (as a forger would).
    std::string bytes;
    {
        std::ifstream in(work / "tree", std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    const std::size_t body = bytes.find("\nend\n") + 5, records = (bytes.size() - 8 - body) / 32;
    for (std::size_t i = 0; i < records; ++i) {
        char& state = bytes[body + i * 32 + 25];
        state = static_cast<char>(state == 1 ? 2 : state == 2 ? 1 : state);
    }
    const std::uint64_t sum = XXH64(bytes.data(), bytes.size() - 8, 0);
    for (int k = 0; k < 8; ++k)
        bytes[bytes.size() - 8 + static_cast<std::size_t>(k)] = static_cast<char>(sum >> (8 * k));
    std::ofstream(work / "tree", std::ios::binary | std::ios::trunc) << bytes;
    // The forged verdict is printed, marked unchecked.
    const json forged = parse_json(run("prove --work " + quote(work.string()) + " --json -q"));
    CHECK(forged["done"] == true);
    CHECK(forged["checked"] == false);
    CHECK(forged["roots"] != honest["roots"]);
    // Its certificate fails the check: no file, an error.
    const fs::path cert = dir / "forged.proof";
    const Run r =
        run("prove --work " + quote(work.string()) + " -q --certificate " + quote(cert.string()));
    CHECK(r.code != 0);
    CHECK_FALSE(fs::exists(cert));
}

TEST_CASE("cli: prove refuses a tree file of gigabytes at once, naming the file",
          "[cli][manager]") {
    TempDir dir("cli-prove-sparse");
    const fs::path work = dir / "w";
    REQUIRE(run("prove --board 4x4 --work " + quote(work.string()) + " --max-nodes 1 -q").code ==
            0);
    // The magic line, then a hole of 6 GiB: refused from its header, under a memory limit far
    // below the file's size, with a message about the file (not "give a smaller --memory").
    std::ofstream(work / "tree", std::ios::binary | std::ios::trunc) << "konane proof tree 1\n";
    fs::resize_file(work / "tree", std::uintmax_t{6} << 30);
    const auto start = std::chrono::steady_clock::now();
    // (AddressSanitizer's shadow memory does not fit under the limit: none there.)
    const Run r =
        run("prove --work " + quote(work.string()) + " -q", kAsan ? "" : "ulimit -v 2000000;");
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains((work / "tree").string() + ": damaged: no 'end' line"));
    CHECK_THAT(r.out, !Catch::Contains("memory"));
}

TEST_CASE("cli: a resumed prove searches its leaves as the tree's last run did unless told",
          "[cli][manager]") {
    TempDir dir("cli-prove-resume-search");
    const std::string work = quote((dir / "w").string());
    auto leaf_search = [&](const std::string& extra) {
        const Run r = run("prove --work " + work + " --max-nodes 1 --json -q" + extra);
        INFO(r.out);
        REQUIRE(r.code == 0);
        // The JSON after the note a change of the leaf search makes (stderr, merged here).
        const json j = json::parse(r.out.substr(r.out.find('{')));
        return std::pair{j["run"]["leaf_nodes"].get<std::uint64_t>(),
                         j["run"]["search"].get<std::string>()};
    };
    REQUIRE(run("prove --board 6x6 --work " + work +
                " --leaf-nodes 2000 --dfpn --max-nodes 1 -q --memory 64M")
                .code == 0);
    CHECK(leaf_search("") == std::pair<std::uint64_t, std::string>{2000, "df-pn"});
    CHECK(leaf_search(" --leaf-nodes 3000 --alpha-beta") ==
          std::pair<std::uint64_t, std::string>{3000, "proof alpha-beta"});
    CHECK(leaf_search("") == std::pair<std::uint64_t, std::string>{3000, "proof alpha-beta"});
    CHECK(leaf_search(" --dfpn") == std::pair<std::uint64_t, std::string>{3000, "df-pn"});
    // A change the command makes is said, even with -q.
    const Run changed = run("prove --work " + work + " --max-nodes 1 -q --leaf-nodes 5000");
    CHECK(changed.code == 0);
    CHECK_THAT(changed.out, Catch::Contains("was searched with leaves of 3000 nodes by df-pn") &&
                                Catch::Contains("takes leaves of 5000 nodes by df-pn"));
    const Run same = run("prove --work " + work + " --max-nodes 1 -q");
    CHECK(same.code == 0);
    CHECK_THAT(same.out, !Catch::Contains("note:"));
    // A tree grown by an older konane records no leaf search: the budget is asked for, not
    // taken from the default (the 8x8 tree of docs/proofs/trees was grown with 2*10^7).
    const fs::path old = fs::path(KONANE_PROOFS_DIR) / "trees" / "8x8-a8b8";
    const fs::path copy = dir / "8x8";
    fs::create_directories(copy);
    fs::copy_file(old / "tree", copy / "tree");
    const Run refused = run("prove --work " + quote(copy.string()) + " --max-nodes 1 -q");
    CHECK(refused.code == 2);
    CHECK_THAT(refused.out,
               Catch::Contains("records no leaf search") && Catch::Contains("give --leaf-nodes"));
}

TEST_CASE("cli: prove's output escapes file names and stays valid JSON", "[cli][manager]") {
    TempDir dir("cli-prove-names");
    // A work directory and a certificate named with a byte that is not UTF-8 and an escape
    // sequence: the JSON parses, and the names come back escaped.
    const std::string work = (dir / "w\xff\x1b[31m").string();
    const std::string cert = (dir / "c\xff.proof").string();
    const Run r = run("prove 'xo.. b' --work " + quote(work) + " --certificate " + quote(cert) +
                      " --memory 64M --json -q");
    INFO(r.out);
    REQUIRE(r.code == 0);
    const json j = json::parse(r.out);
    CHECK(j["done"] == true);
    CHECK(j["work"].get<std::string>().find("\\xff") != std::string::npos);
    CHECK(j["certificate"]["path"].get<std::string>().find("\\xff") != std::string::npos);
    CHECK(r.out.find('\x1b') == std::string::npos);
}
