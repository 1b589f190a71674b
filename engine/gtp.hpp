// The Go Text Protocol (GTP version 2, Farnebäck 2002) for Kōnane: the convention of
// board-game engines, so that any program or GUI can play the engine. Moves in the project's
// notation (a removal "d5", a jump "f5-d5"; BrainKing's upper case "D5", "F5-D5" read too).
// The commands and a transcript: docs/engine.md.
#pragma once

#include <cstddef>
#include <istream>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/board.hpp"
#include "engine/engine.hpp"

namespace konane::engine {

/// The longest command line a session reads, in bytes (run()): a command with a position is at
/// most about 150; a longer line is answered "? line too long (N bytes, at most 4096)" and
/// discarded, in bounded memory.
inline constexpr std::size_t kGtpMaxLine = 4096;

/// The answer to a command line of `bytes` bytes, longer than kGtpMaxLine:
/// "? line too long (N bytes, at most 4096)" and the blank line.
std::string gtp_line_too_long(std::uint64_t bytes);

/// Options of a GTP session.
struct GtpOptions {
    EngineOptions engine;  ///< the engine's options (its table is used on the table's board)
    MoveLimits limits;     ///< a move's budget when no clock is set (time_settings)
    std::string name = "konane";
    std::string version;
    Board board = Board::make(8, 8);  ///< the board before any boardsize
    /// Where a line per generated move goes (its source, score, nodes); nullptr: nowhere.
    std::ostream* log = nullptr;
};

/// One GTP session: the board, the game so far, the clock and the engine.
class GtpSession {
  public:
    explicit GtpSession(GtpOptions options);
    ~GtpSession();

    /// Answers one command line: "=[id] result\n\n" or "?[id] error\n\n" (GTP 2 §2.6); an
    /// empty string for an empty or comment line. Never throws for bad input: an unknown
    /// command, bad arguments or an illegal move are error answers and the session goes on.
    std::string handle(std::string_view line);

    /// True once `quit` was answered.
    bool done() const { return quit_; }

    /// Answers the commands of `in` on `out` (flushed after each) until quit or the end of
    /// the input, reading lines of at most kGtpMaxLine bytes in bounded memory: a longer line
    /// is answered "? line too long (N bytes, at most M)" and discarded, and the session goes
    /// on.
    void run(std::istream& in, std::ostream& out);

    /// The current position and the moves played (for tests).
    Position position() const { return history_.back(); }
    const Board& board() const { return board_; }

  private:
    // The table of commands (gtp.cpp): names and handlers, read by command(), list_commands
    // and known_command alike.
    struct Commands;
    friend const std::vector<std::string>& gtp_commands();

    std::string command(const std::string& name, const std::vector<std::string>& args);
    void reset(const Board& b, Position start);
    double move_seconds() const;
    Engine& engine();

    GtpOptions options_;
    Board board_;
    std::vector<Position> history_;
    std::unique_ptr<Engine> engine_;
    std::optional<Decision> last_;
    bool quit_ = false;
    // The clock (time_settings, time_left): seconds; stones of byo-yomi.
    double main_time_ = 0, byo_time_ = 0;
    int byo_stones_ = 0;
    bool clock_ = false;
    double left_[2] = {0, 0};
    int stones_left_[2] = {0, 0};
};

/// The GTP commands the session knows, in list_commands order: the names of the table its
/// dispatcher answers from.
const std::vector<std::string>& gtp_commands();

}  // namespace konane::engine
