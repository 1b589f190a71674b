// `konane match ENGINE_A ENGINE_B`: two GTP engines (shell command lines, as cutechess-cli
// takes chess engines) play each other over the board's opening pairs, both colours; the score,
// the Elo difference with its 95% interval, and a record of every game. The runner:
// match/match.hpp; the engines' side: match/gtp_client.hpp; docs/match.md.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>

#include "cli/common.hpp"
#include "cli/engine_args.hpp"
#include "cli/help.hpp"
#include "cli/json.hpp"
#include "core/notation.hpp"
#include "core/text.hpp"
#include "match/gtp_client.hpp"
#include "match/match.hpp"
#include "match/sprt.hpp"
#include "process/atomic_file.hpp"
#include "process/output_path.hpp"

namespace konane::cli {

namespace {

using match::GameRecord;

struct MatchArgs {
    std::string engine_a, engine_b;
    std::string board = "8x8", rules = "brainking", openings = "all", record, time_unit = "s";
    std::uint64_t games = 0;
    double seconds = 0, timeout = 0;
    std::uint64_t nodes = 0, depth = 0, adjudicate_nodes = 200'000, adjudicate_pieces = 0, seed = 0,
                  random_plies = 0;
    bool seed_given = false;
    bool json = false, quiet = false;
    bool adjudicate = false, no_adjudicate = false;
    std::uint64_t time_margin_ms = 200;
    std::uint64_t concurrency = 1;
    std::string sprt;
};

const char* kEngineNames[2] = {"A", "B"};

/// The board of --board: RxC of at most 64 squares.
Board match_board(const std::string& text) {
    try {
        return Board::parse(text);
    } catch (const std::exception& e) {
        throw UsageError("--board '" + excerpt(text) + "': " + e.what());
    }
}

/// The opening pairs of --openings LIST: pairs separated by commas, each Black's removal and
/// White's reply separated by white space ("d5 e5,a8 b8"), checked against the rules.
std::vector<std::pair<Move, Move>> parse_openings(const Board& b, Ruleset r,
                                                  const std::string& text) {
    std::vector<std::pair<Move, Move>> out;
    std::stringstream list(text);
    for (std::string item; std::getline(list, item, ',');) {
        std::istringstream words(item);
        std::string first, second, extra;
        if (!(words >> first >> second) || (words >> extra))
            throw UsageError("--openings: '" + excerpt(item) +
                             "' is not a pair 'BLACK WHITE' of removals (pairs separated by "
                             "commas, e.g. 'd5 e5,a8 b8')");
        try {
            const MoveChild m1 = parse_move(b, r, b.start(), first);
            const MoveChild m2 = parse_move(b, r, m1.child, second);
            out.emplace_back(m1.move, m2.move);
        } catch (const std::exception& e) {
            throw UsageError("--openings: '" + excerpt(item) + "': " + e.what());
        }
    }
    if (out.empty()) throw UsageError("--openings: no opening pair given");
    return out;
}

std::string moves_text(const Board& b, const std::vector<Move>& moves) {
    std::string s;
    for (const Move& m : moves)
        s += (s.empty() ? "" : " ") + format_move(b, m);
    return s;
}

/// An Elo figure: "+58", "-3", "+inf".
std::string elo_text(double v) {
    if (std::isinf(v)) return v > 0 ? "+inf" : "-inf";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.0f", std::round(v) + 0.0);  // never "-0"
    return buf;
}

/// An Elo figure in the JSON: always a number, or null where it is unbounded (a score of 1 or
/// 0, a bound past them), so that the type is stable; never -0.
json elo_json(double v) {
    return std::isfinite(v) ? json(v + 0.0) : json(nullptr);
}

/// The bounds of --sprt ELO0,ELO1[,ALPHA,BETA]: two or four numbers separated by commas,
/// ELO0 < ELO1, ALPHA and BETA in (0, 0.5).
match::SprtBounds parse_sprt(const std::string& text) {
    std::vector<double> v;
    std::stringstream list(text);
    for (std::string item; std::getline(list, item, ',');) {
        std::size_t used = 0;
        double x = 0;
        try {
            x = std::stod(item, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (item.empty() || used != item.size() || !std::isfinite(x))
            throw UsageError("--sprt '" + excerpt(text) + "': '" + excerpt(item) +
                             "' is not a number (ELO0,ELO1[,ALPHA,BETA], e.g. 0,10)");
        v.push_back(x);
    }
    if (v.size() != 2 && v.size() != 4)
        throw UsageError("--sprt '" + excerpt(text) +
                         "': give ELO0,ELO1 or ELO0,ELO1,ALPHA,BETA (e.g. 0,10 or 0,10,0.05,0.05)");
    match::SprtBounds b;
    b.elo0 = v[0];
    b.elo1 = v[1];
    if (v.size() == 4) {
        b.alpha = v[2];
        b.beta = v[3];
    }
    if (!(b.elo0 < b.elo1))
        throw UsageError("--sprt '" + excerpt(text) + "': ELO0 must be below ELO1");
    if (!(b.alpha > 0 && b.alpha < 0.5 && b.beta > 0 && b.beta < 0.5))
        throw UsageError("--sprt '" + excerpt(text) + "': ALPHA and BETA must be in (0, 0.5)");
    return b;
}

/// One game in the record file: a PGN-like header, then the moves.
std::string record_text(const match::MatchOptions& o, const GameRecord& g) {
    const Board& b = o.board;
    std::string s;
    const auto tag = [&](const char* name, const std::string& value) {
        s += std::string("[") + name + " \"" + printable(value) + "\"]\n";
    };
    tag("Game", std::to_string(g.number));
    tag("Black", std::string(kEngineNames[g.black]) + ": " + o.engine[g.black]);
    tag("White", std::string(kEngineNames[g.white()]) + ": " + o.engine[g.white()]);
    tag("Board", b.name());
    tag("Rules", ruleset_name(o.rules));
    tag("Opening", g.opening.empty() ? "engines" : moves_text(b, g.opening));
    tag("Result", g.winner == Color::Black ? "1-0" : "0-1");
    tag("Winner", std::string(color_name(g.winner)) + " (" + kEngineNames[g.winner_engine()] + ")");
    tag("Ending", match::ending_name(g.ending));
    tag("Reason", g.reason);
    tag("Final", format_position(b, g.final));
    s += "\n" + moves_text(b, g.moves) + "\n\n";
    return s;
}

json game_json(const Board& b, const GameRecord& g) {
    json j;
    j["number"] = g.number;
    j["black"] = kEngineNames[g.black];
    j["white"] = kEngineNames[g.white()];
    j["opening"] = g.opening.empty() ? json(nullptr) : json(moves_text(b, g.opening));
    j["moves"] = moves_text(b, g.moves);
    j["winner"] = color_name(g.winner);
    j["winner_engine"] = kEngineNames[g.winner_engine()];
    j["ending"] = match::ending_name(g.ending);
    j["reason"] = g.reason;
    j["final"] = format_position(b, g.final);
    return j;
}

/// The exit status of the match, after the report of the games played: kOk; kFailed when the
/// record could not be written (`record_error`, said on stderr naming the file `record`); 128 +
/// the signal that interrupted the match.
int finish(std::size_t played, const std::string& record, const std::string& record_error) {
    if (!record_error.empty())
        std::fprintf(stderr,
                     "konane match: error: --record %s: the games were not written (%s); the "
                     "score above stands\n",
                     printable(record).c_str(), printable(record_error).c_str());
    const int sig = match::interrupt_signal();
    if (sig == 0) return record_error.empty() ? kOk : kFailed;
    std::fprintf(stderr,
                 "konane match: interrupted by signal %d: the engines ended, %zu game%s "
                 "reported\n",
                 sig, played, played == 1 ? "" : "s");
    return 128 + sig;
}

int run_match(const MatchArgs& a) {
    match::MatchOptions o;
    o.engine[0] = a.engine_a;
    o.engine[1] = a.engine_b;
    o.board = match_board(a.board);
    o.rules = parse_ruleset(a.rules);
    if (a.openings == "engine") {
        o.engine_openings = true;
    } else if (a.openings == "all") {
        o.openings = match::opening_pairs(o.board, o.rules);
        if (o.openings.empty())
            throw UsageError("board " + o.board.name() + " has no opening pair under " +
                             ruleset_name(o.rules));
    } else {
        o.openings = parse_openings(o.board, o.rules, a.openings);
    }
    if (a.seed_given) {
        std::mt19937_64 rng(a.seed);
        std::shuffle(o.openings.begin(), o.openings.end(), rng);
    }
    if (a.random_plies > 0 && o.engine_openings)
        throw UsageError(
            "--random-plies needs the runner's openings (--openings all or a list), "
            "not --openings engine");
    o.random_plies = static_cast<int>(a.random_plies);
    o.seed = a.seed;
    // By default every opening pair once with each colour (the engines' choice: 2 games).
    o.games = static_cast<int>(a.games ? a.games : 2 * std::max<std::size_t>(1, o.openings.size()));
    o.seconds = a.seconds;
    if (a.time_unit == "s") {
        o.time_unit = match::TimeUnit::Seconds;
        if (a.seconds > 0 && a.seconds != std::floor(a.seconds))
            throw UsageError("--time " + match::clock_text(a.seconds, match::TimeUnit::Decimal) +
                             " is not a whole number of seconds, which --time-unit s (the "
                             "default) sends: give --time-unit ms (whole milliseconds) or "
                             "--time-unit decimal (decimal seconds, which konane engine reads)");
    } else if (a.time_unit == "ms") {
        o.time_unit = match::TimeUnit::Milliseconds;
    } else {
        o.time_unit = match::TimeUnit::Decimal;
    }
    o.time_margin = static_cast<double>(a.time_margin_ms) / 1000;
    o.nodes = a.nodes;
    o.depth = static_cast<int>(a.depth);
    o.timeout = a.timeout > 0 ? a.timeout : a.seconds > 0 ? 10 * a.seconds + 5 : 60;
    o.adjudicate_nodes = a.adjudicate_nodes;
    o.adjudication = a.adjudicate      ? match::Adjudication::On
                     : a.no_adjudicate ? match::Adjudication::Off
                                       : match::Adjudication::Auto;
    o.adjudicate_pieces = static_cast<int>(a.adjudicate_pieces);
    o.quiet = a.quiet;
    o.concurrency = static_cast<int>(a.concurrency);
    std::optional<match::SprtBounds> sprt;
    if (!a.sprt.empty()) {
        sprt = parse_sprt(a.sprt);
        // Until the test decides, at most --games (by default 20,000: 10,000 pairs).
        if (!a.games) o.games = 20'000;
    }

    // The record: written under a temporary name and renamed when the match ends, so that a
    // failed write (a full disk) leaves no record cut mid-game; the match and its score go on,
    // and the error is reported after them (exit code 1).
    std::unique_ptr<process::AtomicFile> record;
    std::string record_error;
    if (!a.record.empty()) {
        process::check_output_path(a.record, "--record " + a.record);
        try {
            record = std::make_unique<process::AtomicFile>(a.record);
        } catch (const std::exception& e) {
            throw std::runtime_error("--record " + a.record + ": cannot be written: " + e.what());
        }
    }

    int score[2] = {0, 0};
    // The SPRT: A's points in each pair of games (2k+1, 2k+2: one opening, colours swapped).
    match::Pentanomial pairs{};
    int pair_points = 0;
    double llr = 0;
    match::SprtDecision decision = match::SprtDecision::Continue;
    // SIGINT, SIGTERM, SIGHUP: the engines ended and reaped, the games so far reported.
    match::install_interrupt_handlers();
    const auto games = match::play_match(o, [&](const GameRecord& g) {
        ++score[g.winner_engine()];
        if (!a.quiet) {
            std::fprintf(
                stderr,
                "game %d/%d: %s (black) vs %s (white), opening %s: %s wins, %s; "
                "score A %d - B %d\n",
                g.number, o.games, kEngineNames[g.black], kEngineNames[g.white()],
                g.opening.empty() ? "by the engines" : moves_text(o.board, g.opening).c_str(),
                kEngineNames[g.winner_engine()], printable(g.reason).c_str(), score[0], score[1]);
        }
        if (record && record_error.empty()) {
            try {
                const std::string text = record_text(o, g);
                record->write(text.data(), text.size());
            } catch (const std::exception& e) {
                record_error = e.what();
                record->discard();
            }
        }
        if (!sprt) return true;
        pair_points += g.winner_engine() == 0 ? 2 : 0;  // in half points; no draws in Kōnane
        if (g.number % 2 == 1) return true;
        ++pairs[static_cast<std::size_t>(pair_points)];
        pair_points = 0;
        llr = match::sprt_llr(pairs, sprt->elo0, sprt->elo1);
        decision = match::sprt_decision(llr, *sprt);
        return decision == match::SprtDecision::Continue;
    });
    if (record && record_error.empty()) {
        try {
            record->commit();
        } catch (const std::exception& e) {
            record_error = e.what();
        }
    }

    // A's wins and losses, by A's colour.
    int wins[2] = {0, 0}, losses[2] = {0, 0};  // [0] A Black, [1] A White
    std::map<std::string, int> endings;
    for (const GameRecord& g : games) {
        const int colour = g.black == 0 ? 0 : 1;
        (g.winner_engine() == 0 ? wins : losses)[colour]++;
        endings[match::ending_name(g.ending)]++;
    }
    const int w = wins[0] + wins[1], l = losses[0] + losses[1];
    const auto open = std::count_if(games.begin(), games.end(),
                                    [](const GameRecord& g) { return g.adjudicating; });
    const auto adjudicated = std::count_if(games.begin(), games.end(), [](const GameRecord& g) {
        return g.ending == match::Ending::Adjudicated;
    });
    const char* setting = o.adjudicate_nodes == 0                      ? "off"
                          : o.adjudication == match::Adjudication::On  ? "on"
                          : o.adjudication == match::Adjudication::Off ? "off"
                                                                       : "auto";
    const match::EloEstimate e = match::elo(w, 0, l);

    if (a.json) {
        json j;
        j["board"] = o.board.name();
        j["rules"] = ruleset_name(o.rules);
        j["engines"] = {{"A", o.engine[0]}, {"B", o.engine[1]}};
        j["games_played"] = games.size();
        j["score"] = {{"A", w},
                      {"B", l},
                      {"A_as_black", {{"wins", wins[0]}, {"losses", losses[0]}}},
                      {"A_as_white", {{"wins", wins[1]}, {"losses", losses[1]}}},
                      {"fraction", e.score}};
        j["elo"] = {{"diff", elo_json(e.diff)},
                    {"low", elo_json(e.low)},
                    {"high", elo_json(e.high)},
                    {"confidence", 0.95}};
        j["endings"] = endings;
        if (sprt) {
            std::uint64_t n = 0;
            for (auto c : pairs)
                n += c;
            j["sprt"] = {{"elo0", sprt->elo0},
                         {"elo1", sprt->elo1},
                         {"alpha", sprt->alpha},
                         {"beta", sprt->beta},
                         {"llr", llr},
                         {"lower", sprt->lower()},
                         {"upper", sprt->upper()},
                         {"decision", match::sprt_decision_name(decision)},
                         {"pairs", n},
                         {"pentanomial", pairs}};
        }
        j["adjudication"] = {{"setting", setting},
                             {"nodes", o.adjudicate_nodes},
                             {"games_open", open},
                             {"games_adjudicated", adjudicated}};
        json list = json::array();
        for (const GameRecord& g : games)
            list.push_back(game_json(o.board, g));
        j["games"] = list;
        std::printf("%s\n", dump(j).c_str());
        return finish(games.size(), a.record, record_error);
    }
    std::printf("match: %d games on %s (%s)\n", static_cast<int>(games.size()),
                o.board.name().c_str(), ruleset_name(o.rules));
    std::printf("A: %s\nB: %s\n", printable(o.engine[0]).c_str(), printable(o.engine[1]).c_str());
    std::printf("score of A: %d wins, %d losses (%.1f%%)\n", w, l, 100 * e.score);
    std::printf("  A as Black: %d wins, %d losses\n", wins[0], losses[0]);
    std::printf("  A as White: %d wins, %d losses\n", wins[1], losses[1]);
    std::printf("Elo difference of A: %s (95%% interval %s .. %s)\n", elo_text(e.diff).c_str(),
                elo_text(e.low).c_str(), elo_text(e.high).c_str());
    std::printf("endings:");
    bool first = true;
    for (const auto& [name, count] : endings) {
        std::printf("%s %s %d", first ? "" : ",", name.c_str(), count);
        first = false;
    }
    std::printf("\n");
    if (open == 0) {
        std::printf("adjudication: none (%s)\n",
                    std::string(setting) == "auto"
                        ? "auto: not both engines are konane engine; --adjudicate turns it on"
                        : "off");
    } else {
        std::printf("adjudication: %s, %d of %d games open to it, %d adjudicated by proof\n",
                    setting, static_cast<int>(open), static_cast<int>(games.size()),
                    static_cast<int>(adjudicated));
    }
    if (sprt) {
        std::uint64_t n = 0;
        for (auto c : pairs)
            n += c;
        std::printf(
            "sprt: elo0 %g, elo1 %g, alpha %g, beta %g: LLR %.3f (bounds %.3f .. %.3f), "
            "%s after %llu pairs; pentanomial %llu %llu %llu %llu %llu\n",
            sprt->elo0, sprt->elo1, sprt->alpha, sprt->beta, llr, sprt->lower(), sprt->upper(),
            decision == match::SprtDecision::H1   ? "H1 accepted"
            : decision == match::SprtDecision::H0 ? "H0 accepted"
                                                  : "undecided",
            static_cast<unsigned long long>(n), static_cast<unsigned long long>(pairs[0]),
            static_cast<unsigned long long>(pairs[1]), static_cast<unsigned long long>(pairs[2]),
            static_cast<unsigned long long>(pairs[3]), static_cast<unsigned long long>(pairs[4]));
    }
    return finish(games.size(), a.record, record_error);
}

}  // namespace

void add_match_command(CLI::App& app, Commands& out) {
    auto a = std::make_shared<MatchArgs>();
    auto* cmd = app.add_subcommand(
        "match",
        "Two GTP engines (shell command lines) play each other over the board's opening pairs, "
        "both colours: the score, the Elo difference and a record of every game (docs/match.md)");
    cmd->add_option("ENGINE_A", a->engine_a, "Shell command line that starts engine A")
        ->required()
        ->check(non_empty());
    cmd->add_option("ENGINE_B", a->engine_b, "Shell command line that starts engine B")
        ->required()
        ->check(non_empty());
    cmd->add_option("--board", a->board, "Board RxC (at most 64 squares)")
        ->capture_default_str()
        ->check(non_empty());
    cmd->add_option("--rules", a->rules, "Opening ruleset (brainking, center, any)")
        ->capture_default_str()
        ->check(non_empty());
    cmd->add_option("--games", a->games,
                    "Games to play (default: every opening pair with each colour)")
        ->check(decimal(1, 1'000'000));
    cmd->add_option("--time", a->seconds,
                    "Seconds a move, sent to the engines as a byo-yomi clock (time_settings 0 S "
                    "1, time_left COLOR S 1 before each genmove; S written as --time-unit says)")
        ->check(decimal_fraction(0.001, kMaxSeconds));
    cmd->add_option("--time-unit", a->time_unit,
                    "How --time is written in time_settings and time_left: s (whole seconds, "
                    "GTP's integers; --time must then be whole), ms (whole milliseconds, for an "
                    "agent that reads them so), decimal (decimal seconds, e.g. 0.2)")
        ->capture_default_str()
        ->check(CLI::IsMember({"s", "ms", "decimal"}));
    cmd->add_option("--timemargin", a->time_margin_ms,
                    "Milliseconds a move may take past --time before its engine loses the game "
                    "on time (as cutechess-cli's timemargin)")
        ->capture_default_str()
        ->check(decimal(0, 3'600'000));
    cmd->add_option("--nodes", a->nodes,
                    "Nodes a move, sent as konane-nodes N to an engine that knows it (else its "
                    "own command line's limit applies)")
        ->check(decimal(1, kMaxNodes));
    cmd->add_option("--depth", a->depth,
                    "Depth a move, sent as konane-depth D to an engine that knows it")
        ->check(decimal(1, 128));
    cmd->add_option("--timeout", a->timeout,
                    "Seconds an engine may take for one answer before it loses the game "
                    "(default 10 x --time + 5, else 60; setting up a game: at least 30)")
        ->check(decimal_fraction(0.01, kMaxSeconds));
    cmd->add_option("--openings", a->openings,
                    "all (every pair of Black's removal and White's reply, in turn), engine "
                    "(the engines choose), or a list of pairs 'd5 e5,a8 b8'")
        ->capture_default_str()
        ->check(non_empty());
    cmd->add_option("--adjudicate-nodes", a->adjudicate_nodes,
                    "Proof-search nodes per position: a position proven won or lost ends the "
                    "game (0: no adjudication)")
        ->capture_default_str()
        ->check(decimal(0, kMaxNodes));
    auto* on = cmd->add_flag("--adjudicate", a->adjudicate,
                             "Adjudicate by proof whatever the engines (default: only when both "
                             "are konane engine, by their GTP name)");
    cmd->add_flag("--no-adjudicate", a->no_adjudicate, "Never adjudicate: every game played out")
        ->excludes(on);
    cmd->add_option("--adjudicate-pieces", a->adjudicate_pieces,
                    "Adjudicate only positions of at most this many pieces (0: every position)")
        ->capture_default_str()
        ->check(decimal(0, 64));
    cmd->add_option("--random-plies", a->random_plies,
                    "Plies played at random after each opening pair, the same line for both "
                    "colours of the pair (drawn from --seed): varied games")
        ->capture_default_str()
        ->check(decimal(0, 1000));
    cmd->add_option("--concurrency", a->concurrency,
                    "Games played at once, each by its own engine processes (results in game "
                    "order; game N's opening and colours whichever plays it)")
        ->capture_default_str()
        ->check(decimal(1, 256));
    cmd->add_option("--sprt", a->sprt,
                    "ELO0,ELO1[,ALPHA,BETA]: stop when the SPRT over colour-swapped game pairs "
                    "(pentanomial, as fishtest) accepts H0 (A is ELO0 Elo stronger) or H1 "
                    "(ELO1); ALPHA and BETA default to 0.05; --games then defaults to 20000")
        ->check(non_empty());
    cmd->add_option("--record", a->record, "Write every game to FILE (PGN-like text)")
        ->check(non_empty());
    cmd->add_option("--seed", a->seed,
                    "Shuffle the openings' order with this seed; it also draws the random plies "
                    "(default 0 for them)")
        ->check(decimal(0, UINT64_MAX));
    cmd->add_flag("--json", a->json, "JSON output");
    cmd->add_flag("-q,--quiet", a->quiet, "No progress lines; the engines' stderr to /dev/null");
    cmd->preparse_callback([a](std::size_t) { a->seed_given = false; });
    cmd->callback([a, cmd] { a->seed_given = cmd->count("--seed") > 0; });
    help_footer(cmd,
                {"konane match 'konane engine -q --time 1' 'konane engine -q --baseline' "
                 "--board 8x8 --games 200 --time 1 --random-plies 4 --seed 49",
                 "konane match 'konane engine -q --nodes 20000' 'konane engine -q --baseline' "
                 "--board 5x5 --record games.txt",
                 "konane match ./my_agent 'konane engine -q --depth 6' --board 6x6 --openings "
                 "'c4 c3,a6 b6' --json",
                 "konane match 'python3 examples/random_agent.py' 'konane engine -q' --board 6x6 "
                 "--time 1 --concurrency 4",
                 "konane match 'konane engine -q --nodes 40000' 'konane engine -q --nodes 20000' "
                 "--board 6x6 --no-adjudicate --random-plies 4 --sprt 0,20 --concurrency 2",
                 "konane match ./my_agent 'konane engine -q' --board 6x6 --time 2 --timemargin "
                 "100"},
                false);
    out.push_back({cmd, [a] { return run_match(*a); }});
}

}  // namespace konane::cli
