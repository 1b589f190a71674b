#include "core/gap.hpp"

#include <stdexcept>

#include "core/movegen.hpp"
#include "core/notation.hpp"
#include "core/text.hpp"

namespace konane {

Gap parse_gap(const Board& b, std::string_view text) {
    const std::string what = "gap '" + excerpt(text) + "'";
    const auto comma = text.find(',');
    if (comma == std::string_view::npos || text.find(',', comma + 1) != std::string_view::npos) {
        throw std::invalid_argument(what +
                                    ": expected two squares separated by a comma, such as c3,c4");
    }
    int s[2];
    const std::string_view part[2] = {text.substr(0, comma), text.substr(comma + 1)};
    for (int i = 0; i < 2; ++i) {
        try {
            s[i] = parse_square(b, part[i]);
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(what + ": " + e.what());
        }
    }
    const std::string a = square_name(b, s[0]), c = square_name(b, s[1]);
    if (s[0] == s[1]) throw std::invalid_argument(what + ": " + a + " twice: a gap is two squares");
    if (b.color_of(s[0]) == b.color_of(s[1])) {
        throw std::invalid_argument(what + ": " + a + " and " + c + " are both " +
                                    color_name(b.color_of(s[0])) +
                                    "'s squares: a gap is one Black and one White square, "
                                    "orthogonally adjacent");
    }
    if (((b.neighbours(s[0]) >> s[1]) & 1) == 0) {
        throw std::invalid_argument(what + ": " + a + " and " + c +
                                    " are not orthogonally adjacent: a gap is two neighbouring "
                                    "squares, such as c3,c4");
    }
    return b.color_of(s[0]) == Color::Black ? Gap{s[0], s[1]} : Gap{s[1], s[0]};
}

std::string gap_name(const Board& b, Gap g) {
    return square_name(b, g.black) + "," + square_name(b, g.white);
}

Position gap_start(const Board& b, Gap g) {
    return Position{b.all & ~(std::uint64_t{1} << g.black) & ~(std::uint64_t{1} << g.white),
                    Color::Black};
}

std::vector<Position> start_positions(const Board& b, const Opening& o) {
    if (o.gap) return {gap_start(b, *o.gap)};
    std::vector<Position> out;
    for (const auto& first : legal_moves(b, o.rules, b.start())) {
        for (const auto& second : legal_moves(b, o.rules, first.child))
            out.push_back(second.child);
    }
    return out;
}

std::string opening_tag(const Board& b, const Opening& o) {
    if (!o.gap) return ruleset_name(o.rules);
    return "gap-" + square_name(b, o.gap->black) + "-" + square_name(b, o.gap->white);
}

Opening parse_opening_tag(const Board& b, std::string_view tag) {
    if (tag.substr(0, 4) != "gap-") return Opening(parse_ruleset(tag));
    std::string squares(tag.substr(4));
    const auto dash = squares.find('-');
    if (dash != std::string::npos) squares[dash] = ',';
    return Opening::from_gap(parse_gap(b, squares));
}

std::string opening_text(const Board& b, const Opening& o) {
    if (o.gap) return "gap " + gap_name(b, *o.gap);
    return std::string("ruleset ") + ruleset_name(o.rules);
}

std::string gap_rules_conflict(const Board& b, Gap g, Ruleset r) {
    if ((b.black_removals(r) >> g.black) & 1) return {};
    std::string allowed;
    for (int s = 0; s < b.squares(); ++s) {
        if ((b.black_removals(r) >> s) & 1)
            allowed += (allowed.empty() ? "" : " ") + square_name(b, s);
    }
    return "--gap " + gap_name(b, g) + " starts after Black removed " + square_name(b, g.black) +
           ", which ruleset " + ruleset_name(r) + " does not allow on " + b.name() +
           " (Black may remove: " + (allowed.empty() ? "none" : allowed) +
           "); a gap replaces the opening removals, so drop --rules";
}

}  // namespace konane
