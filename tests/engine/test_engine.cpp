// The engine (engine/engine.hpp), its search (engine/search.hpp) and its GTP front
// (engine/gtp.hpp): every proven answer checked against the tables generated for the tests.
#include <algorithm>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "cgt/konane.hpp"
#include "core/movegen.hpp"
#include "core/notation.hpp"
#include "engine/engine.hpp"
#include "engine/gtp.hpp"
#include "engine/review.hpp"
#include "engine/search.hpp"
#include "probe/probe.hpp"
#include "search/proof.hpp"
#include "tests/table_fixture.hpp"

namespace {

using namespace konane;
using namespace konane::engine;
using konane::test::table;

/// Positions of random games on the table's board (every ply of every game, removals too),
/// those with a legal move.
std::vector<Position> random_positions(const Tablebase& t, int games, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<Position> out;
    for (int g = 0; g < games; ++g) {
        Position p = t.board().start();
        for (;;) {
            const auto moves = legal_moves(t.board(), t.rules(), p);
            if (moves.empty()) break;
            out.push_back(p);
            p = moves[rng() % moves.size()].child;
        }
    }
    return out;
}

/// True when the move from p to `child` keeps the table's verdict for the mover: from a won
/// position to a child lost for the opponent; any move from a lost position.
bool keeps_value(const Tablebase& t, Position p, Position child) {
    const auto v = t.value(p);
    REQUIRE(v);
    if (!v->win) return true;
    if (count_jumps(t.board(), child) == 0 && stage_of(t.board(), t.rules(), child) == Stage::Play)
        return true;  // the opponent has no move: won
    const auto c = t.value(child);
    REQUIRE(c);
    return !c->win;
}

/// Searches each position of `positions` that the table holds to the end with ab, checking
/// the score against the table's value and depth, the move against its verdict and the
/// principal variation for legality; returns how many were checked.
int check_to_the_end(AlphaBeta& ab, const Tablebase& t, const std::vector<Position>& positions) {
    int checked = 0;
    for (const Position p : positions) {
        const auto v = t.value(p);
        if (!v) continue;
        SearchLimits lim;
        lim.depth = 64;
        const SearchResult r = ab.search(p, lim);
        REQUIRE(r.has_move);
        INFO(format_position(t.board(), p));
        CHECK(std::abs(r.info.score) > kWinBound);
        CHECK((r.info.score > 0) == v->win);
        CHECK(kWinScore - std::abs(r.info.score) == v->depth);
        CHECK(keeps_value(t, p, r.best.child));
        // The principal variation starts with the move and is legal throughout.
        REQUIRE(!r.info.pv.empty());
        CHECK(r.info.pv.front() == r.best.move);
        Position q = p;
        for (const Move& m : r.info.pv) {
            const auto moves = legal_moves(t.board(), t.rules(), q);
            const auto it = std::find_if(moves.begin(), moves.end(),
                                         [&](const MoveChild& mc) { return mc.move == m; });
            REQUIRE(it != moves.end());
            q = it->child;
        }
        ++checked;
    }
    return checked;
}

}  // namespace

TEST_CASE("engine search: at full depth the score is the table's value and depth", "[engine]") {
    for (auto [rows, cols] : {std::pair{4, 4}, {3, 5}, {4, 5}, {5, 4}}) {
        const Tablebase& t = table(rows, cols, Ruleset::Brainking);
        INFO(t.board().name());
        AlphaBeta ab(t.board(), t.rules());
        const int checked = check_to_the_end(ab, t, random_positions(t, 30, 7 + rows * 10 + cols));
        CHECK(checked > 100);
    }
}

TEST_CASE("engine search: on several threads (Lazy SMP) the full-depth score is the table's",
          "[engine][concurrency]") {
    // The helpers share the transposition table with the main search: what they store (torn
    // writes included, which the check word refuses) must never change a proven value.
    for (auto [rows, cols] : {std::pair{4, 5}, {5, 4}}) {
        const Tablebase& t = table(rows, cols, Ruleset::Brainking);
        INFO(t.board().name());
        AlphaBeta ab(t.board(), t.rules(), Evaluation{}, SearchFeatures{}, std::size_t{1} << 20, 3);
        CHECK(ab.threads() == 3);
        const int checked = check_to_the_end(ab, t, random_positions(t, 12, 5 + rows * 10 + cols));
        CHECK(checked > 40);
    }
    // The engine on 8x8 with two threads: a legal move by nodes.
    const Board b = Board::make(8, 8);
    EngineOptions o;
    o.threads = 2;
    o.memory_bytes = std::size_t{16} << 20;
    Engine e(b, o);
    const Position p =
        legal_moves(b, o.rules, legal_moves(b, o.rules, b.start())[0].child)[0].child;
    const auto d = e.decide(p, MoveLimits{0, 50000, 0, nullptr});
    REQUIRE(d);
    const auto moves = legal_moves(b, o.rules, p);
    CHECK(std::any_of(moves.begin(), moves.end(),
                      [&](const MoveChild& m) { return m.move == d->move.move; }));
    CHECK_THROWS_AS(AlphaBeta(b, o.rules, Evaluation{}, SearchFeatures{}, 1 << 20, 0),
                    std::invalid_argument);
}

TEST_CASE("engine search: every feature switched off gives the same proven values", "[engine]") {
    const Tablebase& t = table(4, 5, Ruleset::Brainking);
    AlphaBeta plain(t.board(), t.rules(), kMobilityOnly, kPlainAlphaBeta);
    SearchFeatures aspiration;
    aspiration.aspiration = true;
    AlphaBeta asp(t.board(), t.rules(), Evaluation{100, 30, 50}, aspiration);
    for (const Position p : random_positions(t, 10, 99)) {
        const auto v = t.value(p);
        if (!v) continue;
        SearchLimits lim;
        lim.depth = 64;
        for (AlphaBeta* ab : {&plain, &asp}) {
            const SearchResult r = ab->search(p, lim);
            CHECK((r.info.score > 0) == v->win);
            CHECK(kWinScore - std::abs(r.info.score) == v->depth);
        }
    }
}

TEST_CASE("engine search: limits by nodes repeat, and a search with no move says so", "[engine]") {
    const Board b = Board::make(6, 6);
    SearchLimits lim;
    lim.nodes = 20000;
    AlphaBeta a(b, Ruleset::Brainking), c(b, Ruleset::Brainking);
    const SearchResult r1 = a.search(b.start(), lim), r2 = c.search(b.start(), lim);
    CHECK(r1.best.move == r2.best.move);
    CHECK(r1.info.nodes == r2.info.nodes);
    CHECK(r1.info.nodes <= lim.nodes);
    CHECK(r1.info.depth >= 3);
    // A lost position (no jump for Black).
    const ParsedPosition lost = parse_position("x.x./..../..../.... b");
    AlphaBeta d(lost.board, Ruleset::Brainking);
    CHECK_FALSE(d.search(lost.position, lim).has_move);
}

TEST_CASE("engine: a table's positions are played by the table's perfect move", "[engine]") {
    const Tablebase& t = table(4, 5, Ruleset::Brainking);
    EngineOptions o;
    o.table = t;
    o.memory_bytes = std::size_t{8} << 20;
    Engine e(t.board(), o);
    for (const Position p : random_positions(t, 5, 3)) {
        const auto d = e.decide(p, MoveLimits{0, 1000, 0, nullptr});
        REQUIRE(d);
        const auto v = t.value(p);
        if (!v) continue;
        if (d->source == Source::Only) continue;
        CHECK(d->source == Source::Table);
        CHECK(d->move.move == t.best_move(p)->move);
        CHECK(d->proven_win == v->win);
        CHECK(d->depth == v->depth);
    }
    // A table of another board is refused.
    EngineOptions wrong;
    wrong.table = t;
    CHECK_THROWS_AS(Engine(Board::make(5, 5), wrong), std::invalid_argument);
}

TEST_CASE("engine: without a table every move from a won position keeps it won", "[engine][slow]") {
    for (auto [rows, cols] : {std::pair{4, 4}, {4, 5}, {5, 5}, {5, 6}}) {
        const Tablebase& t = table(rows, cols, Ruleset::Brainking);
        INFO(t.board().name());
        EngineOptions o;
        o.memory_bytes = std::size_t{16} << 20;
        Engine proof(t.board(), o);  // the proof search decides these boards
        EngineOptions s = o;
        s.proof_share = 0;  // the heuristic search alone, to the end
        Engine search(t.board(), s);
        int won = 0;
        for (const Position p : random_positions(t, 8, 1000 + rows * cols)) {
            const auto v = t.value(p);
            if (!v || !v->win) continue;
            ++won;
            INFO(format_position(t.board(), p));
            const auto d1 = proof.decide(p, MoveLimits{0, 0, 0, nullptr});
            REQUIRE(d1);
            CHECK(keeps_value(t, p, d1->move.child));
            if (stage_of(t.board(), t.rules(), p) == Stage::Play && d1->source != Source::Only) {
                CHECK(d1->source == Source::Proof);
                CHECK(d1->proven_win == true);
            }
            // The heuristic search alone to the end: boards up to 25 squares (5x6's early
            // positions take it minutes).
            if (rows * cols > 25) continue;
            const auto d2 = search.decide(p, MoveLimits{0, 0, 64, nullptr});
            REQUIRE(d2);
            CHECK(keeps_value(t, p, d2->move.child));
        }
        CHECK(won > 10);
    }
}

TEST_CASE("engine: won positions are converted against random and baseline opponents", "[engine]") {
    const Tablebase& t = table(5, 5, Ruleset::Brainking);
    std::mt19937_64 rng(5);
    EngineOptions o;
    o.memory_bytes = std::size_t{16} << 20;
    Engine e(t.board(), o);
    EngineOptions bo;
    bo.baseline = true;
    Engine baseline(t.board(), bo);
    int games = 0;
    for (const Position start : random_positions(t, 6, 11)) {
        const auto v = t.value(start);
        if (!v || !v->win || stage_of(t.board(), t.rules(), start) != Stage::Play) continue;
        for (int opponent = 0; opponent < 2; ++opponent) {
            Position p = start;
            const Color us = p.to_move;
            for (;;) {
                const auto moves = legal_moves(t.board(), t.rules(), p);
                if (moves.empty()) break;
                if (p.to_move == us) {
                    p = e.decide(p, MoveLimits{0, 50000, 0, nullptr})->move.child;
                } else if (opponent == 0) {
                    p = moves[rng() % moves.size()].child;
                } else {
                    p = baseline.decide(p, MoveLimits{})->move.child;
                }
            }
            INFO(format_position(t.board(), start));
            CHECK(p.to_move != us);  // the opponent is left without a move
            ++games;
        }
    }
    CHECK(games > 20);
}

TEST_CASE("engine: a position split into regions is decided by its value, and its move wins",
          "[engine]") {
    // No proof search: every proven answer here is the value's, checked against the table.
    int by_value = 0, lost = 0;
    for (auto [rows, cols] : {std::pair{5, 5}, {4, 6}, {3, 8}}) {
        const Tablebase& t = table(rows, cols, Ruleset::Brainking);
        EngineOptions o;
        o.proof_share = 0;
        o.memory_bytes = std::size_t{16} << 20;
        Engine e(t.board(), o);
        for (const Position p : random_positions(t, 100, 11)) {
            if (stage_of(t.board(), t.rules(), p) != Stage::Play) continue;
            if (cgt::regions(t.board(), p.occ).size() < 2) continue;
            const auto d = e.decide(p, MoveLimits{0, 100000, 0, nullptr});
            REQUIRE(d);
            if (d->source == Source::Only) continue;
            const auto v = t.value(p);
            REQUIRE(v);
            INFO(format_position(t.board(), p));
            if (v->win) {
                CHECK(d->source == Source::Value);
                CHECK(d->proven_win == std::optional<bool>(true));
                CHECK(keeps_value(t, p, d->move.child));
                CHECK_FALSE(d->value.empty());
                CHECK(d->regions >= 2);
                by_value += d->source == Source::Value;
            } else {
                // A lost position is played by the search, noted as a proven loss.
                CHECK(d->source == Source::Search);
                CHECK(d->proven_win == std::optional<bool>(false));
                ++lost;
            }
        }
    }
    INFO("decided by the value: " << by_value << ", lost: " << lost);
    CHECK(by_value >= 10);
    CHECK(lost >= 3);
    // Off, the same positions go to the heuristic search.
    const Tablebase& t = table(5, 5, Ruleset::Brainking);
    EngineOptions off;
    off.proof_share = 0;
    off.values = false;
    Engine e(t.board(), off);
    for (const Position p : random_positions(t, 5, 11)) {
        const auto d = e.decide(p, MoveLimits{0, 2000, 0, nullptr});
        if (d) CHECK((d->source == Source::Search || d->source == Source::Only));
    }
}

TEST_CASE("engine: the baseline searches to depth 4 and never uses a proof", "[engine]") {
    const Board b = Board::make(8, 8);
    EngineOptions o;
    o.baseline = true;
    Engine e(b, o);
    // After the removals d5 (central) and d4, Black has several jumps.
    Position p = parse_move(b, Ruleset::Brainking, b.start(), "d5").child;
    p = parse_move(b, Ruleset::Brainking, p, "d4").child;
    REQUIRE(legal_moves(b, Ruleset::Brainking, p).size() > 1);
    const auto d = e.decide(p, MoveLimits{0.5, 0, 0, nullptr});
    REQUIRE(d);
    CHECK(d->source == Source::Search);
    CHECK(d->depth == 4);
    CHECK(d->proof_nodes == 0);
}

TEST_CASE("engine: a proven win is never thrown away on 8x8", "[engine]") {
    // Random 8x8 games down to about 30 pieces; the first position the proof search wins for
    // the side to move within its budget is played out 20 times against the baseline, whose
    // moves are varied by a random choice among its moves once in a while.
    const Board b = Board::make(8, 8);
    std::mt19937_64 rng(2026);
    std::optional<Position> won;
    ProofOptions po;
    po.memory_bytes = std::size_t{32} << 20;
    po.max_nodes = 2'000'000;
    ProofSearch ps(b, po);
    for (int g = 0; g < 50 && !won; ++g) {
        Position p = b.start();
        for (;;) {
            const auto moves = legal_moves(b, Ruleset::Brainking, p);
            if (moves.empty()) break;
            if (std::popcount(p.occ) <= 32) {
                const ProofResult r = ps.solve(p);
                if (r.win && *r.win) won = p;
                break;
            }
            p = moves[rng() % moves.size()].child;
        }
    }
    REQUIRE(won);
    EngineOptions o;
    o.memory_bytes = std::size_t{64} << 20;
    EngineOptions bo;
    bo.baseline = true;
    Engine baseline(b, bo);
    for (int game = 0; game < 20; ++game) {
        Engine e(b, o);
        Position p = *won;
        const Color us = p.to_move;
        while (!legal_moves(b, Ruleset::Brainking, p).empty()) {
            if (p.to_move == us) {
                const auto d = e.decide(p, MoveLimits{0, 300000, 0, nullptr});
                CHECK(d->source != Source::Search);  // every move proven
                p = d->move.child;
            } else {
                const auto moves = legal_moves(b, Ruleset::Brainking, p);
                p = rng() % 3 == 0 ? moves[rng() % moves.size()].child
                                   : baseline.decide(p, MoveLimits{})->move.child;
            }
        }
        CHECK(p.to_move != us);
    }
}

TEST_CASE("gtp: a scripted session with every command", "[engine][gtp]") {
    GtpOptions o;
    o.engine.memory_bytes = std::size_t{8} << 20;
    o.limits.nodes = 20000;
    o.version = "test";
    GtpSession s(o);
    CHECK(s.handle("protocol_version") == "= 2\n\n");
    CHECK(s.handle("1 name") == "=1 konane\n\n");
    CHECK(s.handle("version") == "= test\n\n");
    CHECK(s.handle("known_command genmove") == "= true\n\n");
    CHECK(s.handle("known_command fly") == "= false\n\n");
    const std::string list = s.handle("list_commands");
    for (const std::string& c : gtp_commands())
        CHECK(list.find(c) != std::string::npos);
    CHECK(s.handle("# a comment") == "");
    CHECK(s.handle("") == "");
    CHECK(s.handle("boardsize 4") == "=\n\n");
    CHECK(s.board().rows == 4);
    CHECK(s.handle("boardsize 3x5") == "=\n\n");
    CHECK(s.board().rows == 3);
    CHECK(s.board().cols == 5);
    CHECK(s.handle("boardsize 9x9") == "? unacceptable size\n\n");
    CHECK(s.handle("boardsize 4") == "=\n\n");
    CHECK(s.handle("clear_board") == "=\n\n");
    CHECK(s.handle("komi 0") == "=\n\n");
    CHECK(s.handle("time_settings 0 1 0") == "=\n\n");  // no time limit (GTP 2 §6.3)
    CHECK(s.handle("play black a4") == "=\n\n");
    CHECK(s.handle("play white a3") == "=\n\n");
    CHECK(s.handle("undo") == "=\n\n");
    CHECK(s.handle("play white B4") == "=\n\n");  // BrainKing's upper case
    const std::string g = s.handle("genmove black");
    REQUIRE(g.rfind("= ", 0) == 0);
    CHECK(s.position().to_move == Color::White);
    CHECK(s.handle("konane-source").rfind("= ", 0) == 0);
    const std::string board = s.handle("showboard");
    CHECK(board.find("white to move") != std::string::npos);
    CHECK(s.handle("time_left white 10 0") == "=\n\n");
    CHECK(s.handle("konane-nodes 30000000000") == "=\n\n");  // past the clock's 10^7
    CHECK(s.handle("konane-nodes 3000") == "=\n\n");
    CHECK(s.handle("konane-depth 3") == "=\n\n");
    CHECK(s.handle("konane-depth 0").rfind("? invalid depth", 0) == 0);
    CHECK(s.handle("konane-nodes 1.5").rfind("? invalid nodes", 0) == 0);
    CHECK(s.handle("konane-position ..xo/oxox/xoxo/oxox") == "=\n\n");
    CHECK(s.position().to_move == Color::Black);
    CHECK(s.handle("konane-position ..x./..../..../.... w") == "=\n\n");
    CHECK(s.handle("genmove white") == "= resign\n\n");  // White has no jump: lost
    CHECK(s.handle("quit") == "=\n\n");
    CHECK(s.done());
}

TEST_CASE("gtp: list_commands and known_command name every command the session answers",
          "[engine][gtp]") {
    GtpOptions o;
    o.engine.memory_bytes = std::size_t{8} << 20;
    GtpSession s(o);
    // The commands of docs/engine.md's table, each listed and known.
    const std::vector<std::string> documented = {"protocol_version",
                                                 "name",
                                                 "version",
                                                 "known_command",
                                                 "list_commands",
                                                 "boardsize",
                                                 "clear_board",
                                                 "komi",
                                                 "play",
                                                 "genmove",
                                                 "undo",
                                                 "showboard",
                                                 "time_settings",
                                                 "time_left",
                                                 "konane-position",
                                                 "konane-source",
                                                 "konane-nodes",
                                                 "konane-depth",
                                                 "quit"};
    std::string list = s.handle("list_commands");
    REQUIRE(list.rfind("= ", 0) == 0);
    list = list.substr(2, list.size() - 4);  // one name a line, without "= " and the end
    std::vector<std::string> listed;
    std::istringstream lines(list);
    for (std::string line; std::getline(lines, line);)
        listed.push_back(line);
    CHECK(listed == gtp_commands());
    for (const std::string& c : documented) {
        INFO(c);
        CHECK(std::find(listed.begin(), listed.end(), c) != listed.end());
        CHECK(s.handle("known_command " + c) == "= true\n\n");
    }
    CHECK(listed.size() == documented.size());
    // Every listed command is answered: never "unknown command" (its arguments may be wrong).
    for (const std::string& c : listed) {
        if (c == "quit") continue;
        INFO(c);
        CHECK(s.handle(c) != "? unknown command\n\n");
    }
    CHECK(s.handle("known_command konane-fly") == "= false\n\n");
    CHECK(s.handle("konane-fly") == "? unknown command\n\n");
}

TEST_CASE("gtp: komi takes any decimal number and ignores it", "[engine][gtp]") {
    GtpOptions o;
    o.engine.memory_bytes = std::size_t{8} << 20;
    GtpSession s(o);
    for (const char* komi : {"0", "-1", "6.5", "-0.5", "0.", ".5", "7.5"}) {
        INFO(komi);
        CHECK(s.handle(std::string("komi ") + komi) == "=\n\n");
    }
    for (const char* komi : {"0x10", "abc", "nan", "inf", "-inf", "1e999", "6.5.1", "--1", "e5",
                             ".", "1e", "5k", "+7", "1e2", "7.5E-1", "0x1p4", "-", "-+5"}) {
        INFO(komi);
        const std::string answer = s.handle(std::string("komi ") + komi);
        CHECK(answer.rfind("? syntax error", 0) == 0);
        CHECK(answer.find(komi) != std::string::npos);
    }
    CHECK(s.handle("komi") == "? syntax error: komi takes 1 argument\n\n");
    CHECK(s.handle("komi 1 2") == "? syntax error: komi takes 1 argument\n\n");
}

TEST_CASE("gtp: a line longer than the bound is an error answer and the session goes on",
          "[engine][gtp]") {
    // As found (hardening round 5): std::getline grew an endless line until the allocation
    // failed, then read that as the end of the input: exit 0, no answer, no message.
    GtpOptions o;
    o.engine.memory_bytes = std::size_t{8} << 20;
    GtpSession s(o);
    const std::string longest = "name" + std::string(kGtpMaxLine - 4, ' ');  // at the bound
    const std::string huge(3 * kGtpMaxLine + (1 << 17), 'x');  // past the reader's buffer too
    std::istringstream in("1 protocol_version\n" + huge + "\n" + longest + "\n" + "2 name\n" +
                          std::string(kGtpMaxLine + 1, '#') + "\nboardsize 5\nquit");
    std::ostringstream out;
    s.run(in, out);
    CHECK(out.str() ==
          "=1 2\n\n"
          "? line too long (" +
              std::to_string(huge.size()) + " bytes, at most " + std::to_string(kGtpMaxLine) +
              ")\n\n"
              "= konane\n\n"
              "=2 konane\n\n"
              "? line too long (" +
              std::to_string(kGtpMaxLine + 1) + " bytes, at most " + std::to_string(kGtpMaxLine) +
              ")\n\n"
              "=\n\n"
              "=\n\n");  // the last line, without its '\n', is read too
    CHECK(s.board().rows == 5);
    CHECK(s.done());
    // A long line at the very end, without a '\n'.
    GtpSession t(o);
    std::istringstream tail("name\n" + huge);
    std::ostringstream answers;
    t.run(tail, answers);
    CHECK(answers.str() == "= konane\n\n? line too long (" + std::to_string(huge.size()) +
                               " bytes, at most " + std::to_string(kGtpMaxLine) + ")\n\n");
}

TEST_CASE("engine: threads past the first take their own state out of the memory", "[engine]") {
    // Each thread past the first costs engine_thread_bytes(); at most half the memory goes to
    // them, and at least one thread runs.
    const std::size_t each = engine_thread_bytes();
    CHECK(each > (std::size_t{1} << 20));  // move lists and the proof search's frames
    CHECK(threads_within(std::size_t{1} << 20, 256) == 1);
    CHECK(threads_within(std::size_t{16} << 20, 256) == 1 + static_cast<int>((8 << 20) / each));
    CHECK(threads_within(std::size_t{16} << 30, 256) == 256);
    CHECK(threads_within(std::size_t{16} << 30, 4) == 4);
    CHECK(threads_within(std::size_t{16} << 30, 0) == 1);
    // An engine asked for 256 threads in 16 MiB plays within its budget.
    EngineOptions o;
    o.memory_bytes = std::size_t{16} << 20;
    o.threads = 256;
    Engine e(Board::make(6, 6), o);
    MoveLimits l;
    l.nodes = 20000;
    CHECK(e.decide(Board::make(6, 6).start(), l).has_value());
}

TEST_CASE("gtp: every number is read by the strict decimal parser", "[engine][gtp]") {
    // As found (hardening round 5): time_settings took "0x10" (16 s), hexadecimal floats and
    // "+5" through strtod, where every command-line number is decimal digits only.
    GtpOptions o;
    o.engine.memory_bytes = std::size_t{8} << 20;
    GtpSession s(o);
    for (const char* bad :
         {"0x10", "0x1p4", "1e400", "1e3", "+5", "-1", "nan", "inf", "-inf", "5s", "1,5"}) {
        INFO(bad);
        const std::string b = bad;
        for (const std::string& command :
             {"time_settings " + b + " 0 0", "time_settings 0 " + b + " 0",
              "time_settings 0 0 " + b, "time_left black " + b + " 0", "time_left white 5 " + b,
              "konane-nodes " + b, "konane-depth " + b}) {
            INFO(command);
            const std::string answer = s.handle(command);
            CHECK(answer.rfind("? invalid ", 0) == 0);
            CHECK(answer.find(b) != std::string::npos);  // the text is quoted
        }
        CHECK(s.handle("boardsize " + b) == "? unacceptable size\n\n");
    }
    // Stones and budgets are whole numbers; a board side has no leading zero.
    CHECK(s.handle("time_settings 60 5 2.5").rfind("? invalid byo-yomi stones", 0) == 0);
    CHECK(s.handle("time_left black 5 1.5").rfind("? invalid stones", 0) == 0);
    CHECK(s.handle("konane-depth 129").rfind("? invalid depth", 0) == 0);
    CHECK(s.handle("boardsize 05") == "? unacceptable size\n\n");
    // What stays accepted.
    CHECK(s.handle("time_settings 60.5 5 2") == "=\n\n");
    CHECK(s.handle("time_settings .5 0 0") == "=\n\n");
    CHECK(s.handle("time_left black 5. 0") == "=\n\n");
    CHECK(s.handle("konane-nodes 1000000000000000") == "=\n\n");
    CHECK(s.handle("konane-depth 128") == "=\n\n");
    CHECK(s.handle("boardsize 5") == "=\n\n");
}

TEST_CASE("gtp: bad input is an error answer and the session goes on", "[engine][gtp]") {
    GtpOptions o;
    o.engine.memory_bytes = std::size_t{8} << 20;
    o.limits.nodes = 5000;
    GtpSession s(o);
    CHECK(s.handle("boardsize 5") == "=\n\n");
    CHECK(s.handle("play black a2") == "? illegal move\n\n");          // not a legal removal
    CHECK(s.handle("play white a1").rfind("? illegal move", 0) == 0);  // not White's turn
    CHECK(s.handle("genmove white").rfind("? illegal move", 0) == 0);
    CHECK(s.handle("play black") == "? syntax error: play takes 2 arguments\n\n");
    CHECK(s.handle("play purple a1").rfind("? invalid color", 0) == 0);
    CHECK(s.handle("7 fly") == "?7 unknown command\n\n");
    CHECK(s.handle("undo") == "? cannot undo\n\n");
    CHECK(s.handle("time_settings -1 0 0").rfind("? invalid", 0) == 0);
    CHECK(s.handle("time_settings 1e99 0 0").rfind("? invalid", 0) == 0);
    CHECK(s.handle("time_settings nan 0 0").rfind("? invalid", 0) == 0);
    CHECK(s.handle("boardsize 100") == "? unacceptable size\n\n");
    CHECK(s.handle("boardsize x") == "? unacceptable size\n\n");
    CHECK(s.handle("konane-position xx/o").rfind("? invalid position", 0) == 0);
    CHECK(s.handle(std::string("name\x01\x02")) == "= konane\n\n");  // control characters dropped
    // The game still goes on.
    CHECK(s.handle("play black a5") == "=\n\n");
    CHECK(s.handle("genmove white").rfind("= ", 0) == 0);
}

TEST_CASE("engine review: proven mistakes are the table's, without the table", "[engine]") {
    // Random 5x5 games; each move judged by the review (no table) and by the table.
    const Tablebase& t = table(5, 5, Ruleset::Brainking);
    std::mt19937_64 rng(17);
    EngineOptions o;
    o.memory_bytes = std::size_t{16} << 20;
    int mistakes = 0, plies = 0;
    for (int g = 0; g < 6; ++g) {
        Engine e(t.board(), o);
        std::string record;
        Position p = t.board().start();
        for (;;) {
            const auto moves = legal_moves(t.board(), t.rules(), p);
            if (moves.empty()) break;
            const MoveChild& m = moves[rng() % moves.size()];
            record += (record.empty() ? "" : " ") + format_move(t.board(), m.move);
            p = m.child;
        }
        const Game game = parse_game(t.board(), t.rules(), record);
        const auto reviews = review_game(e, game, MoveLimits{0, 200000, 0, nullptr});
        REQUIRE(reviews.size() == game.moves.size());
        for (const PlyReview& r : reviews) {
            ++plies;
            const auto before = t.value(r.before);
            REQUIRE(before);
            const bool child_over = legal_moves(t.board(), t.rules(), r.played.child).empty();
            const bool after_win = child_over ? false : t.value(r.played.child)->win;
            const bool table_mistake = before->win && after_win;
            INFO(format_position(t.board(), r.before)
                 << " " << format_move(t.board(), r.played.move));
            // 5x5 is proven at once: every mistake is found, and none is invented.
            CHECK(r.proven_mistake == table_mistake);
            if (r.before_won) CHECK(*r.before_won == before->win);
            if (r.after_won) CHECK(*r.after_won == after_win);
            mistakes += table_mistake;
        }
    }
    CHECK(plies > 50);
    CHECK(mistakes > 3);
}
