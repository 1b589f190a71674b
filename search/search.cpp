#include "search/search.hpp"

#include <string>

#include "core/depth.hpp"
#include "probe/engine.hpp"

namespace konane {

Searcher::Searcher(const Board& b, const SearchOptions& options, std::optional<Tablebase> table)
    : board_(b), options_(options), group_(b), table_(std::move(table)) {
    if (table_ && !(table_->board() == b)) {
        throw std::invalid_argument("the table " + table_->table().path().string() + " is for a " +
                                    table_->board().name() + " board, the position for a " +
                                    b.name() + " board");
    }
}

std::vector<MoveChild> Searcher::children(Position p) const {
    return legal_moves(board_, options_.rules, p, options_.jumps_only);
}

std::optional<int> Searcher::checked_table_depth(Position p) {
    // lookup() answers Play-stage positions only; the jump stage means the same in both modes.
    const auto v = table_->lookup(p);
    if (!v) return std::nullopt;
    DepthAccumulator acc;
    bool all_stored = true;
    for_each_jump(board_, p, [&](Move, Position c) {
        if (!all_stored) return;
        const auto cv = table_->lookup(c);
        if (!cv) {
            all_stored = false;
            return;
        }
        acc.add(cv->depth);
    });
    if (!all_stored || acc.result() != v->depth) {
        ++table_rejections_;
        return std::nullopt;
    }
    ++table_hits_;
    return v->depth;
}

int Searcher::depth_of(Position p) {
    if (in_opening(board_, options_.rules, p, options_.jumps_only)) {
        // Opening stage: not memoised. A colour-swapping symmetry can map the full board with
        // Black to move (removals) onto the full board with White to move (jump stage, no
        // move), so the two must not share a memo entry; there are few such positions.
        return opening_value(board_, options_.rules, p,
                             [&](const MoveChild& mc, std::size_t, std::size_t) {
                                 return std::optional(Value::from_depth(depth_of(mc.child)));
                             })
            ->depth;
    }
    const Position key = group_.canonical(p);
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    std::optional<int> d;
    if (table_) d = checked_table_depth(p);
    if (!d) {
        DepthAccumulator acc;
        for (const auto& mc : children(p))
            acc.add(depth_of(mc.child));
        d = acc.result();
    }
    if (options_.max_positions && memo_.size() >= options_.max_positions) {
        throw SearchLimit("the search needs more than " + std::to_string(options_.max_positions) +
                          " positions (raise the limit, or give a table)");
    }
    memo_.emplace(key, static_cast<std::uint8_t>(*d));
    if (options_.progress && (memo_.size() & 0xFFFF) == 0) options_.progress(memo_.size());
    return *d;
}

Value Searcher::value(Position p) {
    return Value::from_depth(depth_of(p));
}

std::vector<MoveValue> Searcher::moves(Position p) {
    std::vector<MoveValue> out;
    for (const auto& mc : children(p)) {
        out.push_back({mc.move, mc.child, move_value(Value::from_depth(depth_of(mc.child)))});
    }
    return out;
}

std::optional<MoveValue> Searcher::best_move(Position p) {
    return best_move_of(*this, p);
}

std::vector<MoveValue> Searcher::perfect_line(Position p) {
    return perfect_line_of(*this, p);
}

Answer search_answer(Searcher& s, Position p) {
    return engine_answer(s, p);
}

}  // namespace konane
