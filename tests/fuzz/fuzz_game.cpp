// libFuzzer target: the game record parser (core/notation.hpp parse_game), as `konane probe
// FILE --game REC` and `konane analyse FILE REC` use it.
// Input: a first line "RxC [RULES]" (board and ruleset, as a table gives them) or a start
// position, then the record; without a newline, the whole input is a record on 6x6 brainking.
// Properties: the board, ruleset and position parsers throw only std::invalid_argument
// (NotationError for notation); parse_game accepts or throws NotationError; an accepted game is
// a chain of legal moves from the start, and its moves formatted back parse to the same game.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/board.hpp"
#include "core/movegen.hpp"
#include "core/notation.hpp"
#include "tests/fuzz/check.hpp"

using namespace konane;

namespace {

void check_game(const Board& b, Ruleset r, Position start, const Game& g) {
    FUZZ_CHECK(g.positions.size() == g.moves.size() + 1);
    FUZZ_CHECK(g.positions.front() == start);
    std::string record;
    for (std::size_t i = 0; i < g.moves.size(); ++i) {
        bool found = false;
        for (const MoveChild& mc : legal_moves(b, r, g.positions[i]))
            found = found || (mc.move == g.moves[i].move && mc.child == g.positions[i + 1]);
        FUZZ_CHECK(found);
        record += (i ? " " : "") + format_move(b, g.moves[i].move);
    }
    const Game again = parse_game(b, r, record, start);
    FUZZ_CHECK(again.positions == g.positions);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    Board b = Board::make(6, 6);
    Ruleset r = Ruleset::Brainking;
    std::optional<Position> start;
    if (const auto nl = text.find('\n'); nl != std::string_view::npos) {
        std::string_view header = text.substr(0, nl);
        text.remove_prefix(nl + 1);
        try {
            if (header.find('/') != std::string_view::npos || header.ends_with(" b") ||
                header.ends_with(" w")) {
                const ParsedPosition pp = parse_position(header);
                b = pp.board;
                start = pp.position;
            } else {
                const auto space = header.find(' ');
                b = Board::parse(header.substr(0, space));
                if (space != std::string_view::npos) r = parse_ruleset(header.substr(space + 1));
            }
        } catch (const std::invalid_argument&) {
            return 0;
        }
    }
    try {
        const Game g = parse_game(b, r, text, start);
        check_game(b, r, start ? *start : b.start(), g);
    } catch (const NotationError&) {
    }
    return 0;
}
