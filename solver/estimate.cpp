#include "solver/estimate.hpp"

#include <algorithm>

#include "process/self.hpp"

namespace konane::solver {

namespace {

// Measured when the brainking tables of docs/solved.md were built (`konane generate RxC --json`:
// scripts/build-tables; the single rows, 2x9 to 2x18, 3x9 to 3x12, 4x7, 7x4 and 4x8 added at
// 9cee92a; 5x7, 7x5, 4x9 and 9x4 at bd585bb): board, classes in all, the classes of the layer whose
// solve needs the most memory and of the layers its jumps reach, the work directory's peak bytes,
// and the table's bytes in format 4. A board turned a quarter (C x R) has the same positions,
// turned: its figures serve when only the transpose was measured.
struct Measured {
    int rows, cols;
    std::uint64_t classes, largest_layer, window, work_bytes, table_bytes;
};
constexpr Measured kMeasured[] = {
    {1, 2, 1, 1, 0, 371, 784},
    {1, 3, 1, 1, 0, 438, 784},
    {1, 4, 4, 3, 1, 753, 1232},
    {1, 5, 3, 2, 1, 809, 1232},
    {1, 6, 7, 3, 3, 1371, 2128},
    {1, 7, 1, 1, 0, 700, 784},
    {1, 8, 15, 4, 4, 2043, 3024},
    {1, 9, 11, 3, 4, 2051, 3024},
    {1, 10, 25, 5, 13, 2461, 3496},
    {1, 11, 1, 1, 0, 959, 784},
    {1, 12, 50, 12, 8, 3217, 4424},
    {1, 13, 36, 9, 8, 3208, 4424},
    {1, 14, 73, 17, 24, 3748, 4896},
    {1, 15, 1, 1, 0, 1229, 784},
    {1, 16, 123, 23, 48, 4622, 5888},
    {1, 17, 86, 16, 39, 4498, 5872},
    {1, 18, 163, 30, 55, 5323, 6448},
    {1, 19, 1, 1, 0, 1496, 784},
    {1, 20, 245, 40, 93, 6362, 7528},
    {1, 21, 168, 27, 73, 5986, 7440},
    {1, 22, 306, 44, 150, 7112, 8168},
    {1, 23, 1, 1, 0, 1763, 784},
    {1, 24, 428, 59, 161, 8352, 9416},
    {1, 25, 290, 40, 123, 7643, 9168},
    {1, 26, 514, 70, 172, 9189, 10168},
    {1, 27, 1, 1, 0, 2027, 784},
    {1, 28, 684, 76, 336, 10497, 11656},
    {1, 29, 460, 55, 191, 9435, 11160},
    {1, 30, 799, 88, 363, 11345, 12608},
    {1, 31, 1, 1, 0, 2302, 784},
    {1, 32, 1025, 111, 376, 12884, 14408},
    {1, 33, 686, 74, 279, 11442, 13520},
    {1, 34, 1173, 118, 517, 14003, 15600},
    {1, 35, 1, 1, 0, 2565, 784},
    {1, 36, 1463, 132, 675, 15730, 17832},
    {2, 2, 1, 1, 0, 507, 784},
    {2, 3, 6, 4, 1, 1129, 1680},
    {2, 4, 13, 5, 3, 1789, 2576},
    {2, 5, 17, 4, 7, 1958, 2576},
    {2, 6, 29, 7, 9, 2630, 3512},
    {2, 7, 21, 4, 11, 2731, 3488},
    {2, 8, 176, 24, 67, 5124, 6408},
    {2, 9, 229, 39, 80, 5556, 6536},
    {2, 10, 741, 104, 215, 8489, 9264},
    {2, 11, 587, 83, 248, 8231, 9152},
    {2, 12, 2798, 371, 1348, 14983, 14768},
    {2, 13, 2629, 377, 1160, 14319, 15048},
    {2, 14, 7953, 1035, 3647, 30462, 30248},
    {2, 15, 5748, 729, 2594, 23886, 26528},
    {2, 16, 20039, 2516, 8957, 60929, 68296},
    {2, 17, 15695, 2047, 6202, 46063, 60344},
    {2, 18, 43634, 4816, 22753, 111967, 154080},
    {3, 3, 6, 2, 1, 1570, 2128},
    {3, 4, 92, 20, 8, 3692, 4904},
    {3, 5, 270, 59, 69, 5129, 6080},
    {3, 6, 3116, 612, 1018, 12675, 11632},
    {3, 7, 17794, 3467, 7257, 44135, 35240},
    {3, 8, 190397, 37308, 74407, 368760, 262224},
    {3, 9, 883548, 173478, 360602, 1819885, 1345072},
    {3, 10, 10538616, 1957507, 3808547, 20437493, 14119720},
    {3, 11, 55011646, 9296639, 29034221, 107101939, 84086376},
    {3, 12, 474833013, 81947348, 217370016, 889458840, 667106448},
    {4, 4, 975, 189, 190, 7158, 7832},
    {4, 5, 26653, 5078, 6921, 55363, 42616},
    {4, 6, 742922, 140784, 219699, 1257588, 888352},
    {4, 7, 9078187, 1535670, 3891736, 15914001, 11066072},
    {4, 8, 221007344, 35982955, 91317826, 375601938, 256704320},
    {4, 9, 3054430258, 500337907, 1182997285, 5069104138, 3593728360},
    {5, 4, 26653, 5078, 6921, 58171, 42352},
    {5, 5, 270689, 48706, 82002, 533227, 446864},
    {5, 6, 49924129, 8560302, 14804535, 81958017, 59407824},
    {5, 7, 797482463, 132758040, 313502861, 1466208172, 1126308648},
    {6, 4, 742922, 140784, 219699, 1260240, 888528},
    {6, 5, 49924129, 8560302, 14804535, 78285069, 59507392},
    {6, 6, 2700595924, 439978644, 743089305, 4130298982, 3351412976},
    {7, 4, 9078187, 1535670, 3891736, 16425673, 11044696},
    {7, 5, 797482463, 132758040, 313502861, 1480382771, 1127228992},
    {9, 4, 3054430258, 500337907, 1182997285, 5264592748, 3590266912},
};

}  // namespace

std::optional<ResourceEstimate> estimate_resources(const Board& b, Ruleset rules) {
    if (rules == Ruleset::Any) return std::nullopt;
    const Measured* found = nullptr;
    for (const Measured& m : kMeasured) {
        if (m.rows == b.rows && m.cols == b.cols) found = &m;
    }
    for (const Measured& m : kMeasured) {
        if (!found && m.rows == b.cols && m.cols == b.rows) found = &m;
    }
    if (found) {
        const Measured& m = *found;
        ResourceEstimate e;
        e.classes = m.classes;
        e.largest_layer = m.largest_layer;
        e.window = m.window;
        e.memory_bytes = solve_memory_bytes_streamed(m.largest_layer, m.window);
        e.whole_memory_bytes = solve_memory_bytes(m.largest_layer, m.window);
        e.work_bytes = m.work_bytes;
        e.table_bytes = m.table_bytes;
        e.upper_bound = rules != Ruleset::Brainking;
        const Board measured = Board::make(m.rows, m.cols);
        e.source = "the " + measured.name() + " brainking table's measured sizes";
        if (measured.rows != b.rows) e.source += " (" + b.name() + " turned a quarter)";
        return e;
    }
    return std::nullopt;
}

std::uint64_t default_memory_budget(unsigned sharing) {
    const std::uint64_t gib = std::uint64_t{1} << 30;
    return std::clamp<std::uint64_t>(
        process::machine_memory_bytes() / 10 * 6 / std::max(sharing, 1U), gib / 4, 16 * gib);
}

std::uint64_t solve_memory_bytes(std::uint64_t classes, std::uint64_t window) {
    return classes * 19 + window * 3 / 2 + (std::uint64_t{8} << 20);
}

std::uint64_t join_memory_bytes(std::uint64_t classes, std::uint64_t window, int threads) {
    const std::uint64_t chunk = std::min<std::uint64_t>(classes, std::uint64_t{1} << 21);
    return classes * 11 + window * 9 +
           static_cast<std::uint64_t>(std::max(threads, 1)) * chunk * (8 * 24 + 3) +
           (std::uint64_t{8} << 20);
}

std::uint64_t solve_memory_bytes_streamed(std::uint64_t classes, std::uint64_t window) {
    return classes * 13 + window * 3 / 2 + (std::uint64_t{8} << 20);
}

}  // namespace konane::solver
