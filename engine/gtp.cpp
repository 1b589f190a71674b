#include "engine/gtp.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdint>
#include <exception>
#include <sstream>
#include <string_view>

#include "core/notation.hpp"
#include "core/text.hpp"
#include "process/line_reader.hpp"

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

/// Throws GtpError "illegal move" unless colour c is to move in p (play and genmove).
void check_to_move(Color c, const Position& p) {
    if (c != p.to_move)
        throw GtpError{std::string("illegal move: ") + color_name(c) + " is not to move"};
}

/// A number of seconds: decimal digits with an optional fraction, from 0 to `most` (10^7 by
/// default), read by the strict parser of every number the command takes
/// (decimal_fraction_problem(): no sign, exponent, hexadecimal, nan or inf).
double parse_amount(const std::string& text, const char* what, double most = 1e7) {
    double v = 0;
    const std::string problem = decimal_fraction_problem(text, 0, most, v);
    if (!problem.empty()) throw GtpError{std::string("invalid ") + what + ": " + problem};
    return v;
}

/// A whole number (stones, nodes, a depth) in decimal digits within [lo, hi], read by the
/// strict parser of every number the command takes (decimal_problem()).
std::uint64_t parse_whole(const std::string& text, const char* what, std::uint64_t lo,
                          std::uint64_t hi) {
    std::uint64_t v = 0;
    const std::string problem = decimal_problem(text, lo, hi, v);
    if (!problem.empty()) throw GtpError{std::string("invalid ") + what + ": " + problem};
    return v;
}

/// The board of `boardsize N` (N x N) or `boardsize RxC`, of at most 64 squares.
Board parse_board_size(const std::string& text) {
    try {
        if (!text.empty() && std::all_of(text.begin(), text.end(),
                                         [](unsigned char c) { return std::isdigit(c); })) {
            std::uint64_t n = 0;
            if (!decimal_problem(text, 1, 8, n).empty()) throw std::invalid_argument("size");
            return Board::make(static_cast<int>(n), static_cast<int>(n));
        }
        return Board::parse(lower(text));
    } catch (const std::exception&) {
        throw GtpError{"unacceptable size"};
    }
}

using Args = std::vector<std::string>;

/// Throws a syntax error unless command `name` was given n arguments.
void want(const std::string& name, const Args& args, std::size_t n) {
    if (args.size() != n)
        throw GtpError{"syntax error: " + name + " takes " + std::to_string(n) + " argument" +
                       (n == 1 ? "" : "s")};
}

/// True when `text` is a komi: decimal digits with an optional fraction, negative or not
/// ("6.5", "-1", "0", ".5"), read by the strict parser of every number the command takes
/// (decimal_fraction_problem()); not "+7", an exponent, hexadecimal, nan or inf.
bool is_komi(const std::string& text) {
    const std::string_view magnitude =
        std::string_view(text).substr(!text.empty() && text[0] == '-' ? 1 : 0);
    double v = 0;
    return decimal_fraction_problem(magnitude, 0, 1e7, v).empty();
}

}  // namespace

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
    // Made here, at start-up and boardsize, untimed, not in the first genmove.
    if (!engine_) engine().prepare();
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

/// The commands: each name with its handler, in list_commands order. The dispatcher
/// (command()), list_commands and known_command all read this one table, so that no command
/// can be answered without being listed, or listed without being answered.
struct GtpSession::Commands {
    /// Answers `name` (the command as given) with its arguments on session s: the result
    /// text; throws GtpError for an error answer.
    using Handler = std::string (*)(GtpSession& s, const std::string& name, const Args& args);
    struct Entry {
        const char* name;
        Handler run;
    };
    static const std::vector<Entry>& table();
    /// konane-nodes N, konane-depth D: a reproducible budget a move (nodes, or the search's
    /// depth) in place of the time.
    static std::string budget(GtpSession& s, const std::string& name, const Args& args);
};

std::string GtpSession::Commands::budget(GtpSession& s, const std::string& name, const Args& args) {
    want(name, args, 1);
    const bool nodes = name == "konane-nodes";
    const std::uint64_t v =
        parse_whole(args[0], nodes ? "nodes" : "depth", 1, nodes ? 1'000'000'000'000'000 : 128);
    if (nodes) {
        s.options_.limits.nodes = static_cast<std::uint64_t>(v);
    } else {
        s.options_.limits.depth = static_cast<int>(v);
    }
    s.options_.limits.seconds = 0;
    return "";
}

const std::vector<GtpSession::Commands::Entry>& GtpSession::Commands::table() {
    using S = GtpSession;
    static const std::vector<Entry> entries = {
        {"protocol_version",
         [](S&, const std::string&, const Args&) -> std::string { return "2"; }},
        {"name", [](S& s, const std::string&, const Args&) { return s.options_.name; }},
        {"version", [](S& s, const std::string&, const Args&) { return s.options_.version; }},
        {"known_command",
         [](S&, const std::string& name, const Args& args) -> std::string {
             want(name, args, 1);
             const auto& c = gtp_commands();
             return std::find(c.begin(), c.end(), args[0]) != c.end() ? "true" : "false";
         }},
        {"list_commands",
         [](S&, const std::string&, const Args&) {
             std::string s;
             for (const std::string& c : gtp_commands())
                 s += (s.empty() ? "" : "\n") + c;
             return s;
         }},
        {"boardsize",
         [](S& s, const std::string& name, const Args& args) -> std::string {
             want(name, args, 1);
             const Board b = parse_board_size(args[0]);
             s.reset(b, b.start());
             return "";
         }},
        {"clear_board",
         [](S& s, const std::string&, const Args&) -> std::string {
             s.reset(s.board_, s.board_.start());
             return "";
         }},
        {"komi",
         [](S&, const std::string& name, const Args& args) -> std::string {
             want(name, args, 1);
             if (!is_komi(args[0]))
                 throw GtpError{"syntax error: invalid komi '" + excerpt(args[0]) +
                                "' (a decimal number from -10000000 to 10000000)"};
             return "";  // Kōnane has no komi: accepted for GUIs that always send it, and ignored
         }},
        {"play",
         [](S& s, const std::string& name, const Args& args) -> std::string {
             want(name, args, 2);
             const Position p = s.history_.back();
             check_to_move(parse_color(args[0]), p);
             MoveChild mc;
             try {
                 mc = parse_move(s.board_, s.options_.engine.rules, p, lower(args[1]));
             } catch (const std::exception&) {
                 throw GtpError{"illegal move"};
             }
             s.history_.push_back(mc.child);
             return "";
         }},
        {"genmove",
         [](S& s, const std::string& name, const Args& args) -> std::string {
             want(name, args, 1);
             const Color c = parse_color(args[0]);
             const Position p = s.history_.back();
             check_to_move(c, p);
             MoveLimits lim = s.options_.limits;
             lim.seconds = s.move_seconds();
             if (s.clock_) lim.depth = 0, lim.nodes = 0;
             const auto t0 = std::chrono::steady_clock::now();
             const std::optional<Decision> d = s.engine().decide(p, lim);
             if (s.clock_) {
                 s.left_[static_cast<int>(c)] -=
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
             }
             if (!d) {
                 s.last_.reset();
                 return "resign";  // no legal move: the side to move has lost (rules.md "End")
             }
             s.last_ = d;
             s.history_.push_back(d->move.child);
             const std::string move = format_move(s.board_, d->move.move);
             if (s.options_.log) {
                 *s.options_.log << s.options_.name << ": " << move << " (" << d->describe() << ", "
                                 << d->nodes << " nodes, " << d->seconds << " s)" << std::endl;
             }
             return move;
         }},
        {"undo",
         [](S& s, const std::string&, const Args&) -> std::string {
             if (s.history_.size() < 2) throw GtpError{"cannot undo"};
             s.history_.pop_back();
             s.last_.reset();
             return "";
         }},
        {"showboard",
         [](S& s, const std::string&, const Args&) {
             return "\n" + board_diagram(s.board_, s.history_.back());
         }},
        {"time_settings",
         [](S& s, const std::string& name, const Args& args) -> std::string {
             want(name, args, 3);
             s.main_time_ = parse_amount(args[0], "main time");
             s.byo_time_ = parse_amount(args[1], "byo-yomi time");
             s.byo_stones_ =
                 static_cast<int>(parse_whole(args[2], "byo-yomi stones", 0, 10'000'000));
             // GTP 2 §6.3: byo-yomi time > 0 with 0 stones means no time limit.
             s.clock_ =
                 !(s.byo_time_ > 0 && s.byo_stones_ == 0) && (s.main_time_ > 0 || s.byo_time_ > 0);
             s.left_[0] = s.left_[1] = s.main_time_;
             s.stones_left_[0] = s.stones_left_[1] = 0;
             return "";
         }},
        {"time_left",
         [](S& s, const std::string& name, const Args& args) -> std::string {
             want(name, args, 3);
             const int side = static_cast<int>(parse_color(args[0]));
             s.left_[side] = parse_amount(args[1], "time");
             s.stones_left_[side] = static_cast<int>(parse_whole(args[2], "stones", 0, 10'000'000));
             return "";
         }},
        {"quit",
         [](S& s, const std::string&, const Args&) -> std::string {
             s.quit_ = true;
             return "";
         }},
        {"konane-position",
         [](S& s, const std::string&, const Args& args) -> std::string {
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
             s.reset(parsed.board, parsed.position);
             return "";
         }},
        {"konane-source",
         [](S& s, const std::string&, const Args&) {
             if (!s.last_) throw GtpError{"no move generated yet"};
             return s.last_->describe();
         }},
        {"konane-nodes", &S::Commands::budget},
        {"konane-depth", &S::Commands::budget},
    };
    return entries;
}

const std::vector<std::string>& gtp_commands() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> out;
        for (const auto& e : GtpSession::Commands::table())
            out.emplace_back(e.name);
        return out;
    }();
    return names;
}

std::string GtpSession::command(const std::string& name, const Args& args) {
    for (const auto& e : Commands::table())
        if (name == e.name) return e.run(*this, name, args);
    throw GtpError{"unknown command"};
}

std::string gtp_line_too_long(std::uint64_t bytes) {
    return "? line too long (" + std::to_string(bytes) + " bytes, at most " +
           std::to_string(kGtpMaxLine) + ")\n\n";
}

void GtpSession::run(std::istream& in, std::ostream& out) {
    process::LineReader reader = process::LineReader::of_stream(in, kGtpMaxLine);
    std::string line;
    while (!quit_) {
        const process::LineReader::Status status = reader.next(line);
        if (status == process::LineReader::Status::end) break;
        std::string answer;
        if (status == process::LineReader::Status::too_long) {
            answer = gtp_line_too_long(reader.skip_rest());
        } else {
            answer = handle(line);
        }
        if (answer.empty()) continue;
        out << answer;
        out.flush();
    }
}

}  // namespace konane::engine
