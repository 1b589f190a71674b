// konane.Position: a position with its board and opening ruleset, its legal moves, the moves
// played, perft, its symmetries and an SVG drawing.
#include <pybind11/pybind11.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/board.hpp"
#include "core/movegen.hpp"
#include "core/notation.hpp"
#include "core/symmetry.hpp"
#include "python/module.hpp"
#include "python/stoppable.hpp"

using namespace pybind11::literals;

namespace konane::python {

namespace {

/// Position.stage: the name of a stage of the game.
const char* stage_name(konane::Stage s) {
    switch (s) {
        case konane::Stage::FullBoard:
            return "full_board";
        case konane::Stage::OneHole:
            return "one_hole";
        case konane::Stage::Play:
            break;
    }
    return "play";
}

/// The symmetry group of board b, made once per board size (under the GIL) and kept.
const konane::SymmetryGroup& group_of(const Board& b) {
    static std::map<std::pair<int, int>, std::unique_ptr<konane::SymmetryGroup>> groups;
    auto& g = groups[{b.rows, b.cols}];
    if (!g) g = std::make_unique<konane::SymmetryGroup>(b);
    return *g;
}

/// The squares of p's pieces of colour c (a piece's colour is its square's: rules.md "Board
/// and colours"), in square order a1, b1, ..., as names.
std::vector<std::string> squares_of(const PyPosition& p, Color c) {
    std::vector<std::string> out;
    for (int s = 0; s < p.board.squares(); ++s) {
        if ((p.pos.occ >> s) & 1 && p.board.color_of(s) == c)
            out.push_back(konane::square_name(p.board, s));
    }
    return out;
}

/// Position.from_squares(): the squares named in `black` and `white`, each on its colour's
/// square. @throws ValueError naming a malformed or doubled square, or a piece on a square of
/// the other colour.
PyPosition from_squares(const BoardArg& board, const std::vector<std::string>& black,
                        const std::vector<std::string>& white, const std::string& to_move,
                        const std::string& rules) {
    const Board b = board_arg(board);
    Color mover = Color::Black;
    if (to_move == "white" || to_move == "w") {
        mover = Color::White;
    } else if (to_move != "black" && to_move != "b") {
        throw py::value_error("to_move: expected 'black' or 'white' ('b' or 'w'), got '" + to_move +
                              "'");
    }
    std::uint64_t occ = 0;
    for (const auto* list : {&black, &white}) {
        const Color c = list == &black ? Color::Black : Color::White;
        for (const auto& name : *list) {
            const int s = konane::parse_square(b, name);
            if (b.color_of(s) != c) {
                throw py::value_error(std::string(c == Color::Black ? "black" : "white") + ": " +
                                      name + " is a " + konane::color_name(other(c)) +
                                      " square (rules.md \"Board and colours\": a piece stands "
                                      "on its own colour's squares)");
            }
            if ((occ >> s) & 1) throw py::value_error(name + " is given twice");
            occ |= std::uint64_t{1} << s;
        }
    }
    return PyPosition{b, konane::parse_ruleset(rules), Position{occ, mover}};
}

/// An SVG drawing of p: the board's squares, Black's pieces dark, White's light, files and
/// ranks named, the side to move under the board.
std::string svg_of(const PyPosition& p) {
    const int cell = 36, margin = 20, w = p.board.cols * cell + 2 * margin,
              h = p.board.rows * cell + 2 * margin + 16;
    std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(w) +
                      "\" height=\"" + std::to_string(h) + "\" viewBox=\"0 0 " + std::to_string(w) +
                      " " + std::to_string(h) + "\" font-family=\"sans-serif\" font-size=\"12\">";
    out += "<title>" + konane::format_position(p.board, p.pos) + "</title>";
    for (int s = 0; s < p.board.squares(); ++s) {
        const int f = p.board.file_of(s), row = p.board.rows - p.board.rank_of(s);
        const int x = margin + f * cell, y = margin + row * cell;
        out += "<rect x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(y) + "\" width=\"" +
               std::to_string(cell) + "\" height=\"" + std::to_string(cell) + "\" fill=\"" +
               (p.board.color_of(s) == Color::Black ? "#b58863" : "#f0d9b5") + "\"/>";
        if ((p.pos.occ >> s) & 1) {
            const bool black = p.board.color_of(s) == Color::Black;
            out += "<circle cx=\"" + std::to_string(x + cell / 2) + "\" cy=\"" +
                   std::to_string(y + cell / 2) + "\" r=\"" + std::to_string(cell * 2 / 5) +
                   "\" fill=\"" + (black ? "#111" : "#fafafa") + "\" stroke=\"#333\"/>";
        }
    }
    for (int f = 0; f < p.board.cols; ++f) {
        out += "<text x=\"" + std::to_string(margin + f * cell + cell / 2) + "\" y=\"" +
               std::to_string(margin + p.board.rows * cell + 14) + "\" text-anchor=\"middle\">" +
               konane::file_name(f) + "</text>";
    }
    for (int r = 0; r < p.board.rows; ++r) {
        out += "<text x=\"" + std::to_string(margin / 2) + "\" y=\"" +
               std::to_string(margin + r * cell + cell / 2 + 4) + "\" text-anchor=\"middle\">" +
               std::to_string(p.board.rows - r) + "</text>";
    }
    out += "<text x=\"" + std::to_string(margin) + "\" y=\"" + std::to_string(h - 4) + "\">" +
           konane::color_name(p.pos.to_move) + " to move</text></svg>";
    return out;
}

}  // namespace

void bind_position(py::module_& m) {
    py::class_<PyPosition>(m, "Position", R"(A Konane position: the occupied squares, the side to
move, the board (R x C, at most 64 squares: 8x8, 3x12, 1x64, ...) and the opening ruleset that
decides Black's first removal ('brainking', 'center' or 'any'). Immutable and hashable; play()
returns a new one.

Position(text, rules='brainking') is Position.parse(text, rules).)")
        .def(py::init([](const std::string& text, const std::string& rules) {
                 const auto parsed = konane::parse_position(text);
                 return PyPosition{parsed.board, konane::parse_ruleset(rules), parsed.position};
             }),
             "text"_a, "rules"_a = "brainking")
        .def_static(
            "parse",
            [](const std::string& text, const std::string& rules) {
                const auto parsed = konane::parse_position(text);
                return PyPosition{parsed.board, konane::parse_ruleset(rules), parsed.position};
            },
            "text"_a, "rules"_a = "brainking",
            R"(Parses a position, e.g. '..xo/oxox/xoxo/oxox b' (4x4 after a4 and b4): the rows from
the top rank down separated by '/', 'x' Black, 'o' White, '.' empty, a space, 'b' or 'w' for
the side to move. The board size is read off the text. Raises ValueError naming the rank,
file and character of a malformed text, or an unknown ruleset.)")
        .def_static(
            "start",
            [](const BoardArg& board, const std::string& rules) {
                const Board b = board_arg(board);
                return PyPosition{b, konane::parse_ruleset(rules), b.start()};
            },
            "board"_a, "rules"_a = "brainking",
            R"(The full board with Black to move (before the two opening removals). board: 'RxC'
(e.g. '5x5') or (rows, cols), at most 64 squares. Raises ValueError for a board out of range.)")
        .def("__str__", [](const PyPosition& p) { return konane::format_position(p.board, p.pos); })
        .def("__repr__",
             [](const PyPosition& p) {
                 std::string r = "Position('" + konane::format_position(p.board, p.pos) + "'";
                 if (p.rules != Ruleset::Brainking) {
                     r += std::string(", rules='") + konane::ruleset_name(p.rules) + "'";
                 }
                 return r + ")";
             })
        .def("__eq__",
             [](const PyPosition& a, const py::object& other) {
                 if (!py::isinstance<PyPosition>(other)) return false;
                 const auto& b = other.cast<const PyPosition&>();
                 return a.board == b.board && a.rules == b.rules && a.pos == b.pos;
             })
        .def("__hash__",
             [](const PyPosition& p) {
                 return py::hash(py::make_tuple(p.board.rows, p.board.cols,
                                                static_cast<int>(p.rules), p.pos.occ,
                                                static_cast<int>(p.pos.to_move)));
             })
        .def(
            "__reduce__",
            [](const PyPosition& p) {
                // konane.Position(text, rules): works at every pickle protocol (0 to 5).
                return py::make_tuple(py::module_::import("konane").attr("Position"),
                                      py::make_tuple(konane::format_position(p.board, p.pos),
                                                     konane::ruleset_name(p.rules)));
            },
            "Pickles as konane.Position(text, rules) (any protocol).")
        .def_static(
            "from_squares", &from_squares, "board"_a, py::kw_only(),
            "black"_a = std::vector<std::string>{}, "white"_a = std::vector<std::string>{},
            "to_move"_a = "black", "rules"_a = "brainking",
            R"(The position with Black's pieces on the squares `black` and White's on `white`
(square names such as 'c3'; every other square empty) and `to_move` ('black' or 'white') to
move. board: 'RxC' or (rows, cols). A piece must stand on its own colour's square (rules.md
"Board and colours": Black's squares are those of the colour of a{R}). Raises ValueError for a
malformed square, one off the board, one given twice or on the other colour's square.)")
        .def_property_readonly(
            "black", [](const PyPosition& p) { return squares_of(p, Color::Black); },
            "The squares of Black's pieces ('x'), in square order a1, b1, ..., a2, ...")
        .def_property_readonly(
            "white", [](const PyPosition& p) { return squares_of(p, Color::White); },
            "The squares of White's pieces ('o'), in square order.")
        .def(
            "swap_colors",
            [](const PyPosition& p) {
                const auto& g = group_of(p.board);
                for (int i = 0; i < g.size(); ++i) {
                    if (g.swaps_colour(i))
                        return PyPosition{p.board, p.rules,
                                          Position{g.apply(i, p.pos.occ), p.pos.to_move}};
                }
                throw py::value_error(
                    "swap_colors: no symmetry of the " + p.board.name() +
                    " board exchanges the square colours (both sides odd), so Black's and "
                    "White's pieces cannot trade places on it");
            },
            R"(The position with Black's and White's pieces exchanged and the same colour to move:
combinatorial game theory's negative -G (Black's wins become White's). A piece's colour is its
square's, so the exchange is made by a mirror that maps Black's squares onto White's (left-right
when the board has an even number of files, else top-bottom). Raises ValueError on a board with
both sides odd (5x5, 3x7), where no mirror does.)")
        .def(
            "canonical",
            [](const PyPosition& p) {
                return PyPosition{p.board, p.rules, group_of(p.board).canonical(p.pos)};
            },
            R"(The representative of the position's class: the least image under the board's
symmetries (rules.md "Equivalent positions"; a symmetry that exchanges the square colours also
exchanges the side to move). Equivalent positions have equal canonical() forms; the table
stores positions in this form (Tablebase.positions()).)")
        .def(
            "equivalent",
            [](const PyPosition& a, const PyPosition& b) {
                return a.board == b.board && a.rules == b.rules &&
                       group_of(a.board).canonical(a.pos) == group_of(b.board).canonical(b.pos);
            },
            "other"_a,
            R"(True when `other` is the same game up to a symmetry of the board (equality up to
symmetry; == compares squares exactly): same board and ruleset, and a rotation or mirror maps
one onto the other with the mover's pieces on the mover's pieces.)")
        .def("_repr_svg_", &svg_of,
             "An SVG drawing of the board (shown by Jupyter notebooks): Black's pieces dark, "
             "White's light, files and ranks named, the side to move below.")
        .def_property_readonly(
            "board", [](const PyPosition& p) { return p.board.name(); },
            "The board size, 'RxC' (rows x columns).")
        .def_property_readonly(
            "rows", [](const PyPosition& p) { return p.board.rows; }, "Number of rows (ranks).")
        .def_property_readonly(
            "cols", [](const PyPosition& p) { return p.board.cols; }, "Number of columns (files).")
        .def_property_readonly(
            "rules", [](const PyPosition& p) { return konane::ruleset_name(p.rules); },
            "The opening ruleset: 'brainking', 'center' or 'any'.")
        .def_property_readonly(
            "to_move", [](const PyPosition& p) { return konane::color_name(p.pos.to_move); },
            "The side to move: 'black' or 'white'.")
        .def_property_readonly(
            "stage",
            [](const PyPosition& p) {
                return stage_name(konane::stage_of(p.board, p.rules, p.pos));
            },
            R"(The stage of the game: 'full_board' (no empty square, Black to move: Black removes a
piece), 'one_hole' (one empty square that Black may empty under the ruleset, White to move:
White removes a piece next to it) or 'play' (jumps; also every position no opening produces).)")
        .def_property_readonly(
            "pieces", [](const PyPosition& p) { return konane::piece_count(p.pos); },
            "Number of pieces on the board.")
        .def_property_readonly(
            "game_over",
            [](const PyPosition& p) {
                return konane::legal_moves(p.board, p.rules, p.pos).empty();
            },
            "True when the side to move has no legal move (and so has lost).")
        .def(
            "moves",
            [](const PyPosition& p) {
                std::vector<std::string> out;
                for (const auto& mc : konane::legal_moves(p.board, p.rules, p.pos)) {
                    out.push_back(konane::format_move(p.board, mc.move));
                }
                return out;
            },
            R"(The legal moves, as strings: Black's removals on the full board, White's removals next
to the hole on a one-hole board, jumps otherwise ('c5-c3'; a multi-jump is written from start
to end). Order: jumps up, down, right, left; by start square a1, b1, ...; shorter first.)")
        .def(
            "play",
            [](const PyPosition& p, const std::string& moves) {
                const auto game = konane::parse_game(p.board, p.rules, moves, p.pos);
                return PyPosition{p.board, p.rules, game.positions.back()};
            },
            "moves"_a,
            R"(The position after one move ('c5-c3', or 'c3' for a removal), or after several
separated by spaces ('c3 c2 c5-c3'). Raises ValueError naming the move that is malformed or
illegal (the message lists the legal moves).)")
        .def(
            "perft",
            [](const PyPosition& p, int depth) {
                if (depth < 0) {
                    throw py::value_error("depth: expected 0 or more, got " +
                                          std::to_string(depth));
                }
                std::uint64_t n = 0;
                run_stoppable([&](const std::atomic<bool>& stop) {
                    n = konane::perft(p.board, p.rules, p.pos, depth, &stop);
                });
                return n;
            },
            "depth"_a,
            R"(The number of move sequences of `depth` plies from this position (removals count as
plies); perft(0) is 1. Runs without the GIL; Ctrl-C stops it (KeyboardInterrupt).)");
}

}  // namespace konane::python
