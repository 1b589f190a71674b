#include "solver/distributed.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <queue>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>

#include "core/movegen.hpp"
#include "format/layer_encoder.hpp"
#include "format/table.hpp"
#include "process/cleanup.hpp"
#include "process/directory_lock.hpp"
#include "process/huge_pages.hpp"
#include "process/read_file.hpp"
#include "process/replace_file.hpp"
#include "process/resource_error.hpp"
#include "process/self.hpp"
#include "solver/entry_packing.hpp"
#include "solver/estimate.hpp"
#include "solver/keyfile.hpp"
#include "solver/orientations.hpp"
#include "solver/pipeline.hpp"
#include "solver/radix_sort.hpp"
#include "solver/retrograde.hpp"
#include "solver/run_merge.hpp"
#include "solver/workdir.hpp"

namespace konane::solver {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}
// Times the collective exchanges of a rank.
struct ExchangeClock {
    double seconds = 0;
    template <class F>
    auto operator()(F&& f) {
        const auto t = Clock::now();
        struct Add {
            double& s;
            Clock::time_point t;
            ~Add() { s += since(t); }
        } add{seconds, t};
        return f();
    }
};

// The rank's work directory: its parts' keys per layer ("layer-N.keys"), their solved depths
// by rank ("solved-N.depth"), while the enumeration runs its spilled children ("run-M-I.keys"),
// the enumeration's record ("enumerated": per layer the classes and
// raw positions of the whole layer) and the run's identity ("identity": board, opening, ranks).
class RankDir {
  public:
    /// Opens (creating it) the folder of `rank` of `ranks` under `work`, locked for this
    /// process. Refuses (std::runtime_error, naming the directory and what to do) a `work` that
    /// holds the rank folders of another number of ranks (a resume under another -np would
    /// start over and leave them behind), a folder locked by another job, and one of another
    /// run's identity.
    RankDir(const fs::path& work, int rank, int ranks, const std::string& identity)
        : dir_(work / ("rank-" + std::to_string(rank) + "-of-" + std::to_string(ranks))) {
        for (const int other : mpi_rank_counts(work)) {
            if (other == ranks) continue;
            throw std::runtime_error("work directory " + work.string() +
                                     " holds the work of an MPI generation of " +
                                     std::to_string(other) + " ranks, not " +
                                     std::to_string(ranks) + ": " + mpi_resume_advice(work, other));
        }
        fs::create_directories(dir_);
        try {
            lock_ = process::DirectoryLock::try_take(dir_);
        } catch (const std::system_error& e) {
            throw std::runtime_error("work directory " + dir_.string() +
                                     ": not writable: " + e.code().message());
        }
        if (!lock_) {
            throw std::runtime_error("work directory " + dir_.string() +
                                     ": in use by another konane process (another MPI job on "
                                     "the same --work?)");
        }
        // The files a killed rank was writing (SIGKILL, a power cut): nobody holds them now.
        // (A throw releases the lock with the member.)
        process::remove_stale_temporaries_in(dir_);
        check_identity(identity);
    }
    RankDir(const RankDir&) = delete;
    RankDir& operator=(const RankDir&) = delete;

    const fs::path& path() const { return dir_; }
    fs::path keys(int n) const { return dir_ / ("layer-" + std::to_string(n) + ".keys"); }
    fs::path solved(int n) const { return dir_ / ("solved-" + std::to_string(n) + ".depth"); }
    fs::path enumerated() const { return dir_ / "enumerated"; }
    // The index-th sorted run of waiting children of layer m (the enumeration's spill).
    fs::path run(int m, int index) const {
        return dir_ / ("run-" + std::to_string(m) + "-" + std::to_string(index) + ".keys");
    }

    // Writes `text` to `p` through a temporary name (process/replace_file.hpp).
    static void write_text(const fs::path& p, const std::string& text) {
        process::replace_file(p, {text});
    }

  private:
    // The run's identity on one line (it ends with a newline in the file).
    static std::string one_line(std::string text) {
        while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
            text.pop_back();
        for (char& c : text)
            if (c == '\n' || c == '\r') c = ' ';
        return text;
    }
    void check_identity(const std::string& identity) const {
        const fs::path id = dir_ / "identity";
        std::error_code ec;
        if (!fs::exists(fs::symlink_status(id, ec))) {
            write_text(id, identity);
            return;
        }
        const std::string held =
            process::read_regular_file(id, 4096, "not konane's: remove the folder to start over");
        if (held != identity) {
            throw std::runtime_error("work directory " + dir_.string() + " holds the work of " +
                                     one_line(held) + ", not of " + one_line(identity) +
                                     ": remove it or choose another --work");
        }
    }

    fs::path dir_;
    std::optional<process::DirectoryLock> lock_;
};

// A solved part of a layer: the perfect hash of its keys and their depths by slot.
struct SolvedPart {
    bool present = false;
    Mphf mphf;
    std::vector<Depth> depth;
};

// The u64 at p, little-endian (format/layer_encoder.hpp's directory entries).
std::uint64_t load64(const std::uint8_t* p) {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
        v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
    return v;
}

// Rank 0's `v` on every rank (an all-to-all from rank 0). Collective.
std::vector<std::uint64_t> from_root(Exchange& ex, ExchangeClock& wait,
                                     const std::vector<std::uint64_t>& v) {
    const auto R = static_cast<std::size_t>(ex.size());
    std::vector<std::uint64_t> send, counts(R, 0), recv, recv_counts;
    if (ex.rank() == 0) {
        for (std::size_t r = 0; r < R; ++r) {
            send.insert(send.end(), v.begin(), v.end());
            counts[r] = v.size();
        }
    }
    wait([&] {
        ex.alltoall<std::uint64_t>(send, counts, recv, recv_counts);
        return 0;
    });
    return recv;
}

// Writes layer `info` from its parts, collectively (docs/distributed.md, step 4):
//  1. every rank learns the layer's code and geometry (the depths' histogram summed over the
//     ranks, the greatest key: format::LayerEncoder);
//  2. the layer's blocks are cut into one range of consecutive blocks per rank, of about equal
//     numbers of positions (from the positions per slice of blocks counted on every rank);
//  3. the ranks exchange their keys and depths by range, in rounds of at most wb.per_rank
//     positions from each rank to each (a rank asks a sender for more once its buffer of that
//     sender is at most half full), and each merges what it receives in key order into the
//     encoder of its range, whose blocks go to a spill file in spill_dir;
//  4. from the ranges' totals every rank computes the layer's entry (format::LayerLayout) and
//     the checks of its blocks, and sends rank 0 its directory entries, then its blocks, in
//     chunks of wb.spill_chunk bytes, in rank order; rank 0 only copies them into the table
//     (TableWriter::begin_encoded_layer), with the paddings.
// The bytes are those add_layer() of the whole layer writes. Returns the rounds.
std::uint64_t write_parts(Exchange& ex, ExchangeClock& wait, format::TableWriter* writer,
                          const format::TableMeta& meta, const format::LayerInfo& info,
                          std::span<const std::uint64_t> keys, std::span<const Depth> depth,
                          const WriteBatches& wb, const fs::path& spill_dir, int threads) {
    const int ranks = ex.size(), me = ex.rank();
    const auto R = static_cast<std::size_t>(ranks);
    const auto M = static_cast<std::size_t>(me);
    if (me == 0 && writer == nullptr)
        throw std::logic_error("write_layer_parts: rank 0 has no writer");
    const std::string where = "write_layer_parts(" + std::to_string(info.pieces) + " pieces): ";
    // A key and its depth travel as one word: the depth in bits kDepthShift.. (above the
    // squares, below the side to move).
    constexpr unsigned kDepthShift = 55;
    constexpr std::uint64_t kDepthBits = std::uint64_t{0xFF} << kDepthShift;
    if (meta.rows * meta.cols > kDepthShift)
        throw std::invalid_argument(where + "boards of more than 55 squares are not written");
    // 1. The layer's code and geometry: the depths' histogram and the greatest key, summed on
    // rank 0 and sent to every rank.
    std::vector<std::uint64_t> hist(257, 0);
    for (const Depth d : depth)
        ++hist[d];
    hist[256] = keys.empty() ? 0 : keys.back();
    const auto hists = wait([&] { return ex.gather<std::uint64_t>(hist); });
    std::vector<std::uint64_t> sum(257, 0);
    for (const auto& h : hists) {
        for (std::size_t s = 0; s < 256; ++s)
            sum[s] += h[s];
        sum[256] = std::max(sum[256], h[256]);
    }
    sum = from_root(ex, wait, sum);
    std::array<std::uint64_t, 256> histogram{};
    std::copy(sum.begin(), sum.begin() + 256, histogram.begin());
    const std::uint64_t last = sum[256];
    format::LayerEncoder enc(meta, info, last, histogram, where);
    const std::uint64_t J = enc.blocks(), n = info.classes;

    // 2. The ranges: S slices of blocks, the positions of each counted on every rank and summed
    // on rank 0, which ends range r at the first slice boundary with r n / R positions before.
    const std::uint64_t S = std::min<std::uint64_t>(J, 64 * static_cast<std::uint64_t>(R));
    const auto bound = [&](std::uint64_t c) {
        return S == 0 ? 0 : static_cast<std::uint64_t>(static_cast<unsigned __int128>(c) * J / S);
    };
    std::vector<std::uint64_t> per_slice(static_cast<std::size_t>(S), 0);
    if (R > 1) {
        std::uint64_t c = 0;
        for (const std::uint64_t k : keys) {
            const std::uint64_t j = enc.block_of(k);
            while (c + 1 < S && bound(c + 1) <= j)
                ++c;
            ++per_slice[static_cast<std::size_t>(c)];
        }
    }
    const auto slices = wait([&] { return ex.gather<std::uint64_t>(per_slice); });
    std::vector<std::uint64_t> split(2 * (R + 1), 0);  // first blocks, then first elements
    if (me == 0) {
        std::vector<std::uint64_t> cum(static_cast<std::size_t>(S) + 1, 0);
        for (std::uint64_t c = 0; c < S; ++c) {
            cum[c + 1] = cum[c];
            for (const auto& v : slices)
                cum[c + 1] += v[c];
        }
        std::uint64_t c = 0;
        for (std::size_t r = 1; r < R; ++r) {
            const auto target =
                static_cast<std::uint64_t>(static_cast<unsigned __int128>(n) * r / R);
            while (c < S && cum[c] < target)
                ++c;
            split[r] = bound(c);
            split[R + 1 + r] = cum[c];
        }
        split[R] = J;
        split[2 * R + 1] = n;
    }
    split = from_root(ex, wait, split);
    const auto first_block = [&](std::size_t r) { return split[r]; };
    const auto first_elem = [&](std::size_t r) { return split[R + 1 + r]; };

    // 3. Redistribute by range and encode this rank's range.
    std::vector<std::size_t> cut(R + 1, 0);
    cut[R] = keys.size();
    for (std::size_t t = 1; t < R; ++t) {
        cut[t] = static_cast<std::size_t>(std::partition_point(keys.begin(), keys.end(),
                                                               [&](std::uint64_t k) {
                                                                   return enc.block_of(k) <
                                                                          first_block(t);
                                                               }) -
                                          keys.begin());
    }
    std::vector<std::uint64_t> send_n(R), ones(R, 1), expect, got_counts;
    for (std::size_t t = 0; t < R; ++t)
        send_n[t] = cut[t + 1] - cut[t];
    wait([&] {
        ex.alltoall<std::uint64_t>(send_n, ones, expect, got_counts);
        return 0;
    });
    enc.start(first_block(M), first_block(M + 1), first_elem(M));
    format::SpillBytes blocks, dir;
    blocks.use_tail(enc.bytes());
    dir.use_tail(enc.directory());
    const std::size_t chunk = std::max<std::size_t>(wb.spill_chunk, 1);
    if (!spill_dir.empty()) {
        blocks.spill(spill_dir);
        dir.spill(spill_dir);
        enc.on_block([&] {
            blocks.flush_if(chunk);
            dir.flush_if(chunk);
        });
    }
    // Per sender the packed words received and not yet merged.
    std::vector<std::vector<std::uint64_t>> buf(R);
    std::vector<std::size_t> at(R, 0);
    std::vector<std::uint64_t> received(R, 0), sent(R, 0);
    using Item = std::pair<std::uint64_t, std::size_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
    std::vector<std::uint64_t> out_key, ask(2 * R), twos(R, 2), asked, asked_counts, send_key,
        send_counts(R);
    std::vector<Depth> out_depth;
    std::vector<std::uint64_t> rk, rk_counts;
    std::uint64_t rounds = 0;
    // Alone, the rank's keys are its range: encoded in batches as they are, nothing sent (the
    // rounds below then find nothing left to receive).
    if (R == 1) {
        for (std::size_t i = 0; i < keys.size(); i += wb.per_rank) {
            const std::size_t c = std::min<std::size_t>(wb.per_rank, keys.size() - i);
            enc.add(keys.subspan(i, c), depth.subspan(i, c), threads);
            received[0] += c;
            ++rounds;
        }
    }
    const auto emit = [&] {
        enc.add(out_key, out_depth, threads);
        out_key.clear();
        out_depth.clear();
    };
    for (;;) {
        // Ask each sender whose buffer is at most half full for its next batch, and tell every
        // rank how many positions this one still waits for: the exchange ends when none does.
        std::uint64_t left = 0;
        for (std::size_t s = 0; s < R; ++s)
            left += expect[s] - received[s];
        for (std::size_t s = 0; s < R; ++s) {
            const std::uint64_t held = buf[s].size() - at[s];
            ask[2 * s] = received[s] < expect[s] && held <= wb.per_rank
                             ? std::min<std::uint64_t>(wb.per_rank, expect[s] - received[s])
                             : 0;
            ask[2 * s + 1] = left;
        }
        wait([&] {
            ex.alltoall<std::uint64_t>(ask, twos, asked, asked_counts);
            return 0;
        });
        bool more = false;
        for (std::size_t t = 0; t < R; ++t)
            more = more || asked[2 * t + 1] > 0;
        if (!more) break;
        ++rounds;
        send_key.clear();
        for (std::size_t t = 0; t < R; ++t) {
            const std::uint64_t take = std::min<std::uint64_t>(asked[2 * t], send_n[t] - sent[t]);
            const std::size_t from = cut[t] + static_cast<std::size_t>(sent[t]);
            for (std::size_t i = from; i < from + take; ++i)
                send_key.push_back(keys[i] | static_cast<std::uint64_t>(depth[i]) << kDepthShift);
            send_counts[t] = take;
            sent[t] += take;
        }
        wait([&] {
            ex.alltoall<std::uint64_t>(send_key, send_counts, rk, rk_counts);
            return 0;
        });
        // Append each sender's batch to its buffer (dropping what was merged).
        std::size_t from = 0;
        for (std::size_t s = 0; s < R; ++s) {
            const auto c = static_cast<std::size_t>(rk_counts[s]);
            if (c == 0) continue;
            const bool was_empty = at[s] == buf[s].size();
            buf[s].erase(buf[s].begin(), buf[s].begin() + static_cast<std::ptrdiff_t>(at[s]));
            at[s] = 0;
            buf[s].insert(buf[s].end(), rk.begin() + static_cast<std::ptrdiff_t>(from),
                          rk.begin() + static_cast<std::ptrdiff_t>(from + c));
            received[s] += c;
            from += c;
            if (was_empty) heap.push({buf[s][0] & ~kDepthBits, s});
        }
        // Merge while every sender with more to send has some buffered: the least key is then
        // the next of the range. Only the sender whose buffer runs dry can become starved.
        bool go = true;
        for (std::size_t s = 0; s < R; ++s)
            if (at[s] == buf[s].size() && received[s] < expect[s]) go = false;
        // The sender of the least key gives every key of its buffer below the next sender's
        // least in one go (the ranges' keys are distinct).
        while (go && !heap.empty()) {
            const std::size_t s = heap.top().second;
            heap.pop();
            const std::uint64_t below = heap.empty() ? ~std::uint64_t{0} : heap.top().first;
            const std::vector<std::uint64_t>& from = buf[s];
            std::size_t i = at[s];
            do {
                out_key.push_back(from[i] & ~kDepthBits);
                out_depth.push_back(static_cast<Depth>(from[i] >> kDepthShift));
                ++i;
            } while (i < from.size() && (from[i] & ~kDepthBits) < below &&
                     out_key.size() < wb.per_rank);
            at[s] = i;
            if (at[s] < from.size()) {
                heap.push({from[at[s]] & ~kDepthBits, s});
            } else if (received[s] < expect[s]) {
                go = false;
            }
            if (out_key.size() >= wb.per_rank) emit();
        }
        if (!out_key.empty()) emit();
    }
    enc.finish();

    // 4. The layer's entry from the ranges' totals, on every rank: rank 0 gathers them and
    // sends every rank the bytes of each range, the sums and its file's position and header.
    const format::EncodedTotals& tot = enc.totals();
    const std::uint64_t mine = enc.elements();
    const auto totals = wait([&] {
        return ex.gather<std::uint64_t>(
            std::vector<std::uint64_t>{mine, mine == first_elem(M + 1) - first_elem(M) ? 1u : 0u,
                                       tot.bytes, tot.value_bits, tot.group_bytes});
    });
    std::vector<std::uint64_t> layer_totals(R + 6, 0);  // bytes per rank, keys, ok, sums, place
    if (me == 0) {
        layer_totals[R + 1] = 1;
        for (std::size_t r = 0; r < R; ++r) {
            layer_totals[r] = totals[r][2];
            layer_totals[R] += totals[r][0];
            layer_totals[R + 1] &= totals[r][1];
            layer_totals[R + 2] += totals[r][3];
            layer_totals[R + 3] += totals[r][4];
        }
        layer_totals[R + 4] = writer->bytes_written();
        layer_totals[R + 5] = writer->header_checksum();
    }
    layer_totals = from_root(ex, wait, layer_totals);
    const std::uint64_t merged = layer_totals[R];
    if (merged != n || layer_totals[R + 1] != 1) {
        throw std::logic_error("generate_parts: layer " + std::to_string(info.pieces) + " has " +
                               std::to_string(merged) + " keys, expected " + std::to_string(n) +
                               (layer_totals[R + 1] != 1 ? " (a range holds other keys)" : ""));
    }
    const std::vector<std::uint64_t> bytes_of(
        layer_totals.begin(), layer_totals.begin() + static_cast<std::ptrdiff_t>(R));
    format::EncodedTotals layer;
    layer.value_bits = layer_totals[R + 2];
    layer.group_bytes = layer_totals[R + 3];
    std::uint64_t base = 0;
    for (std::size_t r = 0; r < R; ++r) {
        if (r < M) base += bytes_of[r];
        layer.bytes += bytes_of[r];
    }
    const format::LayerLayout lay = enc.layout(layer, layer_totals[R + 4], layer_totals[R + 5]);
    const unsigned width = lay.width;

    // This rank's stream: its directory entries in the file's form (the last rank adds entry J),
    // then its blocks with their checks, produced a group of blocks at a time.
    const std::uint64_t my_blocks = first_block(M + 1) - first_block(M);
    std::vector<std::uint8_t> pending, raw;
    std::vector<std::uint64_t> off, fst;
    std::uint64_t next = 0;  // the next block (of this range) to produce
    const auto read_entries = [&](std::uint64_t k0, std::uint64_t c) {
        // Entries k0 .. k0 + c - 1 of this range, layer-relative; entry my_blocks is the next
        // range's first (or entry J).
        off.resize(static_cast<std::size_t>(c));
        fst.resize(static_cast<std::size_t>(c));
        const std::uint64_t stored = std::min(c, my_blocks - std::min(my_blocks, k0));
        raw.resize(static_cast<std::size_t>(stored * 16));
        dir.read(k0 * 16, raw.data(), raw.size());
        for (std::uint64_t k = 0; k < c; ++k) {
            if (k < stored) {
                off[k] = base + load64(raw.data() + k * 16);
                fst[k] = load64(raw.data() + k * 16 + 8);
            } else {
                off[k] = base + tot.bytes;
                fst[k] = first_elem(M + 1);
            }
        }
    };
    const auto produce = [&](int phase, std::size_t want) {
        constexpr std::uint64_t kGroup = 4096;
        while (pending.size() < want && next < my_blocks + (phase == 0 && M + 1 == R ? 1 : 0)) {
            if (phase == 0) {
                const std::uint64_t end = my_blocks + (M + 1 == R ? 1 : 0);
                const std::uint64_t c = std::min(kGroup, end - next);
                read_entries(next, c);
                format::put_directory(off, fst, width, pending);
                next += c;
            } else {
                // Whole blocks, at most a chunk's bytes (at least one block).
                std::uint64_t c = std::min(kGroup, my_blocks - next);
                read_entries(next, c + 1);
                while (c > 1 && off[c] - off[0] > chunk)
                    --c;
                off.resize(static_cast<std::size_t>(c + 1));
                fst.resize(static_cast<std::size_t>(c + 1));
                const std::size_t p = pending.size();
                pending.resize(p + static_cast<std::size_t>(off[c] - off[0]));
                blocks.read(off[0] - base, pending.data() + p, pending.size() - p);
                format::seal_blocks(lay.key, first_block(M) + next, off, fst, pending.data() + p,
                                    threads);
                next += c;
            }
        }
    };
    // Bytes of each rank's stream in each phase, known to every rank.
    const auto stream_bytes = [&](int phase, std::size_t r) -> std::uint64_t {
        if (n == 0) return 0;
        if (phase == 1) return bytes_of[r];
        return (first_block(r + 1) - first_block(r) + (r + 1 == R ? 1 : 0)) * 2 * width;
    };
    if (me == 0) writer->begin_encoded_layer(info, lay.entry);
    std::vector<std::uint8_t> recv;
    std::vector<std::uint64_t> counts(R, 0), recv_counts;
    for (int phase = 0; phase < 2; ++phase) {
        next = 0;
        std::uint64_t written = 0;  // bytes of every rank's stream
        for (std::size_t r = 0; r < R; ++r)
            written += stream_bytes(phase, r);
        // Rank 0's own stream first, copied.
        const std::uint64_t own = me == 0 ? stream_bytes(phase, 0) : 0;
        for (std::uint64_t done = 0; done < own;) {
            produce(phase, chunk);
            const std::size_t take =
                static_cast<std::size_t>(std::min<std::uint64_t>(pending.size(), own - done));
            if (take == 0) throw std::logic_error(where + "rank 0's range ends early");
            writer->append_encoded({pending.data(), take});
            pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(take));
            done += take;
        }
        // The other ranks' streams, one after the other, in rounds of at most a chunk: a round
        // carries the chunk's bytes of every rank it overlaps, so rank 0 receives them in rank
        // order, the file's order.
        std::uint64_t mine_from = 0, rest = 0;  // this rank's place among them; their bytes
        for (std::size_t r = 1; r < R; ++r) {
            if (r == M) mine_from = rest;
            rest += stream_bytes(phase, r);
        }
        const std::uint64_t mine_to = me == 0 ? 0 : mine_from + stream_bytes(phase, M);
        for (std::uint64_t x = 0; x < rest; x += chunk) {
            const std::uint64_t y = std::min<std::uint64_t>(rest, x + chunk);
            std::size_t take = 0;
            if (me != 0 && std::max(x, mine_from) < std::min(y, mine_to))
                take = static_cast<std::size_t>(std::min(y, mine_to) - std::max(x, mine_from));
            std::fill(counts.begin(), counts.end(), 0);
            if (take > 0) {
                produce(phase, take);
                if (pending.size() < take)
                    throw std::logic_error(where + "the range of rank " + std::to_string(me) +
                                           " ends early");
                counts[0] = take;
            }
            ++rounds;
            wait([&] {
                ex.alltoall<std::uint8_t>(std::span<const std::uint8_t>(pending.data(), take),
                                          counts, recv, recv_counts);
                return 0;
            });
            pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(take));
            if (me == 0) writer->append_encoded(recv);
        }
        if (me == 0) {
            // The padding: the directory's to a multiple of 8, the blocks' tail.
            const std::uint64_t pad =
                phase == 0 ? lay.dir_size - written : lay.blocks_size - written;
            const std::vector<std::uint8_t> zeros(static_cast<std::size_t>(pad), 0);
            writer->append_encoded(zeros);
        }
    }
    if (me == 0) writer->end_encoded_layer();
    return rounds;
}
}  // namespace

WriteBatches WriteBatches::of(std::uint64_t budget, int ranks) {
    WriteBatches w;
    const auto n = static_cast<std::uint64_t>(std::max(ranks, 1));
    w.per_rank = std::clamp<std::uint64_t>(budget / 64 / (9 * n), 256, std::uint64_t{1} << 20);
    w.spill_chunk = static_cast<std::size_t>(
        std::clamp<std::uint64_t>(budget / 64, std::uint64_t{1} << 16, format::kSpillChunk));
    return w;
}

std::uint64_t WriteBatches::root_bytes(int ranks) const {
    // Per sender a buffer of up to 2 batches (refilled once half empty) and the round's batch
    // as received, the merged output (one batch); the spill tails of blocks and directory, the
    // pending chunk and a group of blocks, the chunk sent or received and the exchange's copy.
    return (3 * static_cast<std::uint64_t>(std::max(ranks, 1)) + 1) * per_rank * 9 +
           8 * static_cast<std::uint64_t>(spill_chunk) + (std::uint64_t{1} << 20);
}

std::uint64_t write_layer_parts(Exchange& ex, format::TableWriter* writer,
                                const format::TableMeta& meta, const format::LayerInfo& info,
                                std::span<const std::uint64_t> keys, std::span<const Depth> depth,
                                const WriteBatches& wb, const std::filesystem::path& spill_dir,
                                int threads) {
    ExchangeClock wait;
    return write_parts(ex, wait, writer, meta, info, keys, depth, wb, spill_dir, threads);
}

namespace {

// This rank's part of every layer, the other parts over an Exchange: the parts' keys and solved
// depths in the rank's work folder (RankDir), the solved parts the next layers' jumps reach in
// memory (SolvedPart). The store of generate_parts(); every stage is collective.
struct RankParts final : LayerStore {
    RankParts(const GenerateOptions& o_, Exchange& ex_, PartsReport& rep_)
        : o(o_),
          ex(ex_),
          rep(rep_),
          b(o_.board),
          ranks(ex_.size()),
          me(ex_.rank()),
          threads(o_.threads > 0 ? o_.threads : omp_get_max_threads()),
          budget(o_.memory_bytes ? o_.memory_bytes : default_memory_budget()),
          op(opening_of(o_)),
          group(o_.board),
          top(first_layer_pieces(o_.board)),
          most_captured(max_capture(o_.board)),
          // Positions expanded (enumeration) or solved per batch: a position has at most a few
          // dozen children, each 8 bytes sent and received, and the solve's 8-byte request and
          // 1-byte answer: 64 children of 32 bytes a position within a sixteenth of the budget.
          batch(std::clamp<std::uint64_t>(budget / 16 / (64 * 32), 1024, std::uint64_t{1} << 20)),
          wb(WriteBatches::of(budget, ranks)),
          dir(o_.work_dir, ex_.rank(), ex_.size(),
              o_.board.name() + " " + opening_tag(o_.board, op) + ", " +
                  std::to_string(ex_.size()) + " ranks\n"),
          meta(table_meta(o_.board, op)) {
        if (op.gap) orient.emplace(group);
        pk = EntryPacking::of(b, orient ? orient->bits() : 2);
        flag_mask = pk.flag_mask();
        occ_mask = (std::uint64_t{1} << b.squares()) - 1;
        // The batches' send buffer, reserved at its bound (64 children of a position) before
        // any work: a rank whose memory cannot hold its batches fails now, not hours into the
        // run.
        sendbuf.reserve(batch * 64);
        classes.assign(static_cast<std::size_t>(top) + 1, 0);
        raw.assign(classes.size(), 0);
        enum_seconds.assign(classes.size(), 0);
        own.assign(classes.size(), 0);
        parts.resize(classes.size());
    }

    // 1. Enumeration, unless every rank finished it before.
    std::vector<LayerCount> enumerate() override {
        const auto te = Clock::now();
        const bool enumerated = wait([&] { return ex.min(fs::exists(dir.enumerated()) ? 1 : 0); });
        if (enumerated) {
            std::ifstream in(dir.enumerated());
            int n = 0;
            std::uint64_t c = 0, r = 0, mine = 0;
            double s = 0;
            while (in >> n >> c >> r >> mine >> s) {
                if (n < 0 || n > top)
                    throw std::runtime_error(dir.enumerated().string() + ": damaged");
                classes[n] = c, raw[n] = r, enum_seconds[n] = s, own[n] = mine;
                own_classes += mine;
            }
            rep.resumed = true;
        } else {
            // Sorted runs of this rank's children, by layer, left by an enumeration cut short:
            // that enumeration is done again from the start.
            for (const auto& f : fs::directory_iterator(dir.path())) {
                if (f.path().filename().string().rfind("run-", 0) == 0) fs::remove(f.path());
            }
            // The children waiting for the layers below, in memory (the arena) and spilled as
            // sorted runs (runs) when they pass the share of the budget the rest leaves: the
            // process, the batches and 8 MiB (as the solve counts them below), the merge's readers
            // (about 1 MiB a run, fan_in of them). A waiting child takes 16 bytes (the entry and
            // the sort's scratch); the share is at most half the budget, at least 2^12 children.
            const std::uint64_t mib = std::uint64_t{1} << 20;
            const std::size_t fan_in =
                static_cast<std::size_t>(std::max<std::uint64_t>(8, budget / 8 / mib));
            const std::uint64_t fixed = o.process_bytes + batch * 64 * 32 + 8 * mib + fan_in * mib;
            const std::uint64_t share = std::min(budget / 2, budget > fixed ? budget - fixed : 0);
            // The waiting children share one arena of fixed capacity, allocated once (no page of
            // it is cleared twice), each entry tagged with its layer modulo max_capture + 1
            // (distinct among the layers that wait: n-1 .. n-max_capture), so that one radix
            // sort groups them by layer, then key (EntryPacking: tag_bits fit max_capture + 1
            // values). It is sorted and deduplicated when full, and spilled as sorted runs, one
            // per layer, when that leaves it more than half full.
            const std::size_t capacity = static_cast<std::size_t>(
                std::min<std::uint64_t>(std::max<std::uint64_t>(share / 16, 4096),
                                        std::uint64_t{1} << std::min(62, b.squares() + 4)));
            const int period = most_captured + 1;
            std::vector<std::uint64_t> arena, scratch, recv, recv_counts;
            process::reserve_huge(arena, capacity);
            process::reserve_huge(scratch, capacity);
            std::vector<std::vector<fs::path>> runs(classes.size());
            std::vector<int> run_index(classes.size(), 0);
            // A fresh name for a run of layer m, after every earlier one of the layer.
            auto fresh_run = [&](int m) { return dir.run(m, run_index[m]++); };
            const auto layer_of = [&](std::uint64_t untagged) {
                return std::popcount((untagged >> pk.flag_bits) & occ_mask);
            };
            // Layer m's entries in the sorted arena (compact() first), untagged in place.
            auto group_of = [&](int m) {
                const auto t = static_cast<std::uint64_t>(m % period);
                const auto lo = std::partition_point(arena.begin(), arena.end(),
                                                     [&](auto e) { return pk.tag(e) < t; });
                const auto hi =
                    std::partition_point(lo, arena.end(), [&](auto e) { return pk.tag(e) <= t; });
                for (auto it = lo; it != hi; ++it)
                    *it = pk.untagged(*it);
                return std::pair(lo, hi);
            };
            // Writes entries [lo, hi) of the arena (untagged, sorted, distinct) as a run of
            // layer m.
            auto write_run = [&](int m, auto lo, auto hi) {
                runs[m].push_back(fresh_run(m));
                write_key_file(runs[m].back(), std::span(lo, hi), threads);
                ++rep.enumerate_runs;
                process::kill_point();
            };
            // Sorts and deduplicates the arena; spills every layer in it as runs when it still
            // fills half its capacity.
            auto flush = [&] {
                compact(arena, scratch, pk.sort_bits(), flag_mask, threads);
                if (arena.size() <= capacity / 2) return;
                auto at = arena.begin();
                while (at != arena.end()) {
                    const std::uint64_t t = pk.tag(*at);
                    auto end = at;
                    while (end != arena.end() && pk.tag(*end) == t) {
                        *end = pk.untagged(*end);
                        ++end;
                    }
                    write_run(layer_of(*at), at, end);
                    at = end;
                }
                arena.clear();
            };
            for (const Position& p : start_positions(b, op)) {
                std::uint64_t key = 0, e = 0;
                if (orient) {
                    int h = 0;
                    key = orient->canonical(p, h);
                    e = pk.pack(key, orient->of_start(h));
                } else {
                    key = group.canonical_key(p);
                    e = pk.pack(key, 1u << static_cast<int>(p.to_move));
                }
                if (part_of(key, ranks) == me)
                    arena.push_back(pk.tagged(e, static_cast<std::uint64_t>(top % period)));
            }
            std::string record;
            std::vector<std::vector<std::vector<std::uint64_t>>> out(
                static_cast<std::size_t>(threads),
                std::vector<std::vector<std::uint64_t>>(static_cast<std::size_t>(ranks)));
            std::vector<std::uint64_t> chunk, keys;
            for (int n = top; n >= 0; --n) {
                const auto tl = Clock::now();
                // Layer n's part, distinct and sorted with the flags of its duplicates OR-ed: at
                // the arena's front (entries 0 .. held-1, expanded up to taken), or merged from
                // its runs (those spilled and what was still waiting) in chunks of `batch`, so
                // that the part is never held whole.
                std::optional<RunMerger> merger;
                std::size_t held = 0, taken = 0;
                compact(arena, scratch, pk.sort_bits(), flag_mask, threads);
                const auto [lo, hi] = group_of(n);
                if (runs[n].empty()) {
                    held = static_cast<std::size_t>(hi - lo);
                    std::rotate(arena.begin(), lo, hi);
                } else {
                    if (lo != hi) write_run(n, lo, hi);
                    arena.erase(lo, hi);
                    runs[n] = merge_runs_in_groups(std::move(runs[n]), fan_in, flag_mask, threads,
                                                   [&] { return fresh_run(n); });
                    merger.emplace(runs[n], flag_mask);
                }
                // Frees the arena's front: the part's entries not yet expanded go to a run, and
                // the rest of the layer is merged from it.
                auto release = [&] {
                    if (held == 0) return;
                    if (taken < held) {
                        write_run(n, arena.begin() + static_cast<std::ptrdiff_t>(taken),
                                  arena.begin() + static_cast<std::ptrdiff_t>(held));
                        merger.emplace(runs[n], flag_mask);
                    }
                    arena.erase(arena.begin(), arena.begin() + static_cast<std::ptrdiff_t>(held));
                    held = taken = 0;
                };
                auto next_chunk = [&] {
                    if (merger) return merger->next(chunk, static_cast<std::size_t>(batch));
                    const std::size_t end =
                        std::min<std::size_t>(held, taken + static_cast<std::size_t>(batch));
                    chunk.assign(arena.begin() + static_cast<std::ptrdiff_t>(taken),
                                 arena.begin() + static_cast<std::ptrdiff_t>(end));
                    taken = end;
                    return !chunk.empty();
                };
                KeyFileWriter keys_out(dir.keys(n), threads);
                std::uint64_t layer_raw = 0, part = 0;  // raw positions, and the part's classes
                // A round per chunk, while any rank has one: the size of a merged part is known
                // only at its end, so the ranks agree on "more" (a collective) before each round.
                for (;;) {
                    const bool have = next_chunk();
                    if (wait([&] { return ex.max(have ? 1 : 0); }) == 0) break;
                    const auto count = static_cast<std::int64_t>(chunk.size());
                    keys.resize(chunk.size());
                    // An exception (out of memory) must not leave the OpenMP region: the first one
                    // is kept, the other iterations skipped, and it is rethrown after the region.
                    std::exception_ptr error;
                    std::atomic<bool> failed{false};
#pragma omp parallel num_threads(threads) if (count > 4096) reduction(+ : layer_raw)
                    {
                        auto& mine = out[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for schedule(dynamic, 256)
                        for (std::int64_t i = 0; i < count; ++i) {
                            if (failed.load(std::memory_order_relaxed)) continue;
                            try {
                                const std::uint64_t e = chunk[i];
                                const std::uint64_t flags = e & flag_mask;
                                keys[i] = pk.key(e);
                                const Position p = position_of_key(keys[i]);
                                if (orient) {
                                    layer_raw += static_cast<std::uint64_t>(orient->raw(p, flags));
                                    for_each_jump(b, p, [&](Move, Position c) {
                                        int h = 0;
                                        const std::uint64_t key = orient->canonical(c, h);
                                        mine[part_of(key, ranks)].push_back(
                                            pk.pack(key, orient->child(flags, h)));
                                    });
                                } else {
                                    layer_raw +=
                                        static_cast<std::uint64_t>(group.preserving_orbit_size(p)) *
                                        static_cast<std::uint64_t>(std::popcount(flags));
                                    const std::uint64_t child_flags = swap_sides(flags);
                                    const SymmetryGroup::ParentImages pi =
                                        group.parent_images(p.occ);
                                    for_each_jump(b, p, [&](Move m, Position c) {
                                        const std::uint64_t key =
                                            group.child_key(pi, c, m.from, m.to);
                                        mine[part_of(key, ranks)].push_back(
                                            pk.pack(key, child_flags));
                                    });
                                }
                            } catch (...) {
#pragma omp critical(konane_parts_error)
                                if (!error) error = std::current_exception();
                                failed.store(true, std::memory_order_relaxed);
                            }
                        }
                    }
                    if (error) std::rethrow_exception(error);
                    keys_out.append(keys);
                    part += keys.size();
                    std::vector<std::uint64_t> counts(static_cast<std::size_t>(ranks), 0);
                    sendbuf.clear();
                    for (int r = 0; r < ranks; ++r) {
                        for (auto& t : out) {
                            auto& v = t[static_cast<std::size_t>(r)];
                            sendbuf.insert(sendbuf.end(), v.begin(), v.end());
                            counts[static_cast<std::size_t>(r)] += v.size();
                            v.clear();
                        }
                    }
                    wait([&] {
                        ex.alltoall<std::uint64_t>(sendbuf, counts, recv, recv_counts);
                        return 0;
                    });
                    // Into the arena, sorted and deduplicated (or spilled) whenever it is full.
                    const int low = std::max(0, n - most_captured);
                    for (std::size_t i = 0; i < recv.size();) {
                        if (arena.size() == capacity) {
                            release();
                            flush();
                        }
                        const std::size_t take = std::min(recv.size() - i, capacity - arena.size());
                        for (std::size_t k = i; k < i + take; ++k) {
                            const std::uint64_t e = recv[k];
                            const int m = layer_of(e);
                            if (m >= n || m < low) {
                                throw std::logic_error("generate_parts: a child of layer " +
                                                       std::to_string(n) + " has " +
                                                       std::to_string(m) + " pieces");
                            }
                            arena.push_back(pk.tagged(e, static_cast<std::uint64_t>(m % period)));
                        }
                        i += take;
                    }
                }
                keys_out.finish();
                release();
                merger.reset();
                for (const auto& r : runs[n])
                    fs::remove(r);
                runs[n].clear();
                process::kill_point();
                own_classes += part;
                own[n] = part;
                classes[n] = wait([&] { return ex.sum(part); });
                raw[n] = wait([&] { return ex.sum(layer_raw); });
                enum_seconds[n] = since(tl);
                record += std::to_string(n) + " " + std::to_string(classes[n]) + " " +
                          std::to_string(raw[n]) + " " + std::to_string(part) + " " +
                          std::to_string(enum_seconds[n]) + "\n";
                if (o.progress) o.progress("enumerate", n, classes[n], classes[n]);
            }
            RankDir::write_text(dir.enumerated(), record);
            process::kill_point();
        }
        rep.enumerate_seconds = since(te);
        enumerate_peak = process::peak_rss_bytes();
        std::vector<LayerCount> layers;
        for (int n = 0; n <= top; ++n) {
            if (classes[n] == 0) continue;
            order.push_back(n);
            layers.push_back(LayerCount{n, classes[n], raw[n], enum_seconds[n]});
        }
        return layers;
    }

    // The solve's working set, checked on every rank before any layer is solved: the parts of
    // the layers a jump reaches (a perfect hash of about 5 bits and a depth per position), the
    // layer's keys and depths (9 bytes a position), the batches; every rank also merges and
    // encodes its range of a layer to write it, in bounded batches (WriteBatches). A refusal
    // names the rank and the budget it needs.
    void prepare_solve(const std::vector<LayerCount>&) override {
        std::uint64_t need = 0;
        int worst = -1;
        for (int n : order) {
            std::uint64_t window = 0;
            for (int k = 1; k <= most_captured && n - k >= 0; ++k)
                window += own[n - k];
            std::uint64_t bytes =
                window * 2 + own[n] * 9 + batch * 64 * 32 + (std::uint64_t{8} << 20);
            if (!o.output.empty()) bytes += wb.root_bytes(ranks);
            if (bytes > need) need = bytes, worst = n;
        }
        const auto needs = wait([&] { return ex.all(need); });
        const auto worsts = wait([&] { return ex.all(static_cast<std::uint64_t>(worst)); });
        for (int r = 0; r < ranks; ++r) {
            if (needs[r] <= budget) continue;
            const std::uint64_t mib = (needs[r] >> 20) + 1;
            throw ResourceError("memory budget " + std::to_string(budget >> 20) +
                                " MiB cannot hold the solve of rank " + std::to_string(r) +
                                "'s part of layer " + std::to_string(worsts[r]) +
                                ": it needs about " + std::to_string(mib) +
                                " MiB; rerun with --memory " + std::to_string(mib) +
                                "M or more (or more ranks, in a new work directory) to " +
                                "resume from the work directory " + o.work_dir.string());
        }
        // Layers solved by every rank before an interruption are read back.
        for (; first_unsolved < order.size(); ++first_unsolved) {
            const int n = order[first_unsolved];
            if (wait([&] { return ex.min(fs::exists(dir.solved(n)) ? 1 : 0); }) == 0) break;
        }
        rep.layers_resumed = static_cast<int>(first_unsolved);
    }

    // 2. Solve the layer's part from its children's depths, asked of their owners in batches
    // (or read back), then hash it for the layers above.
    void solve(const LayerCount& l, LayerReport& lr) override {
        const int n = l.pieces;
        const std::size_t li =
            static_cast<std::size_t>(std::find(order.begin(), order.end(), n) - order.begin());
        const auto tl = Clock::now();
        keys = read_key_file(dir.keys(n));
        depth.assign(keys.size(), 0);
        if (li < first_unsolved) {
            depth = read_byte_file(dir.solved(n), keys.size());
        } else {
            const std::uint64_t rounds =
                wait([&] { return ex.max((keys.size() + batch - 1) / batch); });
            for (std::uint64_t round = 0; round < rounds; ++round) {
                const std::size_t lo = std::min<std::size_t>(keys.size(), round * batch);
                const std::size_t hi = std::min<std::size_t>(keys.size(), (round + 1) * batch);
                // The children of positions lo .. hi-1, in position order: counted, then written
                // with their canonical keys and owners, both in parallel (position i's children
                // are child_first[i - lo] .. child_first[i - lo + 1] - 1).
                const auto span = static_cast<std::int64_t>(hi - lo);
                child_first.assign(hi - lo + 1, 0);
#pragma omp parallel for num_threads(threads) if (span > 4096) schedule(static)
                for (std::int64_t i = 0; i < span; ++i) {
                    std::uint64_t c = 0;
                    for_each_jump(b, position_of_key(keys[lo + static_cast<std::size_t>(i)]),
                                  [&](Move, Position) { ++c; });
                    child_first[static_cast<std::size_t>(i) + 1] = c;
                }
                for (std::size_t i = 1; i < child_first.size(); ++i)
                    child_first[i] += child_first[i - 1];
                const auto count = static_cast<std::int64_t>(child_first.back());
                child_key.resize(static_cast<std::size_t>(count));
                child_owner.resize(static_cast<std::size_t>(count));
#pragma omp parallel for num_threads(threads) if (span > 4096) schedule(static)
                for (std::int64_t i = 0; i < span; ++i) {
                    std::uint64_t j = child_first[static_cast<std::size_t>(i)];
                    const Position p = position_of_key(keys[lo + static_cast<std::size_t>(i)]);
                    const SymmetryGroup::ParentImages pi = group.parent_images(p.occ);
                    for_each_jump(b, p, [&](Move m, Position c) {
                        const std::uint64_t k = group.child_key(pi, c, m.from, m.to);
                        child_key[j] = k;
                        child_owner[j] = part_of(k, ranks);
                        ++j;
                    });
                }
                // Alone, every child is this rank's: looked up in place (back[j] is child j's
                // depth). Otherwise the requests are grouped by owner, each thread's share of the
                // children in order, this rank's own children last and not sent: child j's depth
                // is back[where[j]].
                const bool alone = ranks == 1;
                if (alone) {
                    back.resize(static_cast<std::size_t>(count));
                    look_up(child_key.data(), count, back.data(), n);
                } else {
                    std::vector<std::uint64_t> counts(static_cast<std::size_t>(ranks), 0);
                    sendbuf.resize(child_key.size());
                    where.resize(child_key.size());
                    const std::uint64_t own_children = group_by_owner(count, counts);
                    const auto sent = static_cast<std::size_t>(count) - own_children;
                    wait([&] {
                        ex.alltoall<std::uint64_t>(std::span(sendbuf.data(), sent), counts, recv,
                                                   recv_counts);
                        return 0;
                    });
                    // Answer the requests from this rank's solved parts.
                    answers.resize(recv.size());
                    look_up(recv.data(), static_cast<std::int64_t>(recv.size()), answers.data(), n);
                    std::vector<std::uint64_t> back_counts;
                    wait([&] {
                        ex.alltoall<std::uint8_t>(answers, recv_counts, back, back_counts);
                        return 0;
                    });
                    // The own children's depths after the others', where group_by_owner() put them.
                    back.resize(static_cast<std::size_t>(count));
                    look_up(sendbuf.data() + sent, static_cast<std::int64_t>(own_children),
                            back.data() + sent, n);
                }
                bool too_deep = false;
#pragma omp parallel for num_threads(threads) if (span > 4096) schedule(static) \
    reduction(||                                                                \
              : too_deep)
                for (std::int64_t i = 0; i < span; ++i) {
                    DepthAccumulator acc;
                    for (std::uint64_t j = child_first[static_cast<std::size_t>(i)];
                         j < child_first[static_cast<std::size_t>(i) + 1]; ++j)
                        acc.add(back[alone ? j : where[j]]);
                    const int d = acc.result();
                    if (d > 255) too_deep = true;
                    depth[lo + static_cast<std::size_t>(i)] = static_cast<Depth>(d);
                }
                if (too_deep) throw std::runtime_error("depth to end over 255 plies");
            }
            write_byte_file(dir.solved(n), depth, threads);
            process::kill_point();
        }
        for (Depth d : depth)
            lr.max_depth = std::max<int>(lr.max_depth, d);
        lr.max_depth = static_cast<int>(
            wait([&] { return ex.max(static_cast<std::uint64_t>(lr.max_depth)); }));
        // Hash the part for the layers above, when one of them still has to be solved.
        const bool needed = li + 1 < order.size() && order.back() > n && [&] {
            for (std::size_t k = std::max(li + 1, first_unsolved); k < order.size(); ++k)
                if (order[k] - n <= most_captured) return true;
            return false;
        }();
        const auto th = Clock::now();
        if (needed) {
            SolvedPart& s = parts[n];
            s.present = true;
            s.mphf = Mphf::build(keys, threads, Mphf::kDefaultSeed, kFastBuild);
            process::assign_huge(s.depth, keys.size());  // looked up at random (look_up())
            scatter_by_slot(s.mphf.view(), keys, depth, s.depth.data(), threads);
        }
        lr.hash_seconds = since(th);
        for (int m = 0; m <= n - most_captured; ++m)
            parts[m] = {};
        lr.solve_seconds = since(tl) - lr.hash_seconds;
    }

    // 3. Encode and write: the ranks encode the layer by ranges, rank 0 copies them.
    void write(const LayerCount& l, format::TableWriter* writer) override {
        const double cw = process::cpu_seconds();
        if (!o.output.empty()) {
            rep.write_rounds += write_parts(
                ex, wait, writer, meta,
                format::LayerInfo{static_cast<std::uint32_t>(l.pieces), l.classes, l.raw}, keys,
                depth, wb, dir.path(), threads);
        }
        write_cpu += process::cpu_seconds() - cw;
    }

    // The parts of the layers no later jump reaches went in solve(); the layer's own go now.
    void done(const LayerCount&) override {
        keys = {};
        depth = {};
    }

    const GenerateOptions& o;
    Exchange& ex;
    PartsReport& rep;
    const Board& b;
    const int ranks, me, threads;
    const std::uint64_t budget;
    const Opening op;
    const SymmetryGroup group;
    std::optional<Orientations> orient;
    EntryPacking pk{};
    std::uint64_t flag_mask = 0, occ_mask = 0;
    const int top, most_captured;
    const std::uint64_t batch;
    const WriteBatches wb;
    ExchangeClock wait;
    std::vector<std::uint64_t> sendbuf;
    RankDir dir;
    const format::TableMeta meta;
    // Per layer: the whole layer's classes and raw positions, its enumeration's seconds, and
    // this rank's part's classes.
    std::vector<std::uint64_t> classes, raw;
    std::vector<double> enum_seconds;
    std::vector<std::uint64_t> own;
    std::uint64_t own_classes = 0;
    std::uint64_t enumerate_peak = 0;  // VmHWM at the end of the enumeration
    std::vector<int> order;            // the layers with positions, ascending
    std::size_t first_unsolved = 0;    // order's first layer no earlier run solved
    std::vector<SolvedPart> parts;     // by pieces: the solved parts the next layers reach
    double write_cpu = 0;              // CPU seconds of this process in the write of the layers
    // The solve's batches.
    std::vector<std::uint64_t> recv, recv_counts, child_key;
    std::vector<std::uint8_t> answers, back;
    std::vector<std::uint64_t> child_first, where, owner_at;
    std::vector<int> child_owner;

    // Writes the depths of keys[0 .. count), children of layer n in this rank's solved parts,
    // to out, in groups of 64 whose cache misses overlap: every perfect hash's pilot is
    // prefetched (MphfView::start()), then every slot computed and its depth prefetched, then
    // the depths read. Throws std::logic_error for a key of no solved part.
    void look_up(const std::uint64_t* k, std::int64_t count, Depth* out, int n) const {
        struct Solved {
            MphfView mphf;
            const Depth* depth = nullptr;
        };
        std::array<Solved, 64> solved{};
        for (int m = 0; m < n && m < 64; ++m)
            if (parts[m].present) solved[m] = {parts[m].mphf.view(), parts[m].depth.data()};
        const std::int64_t groups = (count + 63) / 64;
        bool unknown = false;
#pragma omp parallel for num_threads(threads) if (count > 4096) schedule(static, 16) \
    reduction(||                                                                     \
              : unknown)
        for (std::int64_t g = 0; g < groups; ++g) {
            const std::int64_t lo = g * 64, hi = std::min(count, lo + 64);
            MphfView::Query q[64];
            const Solved* of[64];
            const Depth* at[64];
            bool bad = false;
            for (std::int64_t j = lo; j < hi; ++j) {
                const int m = std::popcount(k[j] & occ_mask);
                of[j - lo] = &solved[static_cast<std::size_t>(m)];
                if (m >= n || of[j - lo]->depth == nullptr) {
                    bad = true;
                    break;
                }
                q[j - lo] = of[j - lo]->mphf.start(k[j]);
            }
            if (bad) {
                unknown = true;
                continue;
            }
            for (std::int64_t j = lo; j < hi; ++j) {
                at[j - lo] = of[j - lo]->depth + of[j - lo]->mphf.finish(q[j - lo]);
                __builtin_prefetch(at[j - lo]);
            }
            for (std::int64_t j = lo; j < hi; ++j)
                out[j] = *at[j - lo];
        }
        if (unknown) {
            throw std::logic_error("generate_parts: a child of layer " + std::to_string(n) +
                                   " is in no solved part");
        }
    }

    // Places child_key[0 .. count) into sendbuf grouped by owner (child_owner), each owner's
    // requests in child order, the other ranks' in rank order, then this rank's own (not sent):
    // where[j] is child j's place; counts[r] the requests to rank r (0 to this rank). Returns
    // the number of own children. In parallel: each thread counts its contiguous share by
    // owner, one prefix over (owner, thread), then each thread places its share.
    std::uint64_t group_by_owner(std::int64_t count, std::vector<std::uint64_t>& counts) {
        const auto nr = static_cast<std::size_t>(ranks);
        const auto self = static_cast<std::size_t>(me);
        owner_at.assign(nr * static_cast<std::size_t>(threads), 0);
        std::uint64_t own_children = 0;
#pragma omp parallel num_threads(threads) if (count > 65536)
        {
            const auto t = static_cast<std::size_t>(omp_get_thread_num());
            const auto nt = static_cast<std::size_t>(omp_get_num_threads());
            const std::int64_t j0 =
                count * static_cast<std::int64_t>(t) / static_cast<std::int64_t>(nt);
            const std::int64_t j1 =
                count * static_cast<std::int64_t>(t + 1) / static_cast<std::int64_t>(nt);
            std::uint64_t* at = owner_at.data() + t * nr;
            for (std::int64_t j = j0; j < j1; ++j)
                ++at[child_owner[j]];
#pragma omp barrier
#pragma omp single
            {
                std::uint64_t next = 0;
                for (std::size_t i = 0; i < nr; ++i) {
                    const std::size_t r = i + 1 < nr ? (i < self ? i : i + 1) : self;
                    const std::uint64_t first = next;
                    for (std::size_t u = 0; u < nt; ++u) {
                        const std::uint64_t c = owner_at[u * nr + r];
                        owner_at[u * nr + r] = next;
                        next += c;
                    }
                    counts[r] = r == self ? 0 : next - first;
                    if (r == self) own_children = next - first;
                }
            }
            for (std::int64_t j = j0; j < j1; ++j) {
                const std::uint64_t w = at[child_owner[j]]++;
                where[j] = w;
                sendbuf[w] = child_key[j];
            }
        }
        return own_children;
    }
    // The layer between solve() and done(): this rank's keys and their depths.
    std::vector<std::uint64_t> keys;
    std::vector<Depth> depth;
};

}  // namespace

PartsReport generate_parts(const GenerateOptions& o, Exchange& ex) {
    const auto t0 = Clock::now();
    PartsReport rep;
    rep.ranks = ex.size();
    require_generatable(o.board, kMaxDistributedSquares);
    if (o.work_dir.empty()) throw std::invalid_argument("generate_parts: no work directory");
    RankParts store(o, ex, rep);
    const PipelineReport run =
        run_pipeline(store, pipeline_options(o, store.threads, ex.rank() == 0));
    rep.layers = run.layers;
    rep.classes = run.classes;
    rep.raw = run.raw;
    // The solve's seconds of this generator count the hash of the parts with it.
    rep.solve_seconds = run.hash_seconds + run.solve_seconds;
    rep.write_seconds = run.write_seconds;
    rep.file_bytes = run.file_bytes;
    rep.total_seconds = since(t0);

    // Every rank's figures, to rank 0.
    const auto rss = ex.all(process::peak_rss_bytes());
    const auto sent = ex.all(ex.bytes_sent());
    const auto owned = ex.all(store.own_classes);
    const auto waited = ex.all(static_cast<std::uint64_t>(store.wait.seconds * 1e6));
    const auto spilled = ex.all(rep.enumerate_runs);
    const auto enumerate_rss = ex.all(store.enumerate_peak);
    const auto wrote = ex.all(static_cast<std::uint64_t>(rep.write_seconds * 1e6));
    const auto wrote_cpu = ex.all(static_cast<std::uint64_t>(store.write_cpu * 1e6));
    for (int r = 0; r < ex.size(); ++r) {
        rep.by_rank.push_back(RankReport{rss[r], sent[r], owned[r], waited[r] / 1e6, spilled[r],
                                         enumerate_rss[r], wrote[r] / 1e6, wrote_cpu[r] / 1e6});
    }
    // The work directory goes once every rank is done with it.
    ex.max(0);
    if (!o.keep_work) {
        std::error_code ec;
        fs::remove_all(store.dir.path(), ec);
        ex.max(0);
        if (ex.rank() == 0) fs::remove(o.work_dir, ec);  // only when empty
    }
    return rep;
}

}  // namespace konane::solver

namespace konane::solver {

namespace {
// Rates measured with this generator on the 2-core machine of docs/distributed.md: positions
// generated per second per core, each rank one thread on a core of its own ("6x6 at 1 and 2
// ranks", commit e9ec4bb, quiet: 6x6 over 2 ranks, 2.70e9 positions in 1,743 s, 7.7e5 a second
// per core; 5.4e5 at f989d33 over 4 ranks sharing the 2 cores), and bytes sent between ranks
// per position when every child goes to another rank (6x6: 82.7 bytes a position at 4 ranks,
// 55.1 at 2, so 110 times (N-1)/N; 5x6 gave 84.5, the larger board has more children per
// position).
constexpr double kPositionsPerSecond = 7.7e5;
constexpr double kBytesPerPosition = 110.0;
}  // namespace

std::optional<PartsEstimate> estimate_parts(const Board& b, int ranks) {
    PartsEstimate e;
    ranks = std::max(ranks, 1);
    if (const auto m = estimate_resources(b, Ruleset::Brainking)) {
        e.classes = m->classes;
        e.largest_layer = m->largest_layer;
        e.window = m->window;
        e.table_bytes = m->table_bytes;
        e.measured = true;
        e.source = m->source;
    } else if ((b.rows == 6 && b.cols == 7) || (b.rows == 7 && b.cols == 6)) {
        const auto six = estimate_resources(Board::make(6, 6), Ruleset::Brainking);
        const auto five = estimate_resources(Board::make(6, 5), Ruleset::Brainking);
        if (!six || !five) return std::nullopt;
        const double growth =
            static_cast<double>(six->classes) / static_cast<double>(five->classes) * 2;
        auto scale = [&](std::uint64_t v) {
            return static_cast<std::uint64_t>(static_cast<double>(v) * growth);
        };
        e.classes = scale(six->classes);
        e.largest_layer = scale(six->largest_layer);
        e.window = scale(six->window);
        e.table_bytes = scale(six->table_bytes);
        e.source = "a model, not a count: 6x6's counts times " +
                   std::to_string(static_cast<int>(growth)) +
                   " (the growth from 6x5 to 6x6 per added column, times 2 for the 4 "
                   "symmetries of a non-square board against 6x6's 8)";
    } else {
        return std::nullopt;
    }
    const std::uint64_t n = static_cast<std::uint64_t>(ranks);
    // Enumeration: the children waiting for the layers below, merged when doubled (16 bytes a
    // class of the window); solve: the window's parts (perfect hash ~0.7 bytes and a depth a
    // class), the layer's keys and depths (9 bytes a class); 64 MiB of batches and code.
    e.memory_per_rank =
        std::max<std::uint64_t>(16 * e.window, 2 * e.window + 9 * e.largest_layer) / n +
        (std::uint64_t{64} << 20);
    // Every rank merges its range of a layer from batches (WriteBatches, from the budget a rank
    // needs) and spills its range's encoded blocks beside its work files before sending them
    // to rank 0: a share of the largest layer's encoding.
    e.root_extra = WriteBatches::of(e.memory_per_rank, ranks).root_bytes(ranks);
    e.root_spill = e.classes ? static_cast<std::uint64_t>(static_cast<double>(e.table_bytes) *
                                                          static_cast<double>(e.largest_layer) /
                                                          static_cast<double>(e.classes)) /
                                   n
                             : 0;
    // The parts' keys (about 3 bytes a class compressed) and depths (1 byte).
    e.disk_per_rank = 4 * e.classes / n;
    e.bytes_exchanged =
        ranks == 1 ? 0
                   : static_cast<std::uint64_t>(kBytesPerPosition * static_cast<double>(e.classes) *
                                                static_cast<double>(ranks - 1) / ranks);
    e.seconds = static_cast<double>(e.classes) / kPositionsPerSecond / ranks;
    return e;
}

std::string estimate_text(const Board& b) {
    const auto e = estimate_parts(b, 1);
    if (!e) return "no estimate for " + b.name();
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "estimate: %.3g positions, a largest layer of %.3g (%s), %.0f GiB of memory in "
                  "one process",
                  static_cast<double>(e->classes), static_cast<double>(e->largest_layer),
                  e->measured ? "counted" : "a model",
                  (e->memory_per_rank + e->root_extra) / 1073741824.0);
    return buf;
}

}  // namespace konane::solver
