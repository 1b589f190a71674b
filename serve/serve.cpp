// `konane serve`'s server (serve/serve.hpp): routes, table choice, errors as JSON.
#include "serve/serve.hpp"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <semaphore>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <httplib.h>

#include "cli/engine_json.hpp"
#include "cli/json.hpp"
#include "cli/value_json.hpp"
#include "core/notation.hpp"
#include "core/text.hpp"
#include "core/wide.hpp"
#include "engine/engine.hpp"
#include "format/table.hpp"
#include "probe/analysis.hpp"
#include "probe/openings.hpp"
#include "probe/probe.hpp"
#include "probe/proof.hpp"
#include "probe/search.hpp"
#include "query/proof.hpp"
#include "query/value.hpp"
#include "serve/web/web_assets.hpp"

namespace konane::cli {

namespace {

/// A request refused: the HTTP status and the message of the JSON error.
struct HttpError : std::runtime_error {
    int status;
    std::vector<std::pair<std::string, std::string>> headers;  // e.g. Retry-After
    HttpError(int s, const std::string& what, decltype(headers) h = {})
        : std::runtime_error(what), status(s), headers(std::move(h)) {}
};

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

/// A table being served, with its opening table computed on first use. The table is replaced
/// (under `mutex`) when it is opened again after damage was found.
struct Served {
    std::string file;
    Board board;    // the table's, fixed (a reopened file must have the same)
    Ruleset rules;  // likewise
    std::mutex mutex;
    Tablebase tb;                                      // under mutex
    std::chrono::steady_clock::time_point reopened{};  // under mutex
    std::once_flag openings_once;
    std::string openings;      // openings_json(), dumped
    format::MemoryUse memory;  // of the table as first opened: how it is read, what it costs
    Served(std::string f, Tablebase t)
        : file(std::move(f)),
          board(t.board()),
          rules(t.rules()),
          tb(std::move(t)),
          memory(tb.table().memory_use()) {}
    /// The table now served (a cheap copy sharing the mapping).
    Tablebase current() {
        std::lock_guard lock(mutex);
        return tb;
    }
};

/// The body of an error answer.
std::string error_body(int status, const std::string& message) {
    return dump(json{{"error", message}, {"status", status}});
}

void send_json(httplib::Response& res, const json& j, int status = 200) {
    res.status = status;
    res.set_header("Cache-Control", "no-store");
    res.set_content(dump(j), "application/json");
}

void send_error(httplib::Response& res, int status, const std::string& message) {
    send_json(res, json{{"error", message}, {"status", status}}, status);
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
    FrontServer(const ServeOptions& o, std::function<bool(std::string_view)> is_page_file)
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

    ServeOptions options_;
    std::function<bool(std::string_view)> is_page_file_;
    std::atomic<bool> stopping_{false};
    std::mutex mutex_;
    std::condition_variable ended_;
    int open_ = 0;
    std::map<std::string, int> per_client_;
};

}  // namespace

struct ApiServer::Impl {
    ServeOptions options;
    std::deque<Served> tables;  // deque: Served holds a mutex and a once_flag and must not move
    std::counting_semaphore<1024> search_slots;
    /// Set by stop() and on destruction: every request's work stops (before `server` drains
    /// its connections, which waits for them).
    std::atomic<bool> stopping{false};
    FrontServer server;

    explicit Impl(const ServeOptions& o)
        : options(o),
          search_slots(std::max(1, o.search_slots)),
          server(o, [](std::string_view path) {
              for (const auto& a : web_assets())
                  if (path == a.path) return true;
              return false;
          }) {}
    ~Impl() { stopping = true; }
    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;

    /// The bounds of one request's work (a search, a value): its deadline (work_timeout from
    /// its start), its client's connection, the server's stop. check() throws the HttpError
    /// that ends it: 422 past the deadline (retrying will not help), 503 when the server is
    /// stopping or the client has gone (nobody reads that answer).
    class Work {
      public:
        explicit Work(const Impl& impl)
            : impl_(impl),
              deadline_(std::chrono::steady_clock::now() + impl.options.work_timeout),
              sock_(t_request_socket) {}

        /// Why the work must stop, with its status, or status 0 to go on.
        std::pair<int, std::string> reason() {
            if (impl_.stopping) return {503, "the server is stopping"};
            const auto now = std::chrono::steady_clock::now();
            if (now >= deadline_) {
                return {422, fmt::format("not computed within {} ms (the server's time budget "
                                         "of a request)",
                                         impl_.options.work_timeout.count())};
            }
            // A peek costs a system call: at most every 20 ms.
            if (now >= next_peek_) {
                next_peek_ = now + std::chrono::milliseconds(20);
                if (client_gone(sock_)) return {503, "the client has gone"};
            }
            return {0, {}};
        }
        /// Throws the HttpError of reason() when there is one.
        void check() {
            auto [status, why] = reason();
            if (status) throw HttpError(status, why, retry_after(status));
        }
        static std::vector<std::pair<std::string, std::string>> retry_after(int status) {
            if (status == 503) return {{"Retry-After", "1"}};
            return {};
        }

      private:
        const Impl& impl_;
        std::chrono::steady_clock::time_point deadline_;
        std::chrono::steady_clock::time_point next_peek_{};
        int sock_;
    };

    /// Watches one request's Work from a thread of its own, for work that is stopped by a
    /// flag (the engine, the proof search): every 20 ms it asks Work::reason(), and on the
    /// first reason keeps it and sets `stop`. finish() (or the destructor) ends the watch.
    class Watcher {
      public:
        Watcher(Work& work, std::atomic<bool>& stop)
            : thread_([this, &work, &stop] {
                  std::unique_lock lock(m_);
                  while (
                      !cv_.wait_for(lock, std::chrono::milliseconds(20), [&] { return done_; })) {
                      auto why = work.reason();
                      if (why.first) {
                          reason_ = std::move(why);
                          stop = true;
                          return;
                      }
                  }
              }) {}
        Watcher(const Watcher&) = delete;
        Watcher& operator=(const Watcher&) = delete;
        ~Watcher() { finish(); }

        /// Ends the watch (at once) and waits for the thread.
        void finish() {
            {
                const std::lock_guard lock(m_);
                done_ = true;
            }
            cv_.notify_all();
            if (thread_.joinable()) thread_.join();
        }
        /// Why the work was stopped (status 0: it was not); read after finish().
        const std::pair<int, std::string>& reason() const { return reason_; }

      private:
        std::mutex m_;
        std::condition_variable cv_;
        bool done_ = false;
        std::pair<int, std::string> reason_{0, {}};
        std::thread thread_;  // last: started once the members above exist
    };

    /// A search slot taken for the life of the guard.
    struct Slot {
        std::counting_semaphore<1024>& s;
        ~Slot() { s.release(); }
    };
    /// Takes a search slot at once, or answers 503 with Retry-After: a request waits for none
    /// (a waiting request would hold its connection, and its client its place in line, for
    /// nothing). The same for every endpoint that searches.
    void take_slot() {
        if (!search_slots.try_acquire()) {
            throw HttpError(503,
                            fmt::format("all {} search slots are busy; try again",
                                        std::max(1, options.search_slots)),
                            {{"Retry-After", "1"}});
        }
    }

    /// A query parameter, or "" when absent.
    static std::string param(const httplib::Request& req, const char* name) {
        return req.has_param(name) ? req.get_param_value(name) : std::string();
    }

    std::optional<Ruleset> rules_param(const httplib::Request& req) const {
        if (!req.has_param("rules")) return std::nullopt;
        try {
            return parse_ruleset(param(req, "rules"));
        } catch (const std::invalid_argument& e) {
            throw HttpError(400, e.what());
        }
    }

    std::string loaded_list() const {
        std::string s;
        for (const auto& t : tables) {
            if (!s.empty()) s += ", ";
            s += t.board.name() + " " + ruleset_name(t.rules);
        }
        return s;
    }

    /// The table of board b (and ruleset r when given), or nullptr.
    Served* find(const Board& b, std::optional<Ruleset> r) {
        for (auto& t : tables) {
            if (t.board == b && (!r || t.rules == *r)) return &t;
        }
        return nullptr;
    }

    Served& require(const Board& b, std::optional<Ruleset> r) {
        Served* t = find(b, r);
        if (!t) {
            throw HttpError(404, fmt::format("no table for board {}{} (loaded: {})", b.name(),
                                             r ? std::string(" ruleset ") + ruleset_name(*r) : "",
                                             loaded_list()));
        }
        return *t;
    }

    /// Damage found in t's file: opens the file again as it was opened (a fresh mapping or copy
    /// in memory, every block checked again on first read) and serves that from now on, so
    /// that a file made good again is served again without a restart; at most once a second
    /// (a table read into memory: once a minute, a read of the whole file each time). Returns
    /// the HttpError 500 to answer, naming the damage.
    static HttpError damaged(Served& t, const std::string& what) {
        {
            std::lock_guard lock(t.mutex);
            const auto now = std::chrono::steady_clock::now();
            const auto every = t.memory.load == format::Load::memory ? std::chrono::seconds(60)
                                                                     : std::chrono::seconds(1);
            if (now - t.reopened > every) {
                t.reopened = now;
                try {
                    format::Expect expect;
                    expect.rows = static_cast<unsigned>(t.board.rows);
                    expect.cols = static_cast<unsigned>(t.board.cols);
                    expect.ruleset = ruleset_name(t.rules);
                    t.tb = Tablebase::open(t.file, expect, format::OpenOptions{t.memory.load});
                } catch (const std::exception&) {
                    // Still damaged (or gone): the next damage found tries again.
                }
            }
        }
        return HttpError(500, fmt::format("table {} is damaged: {}", t.file, what));
    }

    static Board board_param(const httplib::Request& req) {
        if (!req.has_param("board")) throw HttpError(400, "give board=RxC");
        try {
            return Board::parse(param(req, "board"));
        } catch (const std::invalid_argument& e) {
            throw HttpError(400, e.what());
        }
    }

    static ParsedPosition position_param(const httplib::Request& req) {
        try {
            return parse_position(param(req, "position"));
        } catch (const std::invalid_argument& e) {
            throw HttpError(400, fmt::format("position: {}", e.what()));
        }
    }

    json tables_json() const {
        json j;
        j["tables"] = json::array();
        for (const auto& t : tables) {
            j["tables"].push_back({{"file", t.file},
                                   {"board", t.board.name()},
                                   {"rows", t.board.rows},
                                   {"cols", t.board.cols},
                                   {"rules", ruleset_name(t.rules)},
                                   {"load", format::load_name(t.memory.load)},
                                   {"memory_bytes", t.memory.bytes},
                                   {"huge_page_bytes", t.memory.huge}});
        }
        j["search_limit"] = options.search_limit;
        j["time_limit_ms"] = options.work_timeout.count();
        return j;
    }

    /// The table's answer for p; a position the served mapping says is not stored is looked up
    /// again in a fresh opening of the file (its blocks checked again), so that a block damaged
    /// after it was checked is reported as damage (500), never as "not stored" (404).
    json probe_answer(Served& t, Position p) {
        const Board& b = t.board;
        auto not_stored = [&](const std::string& why) {
            return HttpError(404, why.empty() ? fmt::format("position {} is not stored in {} (not "
                                                            "reachable on {} under ruleset {}); "
                                                            "/api/solve searches it",
                                                            format_position(b, p), t.file, b.name(),
                                                            ruleset_name(t.rules))
                                              : why);
        };
        std::optional<Answer> a;
        std::string why;
        try {
            a = table_answer(t.current(), p);
            if (a) return answer_json(b, *a);
        } catch (const NotStored& e) {
            why = e.what();
        } catch (const format::FormatError& e) {
            throw damaged(t, e.what());
        }
        // Not stored by the served mapping: confirm with a fresh one.
        try {
            a = table_answer(Tablebase::open(t.file), p);
        } catch (const NotStored&) {
            throw not_stored(why);
        } catch (const format::FormatError& e) {
            throw damaged(t, e.what());
        }
        if (!a) throw not_stored(why);
        throw damaged(t, fmt::format("position {} read as not stored from the file in memory, "
                                     "stored in the file on disk (changed while served)",
                                     format_position(b, p)));
    }

    json probe(const httplib::Request& req) {
        const bool has_pos = req.has_param("position"), has_game = req.has_param("game");
        if (has_pos == has_game) {
            throw HttpError(400, "give either position=TEXT or game=RECORD&board=RxC");
        }
        const auto rules = rules_param(req);
        Served* t = nullptr;
        Position p;
        if (has_pos) {
            const ParsedPosition parsed = position_param(req);
            t = &require(parsed.board, rules);
            p = parsed.position;
        } else {
            const Board b = board_param(req);
            t = &require(b, rules);
            try {
                p = parse_game(b, t->rules, param(req, "game")).positions.back();
            } catch (const std::invalid_argument& e) {
                throw HttpError(400, fmt::format("game: {}", e.what()));
            }
        }
        return probe_answer(*t, p);
    }

    /// The positions a search may keep: the server's search limit, or the request's `limit=N`
    /// (a decimal from 1) when smaller. @throws HttpError 400 for a malformed N.
    std::size_t limit_param(const httplib::Request& req) const {
        std::size_t limit = options.search_limit;
        if (req.has_param("limit")) {
            const std::string l = param(req, "limit");
            std::size_t n = 0;
            const auto [end, ec] = std::from_chars(l.data(), l.data() + l.size(), n);
            if (ec != std::errc{} || end != l.data() + l.size() || l.empty() || n == 0 ||
                l[0] == '0') {
                throw HttpError(
                    400, fmt::format("limit '{}' is not a number of positions from 1", excerpt(l)));
            }
            limit = std::min(limit, n);
        }
        return limit;
    }

    /// GET /api/solve?position=TEXT[&rules=R][&jumps_only=1][&limit=N]: the search's answer
    /// within the search limit, or N positions when smaller (the page asks large boards with a
    /// small N, so that a search out of reach is refused soon).
    json solve(const httplib::Request& req) {
        if (!req.has_param("position")) throw HttpError(400, "give position=TEXT");
        const ParsedPosition parsed = position_param(req);
        const auto rules = rules_param(req);
        SearchOptions opt;
        opt.rules = rules.value_or(Ruleset::Brainking);
        opt.jumps_only = param(req, "jumps_only") == "1";
        opt.max_positions = limit_param(req);
        std::optional<Tablebase> tb;
        Served* t = find(parsed.board, rules);
        if (t) {
            tb = t->current();
            opt.rules = t->rules;
        }
        take_slot();
        const Slot slot{search_slots};
        // The search stops at its time budget, when its client goes, when the server stops:
        // asked every 65,536 new positions (tens of milliseconds).
        Work work(*this);
        opt.progress = [&work](std::size_t) { work.check(); };
        Searcher s(parsed.board, opt, tb);
        try {
            return solve_json(parsed.board, search_answer(s, parsed.position), s);
        } catch (const SearchLimit& e) {
            throw HttpError(
                422, fmt::format("search limit of {} positions{} reached: {}", opt.max_positions,
                                 opt.max_positions < options.search_limit ? " (the request's)" : "",
                                 e.what()));
        } catch (const format::FormatError& e) {
            if (t) throw damaged(*t, e.what());
            throw;
        }
    }

    /// The rules of a game on board b: the `rules` parameter, else the first table of b's, else
    /// brainking.
    Ruleset game_rules(const httplib::Request& req, const Board& b) {
        if (const auto r = rules_param(req)) return *r;
        if (Served* t = find(b, std::nullopt)) return t->rules;
        return Ruleset::Brainking;
    }

    /// The game of `game=RECORD` on `board=RxC` under rules r, from `start=POSITION` when given
    /// (a position of that board), else from the full board.
    static Game game_param(const httplib::Request& req, const Board& b, Ruleset r) {
        std::optional<Position> start;
        if (req.has_param("start")) {
            try {
                start = parse_position(param(req, "start"), &b).position;
            } catch (const std::invalid_argument& e) {
                throw HttpError(400, fmt::format("start: {}", e.what()));
            }
        }
        try {
            return parse_game(b, r, param(req, "game"), start);
        } catch (const std::invalid_argument& e) {
            throw HttpError(400, fmt::format("game: {}", e.what()));
        }
    }

    /// /api/game: the positions of a game record (the rules only; no table needed) and the
    /// legal moves at its end.
    json game(const httplib::Request& req) {
        const Board b = board_param(req);
        const Ruleset r = game_rules(req, b);
        const Game g = game_param(req, b, r);
        json j;
        j["board"] = b.name();
        j["rules"] = ruleset_name(r);
        j["start"] = format_position(b, g.positions.front());
        j["plies"] = json::array();
        for (std::size_t i = 0; i < g.moves.size(); ++i) {
            j["plies"].push_back({{"move", format_move(b, g.moves[i].move)},
                                  {"position", format_position(b, g.positions[i + 1])}});
        }
        j["legal"] = json::array();
        for (const auto& mc : legal_moves(b, r, g.positions.back())) {
            j["legal"].push_back(
                {{"move", format_move(b, mc.move)}, {"child", format_position(b, mc.child)}});
        }
        return j;
    }

    /// /api/analyse: analysis_json() of a game, as `konane analyse --json`.
    json analyse(const httplib::Request& req) {
        const Board b = board_param(req);
        Served& t = require(b, rules_param(req));
        const Game g = game_param(req, b, t.rules);
        try {
            return analysis_json(b, t.rules, g, analyse_game(t.current(), g));
        } catch (const NotStored& e) {
            throw HttpError(404, e.what());
        }
    }

    /// GET /api/value?position=TEXT[&limit=N]: the position's combinatorial game value
    /// (cli/value_json.hpp), within the search limit, or within N positions when N (a decimal
    /// from 1) is smaller (the page asks with a small N, so that a value too costly to compute
    /// is answered at once by 422 "not computed within N positions"); the side to move may be
    /// left out.
    json value(const httplib::Request& req) {
        if (!req.has_param("position")) throw HttpError(400, "give position=TEXT");
        const std::size_t limit = limit_param(req);
        const std::string text = with_side(param(req, "position"));
        // Past 64 squares the wide board (core/wide.hpp): the same valuer on WideBits.
        std::optional<ParsedPosition> narrow;
        std::optional<ParsedBigPosition> wide;
        try {
            if (is_wide_text(text)) {
                wide = parse_big_position(text);
            } else {
                narrow = parse_position(text);
            }
        } catch (const std::invalid_argument& e) {
            throw HttpError(400, fmt::format("position: {}", e.what()));
        }
        take_slot();
        const Slot slot{search_slots};
        cgt::GameStore store;
        // A limit in positions, not in memory: the same valuer's limits as the command's.
        query::PositionBudget budget;
        budget.by_memory = budget.positions = limit;
        cgt::ValueOptions opt = query::value_options(budget);
        const char* whose =
            limit < options.search_limit ? "the request's limit" : "the server's search limit";
        // Past 64 squares one position costs milliseconds: the valuer asks every few positions
        // whether its time budget is spent, its client gone or the server stopping.
        Work work(*this);
        int stop_status = 0;
        opt.should_stop = [&work, &stop_status] {
            auto [status, why] = work.reason();
            stop_status = status;
            return why;
        };
        try {
            if (wide) {
                cgt::WideValuer v(wide->board, store, opt);
                return value_json(wide->board,
                                  query::value_answer(v, wide->position.occ, budget, "", whose),
                                  store);
            }
            cgt::Valuer v(narrow->board, store, opt);
            return value_json(narrow->board,
                              query::value_answer(v, narrow->position.occ, budget, "", whose),
                              store);
        } catch (const cgt::ValueStopped& e) {
            throw HttpError(stop_status, fmt::format("value {}", e.what()),
                            Work::retry_after(stop_status));
        } catch (const cgt::ValueLimit& e) {
            throw HttpError(422, e.what());
        }
    }

    /// A decimal parameter of /api/bestmove: `name` from `least` to `most`. @throws HttpError
    /// 400 naming it otherwise.
    template <class T>
    static T number_param(const httplib::Request& req, const char* name, T least, T most,
                          const char* what) {
        const std::string text = param(req, name);
        T n{};
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
        if (ec != std::errc{} || end != text.data() + text.size() || text.empty() ||
            !(n >= least && n <= most)) {
            throw HttpError(400, fmt::format("{} '{}' is not {}", name, excerpt(text), what));
        }
        return n;
    }

    /// GET /api/bestmove?position=TEXT[&rules=R][&time=S][&nodes=N][&depth=D]: the engine's
    /// decision (decision_json(), as `konane bestmove --json`) with "budget": the limits it ran
    /// under. The engine plays with the table of the board when one is loaded (its ruleset),
    /// else on any board of up to 64 squares. Its time is S seconds, 1 s when none of S, N, D
    /// is given, and never more than work_timeout (the engine then answers the best move it
    /// has: a budget reached is no error). It takes a search slot, and stops when its client
    /// goes or the server stops (503).
    json bestmove(const httplib::Request& req) {
        if (!req.has_param("position")) throw HttpError(400, "give position=TEXT");
        const std::string text = with_side(param(req, "position"));
        const ParsedPosition parsed = [&] {
            try {
                return parse_position(text);
            } catch (const std::invalid_argument& e) {
                throw HttpError(400, fmt::format("position: {}", e.what()));
            }
        }();
        const auto rules = rules_param(req);
        const double budget = std::chrono::duration<double>(options.work_timeout).count();
        engine::MoveLimits limits;
        if (req.has_param("nodes"))
            limits.nodes = number_param<std::uint64_t>(req, "nodes", 1, UINT64_MAX,
                                                       "a number of nodes from 1");
        if (req.has_param("depth"))
            limits.depth = number_param<int>(req, "depth", 1, 128, "a depth from 1 to 128");
        if (req.has_param("time")) {
            limits.seconds =
                number_param<double>(req, "time", 0.001, 1e9, "a number of seconds from 0.001");
        } else {
            limits.seconds = limits.nodes || limits.depth ? budget : 1.0;
        }
        limits.seconds = std::min(limits.seconds, budget);
        engine::EngineOptions eo;
        eo.memory_bytes = options.engine_memory;
        eo.rules = rules.value_or(Ruleset::Brainking);
        Served* t = find(parsed.board, rules);
        if (t) {
            eo.table = t->current();
            eo.rules = t->rules;
        }
        take_slot();
        const Slot slot{search_slots};
        // A watcher asks every 20 ms whether the client has gone, the server stops or the time
        // budget is spent, and then stops the engine (MoveLimits::stop).
        Work work(*this);
        std::atomic<bool> stop{false};
        limits.stop = &stop;
        Watcher watcher(work, stop);
        std::optional<engine::Decision> d;
        try {
            engine::Engine eng(parsed.board, std::move(eo));
            d = eng.decide(parsed.position, limits);
        } catch (const format::FormatError& e) {
            if (t) throw damaged(*t, e.what());
            throw;
        }
        watcher.finish();
        // Stopped for the client or the server: nobody reads the move (a budget spent is not
        // an error: the engine answers the best move it has).
        if (watcher.reason().first == 503)
            throw HttpError(503, watcher.reason().second, Work::retry_after(503));
        json j = decision_json(parsed.board, parsed.position, d);
        j["budget"] = {
            {"seconds", limits.seconds}, {"nodes", limits.nodes}, {"depth", limits.depth}};
        return j;
    }

    /// GET /api/wdl?position=TEXT[&rules=R][&jumps_only=1][&both=1][&nodes=N]: the proof
    /// search's verdict, as `konane solve POSITION --wdl --json` (proof_json() and "search":
    /// its nodes, time and limits), with the table of the board when one is served. Bounded by
    /// the time budget (and N nodes when given): undecided within them is 422 naming the limit.
    /// It takes a search slot, and stops when its client goes or the server stops (503).
    json wdl(const httplib::Request& req) {
        if (!req.has_param("position")) throw HttpError(400, "give position=TEXT");
        const ParsedPosition parsed = position_param(req);
        const auto rules = rules_param(req);
        ProofOptions opt;
        opt.rules = rules.value_or(Ruleset::Brainking);
        opt.jumps_only = param(req, "jumps_only") == "1";
        opt.memory_bytes = options.engine_memory;
        if (req.has_param("nodes")) {
            opt.max_nodes = number_param<std::uint64_t>(req, "nodes", 1, UINT64_MAX,
                                                        "a number of nodes from 1");
        }
        const bool both = param(req, "both") == "1";
        std::optional<Tablebase> tb;
        Served* t = find(parsed.board, rules);
        if (t) {
            tb = t->current();
            opt.rules = t->rules;
        }
        take_slot();
        const Slot slot{search_slots};
        Work work(*this);
        std::atomic<bool> stop{false};
        opt.stop = &stop;
        Watcher watcher(work, stop);
        std::optional<query::ProofAnswer> a;
        try {
            ProofSearch s(parsed.board, opt, tb);
            a = query::prove(s, parsed.position, both);
        } catch (const format::FormatError& e) {
            if (t) throw damaged(*t, e.what());
            throw;
        }
        watcher.finish();
        if (const auto& [status, why] = watcher.reason(); status) {
            throw HttpError(status, why, Work::retry_after(status));
        }
        if (!a->decided()) {
            throw HttpError(422, fmt::format("not decided within {} nodes (the request's limit)",
                                             opt.max_nodes));
        }
        json j = proof_json(parsed.board, opt.rules, opt.jumps_only, *a);
        j["search"] = {{"nodes", a->nodes},
                       {"seconds", a->seconds},
                       {"cpu_seconds", a->cpu_seconds},
                       {"table_hits", a->table_hits},
                       {"max_nodes", opt.max_nodes},
                       {"memory_bytes", opt.memory_bytes}};
        return j;
    }

    std::string openings(const httplib::Request& req) {
        const Board b = board_param(req);
        Served& t = require(b, rules_param(req));
        try {
            std::call_once(t.openings_once, [&] {
                t.openings = dump(openings_json(b, t.rules, compute_openings(t.current())));
            });
        } catch (const format::FormatError& e) {
            throw damaged(t, e.what());
        }
        return t.openings;
    }

    /// Runs a JSON handler, turning its errors into JSON error answers.
    template <class F>
    httplib::Server::Handler api(F f) {
        return [this, f](const httplib::Request& req, httplib::Response& res) {
            try {
                auto body = f(req);
                res.set_header("Cache-Control", "no-store");
                if constexpr (std::is_same_v<decltype(body), std::string>) {
                    res.set_content(body, "application/json");
                } else {
                    res.set_content(dump(body), "application/json");
                }
            } catch (const HttpError& e) {
                send_error(res, e.status, e.what());
                for (const auto& [k, v] : e.headers)
                    res.set_header(k.c_str(), v);
            } catch (const std::invalid_argument& e) {
                send_error(res, 400, e.what());
            } catch (const format::FormatError& e) {
                send_error(res, 500, e.what());
            } catch (const std::exception& e) {
                send_error(res, 500, e.what());
            }
        };
    }

    void routes() {
        for (const auto& asset : web_assets()) {
            const std::string path(asset.path);
            const WebAsset a = asset;
            server.Get(path, [a](const httplib::Request&, httplib::Response& res) {
                res.set_content(std::string(a.content), std::string(a.type).c_str());
            });
        }
        server.Get("/favicon.ico",
                   [](const httplib::Request&, httplib::Response& res) { res.status = 204; });
        server.Get("/api/tables", api([this](const httplib::Request&) { return tables_json(); }));
        server.Get("/api/probe", api([this](const httplib::Request& r) { return probe(r); }));
        server.Get("/api/solve", api([this](const httplib::Request& r) { return solve(r); }));
        server.Get("/api/value", api([this](const httplib::Request& r) { return value(r); }));
        server.Get("/api/bestmove", api([this](const httplib::Request& r) { return bestmove(r); }));
        server.Get("/api/wdl", api([this](const httplib::Request& r) { return wdl(r); }));
        server.Get("/api/openings", api([this](const httplib::Request& r) { return openings(r); }));
        server.Get("/api/game", api([this](const httplib::Request& r) { return game(r); }));
        server.Get("/api/analyse", api([this](const httplib::Request& r) { return analyse(r); }));
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
};

ApiServer::ApiServer(const std::vector<std::filesystem::path>& files, const ServeOptions& options)
    : impl_(std::make_unique<Impl>(options)) {
    for (const auto& f : files) {
        Tablebase tb = Tablebase::open(f, {}, format::OpenOptions{options.load});
        if (tb.opening().gap) {
            // Requests pick a table by board and ruleset; a gap's table answers neither.
            throw std::invalid_argument(fmt::format(
                "{} is a table built from gap {}: konane serve serves ruleset tables only "
                "(probe it with konane probe, or the Python module)",
                f.string(), gap_name(tb.board(), *tb.opening().gap)));
        }
        for (const auto& t : impl_->tables) {
            if (t.tb.board() == tb.board() && t.tb.rules() == tb.rules()) {
                throw std::invalid_argument(fmt::format("{} and {} are both tables of {} {}",
                                                        t.file, f.string(), tb.board().name(),
                                                        ruleset_name(tb.rules())));
            }
        }
        if (options.check) {
            const format::VerifyReport r = tb.table().verify_checksums();
            if (!r.ok) {
                // The most precise problem: a block's (names its layer and block) rather
                // than the whole file's checksum, which any damage also breaks.
                const auto it = std::find_if(
                    r.problems.begin(), r.problems.end(),
                    [](const std::string& p) { return p.find("whole-file") == std::string::npos; });
                throw format::FormatError(
                    (it != r.problems.end() ? *it : r.problems.front()) +
                    (r.problems.size() > 1
                         ? fmt::format(" (and {} more problem{}; konane verify lists them)",
                                       r.problems.size() - 1, r.problems.size() == 2 ? "" : "s")
                         : std::string()));
            }
        }
        impl_->tables.emplace_back(f.string(), std::move(tb));
    }
    impl_->routes();
}

ApiServer::~ApiServer() = default;

int ApiServer::bind(const std::string& host_given, int port) {
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

bool ApiServer::listen() {
    return impl_->server.listen_after_bind();
}

void ApiServer::stop() {
    impl_->stopping = true;
    impl_->server.stop();
}

void ApiServer::wait_until_ready() const {
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

}  // namespace konane::cli
