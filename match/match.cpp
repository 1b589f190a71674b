#include "match/match.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>

#include "core/notation.hpp"
#include "core/text.hpp"
#include "match/gtp_client.hpp"
#include "search/proof.hpp"

namespace konane::match {

namespace {

/// The end of a game, thrown from deep in a move: `loser` (0: A, 1: B) loses it.
struct GameOver {
    int loser;
    Ending ending;
    std::string reason;
};

const char* kNames[2] = {"A", "B"};

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

/// The two engines of a match, started (and restarted after a failure) as needed.
class Engines {
  public:
    explicit Engines(const MatchOptions& o) : o_(o) {}
    /// Asks the engines to quit; after a signal (interrupt_signal()) ends them instead
    /// (GtpClient::terminate()): an engine in a long genmove would not answer `quit`.
    ~Engines() {
        for (auto& c : client_)
            if (c) {
                if (interrupt_signal())
                    c->terminate();
                else
                    c->quit();
            }
    }

    /// Sends `line` to engine e, which has `timeout` seconds to answer (0: the match's); a
    /// failure of the engine ends the game, lost by e.
    GtpReply ask(int e, const std::string& line, double timeout = 0) {
        try {
            return client_[e]->command(line, timeout > 0 ? timeout : o_.timeout);
        } catch (const EngineFailure& f) {
            last_failure_[e] = client_[e]->exit_status();
            throw GameOver{e, Ending::Failed, std::string(kNames[e]) + ": " + f.what()};
        }
    }

    /// Sends `line` to engine e, which must accept it (else it loses the game, Refused).
    void order(int e, const std::string& line, double timeout = 0) {
        const GtpReply r = ask(e, line, timeout);
        if (!r.ok)
            throw GameOver{e, Ending::Refused,
                           std::string(kNames[e]) + " refused '" + excerpt(line) +
                               "': " + excerpt(printable(r.text), 80)};
    }

    /// Makes engine e ready for a new game on the match's board (started when it is not
    /// running, the board set and cleared, the clock and limits sent).
    void new_game(int e) {
        const double setup = std::max(o_.timeout, kSetupSeconds);
        if (!client_[e] || !client_[e]->alive()) {
            if (client_[e]) client_[e]->kill();
            client_[e] = std::make_unique<GtpClient>(o_.engine[e], o_.quiet);
            ++starts_[e];
            ask(e, "protocol_version", setup);
            const GtpReply n = ask(e, "name", setup);
            name_[e] = n.ok ? n.text : "";
            if (o_.nodes) limit(e, "konane-nodes", std::to_string(o_.nodes), setup);
            if (o_.depth) limit(e, "konane-depth", std::to_string(o_.depth), setup);
        }
        order(e, "boardsize " + boardsize_text(o_.board), setup);
        order(e, "clear_board", setup);
        if (o_.seconds > 0)
            ask(e, "time_settings 0 " + clock_text(o_.seconds, o_.time_unit) + " 1", setup);
    }

    /// How many times engine e was started.
    int starts(int e) const { return starts_[e]; }

    /// The answer of engine e to `name` when it last started ("" when it refused it).
    const std::string& name(int e) const { return name_[e]; }

    /// The status of engine e's process when it last failed (waitpid's), -1 if never.
    int last_failure(int e) const { return last_failure_[e]; }

  private:
    void limit(int e, const std::string& command, const std::string& value, double timeout) {
        const GtpReply known = ask(e, "known_command " + command, timeout);
        if (known.ok && known.text == "true") {
            ask(e, command + " " + value, timeout);
        } else if (!warned_[e]) {
            warned_[e] = true;
            std::fprintf(stderr,
                         "konane match: warning: engine %s does not know %s: its own limit "
                         "applies\n",
                         kNames[e], command.c_str());
        }
    }

    const MatchOptions& o_;
    std::unique_ptr<GtpClient> client_[2];
    int last_failure_[2] = {-1, -1};
    std::string name_[2];
    int starts_[2] = {0, 0};
    bool warned_[2] = {false, false};
};

}  // namespace

std::string clock_text(double seconds, TimeUnit unit) {
    char buf[32];
    switch (unit) {
        case TimeUnit::Seconds:
            std::snprintf(buf, sizeof buf, "%.0f", told_seconds(seconds, unit));
            break;
        case TimeUnit::Milliseconds:
            std::snprintf(buf, sizeof buf, "%.0f", std::round(seconds * 1000));
            break;
        case TimeUnit::Decimal:
            std::snprintf(buf, sizeof buf, "%g", seconds);
            break;
    }
    return buf;
}

double told_seconds(double seconds, TimeUnit unit) {
    // 1e-9: a time such as 3 given as 3.0000000001 by a decimal parse is still 3 s.
    return unit == TimeUnit::Seconds ? std::ceil(seconds - 1e-9) : seconds;
}

bool is_konane_name(const std::string& name) {
    return name == "konane" || name == "konane-baseline";
}

std::string boardsize_text(const Board& b) {
    return b.rows == b.cols ? std::to_string(b.rows) : b.name();
}

const char* ending_name(Ending e) {
    switch (e) {
        case Ending::NoMove:
            return "no legal move";
        case Ending::Adjudicated:
            return "adjudicated by proof";
        case Ending::Resigned:
            return "resigned";
        case Ending::Illegal:
            return "illegal move";
        case Ending::Refused:
            return "refused a command";
        case Ending::Failed:
            return "engine failure";
        case Ending::TimeLoss:
            return "loss on time";
    }
    return "?";
}

EloEstimate elo(int wins, int draws, int losses) {
    // The logistic model (Elo 1978): a rating difference D gives the expected score
    // 1 / (1 + 10^(-D/400)), so D = -400 log10(1/s - 1). The interval as cutechess-cli's
    // Elo::errorMargin computes it (github.com/cutechess/cutechess, projects/lib/src/elo.cpp):
    // the per-game scores (1, 1/2, 0) have variance v = mean of (x - s)^2, the mean's standard
    // error is sqrt(v / n), and s +- 1.96 of it (the normal approximation's 95%) is mapped
    // through the same formula.
    const double n = wins + draws + losses;
    EloEstimate e;
    if (n <= 0) return e;
    const auto diff = [](double s) {
        if (s <= 0) return -std::numeric_limits<double>::infinity();
        if (s >= 1) return std::numeric_limits<double>::infinity();
        return -400.0 * std::log10(1.0 / s - 1.0) + 0.0;  // an even score: 0, not -0
    };
    const double s = (wins + 0.5 * draws) / n;
    const double v =
        (wins * (1 - s) * (1 - s) + draws * (0.5 - s) * (0.5 - s) + losses * s * s) / n;
    const double margin = 1.959964 * std::sqrt(v / n);
    e.score = s;
    e.diff = diff(s);
    e.low = diff(s - margin);
    e.high = diff(s + margin);
    return e;
}

std::vector<std::pair<Move, Move>> opening_pairs(const Board& b, Ruleset r) {
    std::vector<std::pair<Move, Move>> out;
    for (const MoveChild& first : legal_moves(b, r, b.start()))
        for (const MoveChild& reply : legal_moves(b, r, first.child))
            out.emplace_back(first.move, reply.move);
    return out;
}

namespace {

/// Plays game g (0-based) of the match into `rec` with `engines` (and `proof` for
/// adjudication, may be null). False when the game was abandoned: a signal
/// (interrupt_signal()) or `stop` set by the match. Throws std::invalid_argument when an engine
/// cannot start.
bool play_game(const MatchOptions& o, int g, Engines& engines, ProofSearch* proof,
               const std::atomic<bool>& stop, GameRecord& rec) {
    const Board& b = o.board;
    rec = GameRecord{};
    rec.number = g + 1;
    rec.black = g % 2;  // A Black in odd-numbered games, White in even ones
    if (!o.engine_openings) {
        const auto& pair = o.openings[(static_cast<std::size_t>(g) / 2) % o.openings.size()];
        rec.opening = {pair.first, pair.second};
    }
    // The random plies' draws: one sequence per game pair, from the seed and the pair's
    // index, so both colour assignments play the same line and a rerun repeats it.
    std::seed_seq seq{static_cast<std::uint32_t>(o.seed), static_cast<std::uint32_t>(o.seed >> 32),
                      static_cast<std::uint32_t>(g / 2)};
    std::mt19937_64 rng(seq);
    const auto engine_of = [&](Color c) { return c == Color::Black ? rec.black : rec.white(); };
    Position p = b.start();
    try {
        for (int e : {rec.black, rec.white()}) {
            try {
                engines.new_game(e);
            } catch (const GameOver& over) {
                // A shell that could not run the command at all: the match cannot be
                // played, which is the user's error, not a game lost.
                const int st = engines.last_failure(e);
                if (engines.starts(e) == 1 && over.ending == Ending::Failed && st >= 0 &&
                    WIFEXITED(st) && (WEXITSTATUS(st) == 126 || WEXITSTATUS(st) == 127))
                    throw std::invalid_argument(
                        std::string("engine ") + kNames[e] + " cannot start: '" +
                        excerpt(o.engine[e], 200) + "' " +
                        (WEXITSTATUS(st) == 127 ? "(command not found: exit code 127)"
                                                : "(not executable: exit code 126)"));
                throw;
            }
        }
        rec.adjudicating =
            proof && (o.adjudication == Adjudication::On ||
                      (is_konane_name(engines.name(0)) && is_konane_name(engines.name(1))));
        for (std::size_t ply = 0;; ++ply) {
            if (stop.load()) return false;  // the match decided: the game abandoned
            const std::vector<MoveChild> legal = legal_moves(b, o.rules, p);
            if (legal.empty()) {
                rec.winner = other(p.to_move);
                rec.ending = Ending::NoMove;
                rec.reason = std::string(color_name(p.to_move)) + " has no legal move";
                break;
            }
            if (rec.adjudicating && ply >= 2 &&
                (o.adjudicate_pieces == 0 || std::popcount(p.occ) <= o.adjudicate_pieces)) {
                const ProofResult r = proof->solve(p);
                if (r.win) {
                    rec.winner = *r.win ? p.to_move : other(p.to_move);
                    rec.ending = Ending::Adjudicated;
                    rec.reason = std::string("proof: ") + color_name(p.to_move) + " to move " +
                                 (*r.win ? "wins" : "loses") + " (" + std::to_string(r.nodes) +
                                 " nodes)";
                    break;
                }
            }
            const Color c = p.to_move;
            const int mover = engine_of(c), waiter = 1 - mover;
            const std::string color = lower(color_name(c));
            // A random ply joins the runner's opening, then is played as its removals are.
            if (!o.engine_openings && ply == rec.opening.size() &&
                ply < 2 + static_cast<std::size_t>(o.random_plies))
                rec.opening.push_back(
                    legal[std::uniform_int_distribution<std::size_t>(0, legal.size() - 1)(rng)]
                        .move);
            MoveChild mc;
            if (ply < rec.opening.size()) {
                // The runner's opening removal, played on both engines.
                const std::string text = format_move(b, rec.opening[ply]);
                mc = parse_move(b, o.rules, p, text);
                engines.order(mover, "play " + color + " " + text);
            } else {
                if (o.seconds > 0)
                    engines.ask(mover, "time_left " + color + " " +
                                           clock_text(o.seconds, o.time_unit) + " 1");
                const auto asked = std::chrono::steady_clock::now();
                const GtpReply r = engines.ask(mover, "genmove " + color);
                const double took =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count();
                const std::string name = kNames[mover];
                const double allowed = told_seconds(o.seconds, o.time_unit);
                if (o.seconds > 0 && took > allowed + o.time_margin) {
                    char buf[160];
                    std::snprintf(buf, sizeof buf,
                                  " lost on time: %.3f s for 'genmove %s' (%g s + a margin "
                                  "of %.0f ms)",
                                  took, color.c_str(), allowed, o.time_margin * 1000);
                    throw GameOver{mover, Ending::TimeLoss, name + buf};
                }
                if (!r.ok)
                    throw GameOver{mover, Ending::Refused,
                                   name + " refused 'genmove " + color +
                                       "': " + excerpt(printable(r.text), 80)};
                const std::string answer = lower(r.text);
                if (answer == "resign" || answer == "pass")
                    throw GameOver{mover, Ending::Resigned,
                                   name + " " + (answer == "pass" ? "passed" : "resigned") +
                                       " with " + std::to_string(legal.size()) + " legal move" +
                                       (legal.size() == 1 ? "" : "s")};
                try {
                    mc = parse_move(b, o.rules, p, answer);
                } catch (const std::exception& ex) {
                    throw GameOver{mover, Ending::Illegal,
                                   name + " answered '" + excerpt(printable(r.text)) +
                                       "' to 'genmove " + color +
                                       "': " + excerpt(printable(ex.what()), 120)};
                }
            }
            engines.order(waiter, "play " + color + " " + format_move(b, mc.move));
            rec.moves.push_back(mc.move);
            p = mc.child;
        }
    } catch (const GameOver& over) {
        const Color loser = over.loser == rec.black ? Color::Black : Color::White;
        rec.winner = other(loser);
        rec.ending = over.ending;
        rec.reason = over.reason;
    } catch (const Interrupted&) {
        return false;  // the game abandoned, not scored
    }
    rec.final = p;
    return true;
}

}  // namespace

std::vector<GameRecord> play_match(const MatchOptions& o,
                                   const std::function<bool(const GameRecord&)>& each) {
    if (o.games < 1) throw std::invalid_argument("games: at least 1");
    if (o.concurrency < 1) throw std::invalid_argument("concurrency: at least 1");
    if (!o.engine_openings && o.openings.empty()) throw std::invalid_argument("no opening to play");
    if (o.random_plies < 0) throw std::invalid_argument("random plies: at least 0");
    if (o.random_plies > 0 && o.engine_openings)
        throw std::invalid_argument("random plies need the runner's openings, not the engines'");
    // An engine's pipe closed under a write gives EPIPE, not the end of the match.
    ::signal(SIGPIPE, SIG_IGN);
    // The games in order: game g finished by any worker waits in `done` until games 0..g-1 are
    // reported; once `each` says stop, later games are abandoned or dropped.
    std::mutex mutex;
    int next = 0, reported = 0;
    std::map<int, GameRecord> done;
    std::vector<GameRecord> games;
    std::atomic<bool> stop{false};
    std::exception_ptr error;
    const auto worker = [&] {
        try {
            std::unique_ptr<ProofSearch> proof;
            if (o.adjudicate_nodes > 0 && o.adjudication != Adjudication::Off) {
                ProofOptions po;
                po.rules = o.rules;
                po.memory_bytes = o.adjudicate_memory;
                po.max_nodes = o.adjudicate_nodes;
                proof = std::make_unique<ProofSearch>(o.board, po);
            }
            Engines engines(o);
            for (;;) {
                int g = 0;
                {
                    const std::lock_guard lock(mutex);
                    if (stop.load() || interrupt_signal() || next >= o.games) return;
                    g = next++;
                }
                GameRecord rec;
                if (!play_game(o, g, engines, proof.get(), stop, rec)) return;
                const std::lock_guard lock(mutex);
                done.emplace(g, std::move(rec));
                for (auto it = done.find(reported); it != done.end(); it = done.find(reported)) {
                    if (!stop.load()) {
                        games.push_back(std::move(it->second));
                        if (each && !each(games.back())) stop.store(true);
                    }
                    done.erase(it);
                    ++reported;
                }
            }
        } catch (...) {
            const std::lock_guard lock(mutex);
            if (!error) error = std::current_exception();
            stop.store(true);
        }
    };
    const int threads = std::min(o.concurrency, o.games);
    if (threads == 1) {
        worker();
    } else {
        std::vector<std::thread> pool;
        for (int t = 0; t < threads; ++t)
            pool.emplace_back(worker);
        for (auto& t : pool)
            t.join();
    }
    if (error) std::rethrow_exception(error);
    return games;
}

}  // namespace konane::match
