// process/atomic_file.hpp: the one way a file is written (temporary name, fsync, rename, fsync of
// the directory), and replace_file() on top of it.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "process/atomic_file.hpp"
#include "process/cleanup.hpp"
#include "process/directory_lock.hpp"
#include "process/replace_file.hpp"
#include "tests/temp_dir.hpp"

namespace fs = std::filesystem;
using konane::process::AtomicFile;
using konane::process::AtomicFileError;
using konane::test::TempDir;

namespace {

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream o;
    o << in.rdbuf();
    return o.str();
}

void put(const fs::path& p, const std::string& text) {
    std::ofstream(p, std::ios::binary) << text;
}

// The names in `dir`, sorted.
std::vector<std::string> names(const fs::path& dir) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir))
        out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}

bool is_temporary_of(const std::string& name, const std::string& target) {
    const std::string stem = target + ".tmp.";
    return name.size() == stem.size() + 16 && name.rfind(stem, 0) == 0 &&
           name.find_first_not_of("0123456789abcdef", stem.size()) == std::string::npos;
}

// Runs `child` in a forked process and returns its wait status.
template <class F>
int in_child(F&& child) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        child();
        ::_exit(0);
    }
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    return status;
}

}  // namespace

TEST_CASE("AtomicFile: written under a temporary name, renamed over the target on commit") {
    TempDir d("atomic-commit");
    const fs::path target = d / "out.bin";
    put(target, "old");
    AtomicFile f(target);
    CHECK(f.temporary().parent_path() == d.path);
    CHECK(is_temporary_of(f.temporary().filename().string(), "out.bin"));
    f.write("new ", 4);
    f.write("bytes", 5);
    CHECK(slurp(target) == "old");  // nothing under the target's name before commit()
    CHECK(fs::exists(f.temporary()));
    f.commit();
    CHECK(f.committed());
    CHECK(f.fd() == -1);
    CHECK(slurp(target) == "new bytes");
    CHECK(names(d.path) == std::vector<std::string>{"out.bin"});
}

TEST_CASE("AtomicFile: without commit the temporary goes and the old file stays") {
    TempDir d("atomic-discard");
    const fs::path target = d / "out.bin";
    put(target, "old");
    {
        AtomicFile f(target);
        f.write("new", 3);
    }
    CHECK(slurp(target) == "old");
    CHECK(names(d.path) == std::vector<std::string>{"out.bin"});
    {
        AtomicFile f(d / "fresh");
        f.write("x", 1);
        f.discard();
        f.discard();  // twice is nothing
    }
    CHECK(names(d.path) == std::vector<std::string>{"out.bin"});
}

TEST_CASE("AtomicFile: a kill before commit leaves the old file intact") {
    TempDir d("atomic-kill");
    const fs::path target = d / "out.bin";
    put(target, "old");

    SECTION("SIGKILL: the temporary stays, unlocked, and is found as stale") {
        const int status = in_child([&] {
            AtomicFile f(target);
            f.write("new", 3);
            ::kill(::getpid(), SIGKILL);
        });
        CHECK(WIFSIGNALED(status));
        CHECK(WTERMSIG(status) == SIGKILL);
        CHECK(slurp(target) == "old");
        const auto left = names(d.path);
        REQUIRE(left.size() == 2);
        CHECK(is_temporary_of(left[1], "out.bin"));
        CHECK(konane::process::remove_stale_temporaries(target).size() == 1);
        CHECK(names(d.path) == std::vector<std::string>{"out.bin"});
    }
    SECTION("SIGTERM: the signal cleanup removes the temporary") {
        const int status = in_child([&] {
            konane::process::install_interrupt_cleanup();
            AtomicFile f(target);
            f.write("new", 3);
            ::raise(SIGTERM);
        });
        CHECK(WIFSIGNALED(status));
        CHECK(WTERMSIG(status) == SIGTERM);
        CHECK(slurp(target) == "old");
        CHECK(names(d.path) == std::vector<std::string>{"out.bin"});
    }
}

TEST_CASE("AtomicFile: a live writer's temporary is not stale") {
    TempDir d("atomic-live");
    AtomicFile live(d / "a");
    put(d / "b.tmp.0123456789abcdef", "left by a killed writer");
    put(d / "c.tmp", "not a temporary name of AtomicFile");
    const auto removed = konane::process::remove_stale_temporaries_in(d.path);
    REQUIRE(removed.size() == 1);
    CHECK(removed[0] == d / "b.tmp.0123456789abcdef");
    CHECK(fs::exists(live.temporary()));
    CHECK(fs::exists(d / "c.tmp"));
    CHECK(konane::process::remove_stale_temporaries(d / "a").empty());
}

TEST_CASE("AtomicFile: stale temporaries are never removed through a link") {
    TempDir d("atomic-links");
    fs::create_directories(d / "elsewhere");
    put(d / "elsewhere" / "backup.tmp.0123456789abcdef", "someone's file");
    // The work directory's folder is a link to another folder: nothing is removed there.
    fs::create_directory_symlink(d / "elsewhere", d / "linked");
    CHECK(konane::process::remove_stale_temporaries_in(d / "linked").empty());
    CHECK(fs::exists(d / "elsewhere" / "backup.tmp.0123456789abcdef"));
    // A file named like a temporary that is a link: neither it nor its target is removed.
    fs::create_directories(d / "work");
    fs::create_symlink(d / "elsewhere" / "backup.tmp.0123456789abcdef",
                       d / "work" / "x.tmp.0123456789abcdef");
    CHECK(konane::process::remove_stale_temporaries_in(d / "work").empty());
    CHECK(fs::is_symlink(d / "work" / "x.tmp.0123456789abcdef"));
    CHECK(fs::exists(d / "elsewhere" / "backup.tmp.0123456789abcdef"));
    // The folder itself, named as it is: its stale temporary goes.
    CHECK(konane::process::remove_stale_temporaries_in(d / "elsewhere").size() == 1);
}

TEST_CASE("DirectoryLock: a link at lock is refused, its target not created") {
    TempDir d("lock-link");
    fs::create_symlink(d / "nowhere" / "made", d / "lock");
    fs::create_directories(d / "nowhere");
    CHECK_THROWS_WITH(konane::process::DirectoryLock::try_take(d.path),
                      Catch::Contains("lock is a symbolic link, not followed"));
    CHECK_FALSE(fs::exists(d / "nowhere" / "made"));
}

TEST_CASE("AtomicFile: the directory is synced after the rename") {
    TempDir d("atomic-dir");
    CHECK(konane::process::sync_directory(d.path) == 0);
    CHECK(konane::process::sync_directory(d / "missing") == ENOENT);
    CHECK(konane::process::sync_directory(d / "missing" / "deeper") == ENOENT);
    // A target without a directory part: its directory is ".".
    const fs::path cwd = fs::current_path();
    fs::current_path(d.path);
    CHECK(konane::process::sync_directory("") == 0);
    {
        AtomicFile f("here");
        f.write("x", 1);
        f.commit();
    }
    fs::current_path(cwd);
    CHECK(slurp(d / "here") == "x");
    CHECK(names(d.path) == std::vector<std::string>{"here"});
}

TEST_CASE("AtomicFile: only a regular file is replaced") {
    TempDir d("atomic-regular");
    fs::create_directory(d / "dir");
    AtomicFile f(d / "dir");
    f.write("x", 1);
    try {
        f.commit();
        FAIL("committed over a directory");
    } catch (const AtomicFileError& e) {
        CHECK(e.step == "replace");
        CHECK_THAT(e.what(), Catch::Matchers::Contains("not a regular file (a directory)"));
    }
    CHECK(fs::is_directory(d / "dir"));
    CHECK(names(d.path) == std::vector<std::string>{"dir"});
}

TEST_CASE("AtomicFile: a failed rename names its reason") {
    // The reason is read before the clean-up (it once said "Success").
    TempDir d("atomic-rename");
    AtomicFile f(d / "out");
    f.write("x", 1);
    fs::remove(f.temporary());  // taken away under the writer: the rename finds nothing
    try {
        f.commit();
        FAIL("renamed a file that is not there");
    } catch (const AtomicFileError& e) {
        CHECK(e.step == "rename");
        CHECK(e.error == ENOENT);
        CHECK_THAT(e.what(), Catch::Matchers::EndsWith(": No such file or directory"));
    }
    CHECK_FALSE(f.committed());
    CHECK(names(d.path).empty());
}

TEST_CASE("AtomicFile: a temporary that cannot be created names the file") {
    TempDir d("atomic-create");
    try {
        AtomicFile f(d / "missing" / "out");
        FAIL("created in a missing directory");
    } catch (const AtomicFileError& e) {
        CHECK(e.step == "create");
        CHECK(e.error == ENOENT);
        CHECK_THAT(e.what(),
                   Catch::Matchers::StartsWith((d / "missing" / "out").string() + ": create "));
    }
}

TEST_CASE("replace_file: through an AtomicFile, with the checksum trailer asked for") {
    TempDir d("replace-file");
    const fs::path target = d / "cert";
    put(target, "old");
    konane::process::replace_file(target, {"ab", "c"});
    CHECK(slurp(target) == "abc");
    konane::process::replace_file(target, {"abc"}, konane::process::ReplaceOptions::with_trailer());
    const std::string bytes = slurp(target);
    REQUIRE(bytes.size() == 11);
    CHECK(bytes.substr(0, 3) == "abc");
    CHECK(names(d.path) == std::vector<std::string>{"cert"});
    fs::create_directory(d / "dir");
    CHECK_THROWS_WITH(konane::process::replace_file(d / "dir", {"x"}),
                      Catch::Matchers::Contains("not a regular file"));
    CHECK(names(d.path) == std::vector<std::string>{"cert", "dir"});
}
