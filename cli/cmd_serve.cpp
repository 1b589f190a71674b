// `konane serve`: explore tables in a browser (the server: serve/api.hpp, serve/http.hpp).
#include <malloc.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "cli/common.hpp"
#include "cli/help.hpp"
#include "serve/api.hpp"
#include "serve/http.hpp"

namespace konane::cli {

namespace {

using serve::ApiServer;
using serve::is_loopback_host;
using serve::serve_url;
using serve::ServeOptions;

struct ServeArgs {
    std::vector<std::string> files;
    std::string host = "127.0.0.1";
    int port = 8080;
    std::string load;       ///< --load (add_load_option()); empty: auto
    int time_limit_s = 10;  ///< --time-limit: ServeOptions::work_timeout in seconds
    ServeOptions options;
};

int run_serve(ServeArgs a) {
    a.options.load = open_options(a.load, format::Load::automatic).load;
    a.options.work_timeout = std::chrono::seconds(a.time_limit_s);
    // One malloc arena per thread (glibc's default, up to 8 per core) let the memory of
    // searches on many connection threads grow to about 900 MiB, none of it leaked; two arenas
    // keep it bounded (docs/results.md, "konane serve under load").
    ::mallopt(M_ARENA_MAX, 2);
    // The tables are opened (and with --check, checked: seconds for a large table read from
    // disk) before the signals are taken over, so that Ctrl-C still ends the process then.
    std::vector<std::filesystem::path> files(a.files.begin(), a.files.end());
    ApiServer server(files, a.options);
    // Ctrl-C and kill are taken by one thread (sigwait), which stops the server; every other
    // thread, the server's included, inherits the blocked mask. A client that hangs up must not
    // kill the process.
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
    signal(SIGPIPE, SIG_IGN);

    int port = 0;
    try {
        port = server.bind(a.host, a.port);
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    } catch (const std::runtime_error& e) {
        std::fprintf(stderr, "konane serve: error: %s\n", e.what());
        return kFailed;
    }
    if (files.empty()) {
        std::printf(
            "konane serve: %s (no table: the engine and the searches on any board); "
            "Ctrl-C stops\n",
            serve_url(a.host, port).c_str());
    } else {
        std::printf("konane serve: %s (%zu table%s); Ctrl-C stops\n",
                    serve_url(a.host, port).c_str(), files.size(), files.size() == 1 ? "" : "s");
    }
    std::fflush(stdout);
    if (!is_loopback_host(a.host)) {
        std::fprintf(stderr,
                     "konane serve: warning: listening on %s: the server is reachable from other "
                     "machines, without authentication (--host 127.0.0.1 keeps it to this one)\n",
                     safe_message(a.host).c_str());
    }

    std::atomic<bool> listening_done{false}, interrupted{false};
    std::thread waiter([&] {
        int sig = 0;
        sigwait(&stop_signals, &sig);
        if (listening_done) return;  // woken by the main thread after listen() returned
        interrupted = true;
        // The signal may come before listen() has started: stop once it runs.
        while (!listening_done) {
            server.stop();
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    });
    const bool ok = server.listen();
    listening_done = true;
    if (!interrupted) pthread_kill(waiter.native_handle(), SIGTERM);
    waiter.join();
    if (interrupted) {
        std::fprintf(stderr, "konane serve: stopped\n");
        return kOk;
    }
    if (!ok) {
        std::fprintf(stderr, "konane serve: error: the server stopped on an error\n");
        return kFailed;
    }
    return kOk;
}

}  // namespace

void add_serve_command(CLI::App& app, Commands& out) {
    auto s = std::make_shared<ServeArgs>();
    auto* serve = app.add_subcommand(
        "serve",
        "Serve tables over HTTP: a page to explore them in a browser and a JSON API "
        "(/api/probe, /api/solve, /api/bestmove, /api/openings, /api/game, /api/analyse, "
        "/api/tables); without a table, the engine and the searches on any board");
    serve
        ->add_option("TABLE", s->files,
                     "Table files (one per board and ruleset; none: every board is played by "
                     "the engine and answered by the searches)")
        ->check(non_empty())
        ->check(CLI::ExistingFile);
    serve->add_option("--port", s->port, "TCP port (0: any free port)")
        ->capture_default_str()
        ->check(decimal(0, 65535));
    serve->add_option("--host", s->host, "Address to listen on (0.0.0.0: every interface)")
        ->capture_default_str()
        ->check(non_empty());
    serve
        ->add_option("--search-limit", s->options.search_limit,
                     "Most positions one search of a position no table holds may keep")
        ->capture_default_str()
        ->check(decimal(1, 100'000'000));
    serve
        ->add_option("--time-limit", s->time_limit_s,
                     "Most seconds one search (/api/solve, /api/value) may take (past it 422), "
                     "and /api/bestmove's cap; a search also stops when its client goes")
        ->capture_default_str()
        ->check(decimal(1, 86'400));
    serve
        ->add_option("--max-connections", s->options.max_connections,
                     "Most connections open at once (each has its own thread; more get 503)")
        ->capture_default_str()
        ->check(decimal(1, 4096));
    serve->add_flag(
        "--check", s->options.check,
        "Check every checksum of every table before serving: a damaged table is "
        "refused, and probes then hash no block (a little faster first probes of a large "
        "table)");
    add_load_option(serve, s->load, "auto (/api/tables reports each table's and its memory)");
    help_footer(serve,
                {"konane serve konane-5x5-brainking.kbt           http://127.0.0.1:8080/",
                 "konane serve *.kbt --port 9000 --check",
                 "konane serve                                     the engine, any board"},
                false);
    out.push_back({serve, [s] { return run_serve(*s); }});
}

}  // namespace konane::cli
