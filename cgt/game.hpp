// Short combinatorial games in canonical form: a store of hash-consed game nodes with sums,
// negatives, comparison, the canonical form of {L | R}, the outcome class, stops, the mean and
// temperature (thermograph), and CGSuite's notation.
//
// Source of every definition and algorithm: A. N. Siegel, "Combinatorial Game Theory" (AMS,
// 2013), ch. II: comparison by the recursive rule G <= H iff no G^L >= H and no H^R <= G
// (II.1); canonical form by deleting dominated options and bypassing reversible ones, unique
// for equal games (II.2, Theorem 2.9); Number Translation (II.3); stops and thermographs (II.5).
// Notation as CGSuite prints it (cgsuite.org): 0, 1/2, *, *2, ^ / v, ^^, ^3, ^*, 1/2^*.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cgt/dyadic.hpp"
#include "cgt/option_set_map.hpp"
#include "cgt/position_map.hpp"

namespace konane::cgt {

/// A game of a GameStore: the index of its canonical form. Two ids of one store are equal
/// exactly when the games are equal (canonical forms are unique).
using GameId = std::uint32_t;

/// The outcome class of a game (Siegel I.1): who wins under normal play.
enum class OutcomeClass : std::uint8_t {
    L,  ///< Left wins whoever starts (G > 0)
    R,  ///< Right wins whoever starts (G < 0)
    N,  ///< the first player wins (G || 0)
    P,  ///< the second player wins (G = 0)
};

/// "L", "R", "N" or "P".
const char* outcome_letter(OutcomeClass o);

/// A game's mean and temperature, read off its thermograph (Siegel II.5). For a number x the
/// mean is x and the temperature is -1/2^k for x = m/2^k with m odd (k = 0 for an integer:
/// -1), as in Siegel's Definition II.5.9.
struct Thermal {
    Rational mean;
    Rational temperature;
};

/// A wall of a thermograph: a piecewise-linear function of the temperature t on [-1, inf):
/// value v[i] at breakpoint t[i] (t increasing, t[0] = -1), linear between breakpoints, slope
/// `tail` after the last one.
struct Wall {
    std::vector<Rational> t, v;
    Rational tail;
    /// The wall's value at temperature x >= -1.
    Rational at(const Rational& x) const;
};

/// A thermograph (Siegel II.5): the left and right walls, the mean and the temperature.
struct Thermograph {
    Wall left, right;
    Thermal thermal;
};

/// Printing options.
struct FormatOptions {
    /// ^ and v for the arrows (CGSuite's plain-text spelling) instead of Unicode ↑ ⇑ ↓ ⇓.
    bool ascii = false;
};

/// Canonical short games, hash-consed by their options and memoised (sums, negatives,
/// comparisons, stops, thermographs), so that equal games share one node and equality is the
/// comparison of two ids. Not thread-safe; one store per thread.
class GameStore {
  public:
    GameStore();

    /// The game 0 = { | }.
    GameId zero() const { return 0; }
    /// The canonical form of {left | right}, the options given as games of this store (order
    /// and repeats do not matter).
    GameId make(std::vector<GameId> left, std::vector<GameId> right);
    /// The number x (a dyadic rational: its denominator a power of two; std::invalid_argument
    /// otherwise).
    GameId number(const Rational& x);
    /// The nimber *n, n >= 0.
    GameId nimber(int n);
    /// n.^ (n copies of up; n < 0 gives |n| copies of down).
    GameId up(int n);

    /// -g.
    GameId neg(GameId g);
    /// g + h (the disjunctive sum).
    GameId add(GameId g, GameId h);
    /// g - h.
    GameId sub(GameId g, GameId h) { return add(g, neg(h)); }
    /// g <= h.
    bool leq(GameId g, GameId h);
    /// g >= h, g < h, g || h (confused: neither <= nor >=).
    bool geq(GameId g, GameId h) { return leq(h, g); }
    bool less(GameId g, GameId h) { return g != h && leq(g, h); }
    bool fuzzy(GameId g, GameId h) { return !leq(g, h) && !leq(h, g); }

    /// The outcome class of g.
    OutcomeClass outcome(GameId g);

    /// g's left and right options (canonical, in increasing id order).
    const std::vector<GameId>& left(GameId g) const { return nodes_[g].left; }
    const std::vector<GameId>& right(GameId g) const { return nodes_[g].right; }
    /// The number g is, if it is one.
    std::optional<Rational> as_number(GameId g) const;
    /// n when g is the nimber *n.
    std::optional<int> as_nimber(GameId g) const;
    /// The birthday of g (the height of its canonical game tree; 0 for 0).
    int birthday(GameId g) const { return nodes_[g].birthday; }

    /// Left's and Right's stops (Siegel II.5): where the game ends when both play to a number,
    /// Left moving first / Right moving first.
    Rational left_stop(GameId g);
    Rational right_stop(GameId g);
    /// Mean and temperature from g's thermograph.
    Thermal thermal(GameId g) { return thermograph(g).thermal; }
    /// g's thermograph (memoised: the reference stays valid as long as the store).
    const Thermograph& thermograph(GameId g);

    /// g in CGSuite's notation: numbers "0", "-2", "3/4"; nimbers "*", "*2"; "^", "^^", "^3",
    /// "v", "^*", "v*3"; their sums with a number ("1/2^*"); otherwise "{A,B|C,D}" with each
    /// option written the same way (nested braces where CGSuite writes "||").
    std::string format(GameId g, const FormatOptions& o = {});

    /// Canonical games in the store (temporary forms included), and an estimate of the bytes
    /// they take with the memo tables.
    std::size_t size() const { return nodes_.size(); }
    std::size_t bytes() const;

  private:
    struct Node {
        std::vector<GameId> left, right;
        int birthday = 0;
        bool is_number = false;
        Rational value;  // when is_number
        int nimber = -1;
        bool temporary = false;  // a form make() is simplifying, not canonical
    };

    GameId intern(std::vector<GameId> left, std::vector<GameId> right);
    GameId temporary(std::vector<GameId> left, std::vector<GameId> right);
    void classify(Node& n) const;
    std::optional<std::pair<int, int>> up_star(GameId g);
    std::string format_rec(GameId g, const FormatOptions& o);

    std::vector<Node> nodes_;
    /// Option sets -> the game {left | right} equals: each canonical form's own options (the
    /// hash-consing), and the sets make() was given and simplified (a set is canonical or not,
    /// so the two kinds of key never meet).
    OptionSetMap forms_;
    PositionMap<std::uint64_t> leq_;  // (g << 32 | h) -> g <= h (1 or 0)
    PositionMap<std::uint64_t> sum_;  // (g << 32 | h), g <= h -> g + h
    // By game id (ids are dense): -g (kNoGame: not made yet), and the stops once computed.
    static constexpr GameId kNoGame = 0xFFFFFFFFu;
    struct Stops {
        Rational left, right;
        bool known = false;
    };
    std::vector<GameId> neg_;
    std::vector<Stops> stops_;
    std::unordered_map<GameId, Thermograph> thermo_;
    std::unordered_map<GameId, std::pair<int, int>> up_stars_;  // n.^ + *m -> (n, m)
    int up_star_bound_ = 0;
};

}  // namespace konane::cgt
