// The HTTP front of `konane serve` (serve/http.hpp): connections admitted and read on threads
// of their own within bounds, requests handed whole to cpp-httplib, errors as JSON.
#include "serve/http.hpp"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "cli/json.hpp"
#include "core/text.hpp"

namespace konane::serve {

namespace {

/// The socket of the connection whose request this thread is answering (-1 outside a request):
/// the work of a request polls it to stop when its client has gone.
thread_local int t_request_socket = -1;

/// Whether the client of the connection on `sock` has closed it (an orderly close or a reset):
/// a peek that reads the end of the stream, or fails for another reason than no data yet.
/// Pipelined requests waiting to be read are data, not a close.
bool client_gone(int sock) {
    if (sock < 0) return false;
    char c;
    const ssize_t n = ::recv(sock, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n == 0) return true;
    return n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
}

/// The body of an error answer, written as every answer of the server is (cli::dump(): compact,
/// a string that is not UTF-8 never throws).
std::string error_body(int status, const std::string& message) {
    return cli::dump(cli::json{{"error", message}, {"status", status}});
}

/// "ip" of a socket address (numeric; IPv6 without brackets) and its port.
void address_of(const sockaddr_storage& a, socklen_t len, std::string& ip, int& port) {
    char host[NI_MAXHOST], serv[NI_MAXSERV];
    if (::getnameinfo(reinterpret_cast<const sockaddr*>(&a), len, host, sizeof host, serv,
                      sizeof serv, NI_NUMERICHOST | NI_NUMERICSERV) == 0) {
        ip = host;
        port = std::atoi(serv);
    }
}

std::string peer_address(int sock) {
    sockaddr_storage a{};
    socklen_t len = sizeof a;
    std::string ip;
    int port = 0;
    if (::getpeername(sock, reinterpret_cast<sockaddr*>(&a), &len) == 0)
        address_of(a, len, ip, port);
    return ip;
}

/// Sends all of data, or fails (a client not reading for the socket's send timeout, set by
/// cpp-httplib to 5 s, or gone; with MSG_DONTWAIT in flags, a full socket buffer).
bool send_all(int sock, const char* data, std::size_t n, int flags = 0) {
    while (n > 0) {
        const ssize_t w = ::send(sock, data, n, MSG_NOSIGNAL | flags);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        data += w;
        n -= static_cast<std::size_t>(w);
    }
    return true;
}

/// One request already read whole (line, headers, body) by the front, given to cpp-httplib's
/// request processing as its stream; answers go straight to the socket.
class RequestStream : public httplib::Stream {
  public:
    RequestStream(int sock, std::string_view request) : sock_(sock), request_(request) {}
    bool is_readable() const override { return pos_ < request_.size(); }
    bool is_writable() const override { return true; }
    ssize_t read(char* ptr, std::size_t size) override {
        const std::size_t n = std::min(size, request_.size() - pos_);
        std::memcpy(ptr, request_.data() + pos_, n);
        pos_ += n;
        return static_cast<ssize_t>(n);
    }
    ssize_t write(const char* ptr, std::size_t size) override {
        return send_all(sock_, ptr, size) ? static_cast<ssize_t>(size) : -1;
    }
    void get_remote_ip_and_port(std::string& ip, int& port) const override {
        sockaddr_storage a{};
        socklen_t len = sizeof a;
        if (::getpeername(sock_, reinterpret_cast<sockaddr*>(&a), &len) == 0)
            address_of(a, len, ip, port);
    }
    void get_local_ip_and_port(std::string& ip, int& port) const override {
        sockaddr_storage a{};
        socklen_t len = sizeof a;
        if (::getsockname(sock_, reinterpret_cast<sockaddr*>(&a), &len) == 0)
            address_of(a, len, ip, port);
    }
    /// The socket, for cpp-httplib's check that it fits select()'s FD_SETSIZE (it answers 500
    /// past it); this stream never selects, so a larger descriptor is reported as none.
    socket_t socket() const override { return sock_ < FD_SETSIZE ? sock_ : INVALID_SOCKET; }

  private:
    int sock_;
    std::string_view request_;
    std::size_t pos_ = 0;
};

/// The head of a request as the front reads it: where it ends, and what the front decides on.
struct Head {
    std::size_t length = 0;  // bytes up to and including the empty line
    std::string method, target;
    std::optional<std::uint64_t> content_length;
    bool chunked = false;
    bool bad = false;  // a Content-Length that is no number, or two that differ
};

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

/// The lines of text without their '\n' (and '\r').
std::vector<std::string_view> lines_of(std::string_view text) {
    std::vector<std::string_view> out;
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        out.push_back(line);
        if (nl == std::string_view::npos) break;
        text.remove_prefix(nl + 1);
    }
    return out;
}

/// The reason phrase of the statuses the front answers with itself.
const char* reason(int status) {
    switch (status) {
        case 400:
            return "Bad Request";
        case 405:
            return "Method Not Allowed";
        case 408:
            return "Request Timeout";
        case 411:
            return "Length Required";
        case 413:
            return "Payload Too Large";
        case 414:
            return "URI Too Long";
        case 431:
            return "Request Header Fields Too Large";
        case 503:
            return "Service Unavailable";
        default:
            return "Error";
    }
}

/// The methods cpp-httplib parses; any other (TRACE, CONNECT, ...) is answered 405 by the front.
bool known_method(std::string_view m) {
    for (const char* k : {"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"})
        if (m == k) return true;
    return false;
}

/// The front of the server: reads each request whole, within bounds of size, count and time,
/// on a thread of its connection, then lets cpp-httplib route and answer it.
///
/// cpp-httplib 0.11 gives each connection to one of a fixed pool of workers, which waits as
/// long as the client takes: a few slow clients held every worker, and its header reader had
/// no bound on the count or total size of the headers. Here the accept loop (cpp-httplib's)
/// hands each connection to process_and_close_socket(), overridden to admit it (bounds on
/// connections in all and per client address) and start a thread for it; that thread reads
/// each request with a deadline and size bounds and passes it, complete, to the library's
/// request processing (Server::process_request, over a RequestStream). A slow or idle client
/// costs one thread for at most request_timeout or idle_timeout and never delays another.
class FrontServer : public httplib::Server {
  public:
    FrontServer(const HttpOptions& o, std::function<bool(std::string_view)> is_page_file)
        : options_(o), is_page_file_(std::move(is_page_file)) {
        // The accept loop runs process_and_close_socket() itself: admission is immediate.
        new_task_queue = [] { return new InlineQueue; };
    }
    ~FrontServer() override { drain(); }
    FrontServer(const FrontServer&) = delete;
    FrontServer& operator=(const FrontServer&) = delete;

    /// Makes every connection end soon and waits until their threads have ended.
    void drain() {
        stopping_ = true;
        std::unique_lock lock(mutex_);
        ended_.wait(lock, [&] { return open_ == 0; });
    }

  private:
    struct InlineQueue : httplib::TaskQueue {
        void enqueue(std::function<void()> fn) override { fn(); }
        void shutdown() override {}
    };

    bool process_and_close_socket(socket_t sock) override {
        const std::string client = peer_address(sock);
        bool admitted = false;
        {
            std::lock_guard lock(mutex_);
            int& mine = per_client_[client];
            if (!stopping_ && open_ < options_.max_connections &&
                mine < options_.max_connections_per_client) {
                ++open_;
                ++mine;
                admitted = true;
            } else if (mine == 0) {
                per_client_.erase(client);
            }
        }
        if (admitted) {
            try {
                std::thread([this, sock, client] {
                    serve_connection(sock);
                    release(client);
                }).detach();
                return true;
            } catch (const std::system_error&) {
                release(client);
            }
        }
        // Refused on the accept loop's thread: the answer is sent without waiting (the socket
        // buffer of a new connection takes it) and the connection closed at once.
        answer_error(sock, 503, "too many connections; try again", {{"Retry-After", "1"}},
                     MSG_DONTWAIT);
        ::shutdown(sock, SHUT_WR);
        ::close(sock);
        return false;
    }

    void release(const std::string& client) {
        std::lock_guard lock(mutex_);
        if (--per_client_[client] == 0) per_client_.erase(client);
        if (--open_ == 0) ended_.notify_all();
    }

    enum class Got { Data, Closed, TimedOut };

    /// Appends what the socket has to buf, waiting until deadline.
    Got read_more(int sock, std::string& buf, std::chrono::steady_clock::time_point deadline) {
        for (;;) {
            if (stopping_ || svr_sock_ == INVALID_SOCKET) return Got::Closed;
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0) return Got::TimedOut;
            pollfd p{sock, POLLIN, 0};
            // Short waits, so that a stopping server ends its connections soon.
            const int r = ::poll(&p, 1, static_cast<int>(std::min<long>(left.count(), 100)));
            if (r < 0 && errno == EINTR) continue;
            if (r < 0) return Got::Closed;
            if (r == 0) continue;
            char tmp[16384];
            const ssize_t n = ::recv(sock, tmp, sizeof tmp, 0);
            if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
            if (n <= 0) return Got::Closed;
            buf.append(tmp, static_cast<std::size_t>(n));
            return Got::Data;
        }
    }

    /// An error answer written by the front itself (the connection is closed after it).
    static void answer_error(int sock, int status, const std::string& message,
                             const std::vector<std::pair<std::string, std::string>>& headers = {},
                             int flags = 0) {
        const std::string body = error_body(status, message);
        std::string out = fmt::format(
            "HTTP/1.1 {} {}\r\nContent-Type: application/json\r\nCache-Control: no-store\r\n"
            "Connection: close\r\nContent-Length: {}\r\n",
            status, reason(status), body.size());
        for (const auto& [k, v] : headers)
            out += k + ": " + v + "\r\n";
        out += "\r\n" + body;
        send_all(sock, out.data(), out.size(), flags);
    }

    /// Ends a connection so that the answer just sent reaches the client: no more writes, then
    /// what the client still sends is read and dropped for a moment (closing with unread data
    /// would reset the connection and could lose the answer).
    void close_connection(int sock) {
        ::shutdown(sock, SHUT_WR);
        std::string sink;
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
        while (sink.size() < (1u << 20) && read_more(sock, sink, until) == Got::Data)
            if (sink.size() > 65536) sink.clear();
        ::close(sock);
    }

    /// Reads the head of the next request in buf (more from the socket until deadline), within
    /// the bounds of the options. Returns 0 and fills head, or the HTTP status of the
    /// refusal (-1: the client closed or went idle: close without an answer).
    int read_head(int sock, std::string& buf, Head& head,
                  std::chrono::steady_clock::time_point deadline, bool& started) {
        std::size_t scanned = 0, lines = 0, line_start = 0, request_line = 0;
        for (;;) {
            // Empty lines before a request are ignored (RFC 9112 2.2).
            while (!started && !buf.empty() && (buf[0] == '\r' || buf[0] == '\n'))
                buf.erase(0, 1);
            if (!buf.empty()) started = true;
            for (; scanned < buf.size(); ++scanned) {
                if (buf[scanned] != '\n') continue;
                const std::size_t len = scanned - line_start;
                const bool empty = len == 0 || (len == 1 && buf[line_start] == '\r');
                if (lines == 0) {
                    request_line = len;
                    if (request_line > options_.max_request_line) return 414;
                } else if (empty) {
                    if (scanned + 1 - (request_line + 1) > options_.max_header_bytes) return 431;
                    head.length = scanned + 1;
                    return 0;
                }
                ++lines;
                line_start = scanned + 1;
                if (lines > options_.max_header_count + 1) return 431;
            }
            if (lines == 0 && buf.size() > options_.max_request_line) return 414;
            if (lines > 0 && request_line > options_.max_request_line) return 414;
            if (lines > 0 && buf.size() - request_line > options_.max_header_bytes) return 431;
            switch (read_more(sock, buf, deadline)) {
                case Got::Data:
                    break;
                case Got::Closed:
                    return -1;
                case Got::TimedOut:
                    return started ? 408 : -1;
            }
        }
    }

    /// Parses what the front needs of a complete head, and drops a Range header that is not one
    /// range of a page file (RFC 9110 14.2: a server may ignore Range), so that no answer is
    /// built larger than its resource (many ranges) and no error page is cut (a Range on it).
    void parse_head(std::string& buf, Head& head) {
        const std::vector<std::string_view> lines =
            lines_of(std::string_view(buf).substr(0, head.length));
        const std::string_view request = lines.empty() ? std::string_view() : lines[0];
        const std::size_t sp1 = request.find(' ');
        head.method = std::string(request.substr(0, sp1));
        if (sp1 != std::string_view::npos) {
            const std::size_t sp2 = request.find(' ', sp1 + 1);
            head.target = std::string(request.substr(sp1 + 1, sp2 - sp1 - 1));
        }
        const std::string path = head.target.substr(0, head.target.find('?'));
        const bool ranges_allowed =
            (head.method == "GET" || head.method == "HEAD") && is_page_file_(path);
        std::string rewritten;
        bool dropped = false;
        std::size_t at = 0;
        for (std::size_t i = 0; i < lines.size(); ++i) {
            const std::string_view line = lines[i];
            const std::size_t line_at = static_cast<std::size_t>(line.data() - buf.data());
            const std::size_t colon = line.find(':');
            if (i > 0 && colon != std::string_view::npos) {
                const std::string_view name = line.substr(0, colon);
                const std::string_view value = trim(line.substr(colon + 1));
                if (iequals(name, "Content-Length")) {
                    std::uint64_t v = 0;
                    const auto [p, ec] =
                        std::from_chars(value.data(), value.data() + value.size(), v);
                    if (ec != std::errc{} || p != value.data() + value.size() || value.empty() ||
                        (head.content_length && *head.content_length != v)) {
                        head.bad = true;
                    }
                    head.content_length = v;
                } else if (iequals(name, "Transfer-Encoding")) {
                    head.chunked = true;
                } else if (iequals(name, "Range") &&
                           (!ranges_allowed || value.find(',') != std::string_view::npos)) {
                    // Everything before this line, then skip it (up to its '\n').
                    rewritten.append(buf, at, line_at - at);
                    at = buf.find('\n', line_at) + 1;
                    dropped = true;
                }
            }
        }
        if (dropped) {
            rewritten.append(buf, at, std::string::npos);
            head.length -= buf.size() - rewritten.size();
            buf.swap(rewritten);
        }
    }

    void serve_connection(int sock) {
        using Clock = std::chrono::steady_clock;
        std::string buf;
        for (std::size_t served = 0; served < kRequestsPerConnection; ++served) {
            // The first request must start within request_timeout; later ones within
            // idle_timeout. Once started, the whole request must arrive by request_timeout.
            bool started = false;
            Clock::time_point deadline =
                Clock::now() + (served == 0 ? options_.request_timeout : options_.idle_timeout);
            if (buf.empty()) {
                if (read_more(sock, buf, deadline) != Got::Data) break;
            }
            deadline = Clock::now() + options_.request_timeout;
            Head head;
            const int refused = read_head(sock, buf, head, deadline, started);
            if (refused == -1) break;
            if (refused != 0) {
                answer_error(sock, refused,
                             refused == 414   ? "request URI too long"
                             : refused == 408 ? fmt::format("request not received within {} ms",
                                                            options_.request_timeout.count())
                                              : fmt::format("request headers too large (at most "
                                                            "{} lines, {} bytes)",
                                                            options_.max_header_count,
                                                            options_.max_header_bytes));
                break;
            }
            parse_head(buf, head);
            if (!known_method(head.method)) {
                answer_error(sock, 405,
                             fmt::format("method {} not allowed: the API answers GET only",
                                         excerpt(head.method)),
                             {{"Allow", "GET, HEAD"}});
                break;
            }
            if (head.bad) {
                answer_error(sock, 400, "malformed Content-Length");
                break;
            }
            if (head.chunked) {
                answer_error(sock, 411, "a request body needs a Content-Length");
                break;
            }
            const std::uint64_t body = head.content_length.value_or(0);
            if (body > options_.max_body) {
                answer_error(sock, 413, "request body too large");
                break;
            }
            const std::size_t whole = head.length + static_cast<std::size_t>(body);
            bool complete = true;
            while (buf.size() < whole && complete) {
                const Got g = read_more(sock, buf, deadline);
                if (g == Got::TimedOut)
                    answer_error(sock, 408,
                                 fmt::format("request not received within {} ms",
                                             options_.request_timeout.count()));
                complete = g == Got::Data;
            }
            if (!complete) break;
            RequestStream stream(sock, std::string_view(buf).substr(0, whole));
            bool closed = false;
            const bool last = served + 1 == kRequestsPerConnection;
            t_request_socket = sock;
            const bool ok = process_request(stream, last, closed, nullptr);
            t_request_socket = -1;
            buf.erase(0, whole);
            if (!ok || closed) break;
        }
        close_connection(sock);
    }

    /// Requests answered on one connection before it is closed (a busy client need not
    /// reconnect often; cpp-httplib's default of 5 made it reconnect all the time).
    static constexpr std::size_t kRequestsPerConnection = 100;

    HttpOptions options_;
    std::function<bool(std::string_view)> is_page_file_;
    std::atomic<bool> stopping_{false};
    std::mutex mutex_;
    std::condition_variable ended_;
    int open_ = 0;
    std::map<std::string, int> per_client_;
};

}  // namespace

void send_error(httplib::Response& res, int status, const std::string& message) {
    res.status = status;
    res.set_header("Cache-Control", "no-store");
    res.set_content(error_body(status, message), "application/json");
}

RequestClient RequestClient::current() {
    return RequestClient(t_request_socket);
}

bool RequestClient::gone() const {
    return client_gone(sock_);
}

struct HttpServer::Impl {
    std::vector<StaticFile> files;
    FrontServer server;

    Impl(const HttpOptions& o, const std::vector<StaticFile>& f)
        : files(f), server(o, [this](std::string_view path) {
              for (const auto& a : files)
                  if (path == a.path) return true;
              return false;
          }) {}
};

HttpServer::HttpServer(const HttpOptions& options, const std::vector<StaticFile>& files)
    : impl_(std::make_unique<Impl>(options, files)) {
    auto& server = impl_->server;
    for (const auto& asset : files) {
        const std::string path(asset.path);
        const StaticFile a = asset;
        server.Get(path, [a](const httplib::Request&, httplib::Response& res) {
            res.set_content(std::string(a.content), std::string(a.type).c_str());
        });
    }
    server.Get("/favicon.ico",
               [](const httplib::Request&, httplib::Response& res) { res.status = 204; });
    auto other_method = [](const httplib::Request& req, httplib::Response& res) {
        send_error(res, 405,
                   fmt::format("method {} not allowed: the API answers GET only", req.method));
        res.set_header("Allow", "GET, HEAD");
    };
    server.Post(".*", other_method);
    server.Put(".*", other_method);
    server.Delete(".*", other_method);
    server.Patch(".*", other_method);
    server.Options(".*", other_method);
    // Anything else (unknown path, a malformed request): a JSON message.
    server.set_error_handler(httplib::Server::HandlerWithResponse(
        [](const httplib::Request& req, httplib::Response& res) {
            if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
            std::string what;
            switch (res.status) {
                case 404:
                    what = "no such path: " + req.path;
                    break;
                case 413:
                    what = "request body too large";
                    break;
                case 414:
                    what = "request URI too long";
                    break;
                case 400:
                    what = "malformed request";
                    break;
                default:
                    what = fmt::format("HTTP status {}", res.status);
            }
            send_error(res, res.status, what);
            return httplib::Server::HandlerResponse::Handled;
        }));
    server.set_exception_handler(
        [](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
            std::string what = "internal error";
            try {
                std::rethrow_exception(ep);
            } catch (const std::exception& e) {
                what = e.what();
            } catch (...) {
            }
            send_error(res, 500, what);
        });
    server.set_payload_max_length(options.max_body);
    // Small answers on keep-alive connections: without TCP_NODELAY, Nagle's algorithm and
    // delayed ACKs hold each answer about 40 ms.
    server.set_tcp_nodelay(true);
    // What the answers' Keep-Alive header announces (the front applies them).
    server.set_keep_alive_max_count(100);
    server.set_keep_alive_timeout(std::max<time_t>(
        1, std::chrono::duration_cast<std::chrono::seconds>(options.idle_timeout).count()));
}

HttpServer::~HttpServer() = default;

void HttpServer::get(const std::string& path, Handler handler) {
    impl_->server.Get(path, std::move(handler));
}

int HttpServer::bind(const std::string& host_given, int port) {
    if (port < 0 || port > 65535) {
        throw std::invalid_argument(fmt::format("port {} is outside 0..65535", port));
    }
    // An IPv6 address may come as in a URL, in brackets: [::1].
    const std::string host =
        host_given.size() > 2 && host_given.front() == '[' && host_given.back() == ']'
            ? host_given.substr(1, host_given.size() - 2)
            : host_given;
    // cpp-httplib 0.11 listens with a backlog of 5: clients connecting at once beyond it lose
    // their SYN and wait a second for its retransmission. The listening socket is taken here
    // (keeping the library's default option, SO_REUSEADDR) and listen() called again with
    // SOMAXCONN, which Linux takes as a new backlog.
    int listen_fd = -1;
    impl_->server.set_socket_options([&listen_fd](socket_t sock) {
        int yes = 1;
        ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
        listen_fd = sock;
    });
    const int bound = port == 0 ? impl_->server.bind_to_any_port(host)
                                : (impl_->server.bind_to_port(host, port) ? port : -1);
    impl_->server.set_socket_options(httplib::default_socket_options);
    if (bound >= 0 && listen_fd >= 0) ::listen(listen_fd, SOMAXCONN);
    if (bound < 0) {
        throw std::runtime_error(
            fmt::format("cannot listen on {}:{} (address in use, or not an "
                        "address of this machine)",
                        host, port));
    }
    return bound;
}

bool HttpServer::listen() {
    return impl_->server.listen_after_bind();
}

void HttpServer::stop() {
    impl_->server.stop();
}

void HttpServer::wait_until_ready() const {
    while (!impl_->server.is_running())
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

std::string serve_url(const std::string& host, int port) {
    std::string h = host;
    if (h.find(':') != std::string::npos && h.front() != '[') h = "[" + h + "]";
    return fmt::format("http://{}:{}/", h, port);
}

bool is_loopback_host(const std::string& host_given) {
    std::string host = host_given;
    if (host.size() > 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

}  // namespace konane::serve
