// The HTTP front of `konane serve`, over cpp-httplib, knowing nothing of the game: bounds on
// connections (in all and per client), on the request line, headers and body, and on the time a
// request may take to arrive (408, 413, 414, 431, 503 answered by the front itself); the page's
// files (with Range); errors as JSON {"error", "status"}; whether a request's client has gone;
// the listener and its stop. The API (serve/api.hpp) registers its handlers on it.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace httplib {
struct Request;
struct Response;
}  // namespace httplib

namespace konane::serve {

/// The bounds of an HttpServer: every part of a request and every connection is bounded, so
/// that slow, idle or hostile clients cost the others little (docs/reliability.md, "The
/// server"). ServeOptions (serve/api.hpp) extends them with the API's options.
struct HttpOptions {
    /// Largest request body accepted (bytes); larger ones get 413.
    std::size_t max_body = 64 * 1024;
    /// Most connections open at once, in all and from one client address; a connection over
    /// either gets 503 with Retry-After and is closed. Each open connection has its own thread,
    /// so a slow or idle one never delays another; these bound their number.
    int max_connections = 512;
    int max_connections_per_client = 256;
    /// Largest request line (bytes, as cpp-httplib's 414), header section after it (bytes) and
    /// number of header lines: past them 414, 431 and 431.
    std::size_t max_request_line = 8192;
    std::size_t max_header_bytes = 16 * 1024;
    std::size_t max_header_count = 100;
    /// Time a client has to send a whole request (line, headers and body) once it has started
    /// it, or to start its first one after connecting: past it 408 and the connection closes.
    std::chrono::milliseconds request_timeout{10'000};
    /// Time a kept-alive connection may stay idle between requests before it is closed.
    std::chrono::milliseconds idle_timeout{2'000};
};

/// A request refused: the HTTP status and the message of the JSON error.
struct HttpError : std::runtime_error {
    int status;
    std::vector<std::pair<std::string, std::string>> headers;  // e.g. Retry-After
    HttpError(int s, const std::string& what, decltype(headers) h = {})
        : std::runtime_error(what), status(s), headers(std::move(h)) {}
};

/// A file of the page served as it is at `path` (GET and HEAD, one range of it honoured). The
/// views must outlive the server (the page is compiled into the binary).
struct StaticFile {
    std::string_view path;
    std::string_view type;
    std::string_view content;
};

/// Answers `status` with the JSON error {"error": message, "status": status} (and
/// Cache-Control: no-store), as every error of the server is answered.
void send_error(httplib::Response& res, int status, const std::string& message);

/// The client of a request, to ask while the request is answered (from any thread) whether it
/// has closed its connection, so that the work done for it can stop.
class RequestClient {
  public:
    /// The client of the request this thread is answering (outside a request: one never gone).
    static RequestClient current();
    /// Whether the client has closed its connection (an orderly close or a reset). Pipelined
    /// requests waiting to be read are data, not a close. A system call: ask it sparingly.
    bool gone() const;

  private:
    explicit RequestClient(int sock) : sock_(sock) {}
    int sock_;
};

/// The HTTP server: reads each request whole, within the bounds of HttpOptions, on a thread of
/// its connection, and answers it by the handler registered for its path, the page's files,
/// or a JSON error. Pipelined requests are answered in order. A Range header is honoured only
/// for one range of a page file; elsewhere it is ignored (RFC 9110 allows it). A method other
/// than GET and HEAD is answered 405 (with Allow: GET, HEAD), an unknown path 404, a handler's
/// exception 500, each as a JSON error.
class HttpServer {
  public:
    /// A handler of requests to one path (cpp-httplib's).
    using Handler = std::function<void(const httplib::Request&, httplib::Response&)>;

    /// A server of `files` (and of /favicon.ico: 204) within the bounds of `options`; register
    /// the other paths with get() before listen().
    HttpServer(const HttpOptions& options, const std::vector<StaticFile>& files);
    ~HttpServer();
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    /// Answers GET (and HEAD) requests to `path` by `handler`, on the thread of the request's
    /// connection.
    void get(const std::string& path, Handler handler);
    /// Binds host:port (port 0: any free port; an IPv6 host with or without brackets) and
    /// returns the port bound.
    /// @throws std::invalid_argument for a port outside 0..65535; std::runtime_error naming
    /// host and port when the address cannot be bound.
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

/// The address of the page for host and port, as a browser takes it: http://HOST:PORT/, an
/// IPv6 address in brackets (http://[::1]:8080/).
std::string serve_url(const std::string& host, int port);

/// Whether host names only this machine (localhost, 127.0.0.0/8, ::1), so that no other
/// machine can reach a server listening on it.
bool is_loopback_host(const std::string& host);

}  // namespace konane::serve
