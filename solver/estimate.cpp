#include "solver/estimate.hpp"

#include <algorithm>

#include "process/self.hpp"

namespace konane::solver {

namespace {

// Measured when the brainking tables of docs/solved.md were built (scripts/build-tables): board,
// classes in all, the classes of the layer whose solve needs the most memory and of the layers
// its jumps reach, the work directory's peak bytes, and the table's bytes in format 4.
struct Measured {
    int rows, cols;
    std::uint64_t classes, largest_layer, window, work_bytes, table_bytes;
};
constexpr Measured kMeasured[] = {
    {2, 2, 1, 1, 0, 507, 784},
    {2, 3, 6, 4, 1, 1129, 1680},
    {2, 4, 13, 5, 3, 1789, 2576},
    {2, 5, 17, 4, 7, 1958, 2576},
    {2, 6, 29, 7, 9, 2630, 3512},
    {2, 7, 21, 4, 11, 2731, 3488},
    {2, 8, 176, 24, 67, 5124, 6408},
    {3, 3, 6, 2, 1, 1570, 2128},
    {3, 4, 92, 20, 8, 3692, 4904},
    {3, 5, 270, 59, 69, 5129, 6080},
    {3, 6, 3116, 612, 1018, 12675, 11632},
    {3, 7, 17794, 3467, 7257, 44135, 35240},
    {3, 8, 190397, 37308, 74407, 368760, 262224},
    {4, 4, 975, 189, 190, 7158, 7832},
    {4, 5, 26653, 5078, 6921, 55363, 42616},
    {4, 6, 742922, 140784, 219699, 1257588, 888352},
    {5, 4, 26653, 5078, 6921, 58171, 42352},
    {5, 5, 270689, 48706, 82002, 533227, 446864},
    {5, 6, 49924129, 8560302, 14804535, 81958017, 59407824},
    {6, 4, 742922, 140784, 219699, 1260240, 888528},
    {6, 5, 49924129, 8560302, 14804535, 78285069, 59507392},
    {6, 6, 2700595924, 439978644, 743089305, 4130298982, 3351412976},
};

}  // namespace

std::optional<ResourceEstimate> estimate_resources(const Board& b, Ruleset rules) {
    if (rules == Ruleset::Any) return std::nullopt;
    for (const Measured& m : kMeasured) {
        if (m.rows != b.rows || m.cols != b.cols) continue;
        ResourceEstimate e;
        e.classes = m.classes;
        e.largest_layer = m.largest_layer;
        e.window = m.window;
        e.memory_bytes = solve_memory_bytes(m.largest_layer, m.window);
        e.work_bytes = m.work_bytes;
        e.table_bytes = m.table_bytes;
        e.upper_bound = rules != Ruleset::Brainking;
        e.source = "the " + b.name() + " brainking table's measured sizes";
        return e;
    }
    return std::nullopt;
}

std::uint64_t default_memory_budget() {
    const std::uint64_t gib = std::uint64_t{1} << 30;
    return std::clamp<std::uint64_t>(process::machine_memory_bytes() / 10 * 6, gib / 4, 16 * gib);
}

std::uint64_t solve_memory_bytes(std::uint64_t classes, std::uint64_t window) {
    return classes * 19 + window * 3 / 2 + (std::uint64_t{8} << 20);
}

}  // namespace konane::solver
