#include "cert/certificate.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string_view>

#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>

#include "core/notation.hpp"
#include "core/value.hpp"
#include "process/read_file.hpp"
#include "process/replace_file.hpp"
#include "process/resource_error.hpp"

namespace konane {

// ---------------------------------------------------------------------------------------------
// The game of a certificate: keys and moves.

ProofGame::ProofGame(const Board& b, const Opening& o, bool jumps_only)
    : board_(b), opening_(o), jumps_only_(jumps_only), group_(b) {}

bool ProofGame::in_opening(Position p) const {
    return konane::in_opening(board_, opening_.rules, p, jumps_only_);
}

ProofKey ProofGame::key(Position p) const {
    if (in_opening(p)) {
        return ProofKey{
            p.occ, static_cast<std::uint8_t>(ProofKey::kOpening |
                                             (p.to_move == Color::White ? ProofKey::kWhite : 0))};
    }
    const Position c = group_.canonical(p);
    return ProofKey{c.occ, c.to_move == Color::White ? ProofKey::kWhite : std::uint8_t{0}};
}

std::vector<MoveChild> ProofGame::moves(const ProofKey& k) const {
    const Position p = k.position();
    if (k.opening()) return legal_moves(board_, opening_.rules, p);
    // The canonical form of a jump-stage position may look like an opening-stage one (a full
    // board with White to move maps to a full board with Black to move under a colour-swapping
    // symmetry), so its moves are generated as jumps, never through stage_of.
    std::vector<MoveChild> out;
    for_each_jump(board_, p, [&](Move m, Position c) { out.push_back({m, c}); });
    return out;
}

const char* certificate_kind_name(CertificateKind k) {
    return k == CertificateKind::Openings ? "openings" : "positions";
}

// ---------------------------------------------------------------------------------------------
// The file (docs/certificate.md).

namespace {

constexpr std::string_view kMagic = "konane proof certificate 1\n";
constexpr std::size_t kMaxHeader = std::size_t{16} << 20;
constexpr int kTags = 4;

std::size_t varint_size(std::uint64_t v) {
    std::size_t n = 1;
    for (; v >= 0x80; v >>= 7)
        ++n;
    return n;
}

void put_varint(std::string& out, std::uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<char>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
}

/// Compresses a stream of bytes of known total size into one zstd frame (with its content
/// size and checksum), kept in memory: the compressed entries, 2 to 3 bytes each.
class FrameWriter {
  public:
    /// `one_shot`: the bytes are gathered and compressed in one call, as version 1 always did
    /// (zstd's streaming output differs from it past its window, 8 MiB at level 19), so that
    /// certificates up to kLevel19Bytes keep their bytes.
    FrameWriter(const std::filesystem::path& path, std::uint64_t size, int level, bool one_shot)
        : path_(path), cctx_(ZSTD_createCCtx()), one_shot_(one_shot) {
        if (!cctx_) fail("out of memory");
        ZSTD_CCtx_setParameter(cctx_, ZSTD_c_compressionLevel, level);
        ZSTD_CCtx_setParameter(cctx_, ZSTD_c_checksumFlag, 1);
        ZSTD_CCtx_setParameter(cctx_, ZSTD_c_nbWorkers, 0);
        if (one_shot_) {
            buf_.reserve(static_cast<std::size_t>(size));
        } else {
            ZSTD_CCtx_setPledgedSrcSize(cctx_, size);
            buf_.reserve(kChunk + 16);
        }
    }
    ~FrameWriter() { ZSTD_freeCCtx(cctx_); }
    FrameWriter(const FrameWriter&) = delete;
    FrameWriter& operator=(const FrameWriter&) = delete;

    /// The buffer the caller appends to; flushed into the frame when full.
    std::string& buffer() { return buf_; }
    void maybe_flush() {
        if (!one_shot_ && buf_.size() >= kChunk) push(ZSTD_e_continue);
    }
    /// Ends the frame; returns the compressed bytes.
    std::string finish() {
        if (one_shot_) {
            out_.resize(ZSTD_compressBound(buf_.size()));
            const std::size_t n =
                ZSTD_compress2(cctx_, out_.data(), out_.size(), buf_.data(), buf_.size());
            if (ZSTD_isError(n)) fail(ZSTD_getErrorName(n));
            out_.resize(n);
            buf_ = {};
            return std::move(out_);
        }
        push(ZSTD_e_end);
        return std::move(out_);
    }

  private:
    static constexpr std::size_t kChunk = std::size_t{1} << 20;
    [[noreturn]] void fail(const std::string& what) const {
        throw CertificateError(path_.string() + ": compressing the entries: " + what);
    }
    void push(ZSTD_EndDirective mode) {
        ZSTD_inBuffer in{buf_.data(), buf_.size(), 0};
        for (;;) {
            const std::size_t at = out_.size();
            out_.resize(at + ZSTD_CStreamOutSize());
            ZSTD_outBuffer out{out_.data() + at, out_.size() - at, 0};
            const std::size_t left = ZSTD_compressStream2(cctx_, &out, &in, mode);
            out_.resize(at + out.pos);
            if (ZSTD_isError(left)) fail(ZSTD_getErrorName(left));
            if (mode == ZSTD_e_end ? left == 0 : in.pos == in.size) break;
        }
        buf_.clear();
    }
    std::filesystem::path path_;
    ZSTD_CCtx* cctx_;
    bool one_shot_;
    std::string buf_, out_;
};

std::string winner_word(Color c) {
    return color_name(c);
}

}  // namespace

int certificate_zstd_level(std::uint64_t raw_bytes, std::uint64_t level19_bytes) {
    return raw_bytes <= level19_bytes ? 19 : 9;
}

void write_certificate(const std::filesystem::path& path, const Certificate& c) {
    write_certificate(path, c, kLevel19Bytes);
}

void write_certificate(const std::filesystem::path& path, const Certificate& c,
                       std::uint64_t level19_bytes) {
    // The counts per tag and the size of the uncompressed entries, then the entries themselves
    // streamed into the compressor: the keys' differences, then the moves.
    std::uint64_t counts[kTags] = {};
    std::uint64_t raw_size = 0;
    {
        int tag = -1;
        std::uint64_t prev = 0;
        c.entries.for_each([&](const ProofKey& k, std::uint8_t) {
            if (k.tag >= kTags) throw std::invalid_argument("write_certificate: bad key tag");
            if (k.tag != tag) tag = k.tag, prev = 0;
            raw_size += varint_size(k.occ - prev) + 1;
            prev = k.occ;
            ++counts[k.tag];
        });
    }
    const bool one_shot = raw_size <= level19_bytes;
    FrameWriter frame(path, raw_size, certificate_zstd_level(raw_size, level19_bytes), one_shot);
    {
        std::string& buf = frame.buffer();
        int tag = -1;
        std::uint64_t prev = 0;
        c.entries.for_each([&](const ProofKey& k, std::uint8_t) {
            if (k.tag != tag) tag = k.tag, prev = 0;
            put_varint(buf, k.occ - prev);
            prev = k.occ;
            frame.maybe_flush();
        });
        c.entries.for_each([&](const ProofKey&, std::uint8_t move) {
            buf.push_back(static_cast<char>(move));
            frame.maybe_flush();
        });
    }
    const std::string packed = frame.finish();

    std::string head(kMagic);
    head += "board " + c.board.name() + "\n";
    head += "opening " + opening_tag(c.board, c.opening) + "\n";
    head += std::string("game ") + (c.jumps_only ? "jumps-only" : "jumps") + "\n";
    head += std::string("kind ") + certificate_kind_name(c.kind) + "\n";
    std::string gen = c.generator;
    std::replace_if(
        gen.begin(), gen.end(), [](char ch) { return ch == '\n' || ch == '\r'; }, ' ');
    head += "generator " + gen + "\n";
    for (const ProofRoot& r : c.roots)
        head += "root " + format_position(c.board, r.position) + " " + winner_word(r.winner) + "\n";
    head += "entries";
    for (std::uint64_t k : counts)
        head += " " + std::to_string(k);
    head += "\n";
    head += "data " + std::to_string(raw_size) + " " + std::to_string(packed.size()) + "\n";
    head += "end\n";

    try {
        process::replace_file(path, {head, packed}, process::ReplaceOptions::with_trailer());
    } catch (const ResourceError&) {
        throw;  // a full disk: the command's exit code for a shortage, not a bad certificate
    } catch (const std::runtime_error& e) {
        throw CertificateError(e.what());
    }
}

namespace {

struct Reader {
    std::string file;
    [[noreturn]] void fail(const std::string& what) const {
        throw CertificateError(file + ": " + what);
    }
};

std::uint64_t parse_u64(const Reader& rd, std::string_view text, const char* what) {
    std::uint64_t v = 0;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || p != text.data() + text.size() || text.empty() ||
        (text.size() > 1 && text[0] == '0')) {
        rd.fail(std::string("header: ") + what + " is not a decimal number: '" +
                std::string(text.substr(0, 40)) + "'");
    }
    return v;
}

std::string too_many(std::uint64_t max) {
    return "header: more entries than a reader takes (at most " + std::to_string(max) +
           ", about 5 bytes of memory each)";
}

}  // namespace

namespace {

/// Where a certificate's bytes come from: a file read piece by piece (a large certificate is
/// never held whole), or bytes in memory.
class Source {
  public:
    virtual ~Source() = default;
    virtual std::uint64_t size() const = 0;
    /// Reads n bytes at `offset` (within size()) into out.
    virtual void read(std::uint64_t offset, std::size_t n, char* out) = 0;
};

class MemorySource final : public Source {
  public:
    explicit MemorySource(const std::string& bytes) : bytes_(bytes) {}
    std::uint64_t size() const override { return bytes_.size(); }
    void read(std::uint64_t offset, std::size_t n, char* out) override {
        std::memcpy(out, bytes_.data() + offset, n);
    }

  private:
    const std::string& bytes_;
};

class FileSource final : public Source {
  public:
    FileSource(const std::filesystem::path& path, const Reader& rd) : rd_(rd), file_(open(path)) {}
    std::uint64_t size() const override { return file_->size(); }
    void read(std::uint64_t offset, std::size_t n, char* out) override {
        try {
            file_->read(offset, n, out);
        } catch (const std::runtime_error&) {
            rd_.fail("read failed");
        }
    }

  private:
    // A regular file of at most 1 TiB (process::read_regular_file()'s checks), its messages
    // as certificate errors.
    static std::optional<process::ChecksummedFile> open(const std::filesystem::path& path) {
        try {
            std::optional<process::ChecksummedFile> f;
            f.emplace(path, std::uint64_t{1} << 40, process::Links::Follow,
                      "too large to be a certificate");
            return f;
        } catch (const std::runtime_error& e) {
            throw CertificateError(e.what());
        }
    }
    const Reader& rd_;
    std::optional<process::ChecksummedFile> file_;
};

/// Decodes the uncompressed entries (docs/certificate.md) as they come out of the decompressor:
/// the occupancy differences of each tag, then one move per entry.
class EntryDecoder {
  public:
    /// `max_pieces`: the most pieces of a root; no position of the proof has more.
    EntryDecoder(const Reader& rd, const Board& b, const std::uint64_t (&counts)[kTags],
                 int max_pieces, PackedKeys& out)
        : rd_(rd), all_(b.all), max_pieces_(max_pieces), out_(out) {
        for (int t = 0; t < kTags; ++t) {
            counts_[t] = counts[t];
            total_ += counts[t];
        }
        next_tag();
    }

    void feed(const std::uint8_t* p, std::size_t n) {
        for (const std::uint8_t* end = p + n; p < end; ++p) {
            const std::uint8_t byte = *p;
            if (tag_ < kTags) {
                if (shift_ > 63 || (shift_ == 63 && (byte & 0x7e))) rd_.fail("an entry overflows");
                v_ |= std::uint64_t{byte & 0x7fu} << shift_;
                if (byte & 0x80) {
                    shift_ += 7;
                    continue;
                }
                if (i_ > 0 && v_ == 0) rd_.fail("two entries for one position");
                const std::uint64_t occ = prev_ + v_;
                if (occ < prev_ || (occ & ~all_)) rd_.fail("an entry's position is off the board");
                if (std::popcount(occ) > max_pieces_) {
                    rd_.fail("an entry has " + std::to_string(std::popcount(occ)) +
                             " pieces, more than any root (" + std::to_string(max_pieces_) +
                             "): no line of the proof reaches it");
                }
                prev_ = occ;
                out_.push_back(ProofKey{occ, static_cast<std::uint8_t>(tag_)});
                v_ = 0;
                shift_ = 0;
                ++i_;
                next_tag();
            } else {
                if (moves_ >= total_) rd_.fail("the number of moves differs from the entries'");
                out_.set_value(moves_++, byte);
            }
        }
    }

    /// At the end of the data: every entry and every move read.
    void finish() const {
        if (tag_ < kTags) rd_.fail("the entries end early");
        if (moves_ != total_) rd_.fail("the number of moves differs from the entries'");
    }

  private:
    /// Moves to the next tag with entries left (kTags when none).
    void next_tag() {
        while (tag_ < kTags && i_ == counts_[tag_]) {
            ++tag_;
            i_ = 0;
            prev_ = 0;
        }
    }

    const Reader& rd_;
    std::uint64_t all_;
    int max_pieces_;
    PackedKeys& out_;
    std::uint64_t counts_[kTags] = {};
    std::uint64_t total_ = 0;
    int tag_ = 0;
    std::uint64_t i_ = 0, prev_ = 0, v_ = 0, moves_ = 0;
    int shift_ = 0;
};

Certificate parse(Source& src, const std::string& name, const CertificateLimits& limits);

}  // namespace

Certificate read_certificate(const std::filesystem::path& path, const CertificateLimits& limits) {
    Reader rd{path.string()};
    FileSource src(path, rd);
    return parse(src, path.string(), limits);
}

Certificate parse_certificate(std::string bytes, const std::string& name,
                              const CertificateLimits& limits) {
    MemorySource src(bytes);
    return parse(src, name, limits);
}

namespace {

Certificate parse(Source& src, const std::string& name, const CertificateLimits& limits) {
    Reader rd{name};
    const std::uint64_t size = src.size();
    if (size < kMagic.size() + 8) rd.fail("too short to be a certificate");
    // The header lies in the first kMaxHeader bytes (and its last line a little past them).
    std::string bytes(static_cast<std::size_t>(std::min<std::uint64_t>(size, 2 * kMaxHeader)),
                      '\0');
    src.read(0, bytes.size(), bytes.data());
    if (std::string_view(bytes).substr(0, kMagic.size()) != kMagic) {
        if (bytes.starts_with("konane proof certificate ")) {
            rd.fail("a certificate of another version (this program reads version 1)");
        }
        rd.fail("not a konane proof certificate (no 'konane proof certificate 1' line)");
    }
    // The header and the sizes it gives are checked first, so that a huge file is refused
    // without reading it (a sparse file of terabytes behind a certificate's first line). A file
    // small enough to lie whole in `bytes` is checksummed before any refusal, so that a damaged
    // byte is reported as damage, not as the field it happens to hit.
    const auto verify_checksum = [&] {
        if (!process::checksum_matches(
                size, [&](std::uint64_t at, std::size_t n, char* out) { src.read(at, n, out); })) {
            rd.fail("checksum mismatch: the file is damaged (a byte changed, or cut short)");
        }
    };
    const bool whole = bytes.size() == size;
    Certificate c;
    std::size_t pos = kMagic.size();
    std::uint64_t counts[kTags] = {};
    std::uint64_t raw_size = 0, packed_size = 0, total = 0;
    int max_pieces = 0;
    try {
        // The header: "name value" lines up to "end".
        std::string board_text, opening_text, game_text, kind_text;
        std::vector<std::pair<std::string, std::string>> root_text;
        bool have_counts = false, have_data = false, ended = false;
        while (pos < size - 8 && pos < kMaxHeader) {
            const std::size_t eol = bytes.find('\n', pos);
            if (eol == std::string::npos || eol >= size - 8) break;
            const std::string line = bytes.substr(pos, eol - pos);
            pos = eol + 1;
            if (line == "end") {
                ended = true;
                break;
            }
            const std::size_t sp = line.find(' ');
            const std::string name = line.substr(0, sp);
            const std::string value = sp == std::string::npos ? "" : line.substr(sp + 1);
            if (name == "board") {
                board_text = value;
            } else if (name == "opening") {
                opening_text = value;
            } else if (name == "game") {
                game_text = value;
            } else if (name == "kind") {
                kind_text = value;
            } else if (name == "generator") {
                c.generator = value;
            } else if (name == "root") {
                const std::size_t last = value.rfind(' ');
                if (last == std::string::npos) rd.fail("header: a root line without a winner");
                root_text.emplace_back(value.substr(0, last), value.substr(last + 1));
            } else if (name == "entries") {
                std::istringstream in(value);
                std::string w;
                int i = 0;
                while (in >> w) {
                    if (i == kTags) rd.fail("header: 'entries' has more than 4 counts");
                    counts[i++] = parse_u64(rd, w, "an entry count");
                }
                if (i != kTags) rd.fail("header: 'entries' needs 4 counts");
                have_counts = true;
            } else if (name == "data") {
                const std::size_t s2 = value.find(' ');
                if (s2 == std::string::npos) rd.fail("header: 'data' needs two sizes");
                raw_size = parse_u64(rd, std::string_view(value).substr(0, s2), "the data size");
                packed_size =
                    parse_u64(rd, std::string_view(value).substr(s2 + 1), "the data size");
                have_data = true;
            } else {
                rd.fail("header: unknown line '" + line.substr(0, 60) + "'");
            }
        }
        if (!ended) rd.fail("header: no 'end' line");
        if (board_text.empty() || opening_text.empty() || game_text.empty() || kind_text.empty() ||
            !have_counts || !have_data) {
            rd.fail("header: a board, opening, game, kind, entries or data line is missing");
        }
        try {
            c.board = Board::parse(board_text);
            c.opening = parse_opening_tag(c.board, opening_text);
        } catch (const std::invalid_argument& e) {
            rd.fail(std::string("header: ") + e.what());
        }
        if (c.board.squares() > kMaxSquares) rd.fail("header: board too large");
        if (game_text == "jumps") {
            c.jumps_only = false;
        } else if (game_text == "jumps-only") {
            c.jumps_only = true;
        } else {
            rd.fail("header: game must be 'jumps' or 'jumps-only', not '" + game_text + "'");
        }
        if (kind_text == "openings") {
            c.kind = CertificateKind::Openings;
        } else if (kind_text == "positions") {
            c.kind = CertificateKind::Positions;
        } else {
            rd.fail("header: kind must be 'openings' or 'positions', not '" + kind_text + "'");
        }
        for (const auto& [text, winner] : root_text) {
            ProofRoot r{};
            try {
                r.position = parse_position(text, &c.board).position;
            } catch (const std::invalid_argument& e) {
                rd.fail(std::string("header: root ") + text.substr(0, 80) + ": " + e.what());
            }
            if (winner == "black") {
                r.winner = Color::Black;
            } else if (winner == "white") {
                r.winner = Color::White;
            } else {
                rd.fail("header: root " + text.substr(0, 80) +
                        ": the winner must be black or white");
            }
            c.roots.push_back(r);
        }
        if (c.roots.empty()) rd.fail("header: no root (nothing is claimed)");
        for (const ProofRoot& r : c.roots)
            max_pieces = std::max(max_pieces, std::popcount(r.position.occ));
        if (packed_size != size - 8 - pos) {
            rd.fail("the file has " + std::to_string(size) + " bytes where its header gives " +
                    std::to_string(pos) + " + " + std::to_string(packed_size) +
                    " + 8 (header, compressed entries, checksum): cut short, or bytes added");
        }
        for (std::uint64_t k : counts) {
            if (k > limits.max_entries - total) rd.fail(too_many(limits.max_entries));
            total += k;
        }
        // Each entry takes two to eleven bytes (a varint of at most ten and a move).
        if (total > raw_size / 2 || raw_size > total * 11) {
            rd.fail("header: entry counts and data size disagree");
        }
        if (packed_size > ZSTD_compressBound(static_cast<std::size_t>(raw_size))) {
            rd.fail("header: the compressed entries are larger than zstd makes of their size");
        }
        // A proof's entries take 2 to 3 compressed bytes each; a file claiming far more entries
        // than its bytes is a decompression bomb (zstd expands up to 32,768 times), refused before
        // the memory is taken.
        if (total > limits.free_entries) {
            const std::uint64_t per = std::max<std::uint64_t>(limits.entries_per_byte, 1);
            if ((total - limits.free_entries + per - 1) / per > packed_size ||
                limits.entries_per_byte == 0) {
                rd.fail("header: " + std::to_string(total) + " entries in " +
                        std::to_string(packed_size) + " compressed bytes, more than " +
                        std::to_string(limits.entries_per_byte) +
                        " a byte: a decompression bomb, not a proof (a proof's entries take 2 to 3 "
                        "bytes each)");
            }
        }
        if (raw_size > packed_size * 32768 + 4096) {
            rd.fail("the compressed entries claim an impossible size");
        }
    } catch (const CertificateError&) {
        if (whole) verify_checksum();
        throw;
    }
    verify_checksum();
    bytes.clear();
    bytes.shrink_to_fit();
    char frame_head[18];  // ZSTD_FRAMEHEADERSIZE_MAX (zstd.h exposes it only to static linking)
    const std::size_t head_n =
        static_cast<std::size_t>(std::min<std::uint64_t>(packed_size, sizeof frame_head));
    src.read(pos, head_n, frame_head);
    const unsigned long long frame = ZSTD_getFrameContentSize(frame_head, head_n);
    if (frame != raw_size) rd.fail("the compressed entries are damaged (frame size)");

    // Decompressed piece by piece into the entries.
    c.entries.reserve(static_cast<std::size_t>(total), static_cast<std::size_t>(raw_size - total));
    EntryDecoder decoder(rd, c.board, counts, max_pieces, c.entries);
    ZSTD_DStream* ds = ZSTD_createDStream();
    if (!ds) rd.fail("out of memory");
    std::string in_buf(ZSTD_DStreamInSize(), '\0');
    std::string out_buf(ZSTD_DStreamOutSize(), '\0');
    std::uint64_t produced = 0;
    std::size_t left = 1;
    try {
        for (std::uint64_t at = 0; at < packed_size;) {
            const std::size_t n =
                static_cast<std::size_t>(std::min<std::uint64_t>(packed_size - at, in_buf.size()));
            src.read(pos + at, n, in_buf.data());
            at += n;
            ZSTD_inBuffer in{in_buf.data(), n, 0};
            while (in.pos < in.size) {
                if (left == 0) rd.fail("the compressed entries are damaged: data after the frame");
                ZSTD_outBuffer out{out_buf.data(), out_buf.size(), 0};
                left = ZSTD_decompressStream(ds, &out, &in);
                if (ZSTD_isError(left)) {
                    rd.fail(std::string("the compressed entries are damaged: ") +
                            ZSTD_getErrorName(left));
                }
                produced += out.pos;
                if (produced > raw_size) rd.fail("the compressed entries are damaged: wrong size");
                decoder.feed(reinterpret_cast<const std::uint8_t*>(out_buf.data()), out.pos);
            }
        }
        // The frame's last bytes may still be inside the decompressor.
        while (left != 0) {
            ZSTD_inBuffer in{nullptr, 0, 0};
            ZSTD_outBuffer out{out_buf.data(), out_buf.size(), 0};
            left = ZSTD_decompressStream(ds, &out, &in);
            if (ZSTD_isError(left)) {
                rd.fail(std::string("the compressed entries are damaged: ") +
                        ZSTD_getErrorName(left));
            }
            if (out.pos == 0 && left != 0) rd.fail("the compressed entries are damaged: cut short");
            produced += out.pos;
            if (produced > raw_size) rd.fail("the compressed entries are damaged: wrong size");
            decoder.feed(reinterpret_cast<const std::uint8_t*>(out_buf.data()), out.pos);
        }
    } catch (...) {
        ZSTD_freeDStream(ds);
        throw;
    }
    ZSTD_freeDStream(ds);
    if (produced != raw_size) rd.fail("the compressed entries are damaged: wrong size");
    decoder.finish();
    c.entries.seal();
    return c;
}

}  // namespace

}  // namespace konane
