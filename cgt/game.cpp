// Short games in canonical form. Algorithms: Siegel, "Combinatorial Game Theory" (2013), ch. II
// (see game.hpp).
#include "cgt/game.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace konane::cgt {

const char* outcome_letter(OutcomeClass o) {
    switch (o) {
        case OutcomeClass::L:
            return "L";
        case OutcomeClass::R:
            return "R";
        case OutcomeClass::N:
            return "N";
        case OutcomeClass::P:
            return "P";
    }
    return "?";
}

GameStore::GameStore() {
    intern({}, {});  // id 0: the game 0
}

std::size_t GameStore::bytes() const {
    std::size_t b = nodes_.capacity() * sizeof(Node);
    for (const Node& n : nodes_)
        b += (n.left.capacity() + n.right.capacity()) * sizeof(GameId);  // (keys: forms_)
    b += forms_.bytes() + leq_.bytes() + sum_.bytes() + neg_.capacity() * sizeof(GameId);
    b += stops_.capacity() * sizeof(Stops) + thermo_.size() * 256;
    return b;
}

// A node is classified once, when it is interned; its options are canonical nodes already.
void GameStore::classify(Node& n) const {
    int b = 0;
    for (GameId g : n.left)
        b = std::max(b, nodes_[g].birthday + 1);
    for (GameId g : n.right)
        b = std::max(b, nodes_[g].birthday + 1);
    n.birthday = b;
    // Numbers in canonical form (Siegel II.3): 0 = { | }, n + 1 = {n | } for an integer n >= 0,
    // -(n + 1) = { | -n}, and (2m+1)/2^(k+1) = {m/2^k | (m+1)/2^k}. A canonical {a | b} with
    // numbers a < b is a number (the simplest between them), so it is that number's form.
    if (n.left.empty() && n.right.empty()) {
        n.is_number = true;
        n.value = 0;
        n.nimber = 0;
        return;
    }
    if (n.left.size() == 1 && n.right.empty() && nodes_[n.left[0]].is_number &&
        nodes_[n.left[0]].value.is_integer() && nodes_[n.left[0]].value >= 0) {
        n.is_number = true;
        n.value = nodes_[n.left[0]].value + 1;
        return;
    }
    if (n.right.size() == 1 && n.left.empty() && nodes_[n.right[0]].is_number &&
        nodes_[n.right[0]].value.is_integer() && nodes_[n.right[0]].value <= 0) {
        n.is_number = true;
        n.value = nodes_[n.right[0]].value - 1;
        return;
    }
    if (n.left.size() == 1 && n.right.size() == 1 && nodes_[n.left[0]].is_number &&
        nodes_[n.right[0]].is_number && nodes_[n.left[0]].value < nodes_[n.right[0]].value) {
        n.is_number = true;
        n.value = (nodes_[n.left[0]].value + nodes_[n.right[0]].value) * Rational(1, 2);
        return;
    }
    // Nimbers: *k = {0, *, ..., *(k-1) | 0, *, ..., *(k-1)}.
    if (n.left == n.right) {
        std::vector<bool> seen(n.left.size(), false);
        bool ok = true;
        for (GameId g : n.left) {
            const int k = nodes_[g].nimber;
            if (k < 0 || k >= static_cast<int>(seen.size()) || seen[k]) {
                ok = false;
                break;
            }
            seen[k] = true;
        }
        if (ok) n.nimber = static_cast<int>(n.left.size());
    }
}

GameId GameStore::intern(std::vector<GameId> left, std::vector<GameId> right) {
    if (const GameId* known = forms_.find(left, right)) return *known;
    if (nodes_.size() >= 0xFFFFFFF0u) throw std::length_error("game store full (2^32 games)");
    const auto id = static_cast<GameId>(nodes_.size());
    Node n;
    n.left = std::move(left);
    n.right = std::move(right);
    classify(n);
    nodes_.push_back(std::move(n));
    forms_.insert(nodes_.back().left, nodes_.back().right, id);
    return id;
}

GameId GameStore::temporary(std::vector<GameId> left, std::vector<GameId> right) {
    Node n;
    n.left = std::move(left);
    n.right = std::move(right);
    n.nimber = -1;  // never classified: compared by the general rule only
    n.temporary = true;
    const auto id = static_cast<GameId>(nodes_.size());
    nodes_.push_back(std::move(n));
    return id;
}

namespace {

void sort_unique(std::vector<GameId>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
}

// The simplest number strictly between a and b (a < b; either may be absent: -inf / +inf)
// (Siegel II.3, the Simplicity Theorem): an integer if one lies between, the one nearest 0;
// otherwise the dyadic of least denominator.
Rational simplest_between(const std::optional<Rational>& a, const std::optional<Rational>& b) {
    auto floor_of = [](const Rational& x) {
        std::int64_t q = x.num() / x.den();
        if (x.num() < 0 && q * x.den() != x.num()) --q;
        return q;
    };
    auto ceil_of = [&](const Rational& x) { return -floor_of(-x); };
    if ((!a || *a < 0) && (!b || *b > 0)) return 0;
    if (!b) return floor_of(*a) + 1;
    if (!a) return ceil_of(*b) - 1;
    if (*a >= 0) {
        const std::int64_t n = floor_of(*a) + 1;
        if (Rational(n) < *b) return n;
    } else {
        const std::int64_t n = ceil_of(*b) - 1;
        if (Rational(n) > *a) return n;
    }
    for (std::int64_t d = 2;; d *= 2) {
        const std::int64_t m = floor_of(*a * Rational(d)) + 1;
        const Rational x(m, d);
        if (x < *b) return x;
        if (d > (std::int64_t{1} << 60)) throw std::overflow_error("no dyadic number between");
    }
}

}  // namespace

GameId GameStore::make(std::vector<GameId> left, std::vector<GameId> right) {
    sort_unique(left);
    sort_unique(right);
    // A canonical form already made, or option sets met before and simplified then (the same
    // values among a position's children recur across many positions): the sets as given are
    // kept aside only when the memo does not hold them.
    if (const GameId* known = forms_.find(left, right)) return *known;
    const std::vector<GameId> given_left = left, given_right = right;
    // Every option a number: the game is the simplest number between the largest left and the
    // least right option when that one is the smaller (Siegel II.3).
    {
        std::optional<Rational> a, b;
        bool numbers = true;
        for (GameId g : left) {
            if (!nodes_[g].is_number) {
                numbers = false;
                break;
            }
            if (!a || nodes_[g].value > *a) a = nodes_[g].value;
        }
        for (GameId g : right) {
            if (!numbers || !nodes_[g].is_number) {
                numbers = false;
                break;
            }
            if (!b || nodes_[g].value < *b) b = nodes_[g].value;
        }
        if (numbers && (!a || !b || *a < *b)) {
            const GameId x = number(simplest_between(a, b));
            forms_.insert(given_left, given_right, x);
            return x;
        }
    }
    // G itself, as given, for the reversibility tests: deleting dominated options and
    // bypassing reversible ones keep G's value, so the tests against this form stay right.
    const GameId g = temporary(left, right);
    for (bool changed = true; changed;) {
        changed = false;
        // The comparisons below are mostly memoised, each look-up a cache miss: their slots
        // are asked of memory together first.
        auto prefetch_pairs = [&](const std::vector<GameId>& opts, bool is_left) {
            for (GameId a : opts)
                for (GameId b : opts)
                    if (a != b)
                        leq_.prefetch(is_left ? (std::uint64_t{a} << 32) | b
                                              : (std::uint64_t{b} << 32) | a);
        };
        prefetch_pairs(left, true);
        prefetch_pairs(right, false);
        // Dominated options (Siegel II.2.4): a left option <= another, a right option >=
        // another. Options are canonical and distinct, so <= both ways never happens.
        auto drop_dominated = [&](std::vector<GameId>& opts, bool is_left) {
            std::vector<GameId> keep;
            for (GameId a : opts) {
                bool dominated = false;
                for (GameId b : opts) {
                    if (a != b && (is_left ? leq(a, b) : leq(b, a))) {
                        dominated = true;
                        break;
                    }
                }
                if (!dominated) keep.push_back(a);
            }
            if (keep.size() != opts.size()) opts = std::move(keep);
        };
        drop_dominated(left, true);
        drop_dominated(right, false);
        // Reversible options (Siegel II.2.5): a left option A with a right option A^R <= G is
        // replaced by A^R's left options; a right option B with B^L >= G by B^L's right ones.
        for (std::size_t i = 0; i < left.size() && !changed; ++i) {
            const std::vector<GameId> ar = nodes_[left[i]].right;
            for (GameId x : ar) {
                if (leq(x, g)) {
                    std::vector<GameId> repl = nodes_[x].left;
                    left.erase(left.begin() + static_cast<std::ptrdiff_t>(i));
                    left.insert(left.end(), repl.begin(), repl.end());
                    sort_unique(left);
                    changed = true;
                    break;
                }
            }
        }
        for (std::size_t i = 0; i < right.size() && !changed; ++i) {
            const std::vector<GameId> bl = nodes_[right[i]].left;
            for (GameId x : bl) {
                if (leq(g, x)) {
                    std::vector<GameId> repl = nodes_[x].right;
                    right.erase(right.begin() + static_cast<std::ptrdiff_t>(i));
                    right.insert(right.end(), repl.begin(), repl.end());
                    sort_unique(right);
                    changed = true;
                    break;
                }
            }
        }
    }
    // The temporary form is not used again: free its options (its memoised comparisons stay,
    // harmless, as nothing asks for them).
    nodes_[g].left = {};
    nodes_[g].right = {};
    // Options already canonical are interned as they are; the others are remembered too.
    const bool as_given = left == given_left && right == given_right;
    const GameId result = intern(std::move(left), std::move(right));
    if (!as_given) forms_.insert(given_left, given_right, result);
    return result;
}

GameId GameStore::number(const Rational& x) {
    if ((x.den() & (x.den() - 1)) != 0)
        throw std::invalid_argument("not a dyadic rational: " + x.str());
    if (x == 0) return zero();
    if (x.is_integer()) {
        GameId g = zero();
        const std::int64_t n = x.num() < 0 ? -x.num() : x.num();
        for (std::int64_t i = 0; i < n; ++i)
            g = x.num() > 0 ? intern({g}, {}) : intern({}, {g});
        return g;
    }
    const Rational step(1, x.den());
    return intern({number(x - step)}, {number(x + step)});
}

GameId GameStore::nimber(int n) {
    if (n < 0) throw std::invalid_argument("nimber *n needs n >= 0");
    std::vector<GameId> opts;
    GameId g = zero();
    for (int k = 0; k < n; ++k) {
        opts.push_back(g);
        g = intern(opts, opts);
    }
    return g;
}

GameId GameStore::up(int n) {
    if (n < 0) return neg(up(-n));
    const GameId one = intern({zero()}, {nimber(1)});  // ^ = {0 | *}
    GameId g = zero();
    for (int k = 0; k < n; ++k)
        g = add(g, one);
    return g;
}

GameId GameStore::neg(GameId g) {
    if (g == zero()) return g;
    if (g < neg_.size() && neg_[g] != kNoGame) return neg_[g];
    std::vector<GameId> l, r;
    const std::vector<GameId> gl = nodes_[g].left, gr = nodes_[g].right;
    for (GameId x : gr)
        l.push_back(neg(x));
    for (GameId x : gl)
        r.push_back(neg(x));
    sort_unique(l);
    sort_unique(r);
    const GameId n = intern(std::move(l), std::move(r));  // -G of a canonical G is canonical
    if (std::max(g, n) >= neg_.size())
        neg_.resize(std::max<std::size_t>(nodes_.size(), std::max(g, n) + 1), kNoGame);
    neg_[g] = n;
    neg_[n] = g;
    return n;
}

GameId GameStore::add(GameId g, GameId h) {
    if (g == zero()) return h;
    if (h == zero()) return g;
    if (nodes_[g].is_number && nodes_[h].is_number)
        return number(nodes_[g].value + nodes_[h].value);
    if (g > h) std::swap(g, h);
    const std::uint64_t key = (std::uint64_t{g} << 32) | h;
    if (const GameId* known = sum_.find(key)) return *known;
    std::vector<GameId> l, r;
    const std::vector<GameId> gl = nodes_[g].left, gr = nodes_[g].right;
    const std::vector<GameId> hl = nodes_[h].left, hr = nodes_[h].right;
    // Number Translation (Siegel II.3): x + H = {x + H^L | x + H^R} for a number x and a game
    // H that is not one; otherwise G + H = {G^L + H, G + H^L | G^R + H, G + H^R}.
    const bool g_num = nodes_[g].is_number, h_num = nodes_[h].is_number;
    if (!g_num)
        for (GameId x : gl)
            l.push_back(add(x, h));
    if (!h_num)
        for (GameId x : hl)
            l.push_back(add(g, x));
    if (!g_num)
        for (GameId x : gr)
            r.push_back(add(x, h));
    if (!h_num)
        for (GameId x : hr)
            r.push_back(add(g, x));
    const GameId s = make(std::move(l), std::move(r));
    sum_.insert(key, s);
    return s;
}

bool GameStore::leq(GameId g, GameId h) {
    if (g == h) return true;
    if (nodes_[g].is_number && nodes_[h].is_number) return nodes_[g].value <= nodes_[h].value;
    // A number against a game that is not one, by the stops (Siegel II.5, Theorem 5.? "a number
    // x with x < R(H) is < H, with x > L(H) is > H"); equal stops leave it open.
    // (Only for canonical forms: a temporary form of make() may lack options on one side.)
    if (nodes_[g].is_number && !nodes_[h].temporary) {
        if (nodes_[g].value < right_stop(h)) return true;
        if (nodes_[g].value > left_stop(h)) return false;
    } else if (nodes_[h].is_number && !nodes_[g].temporary) {
        if (left_stop(g) < nodes_[h].value) return true;
        if (right_stop(g) > nodes_[h].value) return false;
    }
    const std::uint64_t key = (std::uint64_t{g} << 32) | h;
    if (const std::uint32_t* known = leq_.find(key)) return *known != 0;
    // G <= H iff no G^L >= H and no H^R <= G (Siegel II.1).
    // leq() creates no node, so references into nodes_ stay valid here.
    bool result = true;
    const std::vector<GameId>& gl = nodes_[g].left;
    const std::vector<GameId>& hr = nodes_[h].right;
    // The memo's slots of the comparisons below, asked of memory together (see make()).
    for (GameId x : gl)
        leq_.prefetch((std::uint64_t{h} << 32) | x);
    for (GameId x : hr)
        leq_.prefetch((std::uint64_t{x} << 32) | g);
    for (GameId x : gl)
        if (leq(h, x)) {
            result = false;
            break;
        }
    if (result) {
        for (GameId x : hr)
            if (leq(x, g)) {
                result = false;
                break;
            }
    }
    leq_.insert(key, result ? 1 : 0);
    return result;
}

OutcomeClass GameStore::outcome(GameId g) {
    const bool ge = leq(zero(), g), le = leq(g, zero());
    return ge && le ? OutcomeClass::P
           : ge     ? OutcomeClass::L
           : le     ? OutcomeClass::R
                    : OutcomeClass::N;
}

std::optional<Rational> GameStore::as_number(GameId g) const {
    if (!nodes_[g].is_number) return std::nullopt;
    return nodes_[g].value;
}

std::optional<int> GameStore::as_nimber(GameId g) const {
    if (nodes_[g].nimber < 0) return std::nullopt;
    return nodes_[g].nimber;
}

Rational GameStore::left_stop(GameId g) {
    if (nodes_[g].is_number) return nodes_[g].value;
    if (g < stops_.size() && stops_[g].known) return stops_[g].left;
    // LS(G) = max RS(G^L), RS(G) = min LS(G^R) for G not a number (Siegel II.5). A canonical
    // game that is not a number has options on both sides.
    const std::vector<GameId> gl = nodes_[g].left, gr = nodes_[g].right;
    Rational ls = right_stop(gl.at(0)), rs = left_stop(gr.at(0));
    for (GameId x : gl)
        ls = std::max(ls, right_stop(x));
    for (GameId x : gr)
        rs = std::min(rs, left_stop(x));
    if (g >= stops_.size()) stops_.resize(std::max<std::size_t>(nodes_.size(), g + 1));
    stops_[g] = {ls, rs, true};
    return ls;
}

Rational GameStore::right_stop(GameId g) {
    if (nodes_[g].is_number) return nodes_[g].value;
    left_stop(g);
    return stops_[g].right;
}

// ---- Thermographs (Siegel II.5) ----

Rational Wall::at(const Rational& x) const {
    std::size_t i = 0;
    while (i + 1 < t.size() && t[i + 1] <= x)
        ++i;
    const Rational slope = i + 1 < t.size() ? (v[i + 1] - v[i]) / (t[i + 1] - t[i]) : tail;
    return v[i] + slope * (x - t[i]);
}

namespace {

Wall constant_wall(const Rational& x) {
    return Wall{{Rational(-1)}, {x}, Rational(0)};
}

// w(t) + s * t.
Wall tilted(const Wall& w, int s) {
    Wall r = w;
    for (std::size_t i = 0; i < r.t.size(); ++i)
        r.v[i] = r.v[i] + Rational(s) * r.t[i];
    r.tail = r.tail + Rational(s);
    return r;
}

Rational slope_after(const Wall& w, const Rational& x) {
    std::size_t i = 0;
    while (i + 1 < w.t.size() && w.t[i + 1] <= x)
        ++i;
    return i + 1 < w.t.size() ? (w.v[i + 1] - w.v[i]) / (w.t[i + 1] - w.t[i]) : w.tail;
}

// Drops breakpoints where the slope does not change.
Wall simplified(Wall w) {
    Wall r;
    r.tail = w.tail;
    for (std::size_t i = 0; i < w.t.size(); ++i) {
        if (i > 0) {
            const Rational in = (w.v[i] - r.v.back()) / (w.t[i] - r.t.back());
            const Rational out =
                i + 1 < w.t.size() ? (w.v[i + 1] - w.v[i]) / (w.t[i + 1] - w.t[i]) : w.tail;
            if (in == out) continue;
        }
        r.t.push_back(w.t[i]);
        r.v.push_back(w.v[i]);
    }
    return r;
}

// The pointwise maximum (or minimum) of walls: every breakpoint of each, and every crossing of
// two walls between breakpoints or after the last one.
Wall extremum(const std::vector<Wall>& ws, bool maximum) {
    std::vector<Rational> grid;
    for (const Wall& w : ws)
        grid.insert(grid.end(), w.t.begin(), w.t.end());
    std::sort(grid.begin(), grid.end());
    grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
    std::vector<Rational> extra;
    for (std::size_t i = 0; i < ws.size(); ++i) {
        for (std::size_t j = i + 1; j < ws.size(); ++j) {
            for (std::size_t k = 0; k < grid.size(); ++k) {
                const Rational d0 = ws[i].at(grid[k]) - ws[j].at(grid[k]);
                const Rational ds = slope_after(ws[i], grid[k]) - slope_after(ws[j], grid[k]);
                if (ds == 0 || d0 == 0) continue;
                const Rational x = grid[k] - d0 / ds;  // where the difference is 0
                if (x > grid[k] && (k + 1 == grid.size() || x < grid[k + 1])) extra.push_back(x);
            }
        }
    }
    grid.insert(grid.end(), extra.begin(), extra.end());
    std::sort(grid.begin(), grid.end());
    grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
    Wall r;
    for (const Rational& x : grid) {
        Rational best = ws[0].at(x);
        for (const Wall& w : ws) {
            const Rational y = w.at(x);
            if (maximum ? y > best : y < best) best = y;
        }
        r.t.push_back(x);
        r.v.push_back(best);
    }
    // After the last point no two walls cross: the tail is the steepest (or least steep) of the
    // walls that reach the extremum there.
    const Rational last = grid.back();
    bool first = true;
    for (const Wall& w : ws) {
        if (w.at(last) != r.v.back()) continue;
        if (first || (maximum ? w.tail > r.tail : w.tail < r.tail)) r.tail = w.tail;
        first = false;
    }
    return simplified(std::move(r));
}

// w up to temperature T, then the mast: the constant m.
Wall masted(const Wall& w, const Rational& T, const Rational& m) {
    Wall r;
    for (std::size_t i = 0; i < w.t.size() && w.t[i] < T; ++i) {
        r.t.push_back(w.t[i]);
        r.v.push_back(w.v[i]);
    }
    r.t.push_back(T);
    r.v.push_back(m);
    r.tail = 0;
    return simplified(std::move(r));
}

}  // namespace

const Thermograph& GameStore::thermograph(GameId g) {
    if (auto it = thermo_.find(g); it != thermo_.end()) return it->second;
    Thermograph th;
    if (nodes_[g].is_number) {
        // A number's thermograph is a mast from t = -1; its temperature is -1/2^k (Siegel
        // II.5.9): -1 for an integer.
        const Rational x = nodes_[g].value;
        th.left = th.right = constant_wall(x);
        th.thermal = Thermal{x, Rational(-1, x.den())};
    } else {
        // The scaffolds: L(t) = max RW(G^L)(t) - t, R(t) = min LW(G^R)(t) + t; the temperature
        // is the least t >= -1 where L(t) <= R(t), the mean L there; above it the mast.
        std::vector<Wall> ls, rs;
        const std::vector<GameId> gl = nodes_[g].left, gr = nodes_[g].right;
        for (GameId x : gl)
            ls.push_back(tilted(thermograph(x).right, -1));
        for (GameId x : gr)
            rs.push_back(tilted(thermograph(x).left, +1));
        if (ls.empty() || rs.empty())
            throw std::logic_error("a non-number with options on one side");
        const Wall L = extremum(ls, true), R = extremum(rs, false);
        std::vector<Rational> grid = L.t;
        grid.insert(grid.end(), R.t.begin(), R.t.end());
        std::sort(grid.begin(), grid.end());
        grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
        std::optional<Rational> T;
        for (std::size_t k = 0; k < grid.size() && !T; ++k) {
            const Rational d = L.at(grid[k]) - R.at(grid[k]);
            if (d <= 0) {
                if (k == 0) {
                    T = grid[0];
                } else {
                    const Rational d0 = L.at(grid[k - 1]) - R.at(grid[k - 1]);
                    T = grid[k - 1] + (grid[k] - grid[k - 1]) * d0 / (d0 - d);
                }
            }
        }
        if (!T) {
            const Rational d = L.at(grid.back()) - R.at(grid.back());
            const Rational closing = R.tail - L.tail;  // 2 after every option's mast
            if (closing <= 0) throw std::logic_error("thermograph scaffolds never meet");
            T = grid.back() + d / closing;
        }
        const Rational m = L.at(*T);
        th.left = masted(L, *T, m);
        th.right = masted(R, *T, m);
        th.thermal = Thermal{m, *T};
    }
    return thermo_.emplace(g, std::move(th)).first->second;
}

// ---- Notation ----

// (n, m) when g = x + n.^ + *m for the number x = g's stops (both equal), with n != 0 or m > 0.
std::optional<std::pair<int, int>> GameStore::up_star(GameId g) {
    if (nodes_[g].is_number) return std::nullopt;
    const Rational x = left_stop(g);
    if (right_stop(g) != x) return std::nullopt;
    const GameId h = add(g, number(-x));
    if (nodes_[h].nimber >= 0) return std::pair{0, nodes_[h].nimber};
    // n.^ + *m has birthday at least |n|; look among |n| <= birthday(h), m <= birthday(h) + 1.
    const int need = std::min(nodes_[h].birthday + 1, 24);
    if (need > up_star_bound_) {
        for (int n = -need; n <= need; ++n) {
            if (n == 0) continue;
            const GameId u = up(n);
            for (int m = 0; m <= need; ++m) {
                const GameId v = add(u, nimber(m));
                up_stars_.emplace(v, std::pair{n, m});
            }
        }
        up_star_bound_ = need;
    }
    if (auto it = up_stars_.find(h); it != up_stars_.end()) return it->second;
    return std::nullopt;
}

std::string GameStore::format(GameId g, const FormatOptions& o) {
    return format_rec(g, o);
}

std::string GameStore::format_rec(GameId g, const FormatOptions& o) {
    if (nodes_[g].is_number) return nodes_[g].value.str();
    if (nodes_[g].nimber >= 0) {
        const int m = nodes_[g].nimber;
        return m == 1 ? "*" : "*" + std::to_string(m);
    }
    if (auto us = up_star(g)) {
        const Rational x = left_stop(g);
        const auto [n, m] = *us;
        std::string s = x == 0 ? "" : x.str();
        const int k = n < 0 ? -n : n;
        if (k > 0) {
            const char* single = n > 0 ? (o.ascii ? "^" : "\u2191") : (o.ascii ? "v" : "\u2193");
            const char* dbl = n > 0 ? (o.ascii ? "^^" : "\u21D1") : (o.ascii ? "vv" : "\u21D3");
            s += k == 1 ? single : k == 2 ? dbl : single + std::to_string(k);
        }
        if (m == 1) s += "*";
        if (m > 1) s += "*" + std::to_string(m);
        return s;
    }
    auto side = [&](const std::vector<GameId>& opts) {
        std::vector<std::pair<int, std::string>> parts;
        for (GameId x : opts) {
            // format_rec() may add games (left_stop of an up-star), moving nodes_: read the
            // birthday after it, not as a reference bound before (clang's ASan found it).
            std::string text = format_rec(x, o);
            parts.emplace_back(nodes_[x].birthday, std::move(text));
        }
        std::sort(parts.begin(), parts.end());
        std::string s;
        for (const auto& p : parts)
            s += (s.empty() ? "" : ",") + p.second;
        return s;
    };
    const std::vector<GameId> gl = nodes_[g].left, gr = nodes_[g].right;
    return "{" + side(gl) + "|" + side(gr) + "}";
}

}  // namespace konane::cgt
