// konane_load: a bounded load test of `konane serve` on the loopback (scripts/loadtest).
// N clients (one keep-alive connection each) send GET /api/probe for positions of random games
// (and /api/openings now and then) for T seconds; every answer is compared with the probe
// library's own (cli/json.hpp on the same table). Prints one JSON object: requests, requests
// per second, latency percentiles (ms), errors (no answer or not 200) and wrong answers.
// Exit 0 when there was no error and no wrong answer, 1 otherwise, 2 on bad usage.
// Hostile company for the clients measured (issue 25): --slow N connections that each send a
// request head one byte a second and never finish it (reconnecting when the server closes them),
// from another loopback address (127.0.0.2) as another machine would; --flood M connections
// that each send request heads of a million header lines over and over; --searchers K clients
// looping on /api/solve (answers 200, 422 and 503 with Retry-After are all counted, not errors).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

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

namespace {

/// A TCP connection to host:port from the loopback address `source` (or any), or -1.
int connect_from(const std::string& host, int port, const char* source) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    if (source) {
        sockaddr_in s{};
        s.sin_family = AF_INET;
        ::inet_pton(AF_INET, source, &s.sin_addr);
        if (::bind(fd, reinterpret_cast<sockaddr*>(&s), sizeof s) != 0) {
            ::close(fd);
            return -1;
        }
    }
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    if (::inet_pton(AF_INET, host.c_str(), &a.sin_addr) != 1 ||
        ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

/// Whether fd has been closed by the server (reads and drops what it sent).
bool closed_by_server(int fd) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 0) <= 0) return false;
    char buf[4096];
    return ::recv(fd, buf, sizeof buf, MSG_DONTWAIT) <= 0;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Load test of konane serve: N clients for T seconds, answers checked"};
    std::string table, host = "127.0.0.1";
    int port = 0, clients = 8, games = 200, slow = 0, flood = 0, searchers = 0;
    std::string search_position = "xoxox/oxoxo/xo.ox/oxoxo/xoxox w";
    double seconds = 10;
    app.add_option("--table", table, "The table the server serves (answers are checked on it)")
        ->required();
    app.add_option("--host", host, "Server address")->capture_default_str();
    app.add_option("--port", port, "Server port")->required();
    app.add_option("--clients", clients, "Concurrent clients")->check(CLI::Range(1, 256));
    app.add_option("--seconds", seconds, "Duration")->check(CLI::Range(0.1, 3600.0));
    app.add_option("--games", games, "Random games the positions are drawn from")
        ->check(CLI::Range(1, 100000));
    app.add_option("--slow", slow, "Slow connections open meanwhile (one byte a second)")
        ->check(CLI::Range(0, 2000));
    app.add_option("--flood", flood, "Connections sending million-line request heads meanwhile")
        ->check(CLI::Range(0, 64));
    app.add_option("--searchers", searchers, "Clients looping on /api/solve meanwhile")
        ->check(CLI::Range(0, 256));
    app.add_option("--search-position", search_position, "The position they search")
        ->capture_default_str();
    CLI11_PARSE(app, argc, argv);

    // The requests and their expected answers, from the library.
    const Tablebase tb = Tablebase::open(table);
    const Board& b = tb.board();
    std::vector<std::pair<std::string, std::string>> work;
    std::mt19937_64 rng(12345);
    for (int g = 0; g < games; ++g) {
        Position p = b.start();
        for (;;) {
            const auto a = konane::table_answer(tb, p);
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
    std::atomic<bool> done{false};
    std::vector<std::thread> company;
    // The slow connections: all opened first (from another loopback address), then one byte
    // each a second; one the server closed is opened again.
    std::atomic<long> slow_open{0}, slow_reopened{0}, flood_refused{0};
    std::atomic<long> search_ok{0}, search_limit{0}, search_busy{0}, search_other{0};
    if (slow > 0) {
        company.emplace_back([&] {
            std::vector<int> fds;
            auto open_one = [&] {
                const int fd = connect_from(host, port, "127.0.0.2");
                if (fd >= 0) ::send(fd, "GET /api/tables HTTP/1.1\r\n", 26, MSG_NOSIGNAL);
                return fd;
            };
            for (int i = 0; i < slow; ++i)
                fds.push_back(open_one());
            while (!done) {
                long open = 0;
                for (int& fd : fds) {
                    if (fd >= 0 && (closed_by_server(fd) ||
                                    ::send(fd, "X", 1, MSG_NOSIGNAL | MSG_DONTWAIT) != 1)) {
                        ::close(fd);
                        fd = -1;
                    }
                    if (fd < 0) {
                        fd = open_one();
                        ++slow_reopened;
                    }
                    open += fd >= 0;
                }
                slow_open = open;
                for (int i = 0; i < 10 && !done; ++i)
                    std::this_thread::sleep_for(std::chrono::milliseconds(100));
            }
            for (int fd : fds)
                if (fd >= 0) ::close(fd);
        });
        std::this_thread::sleep_for(std::chrono::seconds(1));  // all open before the clients
    }
    for (int f = 0; f < flood; ++f) {
        company.emplace_back([&] {
            std::string lines = "GET /api/tables HTTP/1.1\r\n";
            for (int i = 0; i < 10000; ++i)
                lines += "X-Flood: 1\r\n";
            while (!done) {
                const int fd = connect_from(host, port, "127.0.0.3");
                if (fd < 0) continue;
                for (int i = 0; i < 100 && !done; ++i)  // a million lines
                    if (::send(fd, lines.data(), lines.size(), MSG_NOSIGNAL) < 0) break;
                char buf[4096];
                const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
                if (n > 12 && std::string(buf, 12) == "HTTP/1.1 431") ++flood_refused;
                ::close(fd);
            }
        });
    }
    for (int k = 0; k < searchers; ++k) {
        company.emplace_back([&] {
            httplib::Client c(host, port);
            c.set_read_timeout(120, 0);
            const std::string path =
                "/api/solve?position=" + httplib::detail::encode_query_param(search_position);
            while (!done) {
                auto res = c.Get(path);
                if (res && res->status == 200) {
                    ++search_ok;
                } else if (res && res->status == 422) {
                    ++search_limit;
                } else if (res && res->status == 503 && res->has_header("Retry-After")) {
                    ++search_busy;
                    std::this_thread::sleep_for(std::chrono::milliseconds(200));
                } else {
                    ++search_other;
                }
            }
        });
    }
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
    const long slow_open_at_end = slow_open;
    done = true;
    for (auto& th : company)
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
    if (slow > 0) {
        j["slow"] = {
            {"asked", slow}, {"open_at_end", slow_open_at_end}, {"reopened", slow_reopened.load()}};
    }
    if (flood > 0) j["flood"] = {{"connections", flood}, {"refused_431", flood_refused.load()}};
    if (searchers > 0) {
        j["searches"] = {{"searchers", searchers},
                         {"answered", search_ok.load()},
                         {"over_limit_422", search_limit.load()},
                         {"busy_503", search_busy.load()},
                         {"other", search_other.load()}};
    }
    std::printf("%s\n", j.dump().c_str());
    return errors == 0 && wrong == 0 && search_other == 0 ? 0 : 1;
}
