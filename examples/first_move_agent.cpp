// A GTP agent for `konane match` in plain, standalone C++ (no library of the project): it keeps
// the board, plays the first legal single jump it finds (squares a1, b1, ..., directions up,
// down, right, left), and resigns when it has none. It speaks only GTP 2's own forms: `boardsize
// N` (a square board; `RxC` is refused) and whole seconds in time_settings and time_left (a
// decimal such as 0.2 ends the agent with exit code 1, as a strict parser would). The runner
// plays the opening removals (`konane match` with its default openings), so this agent only has
// to jump. docs/match.md "Writing an agent"; built as the target konane_example_agent.
#include <cctype>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

int rows = 8, cols = 8;
std::vector<char> board;  // 'x' Black, 'o' White, '.' empty; index rank * cols + file

/// The piece that starts on (rank, file), both from 0: Black on the colour of the top left
/// square (docs/rules.md "Board and colours").
char start_piece(int rank, int file) {
    return ((rows - 1 - rank) + file) % 2 == 0 ? 'x' : 'o';
}

void clear() {
    board.assign(static_cast<std::size_t>(rows * cols), '.');
    for (int r = 0; r < rows; ++r)
        for (int f = 0; f < cols; ++f)
            board[static_cast<std::size_t>(r * cols + f)] = start_piece(r, f);
}

/// The square of "c3": rank * cols + file, or -1.
int square(const std::string& s) {
    if (s.size() < 2 || !std::islower(static_cast<unsigned char>(s[0]))) return -1;
    const int file = s[0] - 'a';
    int rank = 0;
    for (std::size_t i = 1; i < s.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(s[i]))) return -1;
        rank = rank * 10 + (s[i] - '0');
    }
    if (file >= cols || rank < 1 || rank > rows) return -1;
    return (rank - 1) * cols + file;
}

std::string name(int sq) {
    return std::string(1, static_cast<char>('a' + sq % cols)) + std::to_string(sq / cols + 1);
}

/// Plays "c3" (a removal) or "c5-c1" (a jump over every other square between); false if
/// malformed.
bool play(std::string move) {
    for (char& c : move)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const std::size_t dash = move.find('-');
    const int from = square(move.substr(0, dash));
    if (from < 0) return false;
    if (dash == std::string::npos) {
        board[static_cast<std::size_t>(from)] = '.';
        return true;
    }
    const int to = square(move.substr(dash + 1));
    if (to < 0 || (from / cols != to / cols && from % cols != to % cols)) return false;
    const int step = from / cols == to / cols ? (to > from ? 1 : -1) : (to > from ? cols : -cols);
    const char piece = board[static_cast<std::size_t>(from)];
    for (int s = from; s != to; s += step)
        board[static_cast<std::size_t>(s)] = '.';
    board[static_cast<std::size_t>(to)] = piece;
    return true;
}

/// The first single jump of `piece` ('x' or 'o'), "" when it has none.
std::string first_jump(char piece) {
    const int dr[4] = {1, -1, 0, 0}, df[4] = {0, 0, 1, -1};
    for (int r = 0; r < rows; ++r)
        for (int f = 0; f < cols; ++f) {
            if (board[static_cast<std::size_t>(r * cols + f)] != piece) continue;
            for (int d = 0; d < 4; ++d) {
                const int r1 = r + dr[d], f1 = f + df[d], r2 = r + 2 * dr[d], f2 = f + 2 * df[d];
                if (r2 < 0 || r2 >= rows || f2 < 0 || f2 >= cols) continue;
                const char over = board[static_cast<std::size_t>(r1 * cols + f1)];
                if (over == '.' || over == piece) continue;
                if (board[static_cast<std::size_t>(r2 * cols + f2)] != '.') continue;
                return name(r * cols + f) + "-" + name(r2 * cols + f2);
            }
        }
    return "";
}

/// A whole number of seconds, as a strict agent reads it: anything else ends the agent.
int whole(const std::string& s) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) {
        std::cerr << "first_move_agent: not a whole number of seconds: '" << s << "'\n";
        std::exit(1);
    }
    return std::stoi(s);
}

}  // namespace

int main() {
    clear();
    for (std::string line; std::getline(std::cin, line);) {
        std::istringstream in(line);
        std::string cmd, a, b, c;
        in >> cmd >> a >> b >> c;
        std::string answer, error;
        if (cmd == "protocol_version") {
            answer = "2";
        } else if (cmd == "name") {
            answer = "first-move-agent";
        } else if (cmd == "boardsize") {
            // Only GTP's `boardsize N`, N x N of at most 64 squares.
            if (a.empty() || a.size() > 1 || !std::isdigit(static_cast<unsigned char>(a[0])) ||
                a[0] < '2') {
                error = "unacceptable size";
            } else {
                rows = cols = a[0] - '0';
                clear();
            }
        } else if (cmd == "clear_board") {
            clear();
        } else if (cmd == "play") {
            if (!play(b)) error = "illegal move";
        } else if (cmd == "genmove") {
            answer = first_jump(a[0] == 'b' || a[0] == 'B' ? 'x' : 'o');
            if (answer.empty()) {
                answer = "resign";
            } else {
                play(answer);
            }
        } else if (cmd == "time_settings") {
            whole(a);
            whole(b);
            whole(c);
        } else if (cmd == "time_left") {
            whole(b);
            whole(c);
        } else if (cmd != "quit") {
            error = "unknown command";
        }
        std::cout << (error.empty() ? "= " + answer : "? " + error) << "\n\n" << std::flush;
        if (cmd == "quit") break;
    }
}
