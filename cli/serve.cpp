// `konane serve`'s server (cli/serve.hpp): routes, table choice, errors as JSON.
#include "cli/serve.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <mutex>
#include <optional>
#include <semaphore>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>

#include <fmt/format.h>
#include <httplib.h>

#include "cli/json.hpp"
#include "cli/web_assets.hpp"
#include "core/notation.hpp"
#include "format/table.hpp"
#include "probe/analysis.hpp"
#include "probe/openings.hpp"
#include "probe/probe.hpp"
#include "probe/search.hpp"

namespace konane::cli {

namespace {

/// A request refused: the HTTP status and the message of the JSON error.
struct HttpError : std::runtime_error {
    int status;
    HttpError(int s, const std::string& what) : std::runtime_error(what), status(s) {}
};

/// A table being served, with its opening table computed on first use.
struct Served {
    std::string file;
    Tablebase tb;
    std::once_flag openings_once;
    std::string openings;  // openings_json(), dumped
};

void send_json(httplib::Response& res, const json& j, int status = 200) {
    res.status = status;
    res.set_header("Cache-Control", "no-store");
    res.set_content(dump(j), "application/json");
}

void send_error(httplib::Response& res, int status, const std::string& message) {
    send_json(res, json{{"error", message}, {"status", status}}, status);
}

}  // namespace

struct ApiServer::Impl {
    ServeOptions options;
    std::deque<Served> tables;  // deque: Served holds a once_flag and must not move
    std::counting_semaphore<1024> search_slots;
    httplib::Server server;

    explicit Impl(const ServeOptions& o) : options(o), search_slots(std::max(1, o.search_slots)) {}

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
            s += t.tb.board().name() + " " + ruleset_name(t.tb.rules());
        }
        return s;
    }

    /// The table of board b (and ruleset r when given), or nullptr.
    Served* find(const Board& b, std::optional<Ruleset> r) {
        for (auto& t : tables) {
            if (t.tb.board() == b && (!r || t.tb.rules() == *r)) return &t;
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
                                   {"board", t.tb.board().name()},
                                   {"rows", t.tb.board().rows},
                                   {"cols", t.tb.board().cols},
                                   {"rules", ruleset_name(t.tb.rules())}});
        }
        j["search_limit"] = options.search_limit;
        return j;
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
                p = parse_game(b, t->tb.rules(), param(req, "game")).positions.back();
            } catch (const std::invalid_argument& e) {
                throw HttpError(400, fmt::format("game: {}", e.what()));
            }
        }
        const Board& b = t->tb.board();
        std::optional<Answer> a;
        try {
            a = table_answer(t->tb, p);
        } catch (const NotStored& e) {
            throw HttpError(404, e.what());
        }
        if (!a) {
            throw HttpError(404, fmt::format("position {} is not stored in {} (not reachable on {} "
                                             "under ruleset {}); /api/solve searches it",
                                             format_position(b, p), t->file, b.name(),
                                             ruleset_name(t->tb.rules())));
        }
        return answer_json(b, *a);
    }

    json solve(const httplib::Request& req) {
        if (!req.has_param("position")) throw HttpError(400, "give position=TEXT");
        const ParsedPosition parsed = position_param(req);
        const auto rules = rules_param(req);
        SearchOptions opt;
        opt.rules = rules.value_or(Ruleset::Brainking);
        opt.jumps_only = param(req, "jumps_only") == "1";
        opt.max_positions = options.search_limit;
        std::optional<Tablebase> tb;
        if (Served* t = find(parsed.board, rules)) {
            tb = t->tb;
            opt.rules = t->tb.rules();
        }
        if (!search_slots.try_acquire_for(std::chrono::seconds(10))) {
            throw HttpError(503, "every search slot is busy; try again");
        }
        struct Release {
            std::counting_semaphore<1024>& s;
            ~Release() { s.release(); }
        } release{search_slots};
        Searcher s(parsed.board, opt, tb);
        try {
            return solve_json(parsed.board, search_answer(s, parsed.position), s);
        } catch (const SearchLimit& e) {
            throw HttpError(422, fmt::format("search limit of {} positions reached: {}",
                                             options.search_limit, e.what()));
        }
    }

    /// The rules of a game on board b: the `rules` parameter, else the first table of b's, else
    /// brainking.
    Ruleset game_rules(const httplib::Request& req, const Board& b) {
        if (const auto r = rules_param(req)) return *r;
        if (Served* t = find(b, std::nullopt)) return t->tb.rules();
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
        const Game g = game_param(req, b, t.tb.rules());
        try {
            return analysis_json(b, t.tb.rules(), g, analyse_game(t.tb, g));
        } catch (const NotStored& e) {
            throw HttpError(404, e.what());
        }
    }

    std::string openings(const httplib::Request& req) {
        const Board b = board_param(req);
        Served& t = require(b, rules_param(req));
        std::call_once(t.openings_once, [&] {
            t.openings = dump(openings_json(b, t.tb.rules(), compute_openings(t.tb)));
        });
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
        server.Get("/api/openings", api([this](const httplib::Request& r) { return openings(r); }));
        server.Get("/api/game", api([this](const httplib::Request& r) { return game(r); }));
        server.Get("/api/analyse", api([this](const httplib::Request& r) { return analyse(r); }));
        auto other_method = [](const httplib::Request& req, httplib::Response& res) {
            send_error(res, 405,
                       fmt::format("method {} not allowed: the API answers GET only", req.method));
        };
        server.Post(".*", other_method);
        server.Put(".*", other_method);
        server.Delete(".*", other_method);
        server.Patch(".*", other_method);
        // Anything else (unknown path, a body too large, a URI too long): a JSON message.
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
        // A connection serves up to 100 requests (cpp-httplib's default of 5 makes a busy client
        // reconnect all the time) and is closed after 2 s idle, so that idle browsers do not
        // hold the worker threads.
        server.set_keep_alive_max_count(100);
        server.set_keep_alive_timeout(2);
        if (options.threads > 0) {
            const int n = options.threads;
            server.new_task_queue = [n] { return new httplib::ThreadPool(n); };
        }
    }
};

ApiServer::ApiServer(const std::vector<std::filesystem::path>& files, const ServeOptions& options)
    : impl_(std::make_unique<Impl>(options)) {
    if (files.empty()) throw std::invalid_argument("give at least one table");
    for (const auto& f : files) {
        Tablebase tb = Tablebase::open(f);
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

int ApiServer::bind(const std::string& host, int port) {
    if (port < 0 || port > 65535) {
        throw std::invalid_argument(fmt::format("port {} is outside 0..65535", port));
    }
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
    impl_->server.stop();
}

void ApiServer::wait_until_ready() const {
    while (!impl_->server.is_running())
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

}  // namespace konane::cli
