// `konane generate` over layer parts (solver/distributed.hpp): the MPI generator, and its
// one-rank case in one process (--staged).
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/common.hpp"
#include "cli/gap_arg.hpp"
#include "cli/generate_parts.hpp"
#include "cli/json.hpp"
#include "cli/sizes.hpp"
#include "core/text.hpp"
#include "process/cleanup.hpp"
#include "solver/distributed.hpp"
#ifdef KONANE_HAVE_MPI
#include "mpi/mpi_exchange.hpp"
#endif

namespace konane::cli {

bool under_mpi() {
#ifdef KONANE_HAVE_MPI
    return mpi::launched_by_mpi();
#else
    return false;
#endif
}

int launcher_rank() {
    for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}) {
        if (const char* s = std::getenv(v)) return std::atoi(s);
    }
    return 0;
}

namespace {

void print_report(const solver::GenerateOptions& o, const solver::PartsReport& rep, bool json) {
    const Opening opening = solver::opening_of(o);
    if (json) {
        nlohmann::ordered_json j;
        j["board"] = o.board.name();
        put_opening(j, o.board, opening);
        j["file"] = printable(o.output.string());
        j["ranks"] = rep.ranks;
        if (o.memory_bytes) j["memory_budget_bytes"] = o.memory_bytes;
        j["positions"] = {{"classes", rep.classes}, {"raw", rep.raw}};
        j["seconds"] = {{"enumerate", rep.enumerate_seconds},
                        {"solve", rep.solve_seconds},
                        {"write", rep.write_seconds},
                        {"total", rep.total_seconds}};
        j["resumed"] = {{"enumeration", rep.resumed}, {"layers", rep.layers_resumed}};
        j["file_bytes"] = rep.file_bytes;
        j["write_rounds"] = rep.write_rounds;
        j["by_rank"] = nlohmann::ordered_json::array();
        for (const auto& r : rep.by_rank) {
            j["by_rank"].push_back({{"peak_memory_bytes", r.peak_rss_bytes},
                                    {"bytes_sent", r.bytes_sent},
                                    {"classes", r.classes},
                                    {"exchange_seconds", r.exchange_seconds},
                                    {"enumerate_runs", r.enumerate_runs},
                                    {"enumerate_peak_memory_bytes", r.enumerate_peak_rss_bytes},
                                    {"write_seconds", r.write_seconds},
                                    {"write_cpu_seconds", r.write_cpu_seconds}});
        }
        j["layers"] = nlohmann::ordered_json::array();
        for (const auto& l : rep.layers) {
            j["layers"].push_back({{"pieces", l.pieces},
                                   {"classes", l.classes},
                                   {"raw", l.raw},
                                   {"max_depth", l.max_depth}});
        }
        std::printf("%s\n", dump(j).c_str());
        return;
    }
    std::printf("%s %s: %zu layers, %llu classes, %llu raw positions, %d rank%s\n",
                o.board.name().c_str(), opening_label(o.board, opening).c_str(), rep.layers.size(),
                static_cast<unsigned long long>(rep.classes),
                static_cast<unsigned long long>(rep.raw), rep.ranks, rep.ranks == 1 ? "" : "s");
    std::printf("time: enumerate %.2f s, solve %.2f s, write %.2f s, total %.2f s\n",
                rep.enumerate_seconds, rep.solve_seconds, rep.write_seconds, rep.total_seconds);
    std::uint64_t sent = 0;
    for (std::size_t r = 0; r < rep.by_rank.size(); ++r) {
        const auto& x = rep.by_rank[r];
        sent += x.bytes_sent;
        std::printf(
            "rank %zu: %llu positions, peak memory %s (%s in the enumeration), sent %s, %.2f s in "
            "exchanges, %llu sorted runs spilled, %.2f s writing\n",
            r, static_cast<unsigned long long>(x.classes), mib(x.peak_rss_bytes).c_str(),
            mib(x.enumerate_peak_rss_bytes).c_str(), mib(x.bytes_sent).c_str(), x.exchange_seconds,
            static_cast<unsigned long long>(x.enumerate_runs), x.write_seconds);
    }
    std::printf("sent: %.2f bytes per position; file: %s, %llu bytes%s\n",
                rep.classes ? static_cast<double>(sent) / static_cast<double>(rep.classes) : 0.0,
                printable(o.output.string()).c_str(),
                static_cast<unsigned long long>(rep.file_bytes),
                rep.resumed ? " (resumed run)" : "");
}

}  // namespace

int run_generate_parts(const solver::GenerateOptions& o, bool json, bool quiet) {
#ifdef KONANE_HAVE_MPI
    if (under_mpi()) {
        mpi::MpiExchange ex;
        solver::GenerateOptions opts = o;
        // The default budget is the node's, shared by the ranks on it: 4 ranks on one machine
        // must not each take 60% of its memory. (ranks_on_node() may be collective: every rank
        // sees the same options, so every rank calls it or none.)
        std::string shared;
        if (opts.memory_bytes == 0) {
            const int here = ex.ranks_on_node();
            opts.memory_bytes = solver::default_memory_budget(static_cast<unsigned>(here));
            shared = fmt::format(" (the default, shared by the {} ranks on this node)", here);
        }
        if (!quiet && ex.rank() == 0) {
            std::fprintf(stderr, "%s: %d ranks, memory budget %s per rank%s, work directory %s\n",
                         o.board.name().c_str(), ex.size(), mib(opts.memory_bytes).c_str(),
                         shared.c_str(), printable(o.work_dir.string()).c_str());
            opts.progress = [](const char* phase, int pieces, std::uint64_t done, std::uint64_t) {
                std::fprintf(stderr, "%s layer %d: %llu positions\n", phase, pieces,
                             static_cast<unsigned long long>(done));
            };
        }
        try {
            const auto rep = solver::generate_parts(opts, ex);
            if (ex.rank() == 0) print_report(opts, rep, json);
        } catch (...) {
            const Failure f = failure_of(std::current_exception());
            ex.abort(f.message, f.code);
        }
        return kOk;
    }
#endif
    solver::LocalExchange ex;
    const auto rep = solver::generate_parts(o, ex);
    (void)quiet;
    print_report(o, rep, json);
    return kOk;
}

}  // namespace konane::cli
