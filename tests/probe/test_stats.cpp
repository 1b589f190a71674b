// Win/loss statistics of a table (format/stats.hpp, `konane info --stats`): per layer, wins +
// losses = classes and the depth histogram sums to classes, and every count agrees with probing
// every stored position through the probe library.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "format/stats.hpp"
#include "probe/probe.hpp"
#include "tests/cli_helpers.hpp"
#include "tests/table_fixture.hpp"

using namespace konane;

namespace {

std::uint64_t sum(const std::vector<std::uint64_t>& v) {
    return std::accumulate(v.begin(), v.end(), std::uint64_t{0});
}

}  // namespace

TEST_CASE("layer statistics agree with the layer table and with probing every position",
          "[stats]") {
    for (const auto& [rows, cols] : {std::pair{4, 4}, std::pair{4, 5}}) {
        CAPTURE(rows, cols);
        const Tablebase& tb = test::table(rows, cols, Ruleset::Brainking);
        const format::Table& t = tb.table();
        const std::vector<format::LayerStats> stats = format::table_stats(t);
        REQUIRE(stats.size() == t.layers().size());
        std::uint64_t wins_all = 0;
        for (std::size_t i = 0; i < stats.size(); ++i) {
            const format::LayerStats& s = stats[i];
            const format::LayerInfo& l = t.layers()[i];
            CAPTURE(l.pieces);
            CHECK(s.pieces == l.pieces);
            CHECK(s.classes == l.classes);
            CHECK(s.raw == l.raw);
            CHECK(s.wins + s.losses == s.classes);
            CHECK(sum(s.depth_counts) == s.classes);
            // The histogram has no trailing zero: its last entry is the greatest depth.
            REQUIRE_FALSE(s.depth_counts.empty());
            CHECK(s.depth_counts.back() > 0);

            // Every stored position, probed one by one through the probe library.
            std::vector<std::uint64_t> keys;
            t.read_keys(i, keys);
            REQUIRE(keys.size() == s.classes);
            std::vector<std::uint64_t> hist(s.depth_counts.size(), 0);
            std::uint64_t wins = 0, losses = 0;
            for (const std::uint64_t k : keys) {
                const auto v = tb.lookup(position_of_key(k));
                REQUIRE(v.has_value());
                REQUIRE(v->depth >= 0);
                REQUIRE(static_cast<std::size_t>(v->depth) < hist.size());
                ++hist[static_cast<std::size_t>(v->depth)];
                ++(v->win ? wins : losses);
            }
            CHECK(hist == s.depth_counts);
            CHECK(wins == s.wins);
            CHECK(losses == s.losses);
            wins_all += wins;
        }
        // A Kōnane table holds both wins and losses (the positions without a move are losses).
        CHECK(wins_all > 0);
    }
}

TEST_CASE("layer statistics refuse a layer the table does not have", "[stats]") {
    const format::Table& t = test::table(4, 4, Ruleset::Brainking).table();
    CHECK_THROWS_AS(format::layer_stats(t, t.layers().size()), std::out_of_range);
}

TEST_CASE("cli: info --stats, as text and JSON, gives the library's counts", "[stats][cli]") {
    const std::string file = test::table_file(4, 5, Ruleset::Brainking).string();
    const format::Table& t = test::table(4, 5, Ruleset::Brainking).table();
    const std::vector<format::LayerStats> stats = format::table_stats(t);

    const auto r = test::run("info " + test::quote(file) + " --stats --json");
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    REQUIRE(j["layers"].size() == stats.size());
    std::uint64_t classes = 0, wins = 0, losses = 0;
    std::vector<std::uint64_t> all;
    for (std::size_t i = 0; i < stats.size(); ++i) {
        const auto& l = j["layers"][i];
        CHECK(l["pieces"] == stats[i].pieces);
        CHECK(l["wins"] == stats[i].wins);
        CHECK(l["losses"] == stats[i].losses);
        CHECK(l["depths"].get<std::vector<std::uint64_t>>() == stats[i].depth_counts);
        CHECK(l["wins"].get<std::uint64_t>() + l["losses"].get<std::uint64_t>() ==
              l["classes"].get<std::uint64_t>());
        classes += stats[i].classes;
        wins += stats[i].wins;
        losses += stats[i].losses;
        all.resize(std::max(all.size(), stats[i].depth_counts.size()), 0);
        for (std::size_t d = 0; d < stats[i].depth_counts.size(); ++d)
            all[d] += stats[i].depth_counts[d];
    }
    CHECK(j["totals"]["classes"] == classes);
    CHECK(j["totals"]["classes"] == j["positions"]["classes"]);
    CHECK(j["totals"]["wins"] == wins);
    CHECK(j["totals"]["losses"] == losses);
    CHECK(j["totals"]["depths"].get<std::vector<std::uint64_t>>() == all);

    // Without --stats, no statistics (and no decoding of the values).
    const auto plain = test::run("info " + test::quote(file) + " --json");
    REQUIRE(plain.code == 0);
    CHECK_FALSE(nlohmann::json::parse(plain.out).contains("totals"));

    // The text form: a row per layer with its wins, losses and depth:classes pairs, and a total.
    const auto text = test::run("info " + test::quote(file) + " --stats");
    REQUIRE(text.code == 0);
    const format::LayerStats& top = stats.back();
    std::string pairs;
    for (std::size_t d = 0; d < top.depth_counts.size(); ++d)
        if (top.depth_counts[d] != 0)
            pairs += (pairs.empty() ? "" : " ") + std::to_string(d) + ":" +
                     std::to_string(top.depth_counts[d]);
    CHECK_THAT(text.out, Catch::Contains("depth:classes"));
    CHECK_THAT(text.out, Catch::Contains(pairs));
    CHECK_THAT(text.out, Catch::Contains("   all "));
}
