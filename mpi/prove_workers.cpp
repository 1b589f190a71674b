#include "mpi/prove_workers.hpp"

#include <mpi.h>

#include <time.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace konane::mpi {

namespace {

// Message tags between rank 0 and a worker rank.
constexpr int kJob = 11;     ///< 0 -> w: u64 occupancy, key tag, node budget, search thread
constexpr int kStop = 12;    ///< 0 -> w: u64 search thread: stop the leaf it searches
constexpr int kQuit = 13;    ///< 0 -> w: end (empty)
constexpr int kResult = 14;  ///< w -> 0: u32 search thread, then a LeafResult (encode_result)
constexpr int kSetupWords = 8;

/// CPU seconds of the calling thread (a leaf's search: summed on rank 0 with every rank's).
double thread_cpu_seconds() {
    timespec ts{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void put(std::string& out, std::uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i)
        out.push_back(static_cast<char>(v >> (8 * i)));
}

/// Reads little-endian integers from a received message, refusing to run past its end.
struct Reader {
    const std::string& in;
    std::size_t at = 0;
    std::uint64_t get(int bytes) {
        if (in.size() - at < static_cast<std::size_t>(bytes))
            throw std::runtime_error("konane prove: a worker's result is truncated");
        std::uint64_t v = 0;
        for (int i = 0; i < bytes; ++i)
            v |= std::uint64_t{static_cast<unsigned char>(in[at + static_cast<std::size_t>(i)])}
                 << (8 * i);
        at += static_cast<std::size_t>(bytes);
        return v;
    }
};

/// A LeafResult as bytes: decided (1), win (1), nodes (8); the children's values (4: count, then
/// 1 each: 0 unknown, 1 lost, 2 won for the child's side to move); the proof's roots (4: count,
/// then occupancy 8, side 1, winner 1) and entries (8: count, then occupancy 8, key tag 1,
/// move 1); the search's CPU seconds (8: the bits of a double). A result without a proof has no
/// roots and no entries.
std::string encode_result(const LeafResult& r) {
    std::string out;
    put(out, r.win ? 1 : 0, 1);
    put(out, r.win && *r.win ? 1 : 0, 1);
    put(out, r.nodes, 8);
    put(out, r.children.values.size(), 4);
    for (const auto& v : r.children.values)
        put(out, !v ? 0 : *v ? 2 : 1, 1);
    const std::size_t roots = r.proof ? r.proof->roots.size() : 0;
    put(out, roots, 4);
    for (std::size_t i = 0; i < roots; ++i) {
        const ProofRoot& root = r.proof->roots[i];
        put(out, root.position.occ, 8);
        put(out, static_cast<std::uint64_t>(root.position.to_move), 1);
        put(out, static_cast<std::uint64_t>(root.winner), 1);
    }
    put(out, r.proof ? r.proof->entries.size() : 0, 8);
    if (r.proof) {
        out.reserve(out.size() + r.proof->entries.size() * 10);
        r.proof->entries.for_each([&](const ProofKey& k, std::uint8_t move) {
            put(out, k.occ, 8);
            put(out, k.tag, 1);
            put(out, move, 1);
        });
    }
    put(out, std::bit_cast<std::uint64_t>(r.cpu_seconds), 8);
    return out;
}

/// The CPU seconds that end a result: a finite number of at least 0, else a malformed result.
double cpu_of(Reader& rd) {
    const double v = std::bit_cast<double>(rd.get(8));
    if (!(v >= 0 && v < 1e12))
        throw std::runtime_error("konane prove: a worker's result is malformed");
    return v;
}

LeafResult decode_result(const std::string& in, const ProofGame& g, int rank) {
    Reader rd{in};
    LeafResult r;
    const bool decided = rd.get(1) != 0;
    const bool win = rd.get(1) != 0;
    if (decided) r.win = win;
    r.nodes = rd.get(8);
    const std::uint64_t children = rd.get(4);
    if (children > 256) throw std::runtime_error("konane prove: a worker's result is malformed");
    for (std::uint64_t i = 0; i < children; ++i) {
        const std::uint64_t v = rd.get(1);
        r.children.values.push_back(v == 0 ? std::nullopt : std::optional<bool>(v == 2));
    }
    const std::uint64_t roots = rd.get(4);
    if (roots == 0) {
        rd.get(8);  // no entries
        r.cpu_seconds = cpu_of(rd);
        return r;
    }
    Certificate c;
    c.board = g.board();
    c.opening = g.opening();
    c.jumps_only = g.jumps_only();
    c.kind = CertificateKind::Positions;
    c.generator = "konane prove (leaf, rank " + std::to_string(rank) + ")";
    for (std::uint64_t i = 0; i < roots; ++i) {
        Position p;
        p.occ = rd.get(8);
        p.to_move = rd.get(1) != 0 ? Color::White : Color::Black;
        const Color winner = rd.get(1) != 0 ? Color::White : Color::Black;
        c.roots.push_back({p, winner});
    }
    const std::uint64_t entries = rd.get(8);
    if (entries > (in.size() - rd.at) / 10)
        throw std::runtime_error("konane prove: a worker's result is truncated");
    std::vector<ProofEntry> list;
    list.reserve(entries);
    for (std::uint64_t i = 0; i < entries; ++i) {
        ProofEntry e;
        e.key.occ = rd.get(8);
        e.key.tag = static_cast<std::uint8_t>(rd.get(1));
        e.move = static_cast<std::uint8_t>(rd.get(1));
        list.push_back(e);
    }
    c.entries = PackedKeys::from_vector(list);
    r.proof = std::move(c);
    r.cpu_seconds = cpu_of(rd);
    return r;
}

}  // namespace

MpiLeafWorkers::MpiLeafWorkers(const ProveSetup& setup)
    : setup_(setup),
      game_(Board::make(setup.rows, setup.cols), Opening(setup.rules), setup.jumps_only) {
    if (setup_.threads < 1) throw std::invalid_argument("konane prove: a rank of no threads");
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    std::uint64_t s[kSetupWords] = {
        static_cast<std::uint64_t>(setup.rows),      static_cast<std::uint64_t>(setup.cols),
        static_cast<std::uint64_t>(setup.rules),     setup.jumps_only ? 1u : 0u,
        static_cast<std::uint64_t>(setup.algorithm), setup.memory_bytes,
        static_cast<std::uint64_t>(setup.threads),   setup.shared_table ? 1u : 0u};
    MPI_Bcast(s, kSetupWords, MPI_UINT64_T, 0, MPI_COMM_WORLD);
}

MpiLeafWorkers::~MpiLeafWorkers() {
    for (int r = 1; r < size_; ++r)
        MPI_Send(nullptr, 0, MPI_BYTE, r, kQuit, MPI_COMM_WORLD);
}

void MpiLeafWorkers::send(int w, const ProofKey& key, std::uint64_t budget) {
    std::uint64_t m[4] = {key.occ, key.tag, budget, static_cast<std::uint64_t>(w % setup_.threads)};
    MPI_Send(m, 4, MPI_UINT64_T, w / setup_.threads + 1, kJob, MPI_COMM_WORLD);
}

void MpiLeafWorkers::stop(int w) {
    std::uint64_t thread = static_cast<std::uint64_t>(w % setup_.threads);
    MPI_Send(&thread, 1, MPI_UINT64_T, w / setup_.threads + 1, kStop, MPI_COMM_WORLD);
}

std::optional<std::pair<int, LeafResult>> MpiLeafWorkers::poll() {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, kResult, MPI_COMM_WORLD, &flag, &st);
    if (!flag) return std::nullopt;
    int n = 0;
    MPI_Get_count(&st, MPI_BYTE, &n);
    std::string bytes(static_cast<std::size_t>(n), '\0');
    MPI_Recv(bytes.data(), n, MPI_BYTE, st.MPI_SOURCE, kResult, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    Reader rd{bytes};
    const std::uint64_t thread = rd.get(4);
    if (thread >= static_cast<std::uint64_t>(setup_.threads))
        throw std::runtime_error("konane prove: a worker's result names no search thread of it");
    const int w = (st.MPI_SOURCE - 1) * setup_.threads + static_cast<int>(thread);
    return std::make_pair(w, decode_result(bytes.substr(4), game_, st.MPI_SOURCE));
}

void run_prove_worker() {
    std::uint64_t s[kSetupWords] = {};
    MPI_Bcast(s, kSetupWords, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    const Board b = Board::make(static_cast<int>(s[0]), static_cast<int>(s[1]));
    ProofOptions o;
    o.rules = static_cast<Ruleset>(s[2]);
    o.jumps_only = s[3] != 0;
    o.algorithm = static_cast<ProofAlgorithm>(s[4]);
    const int threads = static_cast<int>(std::clamp<std::uint64_t>(s[6], 1, 1024));
    const bool shared = s[7] != 0 && threads > 1;
    o.memory_bytes = std::max<std::size_t>(static_cast<std::size_t>(s[5]) / threads, 64);
    const ProofGame g(b, Opening(o.rules), o.jumps_only);

    // What the calling thread (every MPI call) and the search threads share.
    struct Slot {
        std::atomic<bool> stop{false};
        std::optional<std::array<std::uint64_t, 3>> job;  ///< under `mutex`: key, tag, budget
        bool busy = false;  ///< calling thread only: a leaf received, its result not yet sent
    };
    std::unique_ptr<Slot[]> slots(new Slot[static_cast<std::size_t>(threads)]);
    std::mutex mutex;
    std::condition_variable wake;
    bool quit = false;                                 // under `mutex`
    std::vector<std::pair<int, std::string>> results;  // under `mutex`
    std::exception_ptr failure;                        // under `mutex`
    std::optional<ProofSearch> holder;                 // the shared table of proven values
    if (shared) holder.emplace(b, table_holder_options(o, threads));

    auto search_thread = [&](int i) {
        Slot& slot = slots[static_cast<std::size_t>(i)];
        try {
            ProofOptions so = o;
            so.stop = &slot.stop;
            std::optional<ProofSearch> search;
            if (holder) {
                search.emplace(*holder, so);
            } else {
                search.emplace(b, so);
            }
            for (;;) {
                std::array<std::uint64_t, 3> job{};
                {
                    std::unique_lock lock(mutex);
                    wake.wait(lock, [&] { return quit || slot.job.has_value(); });
                    if (!slot.job) return;
                    job = *slot.job;
                    slot.job.reset();
                }
                ProofKey key;
                key.occ = job[0];
                key.tag = static_cast<std::uint8_t>(job[1]);
                const double cpu_start = thread_cpu_seconds();
                LeafResult r = solve_leaf(*search, g, key, job[2], slot.stop);
                r.cpu_seconds = thread_cpu_seconds() - cpu_start;
                std::string bytes;
                put(bytes, static_cast<std::uint64_t>(i), 4);
                bytes += encode_result(r);
                std::lock_guard lock(mutex);
                results.emplace_back(i, std::move(bytes));
            }
        } catch (...) {
            std::lock_guard lock(mutex);
            if (!failure) failure = std::current_exception();
        }
    };
    std::vector<std::thread> pool;
    // Ends the search threads (a leaf being searched is stopped) and waits for them.
    auto finish = [&] {
        {
            std::lock_guard lock(mutex);
            quit = true;
        }
        for (int i = 0; i < threads; ++i)
            slots[static_cast<std::size_t>(i)].stop = true;
        wake.notify_all();
        for (std::thread& t : pool)
            t.join();
        pool.clear();
    };
    try {
        for (int i = 0; i < threads; ++i)
            pool.emplace_back(search_thread, i);
        for (;;) {
            bool active = false;
            int flag = 0;
            MPI_Status st;
            MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
            if (flag && st.MPI_TAG == kJob) {
                std::uint64_t m[4] = {};
                MPI_Recv(m, 4, MPI_UINT64_T, 0, kJob, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (m[3] >= static_cast<std::uint64_t>(threads))
                    throw std::runtime_error(
                        "konane prove: a leaf for a search thread this rank has not");
                Slot& slot = slots[m[3]];
                slot.stop = false;
                slot.busy = true;
                {
                    std::lock_guard lock(mutex);
                    slot.job = std::array<std::uint64_t, 3>{m[0], m[1], m[2]};
                }
                wake.notify_all();
                active = true;
            } else if (flag && st.MPI_TAG == kStop) {
                // For a leaf already answered (rank 0 asked before it had the answer): ignored;
                // a later leaf of that thread comes after it and clears the flag.
                std::uint64_t thread = 0;
                MPI_Recv(&thread, 1, MPI_UINT64_T, 0, kStop, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (thread < static_cast<std::uint64_t>(threads) && slots[thread].busy)
                    slots[thread].stop = true;
                active = true;
            } else if (flag) {
                // kQuit (anything else is taken and ignored).
                MPI_Recv(nullptr, 0, MPI_BYTE, 0, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (st.MPI_TAG == kQuit) break;
                active = true;
            }
            std::vector<std::pair<int, std::string>> out;
            std::exception_ptr failed;
            {
                std::lock_guard lock(mutex);
                out.swap(results);
                failed = failure;
            }
            if (failed) std::rethrow_exception(failed);
            for (auto& [i, bytes] : out) {
                if (bytes.size() > static_cast<std::size_t>(INT32_MAX))
                    throw std::runtime_error(
                        "konane prove: a leaf's proof past 2 GiB: give a smaller --leaf-nodes");
                MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, 0, kResult,
                         MPI_COMM_WORLD);
                slots[static_cast<std::size_t>(i)].busy = false;
                active = true;
            }
            // Idle: a look for messages every half millisecond costs nothing beside the
            // searches.
            if (!active) std::this_thread::sleep_for(std::chrono::microseconds(500));
        }
    } catch (...) {
        finish();
        throw;
    }
    finish();
}

}  // namespace konane::mpi
