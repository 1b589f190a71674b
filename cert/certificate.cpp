#include "cert/certificate.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string_view>

#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>

#include "core/notation.hpp"
#include "core/value.hpp"
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

void put_varint(std::string& out, std::uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<char>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
}

/// The entries as bytes: per tag (0..3) the occupancy deltas as LEB128 varints (the first from
/// 0), then every entry's move index, one byte each, in the same order.
std::string encode_entries(const std::vector<ProofEntry>& entries) {
    std::string out;
    out.reserve(entries.size() * 5);
    std::uint64_t prev = 0;
    int tag = -1;
    for (const ProofEntry& e : entries) {
        if (e.key.tag != tag) {
            tag = e.key.tag;
            prev = 0;
        }
        put_varint(out, e.key.occ - prev);
        prev = e.key.occ;
    }
    for (const ProofEntry& e : entries)
        out.push_back(static_cast<char>(e.move));
    return out;
}

std::string winner_word(Color c) {
    return color_name(c);
}

}  // namespace

void write_certificate(const std::filesystem::path& path, const Certificate& c) {
    for (std::size_t i = 1; i < c.entries.size(); ++i) {
        if (!(c.entries[i - 1].key < c.entries[i].key)) {
            throw std::invalid_argument("write_certificate: entries not sorted and distinct");
        }
    }
    std::uint64_t counts[kTags] = {};
    for (const ProofEntry& e : c.entries) {
        if (e.key.tag >= kTags) throw std::invalid_argument("write_certificate: bad key tag");
        ++counts[e.key.tag];
    }
    const std::string raw = encode_entries(c.entries);
    std::string packed(ZSTD_compressBound(raw.size()), '\0');
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 19);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_nbWorkers, 0);
    const std::size_t n =
        ZSTD_compress2(cctx, packed.data(), packed.size(), raw.data(), raw.size());
    ZSTD_freeCCtx(cctx);
    if (ZSTD_isError(n)) {
        throw CertificateError(path.string() +
                               ": compressing the entries: " + ZSTD_getErrorName(n));
    }
    packed.resize(n);

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
    head += "data " + std::to_string(raw.size()) + " " + std::to_string(packed.size()) + "\n";
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

}  // namespace

Certificate read_certificate(const std::filesystem::path& path) {
    Reader rd{path.string()};
    std::ifstream f(path, std::ios::binary);
    if (!f) rd.fail(std::string("cannot open: ") + std::strerror(errno));
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) rd.fail("cannot read its size: " + ec.message());
    if (size > (std::uint64_t{1} << 40)) rd.fail("too large to be a certificate");
    std::string bytes(size, '\0');
    f.read(bytes.data(), static_cast<std::streamsize>(size));
    if (!f || static_cast<std::uint64_t>(f.gcount()) != size) rd.fail("read failed");
    return parse_certificate(std::move(bytes), path.string());
}

Certificate parse_certificate(std::string bytes, const std::string& name) {
    Reader rd{name};
    const std::size_t size = bytes.size();
    if (size < kMagic.size() + 8) rd.fail("too short to be a certificate");
    if (std::string_view(bytes).substr(0, kMagic.size()) != kMagic) {
        if (bytes.starts_with("konane proof certificate ")) {
            rd.fail("a certificate of another version (this program reads version 1)");
        }
        rd.fail("not a konane proof certificate (no 'konane proof certificate 1' line)");
    }
    std::uint64_t stored = 0;
    for (int i = 0; i < 8; ++i)
        stored |= std::uint64_t{static_cast<unsigned char>(bytes[size - 8 + i])} << (8 * i);
    if (XXH64(bytes.data(), size - 8, 0) != stored) {
        rd.fail("checksum mismatch: the file is damaged (a byte changed, or cut short)");
    }

    // The header: "name value" lines up to "end".
    Certificate c;
    std::size_t pos = kMagic.size();
    std::string board_text, opening_text, game_text, kind_text;
    std::vector<std::pair<std::string, std::string>> root_text;
    std::uint64_t counts[kTags] = {};
    std::uint64_t raw_size = 0, packed_size = 0;
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
            packed_size = parse_u64(rd, std::string_view(value).substr(s2 + 1), "the data size");
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
            rd.fail("header: root " + text.substr(0, 80) + ": the winner must be black or white");
        }
        c.roots.push_back(r);
    }
    if (c.roots.empty()) rd.fail("header: no root (nothing is claimed)");
    if (packed_size != size - 8 - pos) {
        rd.fail("the compressed entries take " + std::to_string(size - 8 - pos) +
                " bytes, the header says " + std::to_string(packed_size));
    }
    std::uint64_t total = 0;
    for (std::uint64_t k : counts)
        total += k;
    // Each entry takes at least two bytes (a varint and a move).
    if (total > raw_size / 2 || raw_size > (std::uint64_t{1} << 40)) {
        rd.fail("header: entry counts and data size disagree");
    }
    // zstd expands at most 32,768 times (a 128 KiB block of one repeated byte in 4 bytes): a
    // larger claim is a forged size, refused before the memory is taken.
    if (raw_size > packed_size * 32768 + 4096) {
        rd.fail("the compressed entries claim an impossible size");
    }
    const unsigned long long frame = ZSTD_getFrameContentSize(bytes.data() + pos, packed_size);
    if (frame != raw_size) rd.fail("the compressed entries are damaged (frame size)");
    std::string raw(raw_size, '\0');
    const std::size_t got =
        ZSTD_decompress(raw.data(), raw.size(), bytes.data() + pos, packed_size);
    if (ZSTD_isError(got) || got != raw_size) {
        rd.fail(std::string("the compressed entries are damaged: ") +
                (ZSTD_isError(got) ? ZSTD_getErrorName(got) : "wrong size"));
    }
    bytes.clear();
    bytes.shrink_to_fit();

    c.entries.resize(total);
    std::size_t at = 0, e = 0;
    for (int tag = 0; tag < kTags; ++tag) {
        std::uint64_t prev = 0;
        for (std::uint64_t i = 0; i < counts[tag]; ++i, ++e) {
            std::uint64_t v = 0;
            int shift = 0;
            for (;;) {
                if (at >= raw.size()) rd.fail("the entries end early");
                const auto byte = static_cast<unsigned char>(raw[at++]);
                if (shift > 63 || (shift == 63 && (byte & 0x7e))) rd.fail("an entry overflows");
                v |= std::uint64_t{byte & 0x7fu} << shift;
                if (!(byte & 0x80)) break;
                shift += 7;
            }
            if (i > 0 && v == 0) rd.fail("two entries for one position");
            const std::uint64_t occ = prev + v;
            if (occ < prev || (occ & ~c.board.all)) rd.fail("an entry's position is off the board");
            prev = occ;
            c.entries[e].key = ProofKey{occ, static_cast<std::uint8_t>(tag)};
        }
    }
    if (raw.size() - at != total) rd.fail("the number of moves differs from the entries'");
    for (std::uint64_t i = 0; i < total; ++i)
        c.entries[i].move = static_cast<std::uint8_t>(raw[at + i]);
    return c;
}

}  // namespace konane
