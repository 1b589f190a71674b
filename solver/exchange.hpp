// Where the parts of a layer live and how the ranks of a generation exchange them: the small
// interface the staged generator (solver/distributed.hpp) runs over. A rank owns the layer
// parts (part_of()) of every layer; one rank (LocalExchange) is the whole table in one
// process; mpi/mpi_exchange.hpp implements it over MPI for N ranks.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace konane::solver {

/// The layer part (and so the rank) a canonical key belongs to among `parts` parts: a 64-bit
/// mix of the key (the finaliser of SplitMix64, Steele, Lea and Flood 2014) scaled to
/// 0 .. parts-1 by a multiply-high, so that parts get equal shares of every layer.
inline int part_of(std::uint64_t key, int parts) {
    std::uint64_t z = key + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return static_cast<int>((static_cast<unsigned __int128>(z) * static_cast<unsigned>(parts)) >>
                            64);
}

/// The collective operations the ranks of a generation use. Every call is collective: each
/// rank calls it, in the same order. Errors of the transport end the job (the MPI
/// implementation aborts it); none are thrown.
class Exchange {
  public:
    virtual ~Exchange() = default;
    /// This rank, 0 .. size()-1; rank 0 writes the table.
    virtual int rank() const = 0;
    /// The number of ranks (>= 1).
    virtual int size() const = 0;

    /// All-to-all of fixed-size elements: `send` holds send_counts[0] elements for rank 0, then
    /// send_counts[1] for rank 1, ...; on return `recv` holds what each rank sent this one, from
    /// rank 0 first, recv_counts[r] elements from rank r. Counts are in elements; each rank's
    /// share must stay under 2^31 bytes (callers send bounded batches).
    template <class T>
    void alltoall(std::span<const T> send, const std::vector<std::uint64_t>& send_counts,
                  std::vector<T>& recv, std::vector<std::uint64_t>& recv_counts) {
        // Straight into `recv`, which keeps its capacity from round to round (no fresh buffer
        // and copy per round).
        alltoall_bytes(
            reinterpret_cast<const std::uint8_t*>(send.data()), send_counts, sizeof(T),
            [&recv](std::size_t bytes) {
                recv.resize(bytes / sizeof(T));
                return reinterpret_cast<std::uint8_t*>(recv.data());
            },
            recv_counts);
    }

    /// Rank 0 gets every rank's `mine` (its own included), in rank order; the others get an
    /// empty vector. Any size (sent in bounded pieces).
    template <class T>
    std::vector<std::vector<T>> gather(std::span<const T> mine) {
        std::vector<std::vector<std::uint8_t>> bytes = gather_bytes(
            {reinterpret_cast<const std::uint8_t*>(mine.data()), mine.size() * sizeof(T)});
        std::vector<std::vector<T>> out(bytes.size());
        for (std::size_t r = 0; r < bytes.size(); ++r) {
            out[r].resize(bytes[r].size() / sizeof(T));
            if (!bytes[r].empty()) std::memcpy(out[r].data(), bytes[r].data(), bytes[r].size());
        }
        return out;
    }

    /// The sum, the greatest and the least of one number over all ranks.
    virtual std::uint64_t sum(std::uint64_t v) = 0;
    virtual std::uint64_t max(std::uint64_t v) = 0;
    virtual std::uint64_t min(std::uint64_t v) = 0;
    /// Every rank's value of v, in rank order, on every rank.
    virtual std::vector<std::uint64_t> all(std::uint64_t v) = 0;

    /// Bytes this rank has sent to other ranks so far (its own share of an exchange excluded).
    std::uint64_t bytes_sent() const { return bytes_sent_; }

  protected:
    /// Sizes the receiving buffer to `bytes` and returns where they go.
    using Receive = std::function<std::uint8_t*(std::size_t bytes)>;
    /// The byte form of alltoall(): `counts` in elements of `size` bytes; the received bytes
    /// go where `receive(total)` says, called once.
    virtual void alltoall_bytes(const std::uint8_t* send,
                                const std::vector<std::uint64_t>& send_counts, std::size_t size,
                                const Receive& receive,
                                std::vector<std::uint64_t>& recv_counts) = 0;
    /// The byte form of gather().
    virtual std::vector<std::vector<std::uint8_t>> gather_bytes(
        std::span<const std::uint8_t> mine) = 0;
    std::uint64_t bytes_sent_ = 0;
};

/// The one-rank exchange: every part lives in this process, nothing is sent.
class LocalExchange final : public Exchange {
  public:
    int rank() const override { return 0; }
    int size() const override { return 1; }
    std::uint64_t sum(std::uint64_t v) override { return v; }
    std::uint64_t max(std::uint64_t v) override { return v; }
    std::uint64_t min(std::uint64_t v) override { return v; }
    std::vector<std::uint64_t> all(std::uint64_t v) override { return {v}; }

  protected:
    void alltoall_bytes(const std::uint8_t* send, const std::vector<std::uint64_t>& send_counts,
                        std::size_t size, const Receive& receive,
                        std::vector<std::uint64_t>& recv_counts) override {
        const std::size_t n = send_counts.at(0) * size;
        std::uint8_t* out = receive(n);
        if (n) std::memcpy(out, send, n);
        recv_counts = send_counts;
    }
    std::vector<std::vector<std::uint8_t>> gather_bytes(
        std::span<const std::uint8_t> mine) override {
        return {std::vector<std::uint8_t>(mine.begin(), mine.end())};
    }
};

}  // namespace konane::solver
