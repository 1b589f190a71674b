#include "probe/probe.hpp"

#include "core/fingerprint.hpp"
#include "core/notation.hpp"

namespace konane {

bool better(const Value& a, const Value& b) {
    if (a.win != b.win) return a.win;
    return a.win ? a.depth < b.depth : a.depth > b.depth;
}

Tablebase::State::State(std::shared_ptr<const format::Table> t, const Board& b, Ruleset r)
    : table(std::move(t)),
      board(b),
      rules(r),
      group(b),
      fingerprint_bits(table->meta().fingerprint_bits),
      layer_of_pieces(static_cast<std::size_t>(b.squares()) + 1, -1),
      once(table->layers().size()),
      views(table->layers().size()) {
    const auto& layers = table->layers();
    for (std::size_t i = 0; i < layers.size(); ++i) {
        if (layers[i].pieces < layer_of_pieces.size()) {
            layer_of_pieces[layers[i].pieces] = static_cast<int>(i);
        }
    }
}

const MphfView& Tablebase::State::view(int layer) const {
    std::call_once(once[layer], [&] {
        const auto blob = table->mphf_blob(static_cast<std::size_t>(layer));
        try {
            views[layer] = MphfView::from_bytes(blob);
        } catch (const std::exception& e) {
            throw format::FormatError(table->path().string() + ": layer " +
                                      std::to_string(table->layers()[layer].pieces) +
                                      " perfect hash: " + e.what());
        }
        if (views[layer].size() != table->layers()[layer].classes) {
            throw format::FormatError(table->path().string() + ": layer " +
                                      std::to_string(table->layers()[layer].pieces) +
                                      " perfect hash: covers " +
                                      std::to_string(views[layer].size()) + " keys, layer has " +
                                      std::to_string(table->layers()[layer].classes));
        }
    });
    return views[layer];
}

Tablebase Tablebase::open(const std::filesystem::path& path, const format::Expect& expect) {
    auto table = format::Table::open(path, expect);
    const auto& m = table->meta();
    Board b;
    Ruleset r;
    try {
        b = Board::make(static_cast<int>(m.rows), static_cast<int>(m.cols));
        r = parse_ruleset(m.ruleset);
    } catch (const std::invalid_argument& e) {
        throw format::FormatError(path.string() + ": header: " + e.what());
    }
    return Tablebase(std::make_shared<const State>(std::move(table), b, r));
}

std::optional<Value> Tablebase::lookup(Position p) const {
    const State& s = *state_;
    if ((p.occ & ~s.board.all) != 0) return std::nullopt;
    const int pieces = piece_count(p);
    const int layer = s.layer_of_pieces[pieces];
    if (layer < 0) return std::nullopt;
    const std::uint64_t key = s.group.canonical_key(p);
    const std::uint64_t slot = s.view(layer)(key);
    if (s.fingerprint_bits &&
        s.table->fingerprint(static_cast<std::size_t>(layer), slot) !=
            fingerprint(key, s.fingerprint_bits)) {
        return std::nullopt;
    }
    return Value::from_depth(s.table->value(static_cast<std::size_t>(layer), slot));
}

std::vector<MoveValue> Tablebase::moves(Position p) const {
    std::vector<MoveValue> out;
    for (const auto& mc : legal_moves(board(), rules(), p)) {
        const auto v = value(mc.child);
        if (!v) {
            throw NotStored("position " + format_position(board(), mc.child) + " (after " +
                            format_move(board(), mc.move) + ") is not stored in " +
                            table().path().string());
        }
        out.push_back({mc.move, mc.child, Value{!v->win, v->depth + 1}});
    }
    return out;
}

std::optional<Value> Tablebase::value(Position p) const {
    if (stage_of(board(), p) == Stage::Play) return lookup(p);
    // Opening stage: answered from the children (rules.md "Equivalent positions").
    const auto children = legal_moves(board(), rules(), p);
    if (children.empty()) return Value{false, 0};
    std::optional<Value> best;
    for (const auto& mc : children) {
        const auto v = value(mc.child);
        if (!v) return std::nullopt;
        const Value mine{!v->win, v->depth + 1};
        if (!best || better(mine, *best)) best = mine;
    }
    return best;
}

std::optional<MoveValue> Tablebase::best_move(Position p) const {
    std::optional<MoveValue> best;
    for (const auto& mv : moves(p)) {
        if (!best || better(mv.value, best->value)) best = mv;
    }
    return best;
}

std::vector<MoveValue> Tablebase::perfect_line(Position p) const {
    std::vector<MoveValue> line;
    while (auto mv = best_move(p)) {
        line.push_back(*mv);
        p = mv->child;
    }
    return line;
}

}  // namespace konane
