// `konane generate` and friends as a user meets them: bad arguments, targets that are not
// regular files, tables of an older format, and an interrupted generation.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "format/table.hpp"
#include "probe/probe.hpp"
#include "solver/solve.hpp"
#include "tests/cli_helpers.hpp"
#include "tests/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace konane::test;

TEST_CASE("cli: generate refuses bad arguments with exit code 2", "[cli][generate]") {
    TempDir d("konane-cli-test");
    const std::string out = (d.path / "t.kbt").string();
    for (const char* bad :
         {"9x9", "6x7", "0x4", "abc", "4x4 --rules nope", "4x4 -j 5000", "4x4 -j -1",
          "4x4 --fingerprint-bits 16", "4x4 --work ''", "4x4 --memory ''", "4x4 --memory 12X",
          "4x4 --memory -5G", "4x4 --memory 0x10M"}) {
        INFO(bad);
        const Run r = run(std::string("generate ") + bad + " -q -o " + out);
        CHECK(r.code == 2);
        CHECK(r.out.find("error") != std::string::npos);
        CHECK_FALSE(fs::exists(out));
    }
    {
        // A budget below the least a run needs is a shortage of memory (exit 4), not bad input.
        const Run r = run("generate 4x4 --memory 1M -q -o " + out);
        CHECK(r.code == 4);
        CHECK(r.out.find("memory budget of 1048576 bytes") != std::string::npos);
        CHECK(r.out.find("M or more") != std::string::npos);  // the least budget advised
        CHECK_FALSE(fs::exists(out));
    }
    const Run u = run("frobnicate");
    CHECK(u.code == 2);
    CHECK(u.out.find("unknown command 'frobnicate'") != std::string::npos);
    // A usage error found by the option parser is named by its command, as the command's own
    // errors are, with that command's help.
    for (const char* command : {"value", "match", "probe"}) {
        INFO(command);
        const Run m = run(command);
        CHECK(m.code == 2);
        CHECK(m.out.rfind(std::string("konane ") + command + ": error: ", 0) == 0);
        CHECK(m.out.find(std::string("'konane ") + command + " --help'") != std::string::npos);
    }
}

TEST_CASE("cli: generate never replaces something that is not a regular file", "[cli][generate]") {
    TempDir d("konane-cli-test");
    const fs::path fifo = d.path / "pipe.kbt";
    REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
    const Run r = run("generate 4x4 -q -o " + fifo.string());
    CHECK(r.code == 2);
    CHECK(r.out.find("not a regular file") != std::string::npos);
    CHECK(fs::is_fifo(fifo));
    // A symbolic link (to a file or to nothing) would be replaced: refused before any work, so
    // no work directory is left behind.
    for (const char* target : {"pipe.kbt", "nothing.kbt"}) {
        const fs::path link = d.path / (std::string("link-to-") + target);
        fs::create_symlink(d.path / target, link);
        const Run l = run("generate 4x4 -q -o " + link.string());
        INFO(l.out);
        CHECK(l.code == 2);
        CHECK(l.out.find("symbolic link") != std::string::npos);
        CHECK(fs::is_symlink(link));
        CHECK_FALSE(fs::exists(link.string() + ".work"));
    }
    // A missing directory is an I/O failure: exit code 1, no file left behind.
    const Run m = run("generate 4x4 -q -o " + (d.path / "missing" / "t.kbt").string());
    CHECK(m.code == 1);
    CHECK_FALSE(fs::exists(d.path / "missing"));
}

TEST_CASE("probe refuses a table of format version 1 and says how to regenerate it",
          "[probe][generate]") {
    TempDir d("konane-cli-test");
    konane::solver::GenerateOptions o;
    o.board = konane::Board::make(3, 4);
    o.output = d.path / "old.kbt";
    konane::solver::generate(o);
    REQUIRE(fs::exists(o.output));
    {
        // Version field (bytes 8..11) set to 1, as a table written before format 2 has it.
        std::fstream f(o.output, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(8);
        f.put(1);
    }
    CHECK_THROWS_WITH(konane::Tablebase::open(o.output),
                      Catch::Contains("unsupported format version 1") &&
                          Catch::Contains("konane generate 3x4 --rules brainking"));
    const Run r = run("probe " + o.output.string() + " '.xox/xoxo/oxox b'");
    CHECK(r.code != 0);
    CHECK(r.out.find("format version 1") != std::string::npos);
}

TEST_CASE("cli: upgrade rewrites a version-3 table that probe then reads and refuses a current one",
          "[cli][generate]") {
    TempDir d("konane-cli-test");
    // tests/data: the 4x4 table as konane wrote it in format 3 (commit 6b4e829).
    const fs::path v3 = fs::path(KONANE_TEST_DATA) / "konane-4x4-brainking-v3.kbt";
    const fs::path copy = d.path / "old.kbt";
    fs::copy_file(v3, copy);
    Run r = run("probe " + copy.string());
    CHECK(r.code == 2);
    CHECK(r.out.find("format version 3") != std::string::npos);
    CHECK(r.out.find("konane upgrade " + copy.string()) != std::string::npos);
    r = run("upgrade " + copy.string() + " -q -j 1");
    CHECK(r.code == 0);
    CHECK(r.out.find("format version 4") != std::string::npos);
    r = run("probe " + copy.string() + " --json");
    CHECK(r.code == 0);
    CHECK(r.out.find("\"value\"") != std::string::npos);
    r = run("upgrade " + copy.string() + " --json");
    CHECK(r.code == 2);
    CHECK(r.out.find("already format version 4") != std::string::npos);
    CHECK(run("upgrade " + copy.string() + " -j -1").code == 2);
}

TEST_CASE("an interrupted generate leaves no table, and its rerun resumes to the same file",
          "[cli][generate][resume]") {
    TempDir d("konane-cli-test");
    const fs::path ref = d.path / "ref.kbt";
    REQUIRE(run("generate 4x6 -q -j 1 -o " + ref.string()).code == 0);
    CHECK_FALSE(fs::exists(d.path / "ref.kbt.work"));
    const fs::path table = d.path / "t.kbt";
    const fs::path work = d.path / "work";
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        ::execl(KONANE_BINARY, KONANE_BINARY, "generate", "4x6", "-j", "1", "-q", "--work",
                work.c_str(), "-o", table.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    // Wait until the temporary table exists (the solve has started), then interrupt.
    bool seen = false;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!seen && std::chrono::steady_clock::now() < until) {
        for (const auto& e : fs::directory_iterator(d.path)) {
            if (e.path().filename().string().rfind("t.kbt.tmp.", 0) == 0) seen = true;
        }
        if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    REQUIRE(seen);
    ::kill(pid, SIGTERM);
    int status = 0;
    ::waitpid(pid, &status, 0);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGTERM);
    CHECK_FALSE(fs::exists(table));
    for (const auto& e : fs::directory_iterator(d.path)) {
        INFO(e.path());
        CHECK((e.path() == work || e.path() == ref));  // no temporary table is left
    }
    CHECK(fs::exists(work / "manifest"));  // the finished steps are kept for the rerun
    const Run again = run("generate 4x6 -q -j 2 --memory " + small_budget("32M") + " --work " +
                          work.string() + " -o " + table.string());
    CHECK(again.code == 0);
    CHECK(slurp(table) == slurp(ref));
    CHECK_FALSE(fs::exists(work));
}

TEST_CASE("a generate killed at any step resumes to the same file", "[cli][generate][resume]") {
    TempDir d("konane-cli-test");
    const fs::path ref = d.path / "ref.kbt";
    REQUIRE(run("generate 5x5 -q -j 1 -o " + ref.string()).code == 0);
    const std::string want = slurp(ref);
    const fs::path table = d.path / "t.kbt";
    const fs::path work = d.path / "t.kbt.work";
    // KONANE_KILL_AT=N: SIGKILL at the N-th file or manifest written (a power cut); the 32 MiB
    // budget makes the enumeration write several sorted runs per layer, so some kills land
    // between runs of one step.
    int killed = 0;
    for (int at : {1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144}) {
        INFO("KONANE_KILL_AT=" << at);
        const Run k =
            run("generate 5x5 -q -j 2 --memory " + small_budget("32M") + " -o " + table.string(),
                "env KONANE_KILL_AT=" + std::to_string(at));
        if (k.code != 0) {
            ++killed;
            CHECK_FALSE(fs::exists(table));
            CHECK(fs::exists(work));
            // Resumed with other threads and another budget.
            const Run r = run("generate 5x5 -q -j 1 --memory " + small_budget("64M") + " -o " +
                              table.string());
            CHECK(r.code == 0);
        }
        CHECK(slurp(table) == want);
        CHECK_FALSE(fs::exists(work));
        fs::remove(table);
    }
    CHECK(killed >= 8);
}

TEST_CASE("a generate solved by sort-merge joins writes the same file, resumed either way",
          "[cli][generate][resume][join]") {
    TempDir d("konane-cli-test");
    const fs::path ref = d.path / "ref.kbt";
    // 5x5's layers are all under 2^24 positions: `auto` looks every child up by perfect hash.
    const Run h = run("generate 5x5 -q -j 1 --json -o " + ref.string());
    REQUIRE(h.code == 0);
    CHECK(h.out.find("\"join_layers\":0") != std::string::npos);
    const std::string want = slurp(ref);
    const fs::path table = d.path / "t.kbt";
    const fs::path work = d.path / "t.kbt.work";
    const std::string budget = " --memory " + small_budget("64M") + " -o " + table.string();
    const Run j = run("generate 5x5 -q -j 2 --solve-by join --json" + budget);
    REQUIRE(j.code == 0);
    CHECK(j.out.find("\"join_layers\":23") != std::string::npos);  // every layer with a position
    CHECK(j.out.find("\"solved_by\":\"hash\"") == std::string::npos);
    CHECK(slurp(table) == want);
    fs::remove(table);
    // Killed while solving (the solve's steps are the kill points from about 90 on at this
    // budget), then resumed by the other method: a layer stored by rank gets its perfect hash
    // for the look-ups, one stored by slot its depths by rank for the joins.
    int in_solve = 0;
    for (int at : {95, 105, 115, 125, 135}) {
        for (const char* first : {"join", "hash"}) {
            const std::string second = std::string(first) == "join" ? "hash" : "join";
            INFO("KONANE_KILL_AT=" << at << ", --solve-by " << first << " then " << second);
            const Run k = run("generate 5x5 -q -j 2 --solve-by " + std::string(first) + budget,
                              "env KONANE_KILL_AT=" + std::to_string(at));
            REQUIRE(k.code != 0);
            const std::string manifest = slurp(work / "manifest");
            const bool solving = manifest.find("\nsolved ") != std::string::npos;
            in_solve += solving;
            CHECK((manifest.find(" ranked\n") != std::string::npos) ==
                  (solving && std::string(first) == "join"));
            const Run r = run("generate 5x5 -q -j 1 --solve-by " + second + budget);
            CHECK(r.code == 0);
            CHECK(slurp(table) == want);
            CHECK_FALSE(fs::exists(work));
            fs::remove(table);
        }
    }
    CHECK(in_solve >= 8);
    // A budget that cannot hold the joins is refused under `join` once the layers are counted
    // (before the first is solved), never under `auto`; the generator of layer parts has no
    // joins. 16 threads: each holds the records of a chunk (join_memory_bytes()), so that the
    // joins need far more than the look-ups, with or without ASan's allowance.
    const fs::path ref46 = d.path / "ref46.kbt";
    REQUIRE(run("generate 4x6 -q -o " + ref46.string()).code == 0);
    const std::string small_budget_args =
        " -q -j 16 --memory " + small_budget("32M") + " -o " + table.string();
    const Run small = run("generate 4x6 --solve-by join" + small_budget_args);
    CHECK(small.code == 4);
    CHECK(small.out.find("by sort-merge joins") != std::string::npos);
    CHECK(small.out.find("--solve-by auto, to resume") != std::string::npos);
    CHECK_FALSE(fs::exists(table));
    REQUIRE(fs::exists(work / "manifest"));
    CHECK(slurp(work / "manifest").find("\nsolved ") == std::string::npos);
    // The budget it names holds every layer's joins: a rerun with it would go through.
    const auto named = small.out.find("rerun with --memory ");
    REQUIRE(named != std::string::npos);
    const std::string named_budget =
        small.out.substr(named + 20, small.out.find(' ', named + 20) - named - 20);
    const Run dry =
        run("generate 4x6 --solve-by join -q -j 16 --memory " + named_budget + " --work " +
            (d.path / "named").string() + " -o " + (d.path / "named.kbt").string());
    CHECK(dry.code == 0);
    CHECK(slurp(d.path / "named.kbt") == slurp(ref46));
    const Run resumed = run("generate 4x6 --json" + small_budget_args);
    CHECK(resumed.code == 0);
    CHECK(resumed.out.find("\"join_layers\":0") != std::string::npos);
    CHECK(slurp(table) == slurp(ref46));
    const Run staged = run("generate 4x4 -q --staged --solve-by join -o " + table.string());
    CHECK(staged.code == 2);
    CHECK(staged.out.find("--solve-by is for the one-process generator") != std::string::npos);
    const Run bad = run("generate 4x4 -q --solve-by sort -o " + table.string());
    CHECK(bad.code == 2);
}

TEST_CASE("a work directory of another board or in use is refused", "[cli][generate][resume]") {
    TempDir d("konane-cli-test");
    const fs::path work = d.path / "work";
    const Run k =
        run("generate 4x5 -q --work " + work.string() + " -o " + (d.path / "a.kbt").string(),
            "env KONANE_KILL_AT=5");
    REQUIRE(k.code != 0);
    const Run other =
        run("generate 5x4 -q --work " + work.string() + " -o " + (d.path / "b.kbt").string());
    CHECK(other.code != 0);
    CHECK(other.out.find("holds a generation of board 4x5, not 5x4") != std::string::npos);
    CHECK_FALSE(fs::exists(d.path / "b.kbt"));
    const Run bad = run("generate 4x5 -q --work " + (d.path / "a.kbt.none" / "x").string() +
                        " -o " + (d.path / "missing" / "a.kbt").string());
    CHECK(bad.code == 1);
    CHECK(bad.out.find("no such directory") != std::string::npos);
}

TEST_CASE("a work directory that is not one is never used or emptied", "[cli][generate][resume]") {
    TempDir d("konane-cli-test");
    const fs::path mine = d.path / "mine";
    fs::create_directories(mine);
    {
        std::FILE* f = std::fopen((mine / "notes.txt").c_str(), "w");
        std::fputs("x", f);
        std::fclose(f);
    }
    {
        std::FILE* f = std::fopen((mine / "layer-3.txt").c_str(), "w");
        std::fputs("x", f);
        std::fclose(f);
    }
    const Run r =
        run("generate 4x4 -q --work " + mine.string() + " -o " + (d.path / "t.kbt").string());
    CHECK(r.code == 1);
    CHECK(r.out.find("no konane work") != std::string::npos);
    CHECK(fs::exists(mine / "notes.txt"));
    CHECK(fs::exists(mine / "layer-3.txt"));
    CHECK_FALSE(fs::exists(d.path / "t.kbt"));
    const Run v = run("generate 4x4 -q -o " + (d.path / "t.kbt").string());
    REQUIRE(v.code == 0);
    const Run w = run("verify " + (d.path / "t.kbt").string() + " -q --work " + mine.string());
    CHECK(w.code == 1);
    CHECK(fs::exists(mine / "notes.txt"));
}

TEST_CASE("a finished generate removes the work directories it created, not the user's",
          "[cli][generate]") {
    TempDir d("konane-cli-test");
    // a/b/w: a and b made by the run, removed with w.
    const Run r = run("generate 3x4 -q --work " + (d.path / "a" / "b" / "w").string() + " -o " +
                      (d.path / "t.kbt").string());
    REQUIRE(r.code == 0);
    CHECK_FALSE(fs::exists(d.path / "a"));
    // kept/x/w with kept/ made by the user: x goes, kept stays.
    fs::create_directories(d.path / "kept");
    const Run k = run("generate 3x4 -q --work " + (d.path / "kept" / "x" / "w").string() + " -o " +
                      (d.path / "u.kbt").string());
    REQUIRE(k.code == 0);
    CHECK(fs::exists(d.path / "kept"));
    CHECK(fs::is_empty(d.path / "kept"));
}

TEST_CASE("a damaged work file is refused on resume, naming it", "[cli][generate][resume]") {
    TempDir d("konane-cli-test");
    const fs::path table = d.path / "t.kbt";
    const fs::path work = d.path / "t.kbt.work";
    // Killed after a few layers: the keys of the finished ones are on disk (runs of the step
    // under way are rebuilt on resume, so a layer's keys are what a resume must trust).
    const Run k = run("generate 5x5 -q -j 1 -o " + table.string(), "env KONANE_KILL_AT=20");
    REQUIRE(k.code != 0);
    fs::path victim;
    for (const auto& e : fs::directory_iterator(work)) {
        const std::string name = e.path().filename().string();
        if (name.rfind("layer-", 0) == 0 && e.path().extension() == ".keys" &&
            fs::file_size(e.path()) > 200)
            victim = e.path();
    }
    REQUIRE_FALSE(victim.empty());
    {
        std::FILE* f = std::fopen(victim.c_str(), "r+b");
        REQUIRE(f != nullptr);
        std::fseek(f, static_cast<long>(fs::file_size(victim) - 40), SEEK_SET);
        const int c = std::fgetc(f);
        std::fseek(f, static_cast<long>(fs::file_size(victim) - 40), SEEK_SET);
        std::fputc(c ^ 0x10, f);
        std::fclose(f);
    }
    const Run r = run("generate 5x5 -q -j 1 -o " + table.string());
    CHECK(r.code == 1);
    CHECK(r.out.find(victim.filename().string()) != std::string::npos);
    CHECK(r.out.find("checksum mismatch") != std::string::npos);
    CHECK_FALSE(fs::exists(table));
}

TEST_CASE("a generate whose estimate exceeds the memory budget is refused before any work",
          "[cli][generate]") {
    TempDir d("konane-cli-test");
    const fs::path out = d.path / "t.kbt";
    // 6x6 needs at least 6.4 GiB for its largest layer's solve (its perfect hash built from the
    // layer's key file; 8.8 GiB to build it beside the keys); 5x6 and 6x5 at least 136 MiB.
    for (const char* args : {"6x6 --memory 2G", "5x6 --memory 100M", "6x5 --memory 120M"}) {
        INFO(args);
        const Run r = run(std::string("generate ") + args + " -q -o " + out.string());
        CHECK(r.code == 4);
        CHECK(r.out.find("cannot hold the solve") != std::string::npos);
        CHECK(r.out.find("rerun with --memory") != std::string::npos);
        CHECK_FALSE(fs::exists(out));
        CHECK_FALSE(fs::exists(d.path / "t.kbt.work"));
    }
    // The estimate is printed at the start; a budget that holds it is not refused.
    const Run ok = run("generate 4x5 --memory " + small_budget("64M") + " -o " + out.string());
    CHECK(ok.code == 0);
    CHECK(ok.out.find("estimate: 26653 positions") != std::string::npos);
}
