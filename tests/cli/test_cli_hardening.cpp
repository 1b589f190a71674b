// The command under hostile use (issue 11, "Resources and signals", "Input and output"):
// resource failures, signals, unusable output locations, unsafe strings, strict numbers and
// one exit code per kind of error, each run as a process (KONANE_BINARY).
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/json.hpp"
#include "process/replace_file.hpp"
#include "tests/cli_helpers.hpp"
#include "tests/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace konane::test;

namespace {

struct Dir : TempDir {
    Dir() : TempDir("konane-hardening") {
        fs::permissions(path, fs::perms::all);  // other users may work here (setpriv below)
    }
    /// The names in the directory, sorted.
    std::vector<std::string> names() const {
        std::vector<std::string> out;
        for (const auto& e : fs::directory_iterator(path))
            out.push_back(e.path().filename().string());
        std::sort(out.begin(), out.end());
        return out;
    }
    /// Whether a temporary table ("*.tmp.*") is in the directory.
    bool has_temporary() const {
        for (const auto& n : names()) {
            if (n.find(".tmp.") != std::string::npos) return true;
        }
        return false;
    }
};

/// The number of lines of s.
std::size_t lines(const std::string& s) {
    return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

/// A 4x4 table in d, generated once per directory.
fs::path table_4x4(const Dir& d) {
    const fs::path t = d.path / "t44.kbt";
    if (!fs::exists(t)) REQUIRE(run("generate 4x4 -q -j 1 -o " + quote(t.string())).code == 0);
    return t;
}

/// Starts `konane generate BOARD -j 1 -q -o OUT` and waits until its temporary table exists
/// (the solve has started). Returns the child's pid.
pid_t start_generate(const Dir& d, const char* board, const fs::path& out,
                     const fs::path& stderr_file = {}) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE, SIGVTALRM})
            ::signal(sig, SIG_DFL);  // not ignored as the test runner may have them
        if (!stderr_file.empty()) {
            const int fd = ::open(stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd < 0 || ::dup2(fd, 2) < 0) ::_exit(126);
        }
        ::execl(KONANE_BINARY, KONANE_BINARY, "generate", board, "-j", "1", "-q", "-o", out.c_str(),
                static_cast<char*>(nullptr));
        ::_exit(127);
    }
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!d.has_temporary() && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    REQUIRE(d.has_temporary());
    return pid;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Resources and signals

TEST_CASE("cli: threads that cannot be started are refused in one line with exit 1",
          "[cli][hardening][slow]") {
    // Each thread's stack is RLIMIT_STACK (1 GB) and the address space 2 GB: the second thread
    // cannot be mapped (as `ulimit -u` would refuse it, but this holds for root too).
    Dir d;
    const fs::path out = d.path / "t.kbt";
    const Run r = run("generate 4x4 -q -j 8 -o " + quote(out.string()),
                      "ulimit -s 1000000; ulimit -v 2000000;");
    CHECK(r.code == 1);
    CHECK(r.out.find("konane generate: error: cannot start 8 threads") == 0);
    CHECK(lines(r.out) == 1);
    CHECK(d.names().empty());  // refused before any work: no table, no work directory
}

TEST_CASE("cli: out of memory is one line with exit 1 and no temporary table",
          "[cli][hardening][slow]") {
    Dir d;
    const fs::path out = d.path / "t.kbt";
    const Run r =
        run("generate 5x5 -q -j 1 --memory 2G -o " + quote(out.string()), "ulimit -v 300000;");
    CHECK(r.code == 1);
    CHECK(r.out.find("out of memory") != std::string::npos);
    CHECK(lines(r.out) == 1);
    CHECK_FALSE(fs::exists(out));
    CHECK_FALSE(d.has_temporary());
}

TEST_CASE("cli: every terminating signal removes the temporary table", "[cli][hardening]") {
    Dir logs;
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE, SIGVTALRM}) {
        INFO("signal " << sig);
        Dir d;
        const fs::path out = d.path / "t.kbt";
        const fs::path err = logs.path / ("stderr-" + std::to_string(sig));
        const pid_t pid = start_generate(d, "4x6", out, err);
        ::kill(pid, sig);
        int status = 0;
        ::waitpid(pid, &status, 0);
        CHECK(WIFSIGNALED(status));
        CHECK(WTERMSIG(status) == sig);
        CHECK_FALSE(fs::exists(out));
        CHECK_FALSE(d.has_temporary());
        CHECK(d.names() == std::vector<std::string>{"t.kbt.work"});  // kept to resume
        // Says so on stderr (not for SIGPIPE: stderr may be the broken pipe).
        const bool told =
            slurp(err).find("interrupted; the finished steps are kept in " +
                            (d.path / "t.kbt.work").string() +
                            ": run the same command again to resume") != std::string::npos;
        CHECK(told == (sig != SIGPIPE));
    }
}

TEST_CASE("cli: a file size limit is an I/O error that leaves no temporary table",
          "[cli][hardening]") {
    Dir d;
    const fs::path out = d.path / "t.kbt";
    // /bin/sh counts 512-byte blocks: 64 KiB, less than the 5x5 table (about 430 KB).
    const Run r = run("generate 5x5 -q -j 1 -o " + quote(out.string()), "ulimit -f 128;");
    CHECK(r.code == 1);
    CHECK(r.out.find("File too large") != std::string::npos);
    CHECK(lines(r.out) == 1);
    CHECK_FALSE(fs::exists(out));
    CHECK_FALSE(d.has_temporary());
}

TEST_CASE("cli: after kill -9 the next run removes the stale temporary table, not a live one",
          "[cli][hardening]") {
    Dir d;
    const fs::path out = d.path / "t.kbt";
    const pid_t pid = start_generate(d, "4x6", out);
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    REQUIRE(d.has_temporary());
    std::string stale;
    for (const auto& n : d.names()) {
        if (n.find(".tmp.") != std::string::npos) stale = n;
    }
    // A temporary table held by a live writer (its flock) is never touched.
    const fs::path live = d.path / "t.kbt.tmp.0123456789abcdef";
    const int fd = ::open(live.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    REQUIRE(fd >= 0);
    REQUIRE(::flock(fd, LOCK_EX | LOCK_NB) == 0);
    const Run r = run("generate 4x6 -j 1 -o " + quote(out.string()));
    ::close(fd);
    CHECK(r.code == 0);
    CHECK(r.out.find("removed " + (d.path / stale).string() +
                     ", a temporary table left by a run that was killed") != std::string::npos);
    CHECK(fs::exists(out));
    CHECK(d.names() == std::vector<std::string>{"t.kbt", live.filename().string()});
}

TEST_CASE("cli: output and work locations are checked before any work", "[cli][hardening]") {
    Dir d;
    const std::string out = quote((d.path / "t.kbt").string());
    struct Case {
        std::string args;
        int code;
        const char* says;
    };
    fs::create_directories(d.path / "adir");
    fs::permissions(d.path / "adir", fs::perms::all);
    { std::ofstream(d.path / "afile") << "x"; }
    const std::vector<Case> cases = {
        {"-o " + quote(d.path.string()), 2, "exists and is not a regular file (a directory)"},
        {"-o /nonexistent/d/x.kbt", 1, "/nonexistent/d: no such directory"},
        {"-o " + out + " --work /dev/null", 2, "exists and is not a directory"},
        {"-o " + out + " --work " + quote((d.path / "afile" / "w").string()), 2,
         "is not a directory"},
        {"-o " + quote((d.path / "afile" / "t.kbt").string()), 1, "no such directory"},
    };
    for (const auto& c : cases) {
        INFO(c.args);
        const auto t0 = std::chrono::steady_clock::now();
        const Run r = run("generate 5x6 -q " + c.args);
        CHECK(r.code == c.code);
        CHECK(r.out.find(c.says) != std::string::npos);
        CHECK(lines(r.out) == 1);
        CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));
    }
    CHECK(d.names() == std::vector<std::string>{"adir", "afile"});
    // A read-only directory and one without permission, as a user without root's rights.
    const bool root = ::geteuid() == 0;
    if (root && !fs::exists("/usr/bin/setpriv")) return;
    const std::string as_user =
        root ? "/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups" : "";
    const fs::path ro = d.path / "ro", closed = d.path / "closed";
    fs::create_directories(ro);
    fs::create_directories(closed);
    fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                            fs::perms::group_exec | fs::perms::others_read |
                            fs::perms::others_exec);
    fs::permissions(closed, fs::perms::owner_all);
    for (const auto& [args, says] :
         {std::pair{"-o " + quote((ro / "t.kbt").string()), "cannot create files in"},
          std::pair{"-o " + quote((closed / "t.kbt").string()), "Permission denied"},
          std::pair{"-o " + quote((d.path / "adir" / "t.kbt").string()) + " --work " +
                        quote((ro / "w").string()),
                    "--work"}}) {
        INFO(args);
        if (!root) fs::permissions(closed, fs::perms::none);
        const Run r = run("generate 5x6 -q " + args, as_user);
        CHECK(r.code == 1);
        CHECK(r.out.find(says) != std::string::npos);
        CHECK(lines(r.out) == 1);
    }
    fs::permissions(closed, fs::perms::owner_all);
    CHECK(fs::is_empty(ro));
    CHECK(fs::is_empty(closed));
    CHECK(fs::is_empty(d.path / "adir"));
}

// ---------------------------------------------------------------------------------------------
// Input and output

TEST_CASE("cli: file names that are not UTF-8 are escaped in JSON and text", "[cli][hardening]") {
    Dir d;
    const fs::path t = table_4x4(d);
    const std::string bad = (d.path / "bad\xff.kbt").string();
    fs::copy_file(t, bad);
    const Run info = run("info " + quote(bad) + " --json");
    CHECK(info.code == 0);
    const auto j = nlohmann::json::parse(info.out);
    CHECK(j["file"] == (d.path / "bad\\xff.kbt").string());
    const Run missing = run("info " + quote((d.path / "none\xff\x1b[2J.kbt").string()) + " --json");
    CHECK(missing.code == 1);
    CHECK(missing.out.find("none\\xff\\x1b[2J.kbt: open: No such file") != std::string::npos);
    CHECK(missing.out.find('\x1b') == std::string::npos);
    // generate --json with such a name: the table and a valid JSON summary, exit 0.
    const std::string gen = (d.path / "gen\xfe.kbt").string();
    const Run g = run("generate 3x4 -q -j 1 --json -o " + quote(gen));
    CHECK(g.code == 0);
    CHECK(nlohmann::json::parse(g.out)["file"] == (d.path / "gen\\xfe.kbt").string());
    CHECK(fs::exists(gen));
    const Run text = run("info " + quote(bad));
    CHECK(text.out.find("bad\\xff.kbt") != std::string::npos);
}

TEST_CASE("cli: error messages quote a short escaped excerpt at the right place",
          "[cli][hardening]") {
    Dir d;
    const std::string t = quote(table_4x4(d).string());
    const Run esc = run("probe " + t + " " + quote("xo\x1b[2J/oxox b"));
    CHECK(esc.code == 2);
    CHECK(esc.out.find('\x1b') == std::string::npos);
    CHECK(esc.out.find("unknown character '\\x1b' at rank 2 (row 1 from the top), file c") !=
          std::string::npos);
    // A non-ASCII character is blamed on its own rank and file, not on a row length.
    const Run utf = run("probe " + t + " " + quote("xoxo/ox\xc3\xa9x/xoxo/oxox b"));
    CHECK(utf.code == 2);
    CHECK(utf.out.find("unknown character '\xc3\xa9' at rank 3 (row 2 from the top), file c") !=
          std::string::npos);
    // A 100 KB position or move (an argument holds at most 128 KiB): a short excerpt, once.
    const std::string huge(100000, 'x');
    for (const std::string& args :
         {"probe " + t + " " + quote(huge + " b"),
          "probe " + t + " --game " + quote("a4 b4 " + huge), "solve " + quote("xo/ox " + huge),
          "moves 6x6 --game " + quote("c" + huge)}) {
        const Run r = run(args);
        INFO(r.out.substr(0, 300));
        CHECK(r.code == 2);
        CHECK(r.out.size() < 400);
        CHECK(r.out.find("100") != std::string::npos);  // the length is named
    }
    // A batch line that is not UTF-8 gets a valid JSON error line.
    const Run batch = run("probe " + t + " --batch", "printf 'bad\\377\\n' |");
    CHECK(batch.code == 0);
    const auto j = nlohmann::json::parse(batch.out);
    CHECK(j["position"] == "bad\\xff");
    CHECK(j.contains("error"));

    // Each answer is sent as soon as the lines received so far are answered: a client that
    // writes a line and waits gets its answer while standard input is still open (the sleep
    // keeps it open; timeout ends the batch, which has answered by then).
    const Run live =
        run("probe " + t + " --batch", "(echo '..xo/oxox/xoxo/oxox b'; sleep 20) | timeout 3");
    CHECK(live.out.find("\"position\":\"..xo/oxox/xoxo/oxox b\"") != std::string::npos);
    // A line longer than any position ends the batch with a short message naming the limit
    // (input is read in bounded pieces), not an echo of the line.
    const Run long_line = run("probe " + t + " --batch", "head -c 100000 /dev/zero | tr '\\0' x |");
    CHECK(long_line.code == 2);
    CHECK(long_line.out.size() < 1000);
    CHECK_THAT(long_line.out, Catch::Contains("line 1 is longer than 4096 bytes"));
}

TEST_CASE("cli: long output names work and numbers are parsed strictly", "[cli][hardening]") {
    Dir d;
    for (std::size_t len : {240u, 255u}) {
        INFO(len);
        const fs::path out = d.path / (std::string(len - 4, 'n') + ".kbt");
        const Run r = run("generate 3x4 -q -j 1 -o " + quote(out.string()));
        CHECK(r.code == 0);
        CHECK(fs::exists(out));
        fs::remove(out);
    }
    CHECK(fs::is_empty(d.path));
    for (const char* bad :
         {"solve '.oxox. b' --max-positions -1", "solve '.oxox. b' --max-positions 1e6",
          "solve '.oxox. b' --board ''", "solve '.oxox. b' --table ''",
          "solve '.oxox. b' --memory ''", "generate 3x4 -j 0x10", "generate 3x4 -j ' 5'",
          "generate 3x4 -j ''", "generate 3x4 --rules ''", "generate ''", "perft 4x4 0x3",
          "perft 4x4 -1", "moves --board ''", "serve x.kbt --port 0x50", "info ''"}) {
        INFO(bad);
        const Run r = run(bad, "cd " + quote(d.path.string()) + " &&");
        CHECK(r.code == 2);
        CHECK(r.out.find("error") != std::string::npos);
    }
    CHECK(fs::is_empty(d.path));
}

TEST_CASE("cli: --memory takes fractions and binary units, and echoes what was given",
          "[cli][hardening]") {
    Dir d;
    const std::string in = "cd " + quote(d.path.string()) + " &&";
    // Accepted spellings: a 3x4 table is built with each, under the budget they mean.
    for (auto [given, budget, mib] :
         {std::tuple{"1.5G", "(budget 1536.0 MiB)", 1536},
          std::tuple{"64MiB", "(budget 64.0 MiB)", 64}, std::tuple{"64mb", "(budget 64.0 MiB)", 64},
          std::tuple{"0.25g", "(budget 256.0 MiB)", 256},
          std::tuple{"65536K", "(budget 64.0 MiB)", 64}}) {
        INFO(given);
        // A budget below what the process holds before any work (about 250 MiB under
        // AddressSanitizer, cli_helpers.hpp held_mib()) and the enumeration's 12 MiB is
        // refused: such spellings are checked in the builds where it holds less.
        if (mib < held_mib() + 16) continue;
        const Run r = run(std::string("generate 3x4 -q -j 1 --memory ") + given + " -o t.kbt", in);
        CHECK(r.code == 0);
        CHECK_THAT(r.out, Catch::Contains(budget));
    }
    // Refused, naming what was given (not a rounded figure) and the least that runs.
    const Run small = run("generate 3x4 -q --memory 10K -o t.kbt", in);
    CHECK(small.code == 4);
    CHECK_THAT(small.out, Catch::Contains("memory budget of 10240 bytes") &&
                              Catch::Contains("cannot hold the solve") &&
                              Catch::Contains("M or more"));
    // A gap's run has no estimate: refused for what any run takes (the process and the
    // enumeration's least working set).
    const Run gap = run("generate 3x4 -q --gap b2,b3 --memory 10K -o t.kbt", in);
    CHECK(gap.code == 4);
    CHECK_THAT(gap.out, Catch::Contains("memory budget of 10240 bytes") &&
                            Catch::Contains("is less than any run takes") &&
                            Catch::Contains("M (--memory)"));
    const Run frac = run("generate 3x4 -q --memory 1.5 -o t.kbt", in);
    CHECK(frac.code == 2);
    CHECK_THAT(frac.out, Catch::Contains("a size in bytes must be a whole number"));
    for (const char* bad : {"1.G", ".5G", "5X", "5GG", "5 G", "-5G"}) {
        INFO(bad);
        const Run r = run(std::string("generate 3x4 -q --memory '") + bad + "' -o t.kbt", in);
        CHECK(r.code == 2);
        CHECK_THAT(r.out, Catch::Contains("expected a size such as"));
    }
    // More than the machine has: built, with a warning (not with -q).
    const Run big = run("generate 3x4 -j 1 --memory 100000G -o t.kbt", in);
    CHECK(big.code == 0);
    CHECK_THAT(big.out, Catch::Contains("warning: --memory 100000G is more than this machine's"));
}

TEST_CASE("cli: one exit code per kind of error for every subcommand", "[cli][hardening]") {
    Dir d;
    const fs::path t = table_4x4(d);
    const std::string missing = quote((d.path / "missing.kbt").string());
    const fs::path damaged = d.path / "damaged.kbt";
    fs::copy_file(t, damaged);
    {
        std::fstream f(damaged, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(static_cast<std::streamoff>(fs::file_size(damaged) - 8));
        f.put('\x5a');  // the whole file's checksum, checked at open
    }
    const std::string bad = quote(damaged.string());
    const std::string good = quote(t.string());
    const std::string start = "'xoxo/oxox/xoxo/oxox b'";
    struct Case {
        std::string args;
        int code;
    };
    const std::vector<Case> cases = {
        // 1: a file that cannot be opened (an I/O error), a search over its limit
        {"info " + missing, 1},
        {"openings " + missing, 1},
        {"probe " + missing, 1},
        {"probe " + missing + " --batch < /dev/null", 1},
        {"analyse " + missing + " 'a4'", 1},
        {"verify -q " + missing, 1},
        {"solve " + start + " --table " + missing, 1},
        {"solve 'xoxoxo/oxoxox/xoxoxo/oxoxox/xoxoxo/oxoxox b' -q --max-positions 1000", 1},
        {"solve 'xoxoxo/oxoxox/xoxoxo/oxoxox/xoxoxo/oxoxox b' -q --memory 64K", 1},
        {"info " + good + " 2>&1 >/dev/full", 1},
        // 2: a damaged table, bad input
        {"info " + bad, 2},
        {"openings " + bad, 2},
        {"probe " + bad, 2},
        {"probe " + bad + " --batch < /dev/null", 2},
        {"analyse " + bad + " 'a4'", 2},
        {"verify -q " + bad, 2},
        {"solve " + start + " --table " + bad, 2},
        {"generate 4x4 -q -o /dev/null", 2},
        {"probe " + good + " 'xo/ox b'", 2},
        {"analyse " + good + " 'a4 zz'", 2},
        {"moves 6x6 --game 'a9'", 2},
        {"perft 22x22 1", 2},  // 484 squares: past the wide boards' 448
        // 3: not stored
        {"probe " + good + " 'xoxo/oxox/xoxo/oxo. b'", 3},
    };
    for (const auto& c : cases) {
        INFO(c.args);
        const Run r = run(c.args);
        INFO(r.out);
        CHECK(r.code == c.code);
        CHECK(r.out.find(c.code == 3 ? "is not stored" : "error") != std::string::npos);
    }
    const Run limit = run("solve 'xoxoxo/oxoxox/xoxoxo/oxoxox/xoxoxo/oxoxox b' -q --memory 64K");
    CHECK(limit.out.find("--memory") != std::string::npos);
}

TEST_CASE("cli: a long search shows progress on stderr", "[cli][hardening][slow]") {
    // Progress lines come every 5 s when stderr is not a terminal. The limit keeps the search
    // going well past 5 s (4 M positions took 5.6 s on an idle machine: too close).
    const Run r =
        run("solve 'xoxoxo/oxoxox/xoxoxo/oxoxox/xoxoxo/oxoxox b' --max-positions 10000000 2>&1 "
            ">/dev/null");
    CHECK(r.code == 1);
    CHECK(r.out.find("[search] ") == 0);
    CHECK(r.out.find(" M positions (limit 10.00 M)") != std::string::npos);
}

TEST_CASE("cli: every number goes through one strict decimal parser with a range",
          "[cli][hardening]") {
    Dir d;
    const std::string in = "cd " + quote(d.path.string()) + " &&";
    std::ofstream(d.path / "x.kbt").put('x');  // a TABLE that exists: the option is checked
    // Issue 25: a leading zero was read as octal (perft 4x4 010 answered depth 8, --port 010
    // listened on 8), and --max-nodes took 0x10, 020, +16 and ' 16' as 16, and -1, 2^64 and
    // 99999999999999999999999 as "no limit".
    struct Case {
        std::string args, says;
    };
    const std::vector<Case> cases = {
        {"perft 4x4 010", "DEPTH 010: '010' has a leading zero"},
        {"perft 4x4 08", "DEPTH 08: '08' has a leading zero"},
        {"perft 4x4 65", "DEPTH 65: 65 is not in 0..64"},
        {"serve x.kbt --port 010", "--port: '010' has a leading zero"},
        {"serve x.kbt --port 65536", "--port: 65536 is not in 0..65535"},
        {"serve x.kbt --max-connections 0", "--max-connections: 0 is not in 1..4096"},
        {"serve x.kbt --search-limit 01", "--search-limit: '01' has a leading zero"},
        {"generate 3x4 -j 010", "--threads: '010' has a leading zero"},
        {"verify x.kbt -j +2", "--threads: '+2' is not a whole number"},
        {"upgrade x.kbt -j 1025", "--threads: 1025 is not in 0..1024"},
        {"solve '.oxox. b' --max-positions 010", "--max-positions: '010' has a leading zero"},
        {"solve '.oxox. b' --wdl --max-nodes 0x10", "--max-nodes: '0x10' is not a whole number"},
        {"solve '.oxox. b' --wdl --max-nodes 020", "--max-nodes: '020' has a leading zero"},
        {"solve '.oxox. b' --wdl --max-nodes +16", "--max-nodes: '+16' is not a whole number"},
        {"solve '.oxox. b' --wdl --max-nodes ' 16'", "--max-nodes: ' 16' is not a whole number"},
        {"solve '.oxox. b' --wdl --max-nodes -1", "--max-nodes"},
        {"solve '.oxox. b' --wdl --max-nodes 18446744073709551616",
         "--max-nodes: 18446744073709551616 is not in 0..1000000000000000000"},
        {"solve '.oxox. b' --wdl --max-nodes 99999999999999999999999", "is not in 0.."},
        {"openings --search --board 3x4 --max-nodes 1e3", "--max-nodes: '1e3' is not a whole"},
        {"openings --search --board 3x4 --table-max-pieces 065", "'065' has a leading zero"},
        {"openings --search --board 3x4 --table-max-pieces 65", "65 is not in 0..64"},
        {"openings --search --board 3x4 --table-max-pieces 10", "give the table FILE too"},
        {"value 4x4", "value takes a position, not a board size"},
        {"value 21x21", "value takes a position, not a board size"},
        {"match --time nan", "--time: 'nan' is not a number"},
        {"match --timeout inf", "--timeout: 'inf' is not a number"},
    };
    for (const auto& k : cases) {
        INFO(k.args);
        const Run r = run(k.args, in);
        CHECK(r.code == 2);
        CHECK_THAT(r.out, Catch::Contains(k.says));
        if (k.says.find("is not a whole") != std::string::npos ||
            k.says.find("leading zero") != std::string::npos) {
            CHECK_THAT(r.out, Catch::Contains("accepted: "));  // the range is named
        }
    }
    // What is accepted means what it says, in decimal.
    CHECK(run("perft 4x4 10", in).out == run("perft 4x4 10", in).out);
    CHECK(run("perft 4x4 10", in).out != run("perft 4x4 8", in).out);
    const Run nodes = run("solve '.oxox. b' --wdl --max-nodes 16 --json", in);
    CHECK(nodes.code == 0);
    CHECK(nlohmann::json::parse(nodes.out)["search"]["max_nodes"] == 16);
}

TEST_CASE("cli: probe --batch reads its input in bounded pieces", "[cli][hardening]") {
    Dir d;
    const fs::path t = table_4x4(d);
    // A line with no end (1 GB in 2.2 s before): an error naming the line, after the answers
    // to the lines before it, in bounded memory (under a 200 MB address-space limit).
    // (AddressSanitizer reserves terabytes of address space: no limit there.)
    const Run zero = run("probe " + quote(t.string()) + " --batch",
                         std::string(kAsan ? "" : "ulimit -v 200000; ") +
                             "(printf 'xoxo/oxox/xoxo/oxox b\\n'; "
                             "head -c 100000000 /dev/zero) |");
    CHECK(zero.code == 2);
    CHECK_THAT(zero.out, Catch::Contains("\"stored\":true"));
    CHECK_THAT(zero.out, Catch::Contains("standard input: line 2 is longer than 4096 bytes"));
    CHECK_THAT(zero.out, !Catch::Contains("--memory"));  // probe has no --memory to advise
    // A line just under the bound is answered as a malformed position.
    const Run longest =
        run("probe " + quote(t.string()) + " --batch", "head -c 4096 /dev/zero | tr '\\0' x |");
    CHECK(longest.code == 0);
    CHECK_THAT(longest.out, Catch::Contains("\"error\""));
}

// ---------------------------------------------------------------------------------------------
// Round 4 (issue 51): output paths of the proof search, checked before any work

TEST_CASE("cli: --certificate never replaces what is not a regular file, refused before search",
          "[cli][hardening]") {
    Dir d;
    struct stat before {};
    REQUIRE(::stat("/dev/null", &before) == 0);
    REQUIRE(S_ISCHR(before.st_mode));
    const fs::path fifo = d.path / "fifo", link = d.path / "link", target = d.path / "target";
    REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
    { std::ofstream(target) << "kept"; }
    fs::create_symlink(target, link);
    fs::create_directories(d.path / "adir");
    struct Case {
        std::string path;
        int code;
        std::string says;
    };
    const std::vector<Case> cases = {
        {"/dev/null", 2, "exists and is not a regular file (a character device)"},
        {fifo.string(), 2, "exists and is not a regular file (a named pipe)"},
        {link.string(), 2, "exists and is not a regular file (a symbolic link"},
        {(d.path / "adir").string(), 2, "exists and is not a regular file (a directory)"},
        {"/nonexistent/x.proof", 1, "/nonexistent: no such directory"},
    };
    // 4x9 takes many seconds to search: a refusal in a second came before the search.
    for (const std::string& command :
         {std::string("openings --search --board 4x9 --certificate "),
          std::string("solve 'xoxoxoxox/oxoxoxoxo/xoxoxoxox/oxoxoxoxo b' --wdl --certificate ")}) {
        for (const auto& c : cases) {
            INFO(command << c.path);
            const auto t0 = std::chrono::steady_clock::now();
            const Run r = run(command + quote(c.path));
            CHECK(r.code == c.code);
            CHECK_THAT(r.out, Catch::Contains("--certificate " + c.path + ": " + c.says));
            CHECK(lines(r.out) == 1);  // no progress, no verdict: nothing was searched
            CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
        }
    }
    struct stat after {};
    REQUIRE(::stat("/dev/null", &after) == 0);
    CHECK(S_ISCHR(after.st_mode));
    CHECK(after.st_rdev == before.st_rdev);
    CHECK(fs::is_fifo(fs::symlink_status(fifo)));
    CHECK(fs::is_symlink(fs::symlink_status(link)));
    CHECK(slurp(target) == "kept");
    CHECK(fs::is_empty(d.path / "adir"));
    // --work that is no directory is refused before the search too.
    const Run work = run("openings --search --board 4x9 --work /dev/null");
    CHECK(work.code == 2);
    CHECK_THAT(work.out, Catch::Contains("--work /dev/null: exists and is not a directory"));
    // upgrade -o goes through the same check.
    const Run up = run("upgrade x.kbt -o " + quote(fifo.string()));
    CHECK(up.code == 2);
    CHECK_THAT(up.out, Catch::Contains("(a named pipe)"));
    CHECK(fs::is_fifo(fs::symlink_status(fifo)));
}

TEST_CASE("cli: a search's result is printed when its certificate cannot be written",
          "[cli][hardening]") {
    Dir d;
    const fs::path cert = d.path / "c.proof";
    // `ulimit -f 0`: the check's empty file is created, the certificate's bytes are not.
    const Run text =
        run("openings --search --board 4x4 -q --memory 4M --certificate " + quote(cert.string()),
            "ulimit -f 0;");
    CHECK(text.code == 1);
    CHECK_THAT(text.out, Catch::Contains("verdict: "));
    CHECK_THAT(text.out,
               Catch::Contains("konane openings: error: " + cert.string() + ": writing "));
    CHECK_THAT(text.out, Catch::Contains("File too large"));
    CHECK_FALSE(fs::exists(cert));
    CHECK_FALSE(d.has_temporary());
    const Run js =
        run("solve 'xoxox/oxoxo/xo.ox/ox.xo/xoxox b' --wdl -q --json --memory 4M "
            "--certificate " +
                quote(cert.string()),
            "ulimit -f 0;");
    CHECK(js.code == 1);
    CHECK_THAT(js.out, Catch::Contains("konane solve: error: " + cert.string() + ": writing "));
    // The JSON line, beside the error's line on stderr.
    REQUIRE(js.out.find('{') != std::string::npos);
    const std::string line = js.out.substr(js.out.find('{'));
    const auto j = nlohmann::json::parse(line.substr(0, line.find('\n')));
    CHECK(j["value"] == "win");
    CHECK_THAT(j["certificate_error"].get<std::string>(), Catch::Contains("File too large"));
    CHECK_FALSE(j.contains("certificate"));
    CHECK_FALSE(fs::exists(cert));
}

TEST_CASE("cli: replace_file leaves what is not a regular file alone", "[cli][hardening]") {
    // (A failed rename naming its reason, once tested here through a temporary name on another
    // file system, is tested in tests/process/test_atomic_file.cpp: the temporary name is now
    // always beside the target.)
    Dir d;
    const fs::path fifo = d.path / "fifo";
    REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
    CHECK_THROWS_WITH(konane::process::replace_file(fifo, {"x"}),
                      Catch::Contains("exists and is not a regular file (a named pipe)"));
    CHECK(fs::is_fifo(fs::symlink_status(fifo)));
    CHECK(d.names() == std::vector<std::string>{"fifo"});
}

TEST_CASE("cli: a work directory's files are read only as regular files of bounded size",
          "[cli][hardening]") {
    Dir d;
    const fs::path work = d.path / "w";
    struct Case {
        std::string name;  ///< what is put at the file's place
        std::string says;
    };
    const std::vector<Case> cases = {
        {"zero", "not a regular file (a character device)"},  // a link to /dev/zero
        {"fifo", "not a regular file (a named pipe)"},
        {"dir", "not a regular file (a directory)"},
        {"huge", "1073741824 bytes, more than the"},  // a sparse 1 GiB regular file
    };
    auto put = [&](const fs::path& at, const std::string& kind) {
        fs::remove_all(work);
        fs::create_directories(work);
        if (kind == "zero") fs::create_symlink("/dev/zero", at);
        if (kind == "fifo") REQUIRE(::mkfifo(at.c_str(), 0644) == 0);
        if (kind == "dir") fs::create_directories(at);
        if (kind == "huge") {
            { std::ofstream(at) << "x"; }
            fs::resize_file(at, std::uintmax_t{1} << 30);
        }
    };
    // `timeout`: a read that blocks on the pipe fails the test (exit 124) instead of hanging it.
    for (const char* file : {"proven.bin", "openings.txt"}) {
        for (const auto& c : cases) {
            INFO(file << " as " << c.name);
            put(work / file, c.name);
            const Run r =
                run("openings --search --board 4x4 -q --memory 4M --work " + quote(work.string()),
                    "timeout 60");
            CHECK(r.code == 1);
            // A link in a work directory is not followed (here, to /dev/zero).
            CHECK_THAT(r.out, Catch::Contains((work / file).string() + ": " +
                                              (c.name == "zero" ? "a symbolic link" : c.says)));
            CHECK(lines(r.out) == 1);
        }
    }
    // solve --wdl reads proven.bin from its --work too.
    put(work / "proven.bin", "fifo");
    const Run solve = run("solve 'xoxox/oxoxo/xo.ox/ox.xo/xoxox b' --wdl -q --memory 4M --work " +
                              quote(work.string()),
                          "timeout 60");
    CHECK(solve.code == 1);
    CHECK_THAT(solve.out, Catch::Contains("proven.bin: not a regular file (a named pipe)"));
    // The generator's manifest likewise.
    for (const auto& c : cases) {
        INFO("manifest as " << c.name);
        put(work / "manifest", c.name);
        const Run r = run("generate 4x4 -q -j 1 -o " + quote((d.path / "t.kbt").string()) +
                              " --work " + quote(work.string()),
                          "timeout 60");
        CHECK(r.code == 1);
        CHECK_THAT(r.out, Catch::Contains((work / "manifest").string() + ": " + c.says));
        CHECK_FALSE(fs::exists(d.path / "t.kbt"));
    }
}

// ---------------------------------------------------------------------------------------------
// Round 5: the one JSON writer, bounded input lines, the number of threads

TEST_CASE("cli: pretty --json output with text that is not UTF-8 is valid JSON",
          "[cli][hardening]") {
    // As found (hardening round 5): prove, bestmove and analyse printed their JSON with
    // nlohmann's dump(2), which throws on a string that is not UTF-8 (no output, exit 1, after
    // the whole search) were one to reach it unescaped. Every JSON output now goes through
    // cli::dump(), which never throws; a work directory's name is escaped (printable()).
    Dir d;
    const std::string work = (d.path / "work\xff\xfe").string();
    const Run r = run("prove --board 4x4 -q --memory 8M --json --work " + quote(work));
    CHECK(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["done"] == true);
    CHECK(j["work"] == work.substr(0, work.size() - 2) + "\\xff\\xfe");
    // The writer itself, pretty: a replacement character, never an exception.
    const std::string pretty = konane::cli::dump(konane::cli::json{{"name", "engine\xff\xfe"}}, 2);
    CHECK(nlohmann::json::parse(pretty)["name"] == "engine\xEF\xBF\xBD\xEF\xBF\xBD");
    CHECK(pretty.find("\n  \"name\"") != std::string::npos);  // indented
}

TEST_CASE("cli: engine and play read their input lines in bounded memory", "[cli][hardening]") {
    // As found (hardening round 5): `head -c 4G /dev/zero | konane engine` grew to the memory
    // limit and ended with exit 0, no answer and no message (std::getline swallows bad_alloc);
    // `konane play` the same. Both now read through the bounded line reader of probe --batch.
    // (AddressSanitizer reserves terabytes of address space: no limit there.)
    const std::string limit = kAsan ? "" : "ulimit -v 400000; ";
    const Run gtp =
        run("engine -q --memory 8M", limit +
                                         "(printf 'name\\n'; head -c 100000000 /dev/zero; "
                                         "printf '\\n2 name\\nquit\\n') |");
    CHECK(gtp.code == 0);
    CHECK(gtp.out ==
          "= konane\n\n? line too long (100000000 bytes, at most 4096)\n\n"
          "=2 konane\n\n=\n\n");
    const Run play = run("play 4x4 --depth 2 --memory 8M",
                         limit + "(head -c 20000000 /dev/zero; printf '\\nmoves\\nquit\\n') |");
    CHECK(play.code == 0);
    CHECK_THAT(play.out, Catch::Contains("line too long (20000000 bytes, at most 4096): ignored"));
    CHECK_THAT(play.out, Catch::Contains("your moves: d1 c2 b3 a4"));  // and the game went on
}

TEST_CASE(
    "cli: the proof search's threads are bounded, and their own state comes out of "
    "--memory",
    "[cli][hardening]") {
    // As found (hardening round 5, the kind of item 12 beyond the engine): solve --wdl and
    // openings --search took -j up to 1024, each helper's own state (about 2 MiB of history
    // and per-ply frames) on top of --memory.
    for (const char* command : {"solve --wdl 5x5 -q", "openings --search --board 5x5 -q"}) {
        INFO(command);
        const Run refused = run(std::string(command) + " -j 1000");
        CHECK(refused.code == 2);
        CHECK_THAT(refused.out, Catch::Contains("1000 is not in 1..256"));
        const Run r = run(std::string(command) + " -j 200 --memory 8M");
        CHECK(r.code == 0);
        CHECK_THAT(r.out, Catch::Contains("warning: -j 200: each thread past the first takes"));
        CHECK_THAT(r.out, Catch::Contains("running 3 threads (give more --memory for more)"));
    }
    // Threads that fit run without a word.
    const Run fits = run("solve --wdl 5x5 -q -j 2 --memory 64M");
    CHECK(fits.code == 0);
    CHECK_THAT(fits.out, !Catch::Contains("warning"));
}

TEST_CASE("cli: the engine's threads are bounded, and their own state comes out of --memory",
          "[cli][hardening]") {
    // As found (hardening round 5): -j was taken up to 1024, each thread's own state (move
    // lists, history, the proof search's frames: about 3 MiB) came on top of --memory, and
    // `konane engine -q -j 1024 --memory 64M --time 0.1` took 17 to 62 s a move and 3 GB.
    for (const char* command : {"engine -q", "bestmove 6x6 -q", "play 6x6", "analyse d5 -q"}) {
        INFO(command);
        const Run r = run(std::string(command) + " -j 100000", "printf 'quit\\n' |");
        CHECK(r.code == 2);
        CHECK_THAT(r.out, Catch::Contains("100000 is not in 1..256 (-j: at most 256 threads"));
    }
    // The most threads with a small budget: those whose state fits in half of it run, a
    // warning says how many, and the move comes within its time (and a little more).
    const auto t0 = std::chrono::steady_clock::now();
    const Run r =
        run("engine -q -j 256 --memory 16M --time 0.1", "printf 'genmove black\\nquit\\n' |");
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("warning: -j 256: each thread past the first takes"));
    CHECK_THAT(r.out, Catch::Contains("threads (give more --memory for more)"));
    CHECK_THAT(r.out, Catch::Contains("\n= "));  // a move
    CHECK(seconds < 5);
}
