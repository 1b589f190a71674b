// What every subcommand's --help ends with: the notation legend and examples; and the one rule
// for giving a board, shared by the subcommands that take one (BOARD or --board RxC).
#pragma once

#include <initializer_list>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/common.hpp"

namespace konane::cli {

/// The notation of positions, boards, squares and moves (docs/rules.md "Notation"), in a few
/// lines for --help.
inline constexpr const char* kNotationLegend =
    "Notation (docs/rules.md):\n"
    "  board     RxC, rows x columns: 6x6, 4x5 (given as BOARD or as --board RxC)\n"
    "  position  the rows from the top down, separated by '/': x is Black, o is White,\n"
    "            . is empty; then a space and b or w, the side to move.\n"
    "            '..xo/oxox/xoxo/oxox b' is 4x4 after Black removed a4 and White b4.\n"
    "  square    file letter from a (left) and rank from 1 (bottom): a1 bottom left\n"
    "  move      a removal is its square (c3), a jump its start and end (c5-c3)";

/// Sets the --help footer of `app`: "Examples:" with one command per line, then (with
/// `legend`) the notation legend.
inline void help_footer(CLI::App* app, std::initializer_list<const char*> examples,
                        bool legend = true) {
    std::string text = "Examples:\n";
    for (const char* e : examples)
        text += std::string("  ") + e + "\n";
    if (legend) text += std::string("\n") + kNotationLegend;
    app->footer(text);
}

/// True when `text` has the form of a board size, RxC (digits, 'x', digits): no position,
/// file name in practice, or square has it.
inline bool is_board_text(const std::string& text) {
    const auto x = text.find('x');
    if (x == 0 || x == std::string::npos || x + 1 == text.size()) return false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (i != x && (text[i] < '0' || text[i] > '9')) return false;
    }
    return true;
}

/// Merges the two ways of giving a board: `positional` (BOARD, or a positional argument that
/// holds a board size) and `option` (--board RxC). Afterwards `option` holds the board, if
/// any. @throws UsageError when both are given and differ.
inline void merge_board(std::string& positional, std::string& option) {
    if (positional.empty()) return;
    if (!option.empty() && option != positional) {
        throw UsageError("the board is given twice, as " + positional + " and as --board " +
                         option + ": give one");
    }
    option = positional;
    positional.clear();
}

}  // namespace konane::cli
