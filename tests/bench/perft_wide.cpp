// konane_perft_wide: perft speed of the 64-bit path before and after the rules were written once
// over the bitboard type (core/rules_generic.hpp), and of the wide path (core/wide.hpp) on the
// same boards and on boards past 64 squares. Runs interleaved (baseline, 64-bit, wide, ...) so
// that a change of machine load hits all alike; prints medians and the ratios of each round's
// times (median of the ratios) as JSON. Times are CPU seconds of the process. The baseline is the
// 64-bit for_each_jump and perft of commit fcf43f7 (core/movegen.*), copied here verbatim.
//
// Usage: konane_perft_wide [REPS]   (default 7)
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "core/movegen.hpp"
#include "core/wide.hpp"

using namespace konane;

namespace baseline {

// core/movegen.hpp for_each_jump at fcf43f7.
template <class F>
inline void for_each_jump(const Board& b, Position p, F&& f) {
    const std::uint64_t mine = mover_pieces(b, p);
    const std::uint64_t opp = opponent_pieces(b, p);
    const std::uint64_t empty = b.all & ~p.occ;
    const Color next = other(p.to_move);
    for (int d = 0; d < 4; ++d) {
        if (!b.can_jump[d]) continue;
        const int s = b.step[d];
        const std::uint64_t jumpable = b.can_jump[d] & (s > 0 ? (opp >> s) & (empty >> (2 * s))
                                                              : (opp << -s) & (empty << (-2 * s)));
        std::uint64_t src = mine & jumpable;
        while (src) {
            const int from = std::countr_zero(src);
            src &= src - 1;
            std::uint64_t occ = p.occ & ~(std::uint64_t{1} << from);
            int at = from;
            for (;;) {
                const int land = at + 2 * s;
                occ &= ~(std::uint64_t{1} << (at + s));
                f(Move{static_cast<std::uint8_t>(from), static_cast<std::uint8_t>(land)},
                  Position{occ | (std::uint64_t{1} << land), next});
                if (!((jumpable >> land) & 1)) break;
                at = land;
            }
        }
    }
}

// core/movegen.cpp perft_play at fcf43f7.
std::uint64_t perft_play(const Board& b, Position p, int depth) {
    if (depth == 0) return 1;
    std::uint64_t n = 0;
    if (depth == 1) {
        baseline::for_each_jump(b, p, [&](Move, Position) { ++n; });
        return n;
    }
    baseline::for_each_jump(b, p, [&](Move, Position c) { n += perft_play(b, c, depth - 1); });
    return n;
}

// perft at fcf43f7, from the full board: the removals through legal_moves (unchanged in
// meaning), the jumps through perft_play above.
std::uint64_t perft(const Board& b, Ruleset r, Position p, int depth) {
    if (depth == 0) return 1;
    if (stage_of(b, r, p) == Stage::Play) return perft_play(b, p, depth);
    std::uint64_t n = 0;
    for (const auto& mc : legal_moves(b, r, p))
        n += baseline::perft(b, r, mc.child, depth - 1);
    return n;
}

}  // namespace baseline

namespace {

// CPU seconds of this process (not wall time: on a shared machine the wait for a core is not
// counted).
double cpu_now() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double seconds_of(auto&& f, std::uint64_t& nodes) {
    const double t0 = cpu_now();
    nodes = f();
    return cpu_now() - t0;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
    const int reps = argc > 1 ? std::atoi(argv[1]) : 7;
    struct Case {
        int rows, cols, depth;
    };
    // Boards of at most 64 squares: all three paths; past 64: the wide path alone.
    const std::vector<Case> small = {{6, 6, 10}, {8, 8, 10}, {5, 5, 11}};
    const std::vector<Case> big = {{8, 9, 9}, {9, 13, 8}, {14, 17, 7}, {20, 20, 7}};
    std::printf("{\"reps\": %d, \"boards\": [\n", reps);
    bool first = true;
    for (const Case& c : small) {
        const Board b = Board::make(c.rows, c.cols);
        const BigBoard w = BigBoard::make(c.rows, c.cols);
        std::vector<double> tb, tn, tw, rn, rw;
        std::uint64_t nb = 0, nn = 0, nw = 0;
        for (int i = 0; i < reps; ++i) {
            tb.push_back(seconds_of(
                [&] { return baseline::perft(b, Ruleset::Brainking, b.start(), c.depth); }, nb));
            tn.push_back(
                seconds_of([&] { return perft(b, Ruleset::Brainking, b.start(), c.depth); }, nn));
            tw.push_back(
                seconds_of([&] { return perft(w, Ruleset::Brainking, w.start(), c.depth); }, nw));
            rn.push_back(tn.back() / tb.back());
            rw.push_back(tw.back() / tn.back());
        }
        if (nb != nn || nn != nw) {
            std::fprintf(stderr, "perft differs on %dx%d: %llu %llu %llu\n", c.rows, c.cols,
                         (unsigned long long)nb, (unsigned long long)nn, (unsigned long long)nw);
            return 1;
        }
        std::printf(
            "%s{\"board\": \"%s\", \"depth\": %d, \"nodes\": %llu, \"baseline_s\": %.4f, "
            "\"new64_s\": %.4f, \"wide_s\": %.4f, \"new64_over_baseline\": %.3f, "
            "\"wide_over_new64\": %.3f, \"new64_mnodes_per_s\": %.1f, "
            "\"wide_mnodes_per_s\": %.1f}",
            first ? "" : ",\n", b.name().c_str(), c.depth, (unsigned long long)nn, median(tb),
            median(tn), median(tw), median(rn), median(rw), nn / median(tn) / 1e6,
            nw / median(tw) / 1e6);
        first = false;
    }
    for (const Case& c : big) {
        const BigBoard w = BigBoard::make(c.rows, c.cols);
        std::vector<double> tw;
        std::uint64_t nw = 0;
        for (int i = 0; i < std::max(1, reps / 2); ++i)
            tw.push_back(
                seconds_of([&] { return perft(w, Ruleset::Brainking, w.start(), c.depth); }, nw));
        std::printf(
            ",\n{\"board\": \"%s\", \"depth\": %d, \"nodes\": %llu, \"wide_s\": %.4f, "
            "\"wide_mnodes_per_s\": %.1f}",
            w.name().c_str(), c.depth, (unsigned long long)nw, median(tw), nw / median(tw) / 1e6);
    }
    std::printf("\n]}\n");
    return 0;
}
