// The answer for one position, the same for every consumer (the `konane` command, `konane
// serve`, the Python module): its value, every move's value and the perfect line, from a table
// or from a search. Values and tie-breaks: docs/rules.md ("Values").
#pragma once

#include <optional>
#include <vector>

#include "core/value.hpp"
#include "probe/probe.hpp"

namespace konane {

/// The answer for one position: its value for the side to move, every legal move with its value
/// for the mover (depth from before the move, legal_moves() order), and the perfect line. Pos
/// and MV: Position and MoveValue (Answer), or a wide board's (search/wide_search.hpp
/// WideAnswer).
template <class Pos, class MV>
struct BasicAnswer {
    Pos position;
    Value value;
    std::vector<MV> moves;
    std::vector<MV> line;
};

/// The answer on boards of up to 64 squares.
using Answer = BasicAnswer<Position, MoveValue>;

/// The answer of an engine that values every position it is asked (search/: Searcher, WideSearcher:
/// value(p), moves(p), perfect_line(p)) for p. Throws what the engine throws (SearchLimit).
template <class Engine, class Pos>
auto engine_answer(Engine& e, const Pos& p) {
    using MV = typename decltype(e.moves(p))::value_type;
    return BasicAnswer<Pos, MV>{p, e.value(p), e.moves(p), e.perfect_line(p)};
}

/// The answer of a table for p, or nullopt when the table does not hold p.
/// @throws NotStored when it holds p but not one of its children; format::FormatError on a
///         damaged block.
std::optional<Answer> table_answer(const Tablebase& tb, Position p);

}  // namespace konane
