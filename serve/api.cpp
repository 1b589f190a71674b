// `konane serve`'s API (serve/api.hpp) over the HTTP front (serve/http.hpp): the tables
// served, the endpoints, the search slots and the time budget of a request's work.
#include "serve/api.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <deque>
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
#include "query/move.hpp"
#include "query/proof.hpp"
#include "query/value.hpp"
#include "search/proof.hpp"
#include "search/search.hpp"
#include "serve/http.hpp"
#include "serve/web/web_assets.hpp"

namespace konane::serve {

// The answers are the JSON objects of the command's --json (cli/json.hpp and its kin).
using cli::analysis_json;
using cli::answer_json;
using cli::decision_json;
using cli::dump;
using cli::json;
using cli::openings_json;
using cli::proof_json;
using cli::solve_json;
using cli::value_json;

namespace {

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

/// The files of the page, compiled into the binary.
std::vector<StaticFile> page_files() {
    std::vector<StaticFile> files;
    for (const auto& a : web_assets())
        files.push_back({a.path, a.type, a.content});
    return files;
}

}  // namespace

struct ApiServer::Impl {
    ServeOptions options;
    std::deque<Served> tables;  // deque: Served holds a mutex and a once_flag and must not move
    std::counting_semaphore<1024> search_slots;
    /// Set by stop() and on destruction: every request's work stops (before `server` drains
    /// its connections, which waits for them).
    std::atomic<bool> stopping{false};
    HttpServer server;

    explicit Impl(const ServeOptions& o)
        : options(o), search_slots(std::max(1, o.search_slots)), server(o, page_files()) {}
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
              client_(RequestClient::current()) {}

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
                if (client_.gone()) return {503, "the client has gone"};
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
        RequestClient client_;
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

    /// What an engine search started with an id (/api/bestmove?...&id=ID) is doing now, for
    /// /api/progress?id=ID: the page polls it to show the engine thinking.
    struct Thinking {
        Board board;
        std::chrono::steady_clock::time_point start;
        bool searching = false;  ///< false: the proof search (no iteration of the search yet)
        engine::SearchInfo info;
    };
    /// The searches under way by id; at most kMaxThinking (a request past it gets 503).
    std::mutex thinking_mutex;
    std::map<std::string, Thinking> thinking;
    static constexpr std::size_t kMaxThinking = 256;

    /// The id of a search: 1 to 64 letters, digits, '-' or '_'. @throws HttpError 400 otherwise.
    static std::string id_param(const httplib::Request& req) {
        const std::string id = param(req, "id");
        const bool ok =
            !id.empty() && id.size() <= 64 && std::all_of(id.begin(), id.end(), [](char c) {
                return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
            });
        if (!ok)
            throw HttpError(
                400, fmt::format("id '{}' is not 1 to 64 letters, digits, - or _", excerpt(id)));
        return id;
    }

    /// A search's entry in `thinking` for the life of the guard (none when `id` is empty).
    /// @throws HttpError 409 when the id is in use, 503 when kMaxThinking searches are.
    class ThinkingEntry {
      public:
        ThinkingEntry(Impl& api, std::string id, const Board& b) : api_(api), id_(std::move(id)) {
            if (id_.empty()) return;
            const std::lock_guard lock(api_.thinking_mutex);
            if (api_.thinking.count(id_)) throw HttpError(409, "id '" + id_ + "' is in use");
            if (api_.thinking.size() >= kMaxThinking)
                throw HttpError(503, "too many searches under way", {{"Retry-After", "1"}});
            api_.thinking.emplace(id_, Thinking{b, std::chrono::steady_clock::now(), false, {}});
        }
        ~ThinkingEntry() {
            if (id_.empty()) return;
            const std::lock_guard lock(api_.thinking_mutex);
            api_.thinking.erase(id_);
        }
        ThinkingEntry(const ThinkingEntry&) = delete;
        ThinkingEntry& operator=(const ThinkingEntry&) = delete;
        /// A completed iteration of the search (from the engine's thread).
        void update(const engine::SearchInfo& info) {
            if (id_.empty()) return;
            const std::lock_guard lock(api_.thinking_mutex);
            auto it = api_.thinking.find(id_);
            if (it == api_.thinking.end()) return;
            it->second.searching = true;
            it->second.info = info;
        }

      private:
        Impl& api_;
        std::string id_;
    };

    /// GET /api/progress?id=ID: what the engine search of that id (/api/bestmove's id) is
    /// doing: {"id", "thinking": true, "phase": "proof search" or "search", "seconds", and in
    /// the search "depth", "score", "nodes", "line" (its principal variation)}, or {"id",
    /// "thinking": false} when no search of that id is under way (not begun, or over).
    json progress(const httplib::Request& req) {
        const std::string id = id_param(req);
        json j = {{"id", id}};
        const std::lock_guard lock(thinking_mutex);
        const auto it = thinking.find(id);
        j["thinking"] = it != thinking.end();
        if (it == thinking.end()) return j;
        const Thinking& t = it->second;
        j["phase"] = t.searching ? "search" : "proof search";
        j["seconds"] =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t.start).count();
        if (t.searching) {
            j["depth"] = t.info.depth;
            j["score"] = t.info.score;
            j["nodes"] = t.info.nodes;
            json line = json::array();
            for (const Move& m : t.info.pv)
                line.push_back(format_move(t.board, m));
            j["line"] = line;
        }
        return j;
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

    /// What a search of a position on board b takes from the served tables: the first table of
    /// b (of ruleset r when given, none when b has none), a handle on it, and the ruleset the
    /// search plays: the table's, else r, else brainking.
    struct SearchTable {
        Served* served = nullptr;
        std::optional<Tablebase> tb;
        Ruleset rules = Ruleset::Brainking;
    };
    SearchTable search_table(const Board& b, std::optional<Ruleset> r) {
        SearchTable st;
        st.rules = r.value_or(Ruleset::Brainking);
        st.served = find(b, r);
        if (st.served) {
            st.tb = st.served->current();
            st.rules = st.served->rules;
        }
        return st;
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
        SearchTable st = search_table(parsed.board, rules);
        SearchOptions opt;
        opt.rules = st.rules;
        opt.jumps_only = param(req, "jumps_only") == "1";
        opt.max_positions = limit_param(req);
        take_slot();
        const Slot slot{search_slots};
        // The search stops at its time budget, when its client goes, when the server stops:
        // asked every 65,536 new positions (tens of milliseconds).
        Work work(*this);
        opt.progress = [&work](std::size_t) { work.check(); };
        Searcher s(parsed.board, opt, std::move(st.tb));
        try {
            return solve_json(parsed.board, search_answer(s, parsed.position), s);
        } catch (const SearchLimit& e) {
            throw HttpError(
                422, fmt::format("search limit of {} positions{} reached: {}", opt.max_positions,
                                 opt.max_positions < options.search_limit ? " (the request's)" : "",
                                 e.what()));
        } catch (const format::FormatError& e) {
            if (st.served) throw damaged(*st.served, e.what());
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

    /// GET /api/bestmove?position=TEXT[&rules=R][&time=S][&nodes=N][&depth=D][&id=ID]: the
    /// engine's decision (decision_json(), as `konane bestmove --json`) with "budget": the limits
    /// it ran under. The engine plays with the table of the board when one is loaded (its ruleset),
    /// else on any board of up to 64 squares. Its time is S seconds, 1 s when none of S, N, D
    /// is given, and never more than work_timeout (the engine then answers the best move it
    /// has: a budget reached is no error). It takes a search slot, and stops when its client
    /// goes or the server stops (503). With an id, /api/progress?id=ID shows it thinking.
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
        SearchTable st = search_table(parsed.board, rules);
        engine::EngineOptions eo;
        eo.memory_bytes = options.engine_memory;
        eo.rules = st.rules;
        eo.table = std::move(st.tb);
        ThinkingEntry entry(*this, req.has_param("id") ? id_param(req) : std::string(),
                            parsed.board);
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
            query::MoveRequest mr;
            mr.board = parsed.board;
            mr.position = parsed.position;
            mr.options = std::move(eo);
            mr.limits = limits;
            d = query::best_move(std::move(mr),
                                 [&](const engine::SearchInfo& info) { entry.update(info); });
        } catch (const format::FormatError& e) {
            if (st.served) throw damaged(*st.served, e.what());
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
        SearchTable st = search_table(parsed.board, rules);
        ProofOptions opt;
        opt.rules = st.rules;
        opt.jumps_only = param(req, "jumps_only") == "1";
        opt.memory_bytes = options.engine_memory;
        if (req.has_param("nodes")) {
            opt.max_nodes = number_param<std::uint64_t>(req, "nodes", 1, UINT64_MAX,
                                                        "a number of nodes from 1");
        }
        const bool both = param(req, "both") == "1";
        take_slot();
        const Slot slot{search_slots};
        Work work(*this);
        std::atomic<bool> stop{false};
        opt.stop = &stop;
        Watcher watcher(work, stop);
        std::optional<query::ProofAnswer> a;
        try {
            ProofSearch s(parsed.board, opt, std::move(st.tb));
            a = query::prove(s, parsed.position, both);
        } catch (const format::FormatError& e) {
            if (st.served) throw damaged(*st.served, e.what());
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
    HttpServer::Handler api(F f) {
        return [f](const httplib::Request& req, httplib::Response& res) {
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
        server.get("/api/tables", api([this](const httplib::Request&) { return tables_json(); }));
        server.get("/api/probe", api([this](const httplib::Request& r) { return probe(r); }));
        server.get("/api/solve", api([this](const httplib::Request& r) { return solve(r); }));
        server.get("/api/value", api([this](const httplib::Request& r) { return value(r); }));
        server.get("/api/bestmove", api([this](const httplib::Request& r) { return bestmove(r); }));
        server.get("/api/progress", api([this](const httplib::Request& r) { return progress(r); }));
        server.get("/api/wdl", api([this](const httplib::Request& r) { return wdl(r); }));
        server.get("/api/openings", api([this](const httplib::Request& r) { return openings(r); }));
        server.get("/api/game", api([this](const httplib::Request& r) { return game(r); }));
        server.get("/api/analyse", api([this](const httplib::Request& r) { return analyse(r); }));
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

int ApiServer::bind(const std::string& host, int port) {
    return impl_->server.bind(host, port);
}

bool ApiServer::listen() {
    return impl_->server.listen();
}

void ApiServer::stop() {
    impl_->stopping = true;
    impl_->server.stop();
}

void ApiServer::wait_until_ready() const {
    impl_->server.wait_until_ready();
}

}  // namespace konane::serve
