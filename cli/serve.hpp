// `konane serve`: an HTTP server over the probe library (cpp-httplib) with a JSON API and a page
// to explore the tables in a browser. The API answers with the objects of cli/json.hpp, the same
// as `konane probe --json`, `konane solve --json` and `konane openings --json`.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace konane::cli {

/// Options of an ApiServer.
struct ServeOptions {
    /// Most positions one search (/api/solve) may keep in its memo; past it the request is
    /// answered 422 with the limit named.
    std::size_t search_limit = 2'000'000;
    /// Searches running at once; more wait up to 10 s for a slot, then get 503.
    int search_slots = 2;
    /// Largest request body accepted (bytes); larger ones get 413.
    std::size_t max_body = 64 * 1024;
    /// Worker threads answering requests (0: cpp-httplib's default, at least 8).
    int threads = 0;
    /// Check every checksum of every table when it is loaded (format::Table::verify_checksums):
    /// a damaged table is refused before serving, and the probes then hash no block (a large
    /// table's first probes are a little faster). Off: blocks are checked when first read.
    bool check = false;
};

/// An HTTP server answering the JSON API and the page for a set of tables.
///
/// Endpoints (GET; every answer JSON except the page's files):
/// - `/api/tables`: the loaded tables and the search limit.
/// - `/api/probe?position=TEXT[&rules=R]` or `?game=RECORD&board=RxC[&rules=R]`: the table's
///   answer (answer_json(), as `konane probe --json`); the table is the one of the position's
///   board (and ruleset R when given; otherwise the first given for that board).
/// - `/api/solve?position=TEXT[&rules=R][&jumps_only=1]`: the answer of a search limited to
///   ServeOptions::search_limit positions, using the table of the board when one is loaded
///   (solve_json(), as `konane solve --json`).
/// - `/api/openings?board=RxC[&rules=R]`: openings_json(), as `konane openings --json`.
/// - `/api/game?board=RxC&game=RECORD[&rules=R][&start=POSITION]`: the positions of a game
///   record from the full board (or from START), by the rules alone (any board, no table
///   needed; the ruleset R, else the first table's of the board, else brainking):
///   {"board", "rules", "start", "plies": [{"move", "position" (after it)}], "legal": [{"move",
///   "child"}] (the legal moves at the end)}.
/// - `/api/analyse?board=RxC&game=RECORD[&rules=R][&start=POSITION]`: analysis_json() of the
///   game with the table's values, as `konane analyse --json`.
/// - `/`, `/app.js`, `/style.css`: the page, compiled into the binary.
///
/// Errors are JSON objects {"error": MESSAGE, "status": CODE}: 400 malformed position, record,
/// board or ruleset; 404 a board or ruleset no table holds, a position the table does not
/// hold, an unknown path; 405 another method; 413 a body over max_body; 414 a URI over 8 KiB;
/// 422 a search over its limit; 500 a damaged table; 503 no search slot free.
/// The probe library is thread-safe and each search has its own Searcher, so requests are
/// answered concurrently.
class ApiServer {
  public:
    /// Opens every table (format::FormatError for a missing, damaged or foreign file;
    /// std::invalid_argument for an empty list or the same board and ruleset twice).
    ApiServer(const std::vector<std::filesystem::path>& tables, const ServeOptions& options = {});
    ~ApiServer();
    ApiServer(const ApiServer&) = delete;
    ApiServer& operator=(const ApiServer&) = delete;

    /// Binds host:port (port 0: any free port) and returns the port bound.
    /// @throws std::runtime_error naming host and port when the address cannot be bound.
    int bind(const std::string& host, int port);
    /// Answers requests until stop(); returns false if the server failed. Call after bind().
    bool listen();
    /// Stops listen() (from any thread; not from a signal handler).
    void stop();
    /// Blocks until listen() has started accepting connections.
    void wait_until_ready() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace konane::cli
