// konane_engine_match: two configurations of the engine (engine/engine.hpp) played against each
// other in one process, by nodes a move (so that a run repeats), over every opening pair of a
// board with both colours: the measurements behind docs/engine.md's evaluation terms and search
// features. Prints one JSON object on stdout. Matches between engine processes over GTP are
// `konane match`'s.
//
//   konane_engine_match --board 6x6 --nodes 20000 --a-evaluation mobility=100,movable=30
//   konane_engine_match --board 8x8 --nodes 50000 --a-features tt,pvs --b-features none
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "core/movegen.hpp"
#include "core/notation.hpp"
#include "engine/engine.hpp"

namespace {

using namespace konane;
using namespace konane::engine;
using json = nlohmann::ordered_json;

struct Side {
    std::string evaluation, features;
    double proof_share = 0.5;
    bool baseline = false;
    bool no_values = false;
    int threads = 1;
    std::uint64_t nodes = 0;
};

EngineOptions options_of(const Side& s, std::size_t memory) {
    EngineOptions o;
    o.baseline = s.baseline;
    o.memory_bytes = memory;
    o.proof_share = s.proof_share;
    o.values = !s.no_values;
    o.threads = s.threads;
    if (!s.evaluation.empty()) o.evaluation = parse_evaluation(s.evaluation);
    if (!s.features.empty()) o.features = parse_features(s.features);
    return o;
}

/// Elo difference of a score fraction (logistic model), clamped away from 0 and 1.
double elo(double score) {
    score = std::clamp(score, 1e-3, 1 - 1e-3);
    return -400.0 * std::log10(1.0 / score - 1.0);
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "Two engine configurations against each other by nodes, every opening pair, "
        "both colours"};
    std::string board_text = "6x6";
    std::uint64_t nodes = 20000;
    std::string memory_text = "32";
    Side a, b;
    int rounds = 1;
    int random_plies = 0;
    std::uint64_t seed = 1;
    app.add_option("--board", board_text, "Board RxC")->capture_default_str();
    app.add_option("--nodes", nodes, "Nodes a move (both sides unless --a-nodes/--b-nodes)")
        ->capture_default_str();
    app.add_option("--a-nodes", a.nodes, "Nodes a move of A");
    app.add_option("--b-nodes", b.nodes, "Nodes a move of B");
    app.add_option("--memory-mib", memory_text, "MiB of each engine's tables")
        ->capture_default_str();
    app.add_option("--a-evaluation", a.evaluation, "A's evaluation (default: the engine's)");
    app.add_option("--b-evaluation", b.evaluation, "B's evaluation");
    app.add_option("--a-features", a.features, "A's search features");
    app.add_option("--b-features", b.features, "B's search features");
    app.add_option("--a-proof-share", a.proof_share, "A's proof share")->capture_default_str();
    app.add_option("--b-proof-share", b.proof_share, "B's proof share")->capture_default_str();
    app.add_option("--a-threads", a.threads, "A's threads (both searches; Lazy SMP)")
        ->capture_default_str();
    app.add_option("--b-threads", b.threads, "B's threads")->capture_default_str();
    app.add_flag("--a-no-values", a.no_values, "A without the CGT value as a source");
    app.add_flag("--b-no-values", b.no_values, "B without the CGT value as a source");
    app.add_flag("--a-baseline", a.baseline, "A is the baseline player");
    app.add_flag("--b-baseline", b.baseline, "B is the baseline player");
    app.add_option("--rounds", rounds, "Times every opening pair is played with each colour")
        ->capture_default_str();
    app.add_option("--random-plies", random_plies,
                   "Plies played at random after the removals (the same for both colour "
                   "assignments of a pair): varied games")
        ->capture_default_str();
    app.add_option("--seed", seed, "Seed of the random plies")->capture_default_str();
    CLI11_PARSE(app, argc, argv);
    if (!a.nodes) a.nodes = nodes;
    if (!b.nodes) b.nodes = nodes;

    const Board board = Board::parse(board_text);
    const std::size_t memory = std::stoul(memory_text) << 20;
    const Ruleset rules = Ruleset::Brainking;
    std::vector<std::pair<MoveChild, MoveChild>> openings;
    for (const MoveChild& m1 : legal_moves(board, rules, board.start()))
        for (const MoveChild& m2 : legal_moves(board, rules, m1.child))
            openings.push_back({m1, m2});

    int a_wins = 0, games = 0, a_black_wins = 0, a_black_games = 0, black_wins = 0;
    std::uint64_t a_nodes = 0, b_nodes = 0, a_moves = 0, b_moves = 0;
    int a_depth_sum = 0, a_depth_n = 0, b_depth_sum = 0, b_depth_n = 0;
    // The proof horizon: per piece count, A's decisions and those a table or proof settled
    // (the position proven won or lost for A within its budget).
    std::vector<std::uint64_t> a_decisions(65, 0), a_proven(65, 0);
    // Decisions of each side by source (engine::Source).
    std::uint64_t a_sources[5] = {}, b_sources[5] = {};
    // Per opening pair: games and wins of the side that moved first (Black after the removals,
    // unless the random plies were odd in number).
    std::vector<int> pair_games(openings.size(), 0), pair_first_wins(openings.size(), 0);
    const auto t0 = std::chrono::steady_clock::now();
    std::mt19937_64 rng(seed);
    for (int round = 0; round < rounds; ++round) {
        for (std::size_t pair = 0; pair < openings.size(); ++pair) {
            const auto& [m1, m2] = openings[pair];
            Position start = m2.child;
            for (int k = 0; k < random_plies; ++k) {
                const auto moves = legal_moves(board, rules, start);
                if (moves.size() < 2) break;
                start = moves[rng() % moves.size()].child;
            }
            for (int a_black = 1; a_black >= 0; --a_black) {
                // Fresh engines a game: each game repeats on its own.
                Engine ea(board, options_of(a, memory)), eb(board, options_of(b, memory));
                Position p = start;
                for (;;) {
                    const bool a_to_move = (p.to_move == start.to_move) == (a_black == 1);
                    Engine& e = a_to_move ? ea : eb;
                    MoveLimits lim;
                    lim.nodes = a_to_move ? a.nodes : b.nodes;
                    const auto d = e.decide(p, lim);
                    if (!d) break;
                    (a_to_move ? a_nodes : b_nodes) += d->nodes;
                    (a_to_move ? a_sources : b_sources)[static_cast<int>(d->source)] += 1;
                    if (a_to_move && d->source != Source::Only) {
                        const int pieces = std::popcount(p.occ);
                        ++a_decisions[static_cast<std::size_t>(pieces)];
                        a_proven[static_cast<std::size_t>(pieces)] += d->proven_win.has_value();
                    }
                    (a_to_move ? a_moves : b_moves) += 1;
                    if (d->source == Source::Search) {
                        (a_to_move ? a_depth_sum : b_depth_sum) += d->depth;
                        (a_to_move ? a_depth_n : b_depth_n) += 1;
                    }
                    p = d->move.child;
                }
                // The side to move has no move: it lost. "Black" below is the side to move
                // at the game's start (Black unless the random plies were odd in number).
                const bool black_won = p.to_move != start.to_move;
                const bool a_won = black_won == (a_black == 1);
                a_wins += a_won;
                black_wins += black_won;
                ++pair_games[pair];
                pair_first_wins[pair] += black_won;
                ++games;
                if (a_black) {
                    ++a_black_games;
                    a_black_wins += a_won;
                }
            }
        }
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double score = games ? static_cast<double>(a_wins) / games : 0;
    // The 95% interval of the score from its standard error over the games (each game 0 or 1).
    const double se = games ? std::sqrt(score * (1 - score) / games) : 0;
    json j;
    j["board"] = board.name();
    j["games"] = games;
    j["openings"] = openings.size();
    j["a"] = {
        {"evaluation", a.baseline ? "baseline" : evaluation_text(options_of(a, memory).evaluation)},
        {"features", a.baseline ? "baseline" : features_text(options_of(a, memory).features)},
        {"proof_share", a.proof_share},
        {"values", !a.no_values},
        {"threads", a.threads},
        {"nodes_per_move", a.nodes},
        {"mean_search_depth", a_depth_n ? static_cast<double>(a_depth_sum) / a_depth_n : 0}};
    j["b"] = {
        {"evaluation", b.baseline ? "baseline" : evaluation_text(options_of(b, memory).evaluation)},
        {"features", b.baseline ? "baseline" : features_text(options_of(b, memory).features)},
        {"proof_share", b.proof_share},
        {"values", !b.no_values},
        {"threads", b.threads},
        {"nodes_per_move", b.nodes},
        {"mean_search_depth", b_depth_n ? static_cast<double>(b_depth_sum) / b_depth_n : 0}};
    j["a_wins"] = a_wins;
    j["a_score"] = score;
    j["a_wins_as_black"] = a_black_wins;
    j["a_games_as_black"] = a_black_games;
    j["black_wins"] = black_wins;
    j["elo_a_minus_b"] = elo(score);
    j["elo_95"] = {elo(score - 1.96 * se), elo(score + 1.96 * se)};
    j["a_nodes"] = a_nodes;
    j["b_nodes"] = b_nodes;
    j["a_moves"] = a_moves;
    j["b_moves"] = b_moves;
    j["seconds"] = seconds;
    for (auto [key, counts] : {std::pair{"a_sources", a_sources}, {"b_sources", b_sources}}) {
        json src = json::object();
        for (int k = 0; k < 5; ++k)
            src[source_name(static_cast<Source>(k))] = counts[k];
        j[key] = src;
    }
    json horizon = json::object();
    for (std::size_t k = 0; k < a_decisions.size(); ++k) {
        if (a_decisions[k]) horizon[std::to_string(k)] = {a_decisions[k], a_proven[k]};
    }
    j["a_proof_horizon"] = horizon;  // pieces: [decisions, proven]
    json pairs = json::array();
    for (std::size_t k = 0; k < openings.size(); ++k) {
        pairs.push_back({{"black", format_move(board, openings[k].first.move)},
                         {"white", format_move(board, openings[k].second.move)},
                         {"games", pair_games[k]},
                         {"first_mover_wins", pair_first_wins[k]}});
    }
    j["openings_played"] = pairs;
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
}
