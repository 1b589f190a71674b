// konane_load: a bounded load test of `konane serve` on the loopback (scripts/loadtest).
// N clients (one keep-alive connection each) send GET /api/probe for positions of random games
// (and /api/openings now and then) for T seconds; every answer is compared with the probe
// library's own (cli/json.hpp on the same table). Prints one JSON object: requests, requests
// per second, latency percentiles (ms), errors (no answer or not 200) and wrong answers.
// Exit 0 when there was no error and no wrong answer, 1 otherwise, 2 on bad usage.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>
#include <CLI/CLI.hpp>

#include "cli/json.hpp"
#include "core/notation.hpp"
#include "probe/openings.hpp"
#include "probe/probe.hpp"

using namespace konane;
using konane::cli::json;

int main(int argc, char** argv) {
    CLI::App app{"Load test of konane serve: N clients for T seconds, answers checked"};
    std::string table, host = "127.0.0.1";
    int port = 0, clients = 8, games = 200;
    double seconds = 10;
    app.add_option("--table", table, "The table the server serves (answers are checked on it)")
        ->required();
    app.add_option("--host", host, "Server address")->capture_default_str();
    app.add_option("--port", port, "Server port")->required();
    app.add_option("--clients", clients, "Concurrent clients")->check(CLI::Range(1, 256));
    app.add_option("--seconds", seconds, "Duration")->check(CLI::Range(0.1, 3600.0));
    app.add_option("--games", games, "Random games the positions are drawn from")
        ->check(CLI::Range(1, 100000));
    CLI11_PARSE(app, argc, argv);

    // The requests and their expected answers, from the library.
    const Tablebase tb = Tablebase::open(table);
    const Board& b = tb.board();
    std::vector<std::pair<std::string, std::string>> work;
    std::mt19937_64 rng(12345);
    for (int g = 0; g < games; ++g) {
        Position p = b.start();
        for (;;) {
            const auto a = cli::table_answer(tb, p);
            if (!a) break;
            work.emplace_back(
                "/api/probe?position=" + httplib::detail::encode_query_param(format_position(b, p)),
                cli::answer_json(b, *a).dump());
            if (a->moves.empty()) break;
            p = a->moves[rng() % a->moves.size()].child;
        }
    }
    work.emplace_back("/api/openings?board=" + b.name(),
                      cli::openings_json(b, tb.rules(), compute_openings(tb)).dump());

    std::atomic<long> errors{0}, wrong{0};
    std::vector<std::vector<double>> latencies(clients);
    const auto start = std::chrono::steady_clock::now();
    const auto end = start + std::chrono::duration<double>(seconds);
    std::vector<std::thread> threads;
    for (int t = 0; t < clients; ++t) {
        threads.emplace_back([&, t] {
            httplib::Client c(host, port);
            c.set_keep_alive(true);
            c.set_tcp_nodelay(true);
            c.set_read_timeout(30, 0);
            std::mt19937_64 r(1000 + t);
            auto& lat = latencies[t];
            while (std::chrono::steady_clock::now() < end) {
                const auto& [path, want] = work[r() % work.size()];
                const auto t0 = std::chrono::steady_clock::now();
                auto res = c.Get(path);
                const auto t1 = std::chrono::steady_clock::now();
                lat.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
                if (!res || res->status != 200) {
                    ++errors;
                } else if (res->body != want) {
                    ++wrong;
                }
            }
        });
    }
    for (auto& th : threads)
        th.join();
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::vector<double> all;
    for (const auto& l : latencies)
        all.insert(all.end(), l.begin(), l.end());
    std::sort(all.begin(), all.end());
    auto pct = [&](double q) {
        if (all.empty()) return 0.0;
        return all[std::min(all.size() - 1, static_cast<std::size_t>(q * all.size()))];
    };
    json j;
    j["board"] = b.name();
    j["clients"] = clients;
    j["seconds"] = elapsed;
    j["distinct_requests"] = work.size();
    j["requests"] = all.size();
    j["requests_per_second"] = all.size() / elapsed;
    j["latency_ms"] = {{"p50", pct(0.50)},
                       {"p90", pct(0.90)},
                       {"p99", pct(0.99)},
                       {"max", all.empty() ? 0.0 : all.back()}};
    j["errors"] = errors.load();
    j["wrong"] = wrong.load();
    std::printf("%s\n", j.dump().c_str());
    return errors == 0 && wrong == 0 ? 0 : 1;
}
