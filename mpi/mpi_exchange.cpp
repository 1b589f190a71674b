#include "mpi/mpi_exchange.hpp"

#include <mpi.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace konane::mpi {

bool launched_by_mpi() {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"}) {
        if (std::getenv(v) != nullptr) return true;
    }
    return false;
}

MpiExchange::MpiExchange() {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

int MpiExchange::ranks_on_node() {
    // The launcher's count where it gives one (Open MPI's mpirun, MPICH's Hydra): no message at
    // all, so that a rank whose MPI could not set up its shared memory still reaches its own
    // error (the reservation of its buffers) instead of hanging the job in a collective.
    for (const char* v : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"}) {
        if (const char* s = std::getenv(v)) {
            const int n = std::atoi(s);
            if (n >= 1 && n <= size_) return n;
        }
    }
    // Otherwise every rank's processor name, compared with this one's (MPI_Allgather).
    char name[MPI_MAX_PROCESSOR_NAME] = {};
    int len = 0;
    MPI_Get_processor_name(name, &len);
    std::vector<char> all(static_cast<std::size_t>(size_) * MPI_MAX_PROCESSOR_NAME);
    MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME,
                  MPI_CHAR, MPI_COMM_WORLD);
    int same = 0;
    for (int r = 0; r < size_; ++r) {
        if (std::strncmp(all.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME, name,
                         MPI_MAX_PROCESSOR_NAME) == 0)
            ++same;
    }
    return same;
}

MpiExchange::~MpiExchange() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
}

namespace {
std::uint64_t reduce(std::uint64_t v, MPI_Op op) {
    std::uint64_t out = 0;
    MPI_Allreduce(&v, &out, 1, MPI_UINT64_T, op, MPI_COMM_WORLD);
    return out;
}
int as_int(std::uint64_t n) {
    if (n > static_cast<std::uint64_t>(INT_MAX))
        throw std::length_error("MPI exchange: a share of 2 GiB or more in one call");
    return static_cast<int>(n);
}
/// Pieces of a gather: at most 1 GiB each.
constexpr std::uint64_t kPiece = std::uint64_t{1} << 30;
}  // namespace

std::uint64_t MpiExchange::sum(std::uint64_t v) {
    return reduce(v, MPI_SUM);
}
std::uint64_t MpiExchange::max(std::uint64_t v) {
    return reduce(v, MPI_MAX);
}
std::uint64_t MpiExchange::min(std::uint64_t v) {
    return reduce(v, MPI_MIN);
}
std::vector<std::uint64_t> MpiExchange::all(std::uint64_t v) {
    std::vector<std::uint64_t> out(static_cast<std::size_t>(size_));
    MPI_Allgather(&v, 1, MPI_UINT64_T, out.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
    return out;
}

void MpiExchange::alltoall_bytes(const std::uint8_t* send,
                                 const std::vector<std::uint64_t>& send_counts, std::size_t size,
                                 const Receive& receive, std::vector<std::uint64_t>& recv_counts) {
    const auto n = static_cast<std::size_t>(size_);
    std::vector<std::uint64_t> counts(n);
    for (std::size_t r = 0; r < n; ++r)
        counts[r] = send_counts.at(r) * size;
    std::vector<std::uint64_t> got(n);
    MPI_Alltoall(counts.data(), 1, MPI_UINT64_T, got.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
    std::vector<int> sc(n), sd(n), rc(n), rd(n);
    std::uint64_t so = 0, ro = 0;
    for (std::size_t r = 0; r < n; ++r) {
        sc[r] = as_int(counts[r]);
        sd[r] = as_int(so);
        rc[r] = as_int(got[r]);
        rd[r] = as_int(ro);
        so += counts[r];
        ro += got[r];
        if (r != static_cast<std::size_t>(rank_)) bytes_sent_ += counts[r];
    }
    as_int(so);
    as_int(ro);
    std::uint8_t* out = receive(ro);
    MPI_Alltoallv(send, sc.data(), sd.data(), MPI_BYTE, out, rc.data(), rd.data(), MPI_BYTE,
                  MPI_COMM_WORLD);
    recv_counts.resize(n);
    for (std::size_t r = 0; r < n; ++r)
        recv_counts[r] = got[r] / size;
}

std::vector<std::vector<std::uint8_t>> MpiExchange::gather_bytes(
    std::span<const std::uint8_t> mine) {
    const std::uint64_t len = mine.size();
    std::vector<std::uint64_t> lens(static_cast<std::size_t>(size_));
    MPI_Gather(&len, 1, MPI_UINT64_T, lens.data(), 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    std::vector<std::vector<std::uint8_t>> out;
    if (rank_ == 0) {
        out.resize(static_cast<std::size_t>(size_));
        out[0].assign(mine.begin(), mine.end());
        for (int r = 1; r < size_; ++r) {
            auto& v = out[static_cast<std::size_t>(r)];
            v.resize(lens[static_cast<std::size_t>(r)]);
            for (std::uint64_t at = 0; at < v.size(); at += kPiece) {
                const int n = static_cast<int>(std::min<std::uint64_t>(kPiece, v.size() - at));
                MPI_Recv(v.data() + at, n, MPI_BYTE, r, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
        }
    } else {
        for (std::uint64_t at = 0; at < len; at += kPiece) {
            const int n = static_cast<int>(std::min<std::uint64_t>(kPiece, len - at));
            MPI_Send(mine.data() + at, n, MPI_BYTE, 0, 7, MPI_COMM_WORLD);
        }
        bytes_sent_ += len;
    }
    return out;
}

void MpiExchange::abort(const std::string& message, int code, const char* command) {
    std::fprintf(stderr, "%s: rank %d of %d: %s\n", command, rank_, size_, message.c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);
}

}  // namespace konane::mpi
