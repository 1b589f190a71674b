// A match between two GTP engines (`konane match`, docs/match.md): games over the board's
// opening pairs, each pair twice with the colours swapped; every answer checked against the
// rules; a game adjudicated as soon as the proof search proves the position; an engine that
// crashes, hangs or answers garbage loses the game and is restarted for the next one. The
// score's Elo difference with its 95% interval (elo()).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/board.hpp"
#include "core/movegen.hpp"

namespace konane::match {

/// The least seconds an engine is given to answer the commands that set up a game
/// (MatchOptions::timeout).
inline constexpr double kSetupSeconds = 30;

/// How the clock's times are written in `time_settings` and `time_left`.
enum class TimeUnit : std::uint8_t {
    Seconds,       ///< whole seconds, rounded up (GTP 2 §6.3's integers): 0.2 is sent as 1
    Milliseconds,  ///< whole milliseconds, rounded to the nearest: 0.2 is sent as 200
    Decimal,       ///< decimal seconds ("%g"): 0.2 is sent as 0.2 (konane engine reads it)
};

/// The text of `seconds` in `unit`: "1" (Seconds, rounded up), "200" (Milliseconds), "0.2"
/// (Decimal).
std::string clock_text(double seconds, TimeUnit unit);

/// The seconds an engine is told it has when the match gives it `seconds` in `unit`: for
/// Seconds, the whole seconds sent (rounded up); otherwise `seconds`.
double told_seconds(double seconds, TimeUnit unit);

/// The `boardsize` argument for board b: "N" for a square board (GTP 2's `boardsize 6`), "RxC"
/// otherwise (`boardsize 5x6`, an extension that konane engine reads).
std::string boardsize_text(const Board& b);

/// When games are adjudicated by the proof search (MatchOptions::adjudication).
enum class Adjudication : std::uint8_t { Auto, On, Off };

/// True for the names `konane engine` answers to GTP's `name`: "konane" and "konane-baseline".
bool is_konane_name(const std::string& name);

/// The options of a match.
struct MatchOptions {
    std::string engine[2];  ///< the shell command lines of engines A and B
    Board board = Board::make(8, 8);
    Ruleset rules = Ruleset::Brainking;
    int games = 2;
    /// The opening pairs (Black's removal, White's reply) played in turn, each twice (A Black,
    /// then A White); empty with engine_openings: the engines choose their removals.
    std::vector<std::pair<Move, Move>> openings;
    bool engine_openings = false;
    /// Plies the runner plays at random (uniformly among the legal moves) after each opening
    /// pair, the same line for both colour assignments of the pair (games 2k+1 and 2k+2), drawn
    /// from `seed` and the game pair's index: varied games that still repeat for a seed. Needs
    /// runner openings (not engine_openings); a line stops early where the game ends (no move,
    /// or adjudicated), and the record's opening holds the plies played.
    int random_plies = 0;
    std::uint64_t seed = 0;
    /// Seconds a move, given to the engines as a GTP byo-yomi clock (`time_settings 0 S 1`,
    /// `time_left COLOR S 1` before each genmove, S written as time_unit says: clock_text());
    /// 0: no clock sent.
    double seconds = 0;
    TimeUnit time_unit = TimeUnit::Seconds;
    /// With a clock: an answer to genmove that takes longer than the seconds the engine was
    /// told (told_seconds()) plus this margin, in seconds, loses the game on time
    /// (Ending::TimeLoss), measured by the runner from sending the command to reading the
    /// answer.
    double time_margin = 0.2;
    /// Nodes or depth a move, sent as `konane-nodes N` / `konane-depth D` to an engine that
    /// knows the command (known_command); 0: not sent.
    std::uint64_t nodes = 0;
    int depth = 0;
    /// The most seconds an engine may take for one answer; past it the engine loses the game.
    /// The commands that set up a game (the first after a start, the limits, board, clear,
    /// clock) may take max(timeout, kSetupSeconds): an engine's start-up (loading a table,
    /// allocating its hash) is not a move.
    double timeout = 30;
    /// Whether games are adjudicated: Auto (the default) only when both engines answer `name`
    /// with konane engine's names ("konane", "konane-baseline"; is_konane_name()), On always,
    /// Off never. Nothing is adjudicated with adjudicate_nodes 0.
    Adjudication adjudication = Adjudication::Auto;
    /// Proof-search nodes per position for adjudication (0: none), and the bytes of its table.
    std::uint64_t adjudicate_nodes = 200'000;
    std::size_t adjudicate_memory = std::size_t{16} << 20;
    /// Adjudicate only positions of at most this many pieces (0: every position).
    int adjudicate_pieces = 0;
    bool quiet = false;  ///< engines' standard error to /dev/null
    /// Games played at once, each by its own pair of engine processes (play_match()).
    int concurrency = 1;
};

/// How a game ended.
enum class Ending : std::uint8_t {
    NoMove,       ///< the side to move had no legal move (rules.md "End")
    Adjudicated,  ///< the proof search proved the position for one side
    Resigned,     ///< the side to move resigned (or passed) while it had a legal move
    Illegal,      ///< an engine answered an illegal or malformed move
    Refused,      ///< an engine refused a legal command (a move played, the board size)
    Failed,       ///< an engine crashed, closed its pipe, hung or answered garbage
    TimeLoss,     ///< an engine's move took longer than its time plus the margin
};

/// "no legal move", "adjudicated by proof", "resigned", "illegal move", "refused a command",
/// "engine failure", "loss on time".
const char* ending_name(Ending e);

/// One game of a match.
struct GameRecord {
    int number = 0;  ///< 1-based
    int black = 0;   ///< the engine (0: A, 1: B) that played Black
    /// The moves the runner played: the two removals and the random plies (none: the engines'
    /// own removals).
    std::vector<Move> opening;
    std::vector<Move> moves;  ///< every move played, the opening's first
    Color winner = Color::Black;
    Ending ending = Ending::NoMove;
    std::string reason;  ///< in words: "white has no legal move", "B: exited with code 1", ...
    /// Whether the game was open to adjudication (MatchOptions::adjudication, the engines'
    /// names), adjudicated or not.
    bool adjudicating = false;
    Position final{};  ///< the position the game ended in

    int white() const { return 1 - black; }
    int winner_engine() const { return winner == Color::Black ? black : white(); }
};

/// The Elo difference of a score, and its 95% interval (elo()).
struct EloEstimate {
    double score = 0;  ///< the score fraction (wins + draws / 2) / games
    /// The Elo difference; +-infinity for a score of 1 or 0 (no finite estimate).
    double diff = 0;
    double low = 0, high = 0;  ///< the 95% interval (may be infinite)
};

/// The Elo difference of `wins`, `draws` and `losses` (games > 0) and its 95% confidence
/// interval. The difference is the logistic model's: D = -400 log10(1/s - 1) for the score
/// fraction s. The interval maps s +- 1.96 sigma through the same formula, sigma the standard
/// error of the mean per-game score (sqrt(variance of the game scores / n)); the method of
/// cutechess-cli's Elo class (Arpad Elo, The Rating of Chessplayers, 1978, for the logistic
/// curve). Bounds past 0 or 1 are infinite.
EloEstimate elo(int wins, int draws, int losses);

/// Every opening pair of board b under ruleset r: Black's legal removals on the full board,
/// each with White's legal replies, in generation order.
std::vector<std::pair<Move, Move>> opening_pairs(const Board& b, Ruleset r);

/// Plays the match: `each` receives each game in the order of their numbers (for progress, the
/// record and a stopping rule), called by one thread at a time; when it returns false the match
/// stops: games in play are abandoned and later ones not started nor reported. With
/// `concurrency` N, N threads play games at once, each with its own engines and proof search;
/// game g's opening, colours and random plies depend on g alone, whichever thread plays it, and
/// the games are returned in order (those reported to `each`). Sets
/// SIGPIPE to be ignored in this process (an engine that closed its pipe is then a write error,
/// reported as its failure, not the end of the runner); the engines get it back by default.
/// Once a signal is caught (install_interrupt_handlers(), match/gtp_client.hpp) the game in
/// play is abandoned, the engines are ended (SIGTERM, then SIGKILL after a second) and reaped,
/// and the games finished so far are returned; interrupt_signal() says which signal.
/// Throws std::invalid_argument when an engine cannot start (its shell reports the command
/// missing or not executable, exit code 126 or 127, at the first command), naming it.
std::vector<GameRecord> play_match(const MatchOptions& options,
                                   const std::function<bool(const GameRecord&)>& each = {});

}  // namespace konane::match
