// libFuzzer target: the position parser (core/notation.hpp parse_position) on any bytes.
// Properties: it accepts or throws NotationError (any other exception, a crash or a sanitizer
// report is a finding); what it accepts formats back to text that parses to the same position;
// the rules engine handles it (every legal move formats and parses back to itself, takes
// pieces off and passes the turn; the canonical form is a fixed point).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/board.hpp"
#include "core/movegen.hpp"
#include "core/notation.hpp"
#include "core/symmetry.hpp"
#include "tests/fuzz/check.hpp"

using namespace konane;

namespace {

void check_accepted(const Board& b, Position p) {
    const std::string text = format_position(b, p);
    const ParsedPosition again = parse_position(text, &b);
    FUZZ_CHECK(again.board == b && again.position == p);
    FUZZ_CHECK(format_position(again.board, again.position) == text);
    for (const Ruleset r : {Ruleset::Brainking, Ruleset::Center, Ruleset::Any}) {
        for (const MoveChild& mc : legal_moves(b, r, p)) {
            // A removal takes one piece, a (multiple) jump one or more.
            FUZZ_CHECK(piece_count(mc.child) < piece_count(p));
            FUZZ_CHECK(!mc.move.is_removal() || piece_count(mc.child) == piece_count(p) - 1);
            FUZZ_CHECK(mc.child.to_move == other(p.to_move));
            FUZZ_CHECK((mc.child.occ & ~b.all) == 0);
            const MoveChild back = parse_move(b, r, p, format_move(b, mc.move));
            FUZZ_CHECK(back.move == mc.move && back.child == mc.child);
        }
    }
    if (b.squares() <= 63) {
        const SymmetryGroup g(b);
        const Position c = g.canonical(p);
        FUZZ_CHECK(g.canonical(c) == c);
        FUZZ_CHECK(piece_count(c) == piece_count(p));
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const ParsedPosition pp = parse_position(text);
        check_accepted(pp.board, pp.position);
    } catch (const NotationError&) {
    }
    // With the board given, as `konane probe FILE POSITION` parses it (4x4 and 8x8).
    static const Board b4 = Board::make(4, 4), b8 = Board::make(8, 8);
    for (const Board* b : {&b4, &b8}) {
        try {
            const ParsedPosition pp = parse_position(text, b);
            FUZZ_CHECK(pp.board == *b);
        } catch (const NotationError&) {
        }
    }
    return 0;
}
