#include "process/line_reader.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace konane::process {

LineReader::LineReader(Source source, std::size_t max_line)
    : source_(std::move(source)), max_(max_line), buf_(std::size_t{1} << 16) {}

LineReader LineReader::of_stream(std::istream& in, std::size_t max_line) {
    return LineReader(
        [&in](char* buf, std::size_t n) -> std::size_t {
            std::streambuf* sb = in.rdbuf();
            if (sb == nullptr) return 0;
            const auto c = sb->sbumpc();
            if (std::char_traits<char>::eq_int_type(c, std::char_traits<char>::eof())) return 0;
            buf[0] = std::char_traits<char>::to_char_type(c);
            const std::streamsize ready = sb->in_avail();
            if (ready <= 0 || n == 1) return 1;
            const auto more = std::min<std::streamsize>(ready, static_cast<std::streamsize>(n - 1));
            return 1 +
                   static_cast<std::size_t>(std::max<std::streamsize>(sb->sgetn(buf + 1, more), 0));
        },
        max_line);
}

bool LineReader::fill() {
    const std::size_t n = source_(buf_.data(), buf_.size());
    pos_ = 0;
    len_ = n;
    return n > 0;
}

LineReader::Status LineReader::next(std::string& line) {
    line.clear();
    for (;;) {
        if (pos_ == len_ && !fill()) {
            if (line.empty()) return Status::end;
            ++lines_;
            return Status::line;  // a last line without a '\n'
        }
        const char* start = buf_.data() + pos_;
        const void* nl = std::memchr(start, '\n', len_ - pos_);
        const auto n =
            nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - start) : len_ - pos_;
        if (line.size() + n > max_) {
            long_bytes_ = line.size();
            line.clear();
            return Status::too_long;
        }
        line.append(start, n);
        if (nl == nullptr) {
            pos_ = len_;
            continue;
        }
        pos_ += n + 1;
        ++lines_;
        return Status::line;
    }
}

std::uint64_t LineReader::skip_rest() {
    std::uint64_t total = long_bytes_;
    long_bytes_ = 0;
    for (;;) {
        if (pos_ == len_ && !fill()) break;
        const char* start = buf_.data() + pos_;
        const void* nl = std::memchr(start, '\n', len_ - pos_);
        const auto n =
            nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - start) : len_ - pos_;
        total += n;
        if (nl != nullptr) {
            pos_ += n + 1;
            break;
        }
        pos_ = len_;
    }
    ++lines_;
    return total;
}

}  // namespace konane::process
