// The symmetries through which a gap's raw positions are reached, carried class by class through
// the enumeration (solver/enumerate.cpp, solver/distributed.cpp).
// Source: docs/rules.md ("Equivalent positions"), core/symmetry.hpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "core/board.hpp"
#include "core/symmetry.hpp"

namespace konane::solver {

/// The raw positions reached from one gap, class by class: a class's flags hold the symmetries
/// g (bit g) for which g(c) was reached, c its canonical position. A child ch of c whose
/// canonical form is h(ch) is reached from g(c) as g(ch) = (g h^-1)(h(ch)): its flags are the
/// parent's multiplied on the right by h^-1. Symmetries are composed through their square maps.
/// Holds a reference to the group, which must outlive it.
class Orientations {
  public:
    explicit Orientations(const SymmetryGroup& g) : group_(g), n_(g.size()) {
        const int squares = g.board().squares();
        // The first symmetry whose square map is f (symmetries with one map act alike).
        auto find = [&](auto&& f) {
            for (int c = 0; c < n_; ++c) {
                bool same = true;
                for (int s = 0; s < squares && same; ++s)
                    same = g.map_square(c, s) == f(s);
                if (same) return c;
            }
            throw std::logic_error("the symmetries are not a group");
        };
        std::vector<int> compose(static_cast<std::size_t>(n_ * n_)), inverse(n_);
        for (int a = 0; a < n_; ++a) {
            for (int b = 0; b < n_; ++b)
                compose[a * n_ + b] =
                    find([&](int s) { return g.map_square(a, g.map_square(b, s)); });
        }
        for (int a = 0; a < n_; ++a) {
            inverse[a] = -1;
            for (int b = 0; b < n_ && inverse[a] < 0; ++b)
                if (compose[a * n_ + b] == 0) inverse[a] = b;
        }
        times_inverse_.assign(static_cast<std::size_t>(n_) << n_, 0);
        for (int h = 0; h < n_; ++h) {
            for (unsigned m = 0; m < (1u << n_); ++m) {
                unsigned out = 0;
                for (int a = 0; a < n_; ++a)
                    if ((m >> a) & 1) out |= 1u << compose[a * n_ + inverse[h]];
                times_inverse_[(static_cast<std::size_t>(h) << n_) | m] = out;
            }
        }
    }
    int bits() const { return n_; }
    // The canonical key of p and a symmetry h with key_of(h(p)) equal to it.
    std::uint64_t canonical(Position p, int& h) const {
        std::uint64_t best = key_of(p);
        h = 0;
        for (int g = 1; g < n_; ++g) {
            const std::uint64_t k = key_of(group_.image(g, p));
            if (k < best) best = k, h = g;
        }
        return best;
    }
    // The flags of a position reached as h^-1(canonical): only the symmetry h^-1.
    std::uint64_t of_start(int h) const {
        return times_inverse_[(static_cast<std::size_t>(h) << n_) | 1u];
    }
    // The flags of a child canonicalised by h, from its parent's.
    std::uint64_t child(std::uint64_t flags, int h) const {
        return times_inverse_[(static_cast<std::size_t>(h) << n_) | flags];
    }
    // The distinct raw positions g(c), g in flags.
    int raw(Position c, std::uint64_t flags) const {
        Position seen[8];
        int count = 0;
        for (int g = 0; g < n_; ++g) {
            if (((flags >> g) & 1) == 0) continue;
            const Position q = group_.image(g, c);
            if (std::find(seen, seen + count, q) == seen + count) seen[count++] = q;
        }
        return count;
    }

  private:
    const SymmetryGroup& group_;
    int n_;
    std::vector<std::uint64_t> times_inverse_;
};

/// The flags of a child of a class reached with the sides to move `flags` (bit s: side s):
/// the other sides.
inline std::uint64_t swap_sides(std::uint64_t flags) {
    return ((flags & 1) << 1) | (flags >> 1);
}

}  // namespace konane::solver
