// Lines of input read in bounded memory: the one line reader of every command that reads lines
// from a pipe or a terminal (`probe --batch`, `engine`'s GTP, `play`). A line longer than the
// bound is reported as such, never grown into a buffer: std::getline on an endless line grows
// until the allocation fails, and a failing allocation inside it only sets the stream's failbit,
// which reads as the end of the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <istream>
#include <string>
#include <vector>

namespace konane::process {

/// The lines of a source of bytes, each at most `max_line` bytes (its '\n' not counted).
class LineReader {
  public:
    /// Reads up to n (> 0) bytes into buf, waiting for at least one; returns how many, 0 at the
    /// end of the input. Throws what the caller wants an error of the input to be.
    using Source = std::function<std::size_t(char* buf, std::size_t n)>;

    /// What next() found.
    enum class Status {
        line,      ///< a whole line (the last one may lack its '\n')
        too_long,  ///< more than max_line bytes before the line's end (skip_rest())
        end,       ///< the end of the input
    };

    /// A reader of `source`'s lines of at most `max_line` bytes.
    LineReader(Source source, std::size_t max_line);

    /// A reader of the stream `in` (which must outlive it): it waits only for the first byte of
    /// a read and takes what the stream has buffered past it, so that an interactive client's
    /// line is answered as soon as it is sent. The stream's error is the end of the input.
    static LineReader of_stream(std::istream& in, std::size_t max_line);

    /// The next line, without its '\n', into `line` (Status::line). Status::too_long: more than
    /// max_line bytes came before the line's end; `line` is left empty and the rest of the line
    /// is not read yet: skip_rest() discards it. Status::end: no byte is left (an empty last
    /// fragment is no line). Throws what the source throws.
    Status next(std::string& line);

    /// After Status::too_long: reads and discards the rest of the line, in bounded memory.
    /// Returns the whole line's length in bytes (its '\n' not counted).
    std::uint64_t skip_rest();

    /// The lines returned (Status::line) or skipped so far.
    std::uint64_t lines() const { return lines_; }

    /// The longest line taken, in bytes.
    std::size_t max_line() const { return max_; }

  private:
    bool fill();  // reads more into the buffer; false at the end of the input

    Source source_;
    std::size_t max_;
    std::vector<char> buf_;
    std::size_t pos_ = 0, len_ = 0;
    std::uint64_t long_bytes_ = 0;  // of the too-long line, read before next() returned
    std::uint64_t lines_ = 0;
};

}  // namespace konane::process
