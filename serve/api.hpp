// `konane serve`'s API: the JSON endpoints over the probe library, the engine and the searches,
// and the page to explore the tables in a browser, served by the HTTP front (serve/http.hpp).
// The API answers with the objects of cli/json.hpp, the same as `konane probe --json`,
// `konane solve --json` and `konane openings --json`.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "format/table.hpp"
#include "serve/http.hpp"

namespace konane::serve {

/// Options of an ApiServer. Every part of a request and every connection is bounded, so that
/// slow, idle or hostile clients cost the others little (docs/reliability.md, "The server");
/// those bounds are the HTTP front's (serve/http.hpp, HttpOptions), which these extend with the
/// API's own.
struct ServeOptions : HttpOptions {
    /// Most positions one search (/api/solve) may keep in its memo; past it the request is
    /// answered 422 with the limit named.
    std::size_t search_limit = 2'000'000;
    /// Searches (/api/solve, /api/value, /api/bestmove) running at once; a search asked for while
    /// all run is answered 503 with Retry-After at once (it waits for nothing, so it holds no
    /// connection).
    int search_slots = 2;
    /// Time one search (/api/solve, /api/value) may take: past it the request is answered 422
    /// naming the budget. /api/bestmove's time is capped by it (the engine then answers the best
    /// move it has). A search also stops when its client closes the connection and when
    /// the server stops (503), so that no slot is held for nobody.
    std::chrono::milliseconds work_timeout{10'000};
    /// Memory of the searches' tables of one /api/bestmove (an engine is made per request;
    /// search_slots of them may run at once).
    std::size_t engine_memory = std::size_t{32} << 20;
    /// Check every checksum of every table when it is loaded (format::Table::verify_checksums):
    /// a damaged table is refused before serving, and the probes then hash no block (a large
    /// table's first probes are a little faster). Off: blocks are checked when first read.
    bool check = false;
    /// Where each table is read from (format::Load): by default automatic, which reads a table
    /// into memory on huge pages when the kernel gives them and memory allows, for fast probes
    /// of a large table whatever the kernel does for file mappings.
    format::Load load = format::Load::automatic;
};

/// An HTTP server answering the JSON API and the page for a set of tables (possibly none).
///
/// Endpoints (GET; every answer JSON except the page's files):
/// - `/api/tables`: the loaded tables, the search limit and the time limit of a search
///   ("time_limit_ms").
/// - `/api/probe?position=TEXT[&rules=R]` or `?game=RECORD&board=RxC[&rules=R]`: the table's
///   answer (answer_json(), as `konane probe --json`); the table is the one of the position's
///   board (and ruleset R when given; otherwise the first given for that board).
/// - `/api/solve?position=TEXT[&rules=R][&jumps_only=1][&limit=N]`: the answer of a search
///   limited to ServeOptions::search_limit positions, or N when smaller, using the table of the
///   board when one is loaded (solve_json(), as `konane solve --json`).
/// - `/api/openings?board=RxC[&rules=R]`: openings_json(), as `konane openings --json`.
/// - `/api/game?board=RxC&game=RECORD[&rules=R][&start=POSITION]`: the positions of a game
///   record from the full board (or from START), by the rules alone (any board, no table
///   needed; the ruleset R, else the first table's of the board, else brainking):
///   {"board", "rules", "start", "plies": [{"move", "position" (after it)}], "legal": [{"move",
///   "child"}] (the legal moves at the end)}.
/// - `/api/analyse?board=RxC&game=RECORD[&rules=R][&start=POSITION]`: analysis_json() of the
///   game with the table's values, as `konane analyse --json`.
/// - `/api/value?position=TEXT[&limit=N]`: value_json() (cli/value_json.hpp), as `konane value
///   --json`, within search_limit positions, or N when smaller (the page asks with a small N).
///   Both searches (/api/solve, /api/value) take a search slot and are bounded by work_timeout,
///   their client's connection and the server's stop alike.
/// - `/api/bestmove?position=TEXT[&rules=R][&time=S][&nodes=N][&depth=D]`: the engine's
///   decision (engine/engine.hpp; decision_json(), as `konane bestmove --json`) and "budget"
///   ({"seconds", "nodes", "depth"}: the limits it ran under), on any board of up to 64
///   squares, perfect with the table of the board when one is loaded. Time S seconds (1 s when
///   none of S, N, D is given), never more than work_timeout; it takes a search slot and stops
///   when its client goes or the server stops, as the searches do.
/// - `/`, `/app.js`, `/style.css`: the page, compiled into the binary.
///
/// Errors are JSON objects {"error": MESSAGE, "status": CODE}: 400 malformed position, record,
/// board, ruleset or request; 404 a board or ruleset no table holds, a position the table does
/// not hold, an unknown path; 405 another method (with Allow: GET, HEAD); 408 a request not
/// sent in time; 411 a chunked body; 413 a body over max_body; 414 a request line over
/// max_request_line; 422 a search over its limit or its time budget; 431 headers over their bounds;
/// 500 a damaged table (the message says so; the table is opened again, so a file made good again
/// is served again); 503 no connection or search slot free, the server stopping (with Retry-After).
/// Requests are answered on one thread per connection: a slow, idle or searching connection
/// never delays another. Pipelined requests are answered in order. A Range header is honoured
/// only for one range of a page file; elsewhere it is ignored (RFC 9110 allows it).
class ApiServer {
  public:
    /// Opens every table (format::FormatError for a missing, damaged or foreign file;
    /// std::invalid_argument for the same board and ruleset twice). With no table the server
    /// answers every board by the engine and the searches.
    ApiServer(const std::vector<std::filesystem::path>& tables, const ServeOptions& options = {});
    ~ApiServer();
    ApiServer(const ApiServer&) = delete;
    ApiServer& operator=(const ApiServer&) = delete;

    /// Binds host:port (port 0: any free port; an IPv6 host with or without brackets) and
    /// returns the port bound.
    /// @throws std::runtime_error naming host and port when the address cannot be bound.
    int bind(const std::string& host, int port);
    /// Answers requests until stop(); returns false if the server failed. Call after bind().
    bool listen();
    /// Stops listen() and every search under way (from any thread; not from a signal handler).
    void stop();
    /// Blocks until listen() has started accepting connections.
    void wait_until_ready() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace konane::serve
