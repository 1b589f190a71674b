#include "probe/probe.hpp"

#include <array>
#include <mutex>
#include <string>

#include "core/notation.hpp"
#include "probe/engine.hpp"
#include "table/header.hpp"

namespace konane {

struct Tablebase::State {
    std::shared_ptr<const format::Table> table;
    Board board;
    Ruleset rules = Ruleset::Brainking;
    Opening opening;
    SymmetryGroup group;
    std::vector<int> layer_of_pieces;  ///< layer index by piece count, -1 if none

    State(std::shared_ptr<const format::Table> t, const Board& b, const Opening& o)
        : table(std::move(t)),
          board(b),
          rules(o.rules),
          opening(o),
          group(b),
          layer_of_pieces(static_cast<std::size_t>(b.squares()) + 1, -1) {
        const auto& layers = table->layers();
        for (std::size_t i = 0; i < layers.size(); ++i) {
            if (layers[i].pieces < layer_of_pieces.size()) {
                layer_of_pieces[layers[i].pieces] = static_cast<int>(i);
            }
        }
    }
};

Tablebase Tablebase::open(const std::filesystem::path& path, const format::Expect& expect,
                          const format::OpenOptions& options) {
    auto table = format::Table::open(path, expect, options);
    TableGame g = checked_game(*table);
    return Tablebase(std::make_shared<const State>(std::move(table), g.board, g.opening));
}

const Board& Tablebase::board() const {
    return state_->board;
}
Ruleset Tablebase::rules() const {
    return state_->rules;
}
const Opening& Tablebase::opening() const {
    return state_->opening;
}
const format::Table& Tablebase::table() const {
    return *state_->table;
}
const SymmetryGroup& Tablebase::group() const {
    return state_->group;
}

std::optional<Value> Tablebase::lookup(Position p) const {
    const State& s = *state_;
    if ((p.occ & ~s.board.all) != 0) return std::nullopt;
    if (stage_of(s.board, s.rules, p) != Stage::Play) return std::nullopt;
    const int layer = s.layer_of_pieces[static_cast<std::size_t>(piece_count(p))];
    if (layer < 0) return std::nullopt;
    // One query of probe_many(): its look-up waits for three rounds of memory, find() then
    // value() for five.
    const format::Table::Query q{static_cast<std::size_t>(layer), s.group.canonical_key(p)};
    format::Table::Answer a;
    s.table->probe_many(std::span(&q, 1), std::span(&a, 1));
    if (!a.stored) return std::nullopt;
    return Value::from_depth(a.depth);
}

namespace {

/// True when an opening-stage position can arise under the table's ruleset: the full board
/// always; a one-hole board (White to move) when its hole is one of Black's legal removals.
/// Never for a gap's table, whose game starts after the removals.
bool opening_reachable(const Board& b, const Opening& o, Position p) {
    if ((p.occ & ~b.all) != 0 || o.gap) return false;
    const Ruleset r = o.rules;
    switch (stage_of(b, r, p)) {
        case Stage::FullBoard:
            return true;
        case Stage::OneHole:
            return (b.all & ~p.occ & b.black_removals(r)) != 0;
        case Stage::Play:
            return false;
    }
    return false;
}

}  // namespace

std::optional<Value> Tablebase::value(Position p) const {
    if (!in_opening(board(), rules(), p)) return lookup(p);
    // Opening stage: answered from the children (rules.md "Equivalent positions").
    if (!opening_reachable(board(), opening(), p)) return std::nullopt;
    return opening_value(board(), rules(), p, [&](const MoveChild& mc, std::size_t, std::size_t) {
        return value(mc.child);
    });
}

std::vector<MoveValue> Tablebase::moves(Position p) const {
    const State& s = *state_;
    const bool play = stage_of(s.board, s.rules, p) == Stage::Play;
    auto not_held = [&] {
        return NotStored("position " + format_position(board(), p) + " is not stored in " +
                         table().path().string() + " (not reachable on " + board().name() +
                         (opening().gap ? " from " : " under ") + opening_text(board(), opening()) +
                         ")");
    };
    auto child_not_held = [&](const auto& mc) {
        return NotStored("position " + format_position(board(), mc.child) + " (after " +
                         format_move(board(), mc.move) + ") is not stored in " +
                         table().path().string());
    };
    std::vector<MoveValue> out;
    constexpr std::size_t kMost = 64;
    if (play && (p.occ & ~s.board.all) == 0) {
        const auto ms = legal_moves(s.board, s.rules, p);
        if (ms.size() < kMost) {
            // The position and its children (a jump leaves the Play stage in the Play stage)
            // in one batch: their cache misses overlap (format::Table::probe_many).
            std::array<format::Table::Query, kMost> q;
            std::array<format::Table::Answer, kMost> a;
            std::size_t n = 0;
            for (std::size_t i = 0; i <= ms.size(); ++i) {
                const Position c = i == 0 ? p : ms[i - 1].child;
                const int layer = s.layer_of_pieces[static_cast<std::size_t>(piece_count(c))];
                if (layer < 0) {
                    if (i == 0) throw not_held();
                    throw child_not_held(ms[i - 1]);
                }
                q[n++] = {static_cast<std::size_t>(layer), s.group.canonical_key(c)};
            }
            s.table->probe_many(std::span(q.data(), n), std::span(a.data(), n));
            if (!a[0].stored) throw not_held();
            for (std::size_t i = 0; i < ms.size(); ++i) {
                if (!a[i + 1].stored) throw child_not_held(ms[i]);
                out.push_back(
                    {ms[i].move, ms[i].child, move_value(Value::from_depth(a[i + 1].depth))});
            }
            return out;
        }
    }
    const bool held = play ? lookup(p).has_value() : opening_reachable(board(), opening(), p);
    if (!held) throw not_held();
    for (const auto& mc : legal_moves(board(), rules(), p)) {
        const auto v = value(mc.child);
        if (!v) throw child_not_held(mc);
        out.push_back({mc.move, mc.child, move_value(*v)});
    }
    return out;
}

std::optional<MoveValue> Tablebase::best_move(Position p) const {
    return best_move_of(*this, p);
}

std::vector<MoveValue> Tablebase::perfect_line(Position p) const {
    return perfect_line_of(*this, p);
}

}  // namespace konane
