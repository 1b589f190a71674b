// Example: probe a Konane table and search a position no table holds.
//   konane_probe_example TABLE.kbt [POSITION]
#include <cstdio>
#include <exception>

#include "core/notation.hpp"
#include "probe/probe.hpp"
#include "search/search.hpp"

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s TABLE.kbt [POSITION]\n", argv[0]);
        return 2;
    }
    try {
        const konane::Tablebase tb = konane::Tablebase::open(argv[1]);
        const konane::Board& b = tb.board();
        konane::Position p = b.start();
        if (argc > 2) p = konane::parse_position(argv[2], &b).position;
        const auto v = tb.value(p);
        if (!v) {
            std::printf("%s: not stored\n", konane::format_position(b, p).c_str());
            return 3;
        }
        std::printf("%s: %s in %d plies\n", konane::format_position(b, p).c_str(),
                    v->win ? "win" : "loss", v->depth);
        for (const auto& mv : tb.moves(p)) {
            std::printf("  %-6s %s %d\n", konane::format_move(b, mv.move).c_str(),
                        mv.value.win ? "win" : "loss", mv.value.depth);
        }
        std::printf("perfect line:");
        for (const auto& mv : tb.perfect_line(p)) {
            std::printf(" %s", konane::format_move(b, mv.move).c_str());
        }
        std::printf("\n");

        // A single row, solved by search: .ox. is a win for whoever moves first.
        const auto row = konane::parse_position(".ox. b");
        konane::Searcher s(row.board);
        const auto black = s.value(row.position);
        const auto white = s.value(konane::Position{row.position.occ, konane::Color::White});
        std::printf(".ox.: outcome %s\n", konane::outcome_name(konane::outcome_of(black, white)));
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}
