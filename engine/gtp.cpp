#include "engine/gtp.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <exception>
#include <sstream>

#include "core/notation.hpp"
#include "core/text.hpp"

namespace konane::engine {

namespace {

/// An error answer's text.
struct GtpError {
    std::string message;
};

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

Color parse_color(const std::string& text) {
    const std::string c = lower(text);
    if (c == "black" || c == "b") return Color::Black;
    if (c == "white" || c == "w") return Color::White;
    throw GtpError{"invalid color '" + excerpt(text) + "' (black or white)"};
}

/// A number of seconds or stones: a finite, non-negative decimal up to `most` (10^7 by
/// default).
double parse_amount(const std::string& text, const char* what, double most = 1e7) {
    std::size_t used = 0;
    double v = 0;
    try {
        v = std::stod(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != text.size() || !std::isfinite(v) || v < 0 || v > most) {
        char range[64];
        std::snprintf(range, sizeof range, "%.0f", most);
        throw GtpError{std::string("invalid ") + what + " '" + excerpt(text) +
                       "' (a number from 0 to " + range + ")"};
    }
    return v;
}

/// The board of `boardsize N` (N x N) or `boardsize RxC`, of at most 64 squares.
Board parse_board_size(const std::string& text) {
    try {
        if (!text.empty() && std::all_of(text.begin(), text.end(),
                                         [](unsigned char c) { return std::isdigit(c); })) {
            if (text.size() > 2) throw std::invalid_argument("too large");
            const int n = std::stoi(text);
            return Board::make(n, n);
        }
        return Board::parse(lower(text));
    } catch (const std::exception&) {
        throw GtpError{"unacceptable size"};
    }
}

}  // namespace

const std::vector<std::string>& gtp_commands() {
    static const std::vector<std::string> commands = {
        "protocol_version", "name",      "version", "known_command",   "list_commands", "boardsize",
        "clear_board",      "komi",      "play",    "genmove",         "undo",          "showboard",
        "time_settings",    "time_left", "quit",    "konane-position", "konane-source"};
    return commands;
}

GtpSession::GtpSession(GtpOptions options) : options_(std::move(options)), board_(options_.board) {
    reset(board_, board_.start());
}

GtpSession::~GtpSession() = default;

void GtpSession::reset(const Board& b, Position start) {
    const bool same = b.rows == board_.rows && b.cols == board_.cols;
    board_ = b;
    history_.assign(1, start);
    last_.reset();
    if (!same) {
        engine_.reset();
    } else if (engine_) {
        engine_->clear();
    }
}

Engine& GtpSession::engine() {
    if (!engine_) {
        EngineOptions o = options_.engine;
        // The table plays on its own board only.
        if (o.table &&
            (o.table->board().rows != board_.rows || o.table->board().cols != board_.cols))
            o.table.reset();
        engine_ = std::make_unique<Engine>(board_, std::move(o));
    }
    return *engine_;
}

double GtpSession::move_seconds() const {
    if (!clock_) return options_.limits.seconds;
    const int side = static_cast<int>(history_.back().to_move);
    // The moves this side still has to make, at most: a quarter of the pieces (every move
    // takes one, the opponent's moves the other half), at least 4.
    const double moves_left = std::max(4.0, std::popcount(history_.back().occ) / 4.0);
    double t = left_[side] / moves_left;
    if (stones_left_[side] > 0) {
        t = left_[side] / stones_left_[side];  // byo-yomi: the period's time over its stones
    } else if (byo_time_ > 0 && byo_stones_ > 0) {
        t += byo_time_ / byo_stones_;
    }
    // A safety margin for the process and the pipe.
    return std::max(0.01, t * 0.9 - 0.02);
}

std::string GtpSession::handle(std::string_view raw) {
    // GTP 2 §2.2: control characters other than tab and newline removed, tabs as spaces,
    // a comment from '#'.
    std::string line;
    for (char c : raw) {
        if (c == '#') break;
        if (c == '\t') c = ' ';
        if (static_cast<unsigned char>(c) < 32 || c == 127) continue;
        line += c;
    }
    std::istringstream in(line);
    std::vector<std::string> words;
    for (std::string w; in >> w;)
        words.push_back(w);
    if (words.empty()) return "";
    std::string id;
    if (std::all_of(words[0].begin(), words[0].end(),
                    [](unsigned char c) { return std::isdigit(c); })) {
        id = words[0];
        words.erase(words.begin());
        if (words.empty()) return "?" + id + " missing command\n\n";
    }
    const std::string name = words[0];
    words.erase(words.begin());
    try {
        const std::string result = command(name, words);
        return "=" + id + (result.empty() ? "" : " " + result) + "\n\n";
    } catch (const GtpError& e) {
        return "?" + id + " " + e.message + "\n\n";
    } catch (const std::exception& e) {
        return "?" + id + " " + printable(e.what()) + "\n\n";
    }
}

std::string GtpSession::command(const std::string& name, const std::vector<std::string>& args) {
    const auto want = [&](std::size_t n) {
        if (args.size() != n)
            throw GtpError{"syntax error: " + name + " takes " + std::to_string(n) + " argument" +
                           (n == 1 ? "" : "s")};
    };
    if (name == "protocol_version") return "2";
    if (name == "name") return options_.name;
    if (name == "version") return options_.version;
    if (name == "known_command") {
        want(1);
        const auto& c = gtp_commands();
        return std::find(c.begin(), c.end(), args[0]) != c.end() ? "true" : "false";
    }
    if (name == "list_commands") {
        std::string s;
        for (const std::string& c : gtp_commands())
            s += (s.empty() ? "" : "\n") + c;
        return s;
    }
    if (name == "quit") {
        quit_ = true;
        return "";
    }
    if (name == "boardsize") {
        want(1);
        const Board b = parse_board_size(args[0]);
        reset(b, b.start());
        return "";
    }
    if (name == "clear_board") {
        reset(board_, board_.start());
        return "";
    }
    if (name == "komi") {
        want(1);
        parse_amount(args[0], "komi");
        return "";  // Kōnane has no komi: accepted for GUIs that always send it, and ignored
    }
    if (name == "konane-position") {
        if (args.empty()) throw GtpError{"syntax error: konane-position takes a position"};
        std::string text = args[0];
        for (std::size_t i = 1; i < args.size(); ++i)
            text += " " + args[i];
        text = with_side(std::move(text));
        ParsedPosition parsed;
        try {
            parsed = parse_position(text);
        } catch (const std::exception& e) {
            throw GtpError{"invalid position: " + printable(e.what())};
        }
        reset(parsed.board, parsed.position);
        return "";
    }
    if (name == "play") {
        want(2);
        const Color c = parse_color(args[0]);
        const Position p = history_.back();
        if (c != p.to_move)
            throw GtpError{std::string("illegal move: ") + color_name(c) + " is not to move"};
        MoveChild mc;
        try {
            mc = parse_move(board_, options_.engine.rules, p, lower(args[1]));
        } catch (const std::exception&) {
            throw GtpError{"illegal move"};
        }
        history_.push_back(mc.child);
        return "";
    }
    if (name == "genmove") {
        want(1);
        const Color c = parse_color(args[0]);
        const Position p = history_.back();
        if (c != p.to_move)
            throw GtpError{std::string("illegal move: ") + color_name(c) + " is not to move"};
        MoveLimits lim = options_.limits;
        lim.seconds = move_seconds();
        if (clock_) lim.depth = 0, lim.nodes = 0;
        const auto t0 = std::chrono::steady_clock::now();
        const std::optional<Decision> d = engine().decide(p, lim);
        if (clock_) {
            left_[static_cast<int>(c)] -=
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        }
        if (!d) {
            last_.reset();
            return "resign";  // no legal move: the side to move has lost (rules.md "End")
        }
        last_ = d;
        history_.push_back(d->move.child);
        const std::string move = format_move(board_, d->move.move);
        if (options_.log) {
            *options_.log << options_.name << ": " << move << " (" << d->describe() << ", "
                          << d->nodes << " nodes, " << d->seconds << " s)" << std::endl;
        }
        return move;
    }
    if (name == "konane-nodes" || name == "konane-depth") {
        // A reproducible budget a move (nodes, or the search's depth) in place of the time.
        want(1);
        const double v = parse_amount(args[0], name == "konane-nodes" ? "nodes" : "depth", 1e15);
        if (v < 1 || v != std::floor(v) || (name == "konane-depth" && v > 128))
            throw GtpError{"invalid " + name.substr(7) + " '" + excerpt(args[0]) +
                           "' (a whole number from 1" +
                           (name == "konane-depth" ? " to 128)" : ")")};
        if (name == "konane-nodes") {
            options_.limits.nodes = static_cast<std::uint64_t>(v);
        } else {
            options_.limits.depth = static_cast<int>(v);
        }
        options_.limits.seconds = 0;
        return "";
    }
    if (name == "konane-source") {
        if (!last_) throw GtpError{"no move generated yet"};
        return last_->describe();
    }
    if (name == "undo") {
        if (history_.size() < 2) throw GtpError{"cannot undo"};
        history_.pop_back();
        last_.reset();
        return "";
    }
    if (name == "showboard") return "\n" + board_diagram(board_, history_.back());
    if (name == "time_settings") {
        want(3);
        main_time_ = parse_amount(args[0], "main time");
        byo_time_ = parse_amount(args[1], "byo-yomi time");
        byo_stones_ = static_cast<int>(parse_amount(args[2], "byo-yomi stones"));
        // GTP 2 §6.3: byo-yomi time > 0 with 0 stones means no time limit.
        clock_ = !(byo_time_ > 0 && byo_stones_ == 0) && (main_time_ > 0 || byo_time_ > 0);
        left_[0] = left_[1] = main_time_;
        stones_left_[0] = stones_left_[1] = 0;
        return "";
    }
    if (name == "time_left") {
        want(3);
        const int side = static_cast<int>(parse_color(args[0]));
        left_[side] = parse_amount(args[1], "time");
        stones_left_[side] = static_cast<int>(parse_amount(args[2], "stones"));
        return "";
    }
    throw GtpError{"unknown command"};
}

void GtpSession::run(std::istream& in, std::ostream& out) {
    for (std::string line; !quit_ && std::getline(in, line);) {
        const std::string answer = handle(line);
        if (answer.empty()) continue;
        out << answer;
        out.flush();
    }
}

}  // namespace konane::engine
