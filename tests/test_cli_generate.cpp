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

namespace fs = std::filesystem;

namespace {

struct Dir {
    fs::path path;
    Dir() {
        path = fs::temp_directory_path() / ("konane-cli-test-" + std::to_string(::getpid()));
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~Dir() { fs::remove_all(path); }
};

struct Run {
    int code;
    std::string output;
};

Run run(const std::string& args) {
    const std::string cmd = std::string(KONANE_BINARY) + " " + args + " 2>&1";
    FILE* p = ::popen(cmd.c_str(), "r");
    REQUIRE(p != nullptr);
    std::string out;
    char buf[4096];
    while (std::size_t n = std::fread(buf, 1, sizeof buf, p))
        out.append(buf, n);
    const int status = ::pclose(p);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace

TEST_CASE("cli: generate refuses bad arguments with exit code 2", "[cli][generate]") {
    Dir d;
    const std::string out = (d.path / "t.kbt").string();
    for (const char* bad : {"9x9", "6x7", "0x4", "abc", "4x4 --rules nope", "4x4 -j 5000",
                            "4x4 -j -1", "4x4 --fingerprint-bits 16", "4x4 --spill ''"}) {
        INFO(bad);
        const Run r = run(std::string("generate ") + bad + " -q -o " + out);
        CHECK(r.code == 2);
        CHECK(r.output.find("error") != std::string::npos);
        CHECK_FALSE(fs::exists(out));
    }
    const Run u = run("frobnicate");
    CHECK(u.code == 2);
    CHECK(u.output.find("unknown command 'frobnicate'") != std::string::npos);
}

TEST_CASE("cli: generate never replaces something that is not a regular file", "[cli][generate]") {
    Dir d;
    const fs::path fifo = d.path / "pipe.kbt";
    REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
    const Run r = run("generate 4x4 -q -o " + fifo.string());
    CHECK(r.code == 2);
    CHECK(r.output.find("not a regular file") != std::string::npos);
    CHECK(fs::is_fifo(fifo));
    // A missing directory is an I/O failure: exit code 1, no file left behind.
    const Run m = run("generate 4x4 -q -o " + (d.path / "missing" / "t.kbt").string());
    CHECK(m.code == 1);
    CHECK_FALSE(fs::exists(d.path / "missing"));
}

TEST_CASE("probe refuses a table of format version 1 and says how to regenerate it",
          "[probe][generate]") {
    Dir d;
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
    CHECK(r.output.find("format version 1") != std::string::npos);
}

TEST_CASE("an interrupted generate leaves neither the table nor temporary files",
          "[cli][generate]") {
    Dir d;
    const fs::path table = d.path / "t.kbt";
    const fs::path spill = d.path / "spill";
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        ::execl(KONANE_BINARY, KONANE_BINARY, "generate", "4x6", "-j", "1", "-q", "--spill",
                spill.c_str(), "-o", table.c_str(), static_cast<char*>(nullptr));
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
        CHECK(e.path() == spill);  // only the (empty) directory the user named is left
    }
    CHECK(fs::is_empty(spill));
}
