#include "table/header.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "core/symmetry.hpp"

namespace konane {

TableGame decode_header(const format::TableMeta& m, const std::string& file) {
    try {
        TableGame g;
        g.board = Board::make(static_cast<int>(m.rows), static_cast<int>(m.cols));
        if (g.board.squares() > kMaxKeySquares) {
            throw std::invalid_argument("board " + g.board.name() + " has more than " +
                                        std::to_string(kMaxKeySquares) +
                                        " squares, which no table can key");
        }
        g.opening = parse_opening_tag(g.board, m.ruleset);
        return g;
    } catch (const std::invalid_argument& e) {
        throw format::FormatError(file + ": header: " + e.what());
    }
}

TableGame checked_game(const format::Table& table) {
    TableGame g = decode_header(table.meta(), table.path().string());
    if (const std::string why = table_shape_problem(table, g.board, g.opening); !why.empty())
        throw format::FormatError(why);
    return g;
}

std::string table_shape_problem(const format::Table& table, const Board& b, const Opening& r) {
    const std::string where = table.path().string() + ": layer table: ";
    const auto& layers = table.layers();
    if (layers.empty()) return where + "no layer";
    // The classes right after both removals (Black to move), canonical, sorted.
    const SymmetryGroup group(b);
    std::vector<std::uint64_t> want;
    for (const Position& p : start_positions(b, r))
        want.push_back(group.canonical_key(p));
    std::sort(want.begin(), want.end());
    want.erase(std::unique(want.begin(), want.end()), want.end());
    if (want.empty()) return {};  // no game can start: nothing to compare with
    const std::size_t top = layers.size() - 1;
    const auto pieces = static_cast<std::uint32_t>(b.squares() - 2);
    const std::string board = b.name() + " " + opening_tag(b, r);
    if (layers[top].pieces != pieces)
        return where + "the largest layer has " + std::to_string(layers[top].pieces) +
               " pieces, but play on " + board + " starts with " + std::to_string(pieces) +
               " (the header does not describe this table)";
    if (layers[top].classes != want.size())
        return where + "the largest layer holds " + std::to_string(layers[top].classes) +
               " positions, but " + board + " has " + std::to_string(want.size()) +
               " after the opening removals (the header does not describe this table)";
    std::vector<std::uint64_t> keys;
    table.read_keys(top, keys);
    if (keys != want)
        return where + "the largest layer does not hold the positions after the opening " +
               "removals of " + board + " (the header does not describe this table)";
    return {};
}

}  // namespace konane
