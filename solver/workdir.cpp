#include "solver/workdir.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "process/read_file.hpp"
#include "process/replace_file.hpp"
#include "process/self.hpp"

namespace konane::solver {

namespace {

// A file name of the work directory (the list in workdir.hpp), parsed once for every use.
struct WorkFile {
    enum Kind { kOther, kLayer, kRun, kSolved } kind = kOther;  // kOther: manifest or lock
    int target = 0, from = 0, index = 0;                        // layer N; run T-from-S-I; solved N
    bool tmp = false;  // a temporary name, not yet renamed into place
};

std::optional<WorkFile> parse_work_file(const std::string& name) {
    static const std::regex own(
        R"((?:manifest|lock|layer-(\d+)\.keys|run-(\d+)-from-(\d+)-(\d+)\.keys|solved-(\d+)\.(?:mphf|depth))(\.tmp(?:\.[0-9a-f]{16})?)?)");
    std::smatch m;
    if (!std::regex_match(name, m, own)) return std::nullopt;
    auto num = [&](int g) { return std::stoi(m[g].str()); };
    WorkFile f;
    f.tmp = m[6].matched;
    if (m[1].matched) {
        f.kind = WorkFile::kLayer;
        f.target = num(1);
    } else if (m[2].matched) {
        f.kind = WorkFile::kRun;
        f.target = num(2);
        f.from = num(3);
        f.index = num(4);
    } else if (m[5].matched) {
        f.kind = WorkFile::kSolved;
        f.target = num(5);
    }
    return f;
}

// The most bytes a manifest is read with (a line per step of the run, some 100 bytes each).
constexpr std::uint64_t kMaxManifestBytes = std::uint64_t{16} << 20;

[[noreturn]] void fail(const std::filesystem::path& dir, const std::string& what) {
    throw std::runtime_error("work directory " + dir.string() + ": " + what);
}

// Reads the optional " rss B disk B" at the end of a manifest line, leaving the stream failed
// only if the fields before it were missing.
void read_extra(std::istringstream& w, std::uint64_t& rss, std::uint64_t& disk) {
    if (!w) return;
    std::string key;
    if (w >> key && key == "rss") w >> rss >> key >> disk;
    w.clear();
}

std::string hex64(std::uint64_t x) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(x));
    return buf;
}

}  // namespace

std::vector<int> mpi_rank_counts(const std::filesystem::path& dir) {
    static const std::regex rank_dir(R"(rank-\d+-of-(\d+))");
    std::vector<int> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
        std::smatch m;
        const std::string name = e.path().filename().string();
        if (!std::regex_match(name, m, rank_dir) || !e.is_directory(ec)) continue;
        const int n = m[1].length() <= 6 ? std::stoi(m[1].str()) : INT_MAX;
        if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::string mpi_resume_advice(const std::filesystem::path& dir, int ranks) {
    const std::string n = std::to_string(ranks);
    return "resume it with mpirun -np " + n + " and the same --work, or remove its rank-*-of-" + n +
           " folders (" + dir.string() + "/rank-*-of-" + n + ") to start over";
}

WorkDir::WorkDir(std::filesystem::path dir, const Board& b, const Opening& o)
    : dir_(std::move(dir)), board_(b.name()), rules_(opening_tag(b, o)) {
    std::error_code ec;
    for (auto up = dir_.parent_path();
         !up.empty() && up != up.root_path() && !std::filesystem::exists(up, ec);
         up = up.parent_path())
        created_parents_.push_back(up);
    std::filesystem::create_directories(dir_, ec);
    if (ec) fail(dir_, "cannot create: " + ec.message());
    if (!std::filesystem::is_directory(dir_)) fail(dir_, "not a directory");
    // Never adopt (and later empty) a directory of the user's: without a manifest it may hold
    // only files a generation writes (left by a run killed before its first step).
    if (!std::filesystem::exists(dir_ / "manifest")) {
        // An MPI generation's directory (rank folders): named as such, with what to do.
        if (const auto ranks = mpi_rank_counts(dir_); !ranks.empty()) {
            fail(dir_, "holds the work of an MPI generation of " + std::to_string(ranks.front()) +
                           " ranks, which one process does not resume: " +
                           mpi_resume_advice(dir_, ranks.front()) + " (or choose another --work)");
        }
        for (const auto& e : std::filesystem::directory_iterator(dir_, ec)) {
            if (!is_own_file(e.path().filename().string())) {
                fail(dir_, "exists and holds " + e.path().filename().string() +
                               ", which is no konane work (no manifest); choose a new or empty "
                               "directory");
            }
        }
    }
    try {
        lock_ = process::DirectoryLock::try_take(dir_);
    } catch (const std::system_error& e) {
        fail(dir_, "not writable: " + e.code().message());
    }
    if (!lock_) fail(dir_, "in use by another konane process");
    load();  // a throw releases the lock with the member
}

void WorkDir::load() {
    const auto manifest = dir_ / "manifest";
    std::error_code ec;
    if (std::filesystem::exists(std::filesystem::symlink_status(manifest, ec))) {
        resumed_ = true;
        // A line per step: a link to a device, a pipe or a directory is refused before reading.
        const std::string text = process::read_regular_file(
            manifest, kMaxManifestBytes, "not konane's: remove the directory to start over");
        const auto cut = text.rfind("xxh3 ");
        // The checksum line is the last, whole: nothing after it goes unchecked.
        if (cut == std::string::npos || text.size() != cut + 5 + 16 + 1 || text.back() != '\n' ||
            text.substr(cut + 5, 16) != hex64(XXH3_64bits(text.data(), cut))) {
            fail(dir_, "damaged manifest (checksum mismatch); remove the directory to start over");
        }
        std::istringstream lines(text.substr(0, cut));
        std::string line;
        int at = 0;
        while (std::getline(lines, line)) {
            std::istringstream w(line);
            std::string kind;
            w >> kind;
            if (at == 0 && line != "konane-work 1") fail(dir_, "not a konane work directory");
            if (kind == "board" && w >> kind && kind != board_) {
                fail(dir_, "holds a generation of board " + kind + ", not " + board_ +
                               "; use another --work directory or remove it");
            }
            if (kind == "rules" && w >> kind && kind != rules_) {
                // "rules R" names the opening: a ruleset, or gap-SQ-SQ (core/gap.hpp).
                auto what = [](const std::string& tag) {
                    return tag.rfind("gap-", 0) == 0 ? "from " + tag : "under ruleset " + tag;
                };
                fail(dir_, "holds a generation " + what(kind) + ", not " + what(rules_) +
                               "; use another --work directory or remove it");
            }
            if (kind == "enumerated") {
                int n = 0;
                LayerRecord rec;
                w >> n >> rec.classes >> rec.raw >> rec.enumerate_seconds;
                rec.enumerated = true;
                read_extra(w, rec.enumerate_rss, rec.enumerate_disk);
                layers_[n] = rec;
            } else if (kind == "solved") {
                int n = 0;
                w >> n;
                auto& rec = layers_[n];
                w >> rec.max_depth >> rec.hash_seconds >> rec.solve_seconds;
                rec.solved = true;
                read_extra(w, rec.solve_rss, rec.solve_disk);
                // The optional form after them: "ranked" (depths by rank), or nothing (by
                // slot). A line cut short stays failed; an unknown word fails it.
                if (std::string form; w) {
                    if (!(w >> form)) {
                        w.clear();
                    } else if (form == "ranked") {
                        rec.by_rank = true;
                    } else {
                        w.setstate(std::ios::failbit);
                    }
                }
            } else if (kind == "complete") {
                complete_ = true;
            }
            if (!w && kind != "konane-work") fail(dir_, "damaged manifest line: " + line);
            ++at;
        }
    }
    // Every finished step's files must be there (a step is recorded only after they are).
    for (const auto& [n, rec] : layers_) {
        for (const auto& p :
             {rec.enumerated && rec.classes ? layer_keys(n) : std::filesystem::path(),
              rec.solved && rec.classes ? solved_depth(n) : std::filesystem::path(),
              rec.solved && rec.classes && !rec.by_rank ? solved_mphf(n)
                                                        : std::filesystem::path()}) {
            if (!p.empty() && !std::filesystem::exists(p)) {
                fail(dir_,
                     p.filename().string() +
                         " of a finished step is missing; remove the directory to start over");
            }
        }
    }
    clean_unfinished();
    if (!resumed_) save();
}

WorkDir::~WorkDir() = default;

std::filesystem::path WorkDir::layer_keys(int pieces) const {
    return dir_ / ("layer-" + std::to_string(pieces) + ".keys");
}
std::filesystem::path WorkDir::run(int target, int from, int index) const {
    return dir_ / ("run-" + std::to_string(target) + "-from-" + std::to_string(from) + "-" +
                   std::to_string(index) + ".keys");
}
std::filesystem::path WorkDir::solved_mphf(int pieces) const {
    return dir_ / ("solved-" + std::to_string(pieces) + ".mphf");
}
std::filesystem::path WorkDir::solved_depth(int pieces) const {
    return dir_ / ("solved-" + std::to_string(pieces) + ".depth");
}

std::vector<std::filesystem::path> WorkDir::runs_of(int target) const {
    struct Found {
        int from, index;
        std::filesystem::path path;
    };
    std::vector<Found> found;
    for (const auto& e : std::filesystem::directory_iterator(dir_)) {
        const auto f = parse_work_file(e.path().filename().string());
        if (f && f->kind == WorkFile::kRun && !f->tmp && f->target == target)
            found.push_back({f->from, f->index, e.path()});
    }
    std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
        return a.from != b.from ? a.from > b.from : a.index < b.index;
    });
    std::vector<std::filesystem::path> out;
    for (auto& f : found)
        out.push_back(std::move(f.path));
    return out;
}

const LayerRecord& WorkDir::layer(int pieces) const {
    static const LayerRecord none;
    const auto it = layers_.find(pieces);
    return it == layers_.end() ? none : it->second;
}

std::vector<int> WorkDir::layers_with_positions() const {
    std::vector<int> out;
    for (const auto& [n, rec] : layers_) {
        if (rec.enumerated && rec.classes) out.push_back(n);
    }
    return out;
}

int WorkDir::lowest_enumerated() const {
    int low = INT_MAX;
    for (const auto& [n, rec] : layers_) {
        if (rec.enumerated) low = std::min(low, n);
    }
    return low;
}

void WorkDir::clean_unfinished() {
    const int low = lowest_enumerated();
    std::vector<std::filesystem::path> drop;
    for (const auto& e : std::filesystem::directory_iterator(dir_)) {
        const auto f = parse_work_file(e.path().filename().string());
        if (!f) continue;  // not ours: never removed
        bool remove = f->tmp;
        if (f->kind == WorkFile::kRun) {
            // A run from a step that did not finish, or of a layer already merged.
            remove = remove || f->from < low || f->target >= low || complete_;
        } else if (f->kind == WorkFile::kLayer) {
            remove = remove || !layer(f->target).enumerated;
        } else if (f->kind == WorkFile::kSolved) {
            remove = remove || !layer(f->target).solved;
        }
        if (remove) drop.push_back(e.path());
    }
    for (const auto& p : drop)
        std::filesystem::remove(p);
}

void WorkDir::sync_directory() const {
    const int fd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || ::fsync(fd) != 0) {
        const int err = errno;
        if (fd >= 0) ::close(fd);
        fail(dir_, std::string("fsync: ") + std::strerror(err));
    }
    ::close(fd);
}

void WorkDir::save() {
    // The files of the step must be durable (renamed into place) before the step is recorded.
    sync_directory();
    std::ostringstream o;
    o << "konane-work 1\nboard " << board_ << "\nrules " << rules_ << "\n";
    for (const auto& [n, rec] : layers_) {
        if (rec.enumerated) {
            o << "enumerated " << n << " " << rec.classes << " " << rec.raw << " "
              << rec.enumerate_seconds << " rss " << rec.enumerate_rss << " disk "
              << rec.enumerate_disk << "\n";
        }
    }
    if (complete_) o << "complete\n";
    for (const auto& [n, rec] : layers_) {
        if (rec.solved) {
            o << "solved " << n << " " << rec.max_depth << " " << rec.hash_seconds << " "
              << rec.solve_seconds << " rss " << rec.solve_rss << " disk " << rec.solve_disk
              << (rec.by_rank ? " ranked" : "") << "\n";
        }
    }
    std::string text = o.str();
    text += "xxh3 " + hex64(XXH3_64bits(text.data(), text.size())) + "\n";
    // Durable (fsync of the file and of the directory): the step is recorded once it returns.
    process::replace_file(dir_ / "manifest", {text});
    process::kill_point();
}

void WorkDir::record_enumerated(int pieces, std::uint64_t classes, std::uint64_t raw,
                                double seconds) {
    auto& rec = layers_[pieces];
    rec.enumerated = true;
    rec.classes = classes;
    rec.raw = raw;
    rec.enumerate_seconds = seconds;
    rec.enumerate_rss = process::peak_rss_bytes();
    rec.enumerate_disk = bytes_on_disk();
    save();
}

void WorkDir::record_enumeration_complete() {
    complete_ = true;
    save();
}

void WorkDir::record_solved(int pieces, int max_depth, double hash_seconds, double solve_seconds,
                            bool by_rank) {
    auto& rec = layers_[pieces];
    rec.solved = true;
    rec.by_rank = by_rank;
    rec.max_depth = max_depth;
    rec.hash_seconds = hash_seconds;
    rec.solve_seconds = solve_seconds;
    rec.solve_rss = process::peak_rss_bytes();
    rec.solve_disk = bytes_on_disk();
    save();
}

std::uint64_t WorkDir::recorded_peak_rss() const {
    std::uint64_t m = 0;
    for (const auto& [n, rec] : layers_)
        m = std::max({m, rec.enumerate_rss, rec.solve_rss});
    return m;
}

std::uint64_t WorkDir::recorded_peak_disk() const {
    std::uint64_t m = 0;
    for (const auto& [n, rec] : layers_)
        m = std::max({m, rec.enumerate_disk, rec.solve_disk});
    return m;
}

std::uint64_t directory_bytes(const std::filesystem::path& dir) {
    std::uint64_t sum = 0;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
        if (e.is_regular_file(ec)) sum += e.file_size(ec);
    }
    return sum;
}

std::filesystem::path existing_parent(std::filesystem::path p) {
    std::error_code ec;
    while (!p.empty() && !std::filesystem::exists(p, ec))
        p = p.parent_path();
    return p.empty() ? std::filesystem::path(".") : p;
}

std::uint64_t WorkDir::bytes_on_disk() const {
    return directory_bytes(dir_);
}

bool WorkDir::is_own_file(const std::string& name) {
    return parse_work_file(name).has_value();
}

void WorkDir::remove_all() {
    // Only the files a generation writes, then the directory if that leaves it empty: nothing
    // else that may have been put there is ever removed.
    std::error_code ec;
    std::vector<std::filesystem::path> own;
    for (const auto& e : std::filesystem::directory_iterator(dir_, ec)) {
        if (e.is_regular_file(ec) && is_own_file(e.path().filename().string()))
            own.push_back(e.path());
    }
    for (const auto& p : own) {
        if (p.filename() != "lock") std::filesystem::remove(p, ec);
    }
    std::filesystem::remove(dir_ / "lock", ec);
    if (lock_) lock_->release();
    std::filesystem::remove(dir_, ec);  // only if empty
    for (const auto& p : created_parents_)
        if (!std::filesystem::remove(p, ec)) break;  // only if empty; stop at the first kept
}

}  // namespace konane::solver
