#include "query/budget.hpp"

#include <stdexcept>

namespace konane::query {

std::string PositionBudget::memory_note() const {
    return "the memory budget " + std::to_string(memory_bytes >> 20) + " MiB allows that many";
}

std::string PositionBudget::limit_reason(std::string_view memory_option,
                                         std::string_view positions_option) const {
    if (!memory_binds) return std::string(positions_option);
    return memory_note() + "; " + std::string(memory_option);
}

PositionBudget position_budget(std::uint64_t memory_bytes, std::uint64_t asked,
                               std::size_t bytes_per_position, std::string_view memory_option) {
    PositionBudget b;
    b.memory_bytes = memory_bytes;
    b.by_memory = memory_bytes / bytes_per_position;
    if (b.by_memory == 0) {
        throw std::invalid_argument(std::string(memory_option) + " " +
                                    std::to_string(memory_bytes) + " bytes: too small (" +
                                    std::to_string(bytes_per_position) + " bytes a position)");
    }
    b.memory_binds = asked == 0 || b.by_memory < asked;
    b.positions = static_cast<std::size_t>(b.memory_binds ? b.by_memory : asked);
    return b;
}

}  // namespace konane::query
