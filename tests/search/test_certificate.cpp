// Proof certificates (cert/, search/proof_certificate.hpp, `konane check-proof`): the
// certificates of the proof search prove the tables' verdicts, and the checker refuses a changed
// move, a removed reply's proof, a flipped winner, a wrong root and a damaged byte.
#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <xxhash.h>
#include <zstd.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cert/certificate.hpp"
#include "cert/check.hpp"
#include "core/notation.hpp"
#include "probe/openings.hpp"
#include "search/proof.hpp"
#include "search/proof_certificate.hpp"
#include "tests/cli_helpers.hpp"
#include "tests/reference.hpp"
#include "tests/table_fixture.hpp"
#include "tests/temp_dir.hpp"

namespace {

using namespace konane;
using namespace konane::test;
namespace fs = std::filesystem;

ProofOptions options(Ruleset r, bool jumps_only = false,
                     ProofAlgorithm a = ProofAlgorithm::Enhanced) {
    ProofOptions o;
    o.algorithm = a;
    o.rules = r;
    o.jumps_only = jumps_only;
    o.memory_bytes = std::size_t{1} << 20;  // small: the builder must search again what it lost
    return o;
}

/// The certificate of every opening of a board, by proof search.
Certificate openings_certificate(const Board& b, Ruleset r,
                                 ProofAlgorithm a = ProofAlgorithm::Enhanced) {
    ProofSearch s(b, options(r, false, a));
    const SearchedOpenings o = search_openings(s);
    const std::vector<Position> starts = start_positions(b, Opening(r));
    REQUIRE(starts.size() == o.lines.size());
    CertificateBuilder builder(s);
    for (std::size_t i = 0; i < starts.size(); ++i) {
        REQUIRE(o.lines[i].winner.has_value());
        builder.add_root(starts[i], *o.lines[i].winner);
    }
    return builder.finish(CertificateKind::Openings, Opening(r), "test");
}

/// The reference engine's winner of p (tests/reference.hpp: plain negamax, no symmetry).
/// One memo per board and ruleset, kept for the whole run: the reference engine solves each
/// position once however many tests ask (a memo per call made the certificate tests the
/// slowest of the sanitizer runs).
Color reference_winner(const Board& b, Ruleset r, Position p, bool jumps_only) {
    static std::map<std::tuple<int, int, Ruleset>, ref::RefMemo> memos;
    const ref::RefBoard rb(b.rows, b.cols);
    // Jumps only: the positions given have at least two empty squares, where every ruleset plays
    // jumps.
    (void)jumps_only;
    ref::RefMemo& memo = memos.try_emplace({b.rows, b.cols, r}, rb, ref::rules_of(r)).first->second;
    const ref::RefValue v = ref::solve(ref::from_core(rb, p), memo);
    return v.win ? p.to_move : other(p.to_move);
}

/// The moves of the key of the entry, with their children: for tampering.
std::vector<MoveChild> entry_moves(const Certificate& c, const ProofEntry& e) {
    return ProofGame(c.board, c.opening, c.jumps_only).moves(e.key);
}

/// The header lines of a certificate up to its "entries" line (magic, board, opening, game,
/// kind, generator, roots): a forger's starting point.
std::string header_before_entries(const std::string& bytes) {
    const std::size_t at = bytes.find("\nentries ");
    REQUIRE(at != std::string::npos);
    return bytes.substr(0, at + 1);
}

/// One zstd frame (level 1, with its content size) of `ones` bytes 0x01 then `zeros` bytes
/// 0x00: the entries of a decompression bomb (occupancies 1, 2, 3, ... of tag 0, each move 0),
/// compressed as a stream so that the bytes are never held uncompressed.
std::string bomb_frame(std::uint64_t ones, std::uint64_t zeros) {
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    REQUIRE(cctx != nullptr);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
    ZSTD_CCtx_setPledgedSrcSize(cctx, ones + zeros);
    std::string out;
    std::string chunk;
    const auto push = [&](const char* data, std::size_t n, ZSTD_EndDirective mode) {
        ZSTD_inBuffer in{data, n, 0};
        for (;;) {
            const std::size_t at = out.size();
            out.resize(at + ZSTD_CStreamOutSize());
            ZSTD_outBuffer o{out.data() + at, out.size() - at, 0};
            const std::size_t left = ZSTD_compressStream2(cctx, &o, &in, mode);
            out.resize(at + o.pos);
            REQUIRE(!ZSTD_isError(left));
            if (mode == ZSTD_e_end ? left == 0 : in.pos == in.size) break;
        }
    };
    for (const auto& [count, byte] : {std::pair{ones, '\1'}, std::pair{zeros, '\0'}}) {
        chunk.assign(std::size_t{1} << 20, byte);
        for (std::uint64_t left = count; left > 0;) {
            const std::size_t n =
                static_cast<std::size_t>(std::min<std::uint64_t>(left, chunk.size()));
            push(chunk.data(), n, ZSTD_e_continue);
            left -= n;
        }
    }
    push(nullptr, 0, ZSTD_e_end);
    ZSTD_freeCCtx(cctx);
    return out;
}

/// A certificate file sealed with its checksum: `head` (up to the entries line), the entries and
/// data lines given, "end", the compressed entries.
std::string seal_certificate(const std::string& head, const std::string& entries, std::uint64_t raw,
                             const std::string& packed) {
    std::string bytes = head + "entries " + entries + "\ndata " + std::to_string(raw) + " " +
                        std::to_string(packed.size()) + "\nend\n" + packed;
    const std::uint64_t sum = XXH64(bytes.data(), bytes.size(), 0);
    for (int i = 0; i < 8; ++i)
        bytes.push_back(static_cast<char>(sum >> (8 * i)));
    return bytes;
}

void write_bytes(const fs::path& file, const std::string& bytes) {
    std::ofstream(file, std::ios::binary | std::ios::trunc)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

TEST_CASE("certificate: every opening's winner up to 5x5 is proven as the table says",
          "[certificate]") {
    for (const auto& [rows, cols, r] :
         {std::tuple{4, 4, Ruleset::Brainking}, std::tuple{4, 5, Ruleset::Brainking},
          std::tuple{5, 4, Ruleset::Brainking}, std::tuple{5, 5, Ruleset::Brainking},
          std::tuple{4, 4, Ruleset::Any}, std::tuple{3, 6, Ruleset::Center}}) {
        const Tablebase& tb = table(rows, cols, r);
        const Board& b = tb.board();
        INFO(b.name() << " " << ruleset_name(r));
        const Openings want = compute_openings(tb);
        for (const ProofAlgorithm a : {ProofAlgorithm::DfPn, ProofAlgorithm::Plain}) {
            INFO("algorithm " << static_cast<int>(a));
            const CertificateCheck other = check_certificate(openings_certificate(b, r, a));
            REQUIRE(other.board_winner.has_value());
            CHECK(*other.board_winner == want.winner);
        }
        const Certificate c = openings_certificate(b, r);
        const CertificateCheck got = check_certificate(c);
        REQUIRE(got.winners.size() == want.lines.size());
        for (std::size_t i = 0; i < want.lines.size(); ++i)
            CHECK(got.winners[i] == want.lines[i].winner);
        REQUIRE(got.board_winner.has_value());
        CHECK(*got.board_winner == want.winner);
        REQUIRE(got.removals.size() == want.choices.size());
        for (std::size_t i = 0; i < want.choices.size(); ++i)
            CHECK(got.removals[i].second == want.choices[i].winner);
        CHECK(got.unused == 0);
        CHECK(got.won == c.entries.size());
        // The proven positions by pieces: they add up to the positions proven; none holds more
        // pieces than a root (two fewer than the board's squares: the removals), and the roots
        // are counted at that number (once per class: mirror images are one proof).
        std::uint64_t won = 0, lost = 0;
        for (std::size_t n = 0; n < got.won_by_pieces.size(); ++n) {
            won += got.won_by_pieces[n];
            lost += got.lost_by_pieces[n];
            if (static_cast<int>(n) > b.squares() - 2) {
                CHECK(got.won_by_pieces[n] + got.lost_by_pieces[n] == 0);
            }
        }
        CHECK(won == got.won);
        CHECK(lost == got.lost);
        const auto roots = static_cast<std::size_t>(b.squares() - 2);
        const std::uint64_t at_roots = got.won_by_pieces.at(roots) + got.lost_by_pieces.at(roots);
        CHECK(at_roots >= 1);
        CHECK(at_roots <= c.roots.size());
        // The same through the file.
        TempDir dir("cert-openings");
        const fs::path file = dir.path / "c.proof";
        write_certificate(file, c);
        const Certificate back = read_certificate(file);
        CHECK(back.entries.size() == c.entries.size());
        CHECK(back.roots.size() == c.roots.size());
        CHECK(check_certificate(back).board_winner == got.board_winner);
    }
}

TEST_CASE("certificate: random positions' certificates agree with the reference engine",
          "[certificate]") {
    for (const auto& [rows, cols, jumps_only] : {std::tuple{4, 5, false}, std::tuple{5, 5, false},
                                                 std::tuple{4, 4, true}, std::tuple{3, 7, true}}) {
        const Board b = Board::make(rows, cols);
        const ref::RefBoard rb(rows, cols);
        ProofSearch s(b, options(Ruleset::Brainking, jumps_only));
        CertificateBuilder builder(s);
        std::vector<Color> want;
        int n = 0;
        for (const ref::RefPos& rp :
             ref::random_positions(rb, ref::Rules::Brainking, 6, 7u * rows + cols + jumps_only)) {
            const Position p = ref::to_core(rb, rp);
            if (jumps_only && std::popcount(b.all & ~p.occ) < 2) continue;
            const ProofResult r = s.solve(p);
            REQUIRE(r.win.has_value());
            const Color winner = *r.win ? p.to_move : other(p.to_move);
            INFO(format_position(b, p));
            CHECK(winner == reference_winner(b, Ruleset::Brainking, p, jumps_only));
            builder.add_root(p, winner);
            want.push_back(winner);
            ++n;
        }
        REQUIRE(n > 10);
        const Certificate c =
            builder.finish(CertificateKind::Positions, Opening(Ruleset::Brainking), "test");
        CHECK(c.jumps_only == jumps_only);
        const CertificateCheck got = check_certificate(c);
        CHECK(got.winners == want);
    }
}

TEST_CASE("certificate: a proof by region values equals the table and still checks",
          "[certificate][regions]") {
    // Region values (ProofOptions::region_max_pieces) decide positions that split without
    // search; the builder walks them by their moves, so the checker needs the rules alone.
    // Verdicts against the tables (retrograde analysis, tests/table_fixture.hpp), by the
    // alpha-beta and by df-pn (which tries the regions at a node's first expansion).
    for (const auto& [rows, cols, algorithm] :
         {std::tuple{5, 5, ProofAlgorithm::Enhanced}, std::tuple{4, 6, ProofAlgorithm::Enhanced},
          std::tuple{4, 5, ProofAlgorithm::Enhanced}, std::tuple{5, 5, ProofAlgorithm::DfPn},
          std::tuple{4, 6, ProofAlgorithm::DfPn}}) {
        const Tablebase& tb = table(rows, cols, Ruleset::Brainking);
        const Board& b = tb.board();
        const ref::RefBoard rb(rows, cols);
        ProofOptions o = options(Ruleset::Brainking, false, algorithm);
        o.region_max_pieces = 12;
        ProofSearch s(b, o);
        CertificateBuilder builder(s);
        std::vector<Color> want;
        std::uint64_t hits = 0;
        for (const ref::RefPos& rp :
             ref::random_positions(rb, ref::Rules::Brainking, 8, 31u * rows + cols)) {
            const Position p = ref::to_core(rb, rp);
            const ProofResult r = s.solve(p);
            REQUIRE(r.win.has_value());
            hits += r.region_hits;
            const Color winner = *r.win ? p.to_move : other(p.to_move);
            INFO(b.name() << " " << format_position(b, p));
            const auto v = tb.value(p);
            REQUIRE(v.has_value());
            CHECK(winner == (v->win ? p.to_move : other(p.to_move)));
            builder.add_root(p, winner);
            want.push_back(winner);
        }
        INFO(b.name() << (algorithm == ProofAlgorithm::DfPn ? " df-pn" : " alpha-beta"));
        CHECK(hits > 0);  // the region values were used
        const Certificate c =
            builder.finish(CertificateKind::Positions, Opening(Ruleset::Brainking), "test");
        CHECK(check_certificate(c).winners == want);
    }
}

namespace {

/// The lines of docs/proofs/verdicts.txt: file, board, winner.
std::vector<std::tuple<std::string, std::string, std::string>> published_certificates() {
    std::ifstream in(fs::path(KONANE_PROOFS_DIR) / "verdicts.txt");
    REQUIRE(in);
    std::vector<std::tuple<std::string, std::string, std::string>> out;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream words(line);
        std::string file, board, winner;
        REQUIRE(static_cast<bool>(words >> file >> board >> winner));
        out.emplace_back(file, board, winner);
    }
    return out;
}

/// Checks one published certificate: it proves the listed verdict, and where the tests build the
/// board's table, every opening's winner is the table's.
void check_published(const std::string& file, const std::string& board, const std::string& winner) {
    INFO(file);
    const Certificate c = read_certificate(fs::path(KONANE_PROOFS_DIR) / file);
    CHECK(c.board.name() == board);
    CHECK(c.kind == CertificateKind::Openings);
    const CertificateCheck got = check_certificate(c);
    REQUIRE(got.board_winner.has_value());
    CHECK(color_name(*got.board_winner) == winner);
    if (c.board.squares() <= 25) {
        const Openings want = compute_openings(table(c.board.rows, c.board.cols, c.opening.rules));
        REQUIRE(got.winners.size() == want.lines.size());
        for (std::size_t i = 0; i < want.lines.size(); ++i)
            CHECK(got.winners[i] == want.lines[i].winner);
    }
}

}  // namespace

TEST_CASE("certificate: the published refutations prove that White wins their boards",
          "[certificate]") {
    // docs/proofs/refutations.txt: file, board. Each file proves that White wins one gap's start
    // position; together they must answer every Black removal of the board with one such reply.
    std::ifstream in(fs::path(KONANE_PROOFS_DIR) / "refutations.txt");
    REQUIRE(in);
    std::map<std::string, std::vector<Position>> proven;  // board -> roots proven White's
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream words(line);
        std::string file, board;
        REQUIRE(static_cast<bool>(words >> file >> board));
        INFO(file);
        const Certificate c = read_certificate(fs::path(KONANE_PROOFS_DIR) / file);
        CHECK(c.board.name() == board);
        REQUIRE(c.roots.size() == 1);
        CHECK(c.roots[0].winner == Color::White);
        CHECK(c.roots[0].position.to_move == Color::Black);
        const CertificateCheck got = check_certificate(c);
        REQUIRE(got.winners.size() == 1);
        CHECK(got.winners[0] == Color::White);
        proven[board].push_back(c.roots[0].position);
    }
    REQUIRE_FALSE(proven.empty());
    for (const auto& [name, roots] : proven) {
        INFO(name);
        const Board b = Board::parse(name);
        int removals = 0;
        for (const MoveChild& first : legal_moves(b, Ruleset::Brainking, b.start())) {
            INFO(format_move(b, first.move));
            bool refuted = false;
            for (const MoveChild& second : legal_moves(b, Ruleset::Brainking, first.child))
                refuted =
                    refuted || std::find(roots.begin(), roots.end(), second.child) != roots.end();
            CHECK(refuted);
            ++removals;
        }
        CHECK(removals >= 2);
    }
}

TEST_CASE("certificate: the published certificates up to 6x6 prove the published verdicts",
          "[certificate]") {
    int n = 0;
    for (const auto& [file, board, winner] : published_certificates()) {
        if (Board::parse(board).squares() > 36) continue;
        check_published(file, board, winner);
        ++n;
    }
    CHECK(n >= 9);
}

TEST_CASE("certificate: the published certificates past 6x6 prove the published verdicts",
          "[certificate][slow]") {
    int n = 0;
    for (const auto& [file, board, winner] : published_certificates()) {
        if (Board::parse(board).squares() <= 36) continue;
        check_published(file, board, winner);
        ++n;
    }
    CHECK(n >= 1);
}

TEST_CASE("certificate: the check on threads gives one thread's counts and refusals",
          "[certificate][concurrency]") {
    // Every published certificate up to 6x6: the same verdict and the same counts, whatever the
    // threads (a position is counted by the walk that marks it first).
    int n = 0;
    for (const auto& [file, board, winner] : published_certificates()) {
        if (Board::parse(board).squares() > 36) continue;
        INFO(file);
        const Certificate c = read_certificate(fs::path(KONANE_PROOFS_DIR) / file);
        const CertificateCheck one = check_certificate(c);
        for (int threads : {2, 3, 8}) {
            INFO(threads << " threads");
            const CertificateCheck many = check_certificate(c, {}, threads);
            CHECK(many.winners == one.winners);
            CHECK(many.board_winner == one.board_winner);
            CHECK(many.removals == one.removals);
            CHECK(many.won == one.won);
            CHECK(many.lost == one.lost);
            CHECK(many.unused == one.unused);
            CHECK(many.won_by_pieces == one.won_by_pieces);
            CHECK(many.lost_by_pieces == one.lost_by_pieces);
        }
        ++n;
    }
    CHECK(n >= 9);

    // Damaged certificates: refused with one thread's message.
    const Board b = Board::make(5, 5);
    const Certificate good = openings_certificate(b, Ruleset::Brainking);
    const std::vector<ProofEntry> entries = good.entries.to_vector();
    const auto message = [](const Certificate& c, int threads) -> std::string {
        try {
            check_certificate(c, {}, threads);
        } catch (const CertificateError& e) {
            return e.what();
        }
        return "accepted";
    };
    std::vector<Certificate> bad;
    for (std::size_t i : {std::size_t{0}, good.entries.size() / 3, good.entries.size() - 1}) {
        std::vector<ProofEntry> fewer = entries;
        fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(i));
        bad.push_back(good);
        bad.back().entries = PackedKeys::from_vector(fewer);
    }
    bad.push_back(good);
    bad.back().entries.set_value(good.entries.size() / 2, 200);
    for (std::size_t i = 0; i < good.roots.size(); i += 5) {
        bad.push_back(good);
        bad.back().roots[i].winner = other(bad.back().roots[i].winner);
    }
    for (std::size_t k = 0; k < bad.size(); ++k) {
        INFO("damaged certificate " << k);
        const std::string want = message(bad[k], 1);
        CHECK(want != "accepted");
        CHECK(message(bad[k], 2) == want);
        CHECK(message(bad[k], 4) == want);
    }
}

TEST_CASE("certificate: a full board and a one-hole board are proven through the removals",
          "[certificate]") {
    const Board b = Board::make(4, 5);
    for (const Position p : {b.start(), legal_moves(b, Ruleset::Brainking, b.start())[0].child}) {
        ProofSearch s(b, options(Ruleset::Brainking));
        const ProofResult r = s.solve(p);
        REQUIRE(r.win.has_value());
        const Color winner = *r.win ? p.to_move : other(p.to_move);
        CHECK(winner == reference_winner(b, Ruleset::Brainking, p, false));
        CertificateBuilder builder(s);
        builder.add_root(p, winner);
        const Certificate c =
            builder.finish(CertificateKind::Positions, Opening(Ruleset::Brainking), "test");
        CHECK(check_certificate(c).winners == std::vector<Color>{winner});
    }
}

TEST_CASE("certificate: a changed move, a removed proof, a flipped winner are refused",
          "[certificate]") {
    const Board b = Board::make(5, 5);
    const Certificate good = openings_certificate(b, Ruleset::Brainking);
    REQUIRE(good.entries.size() > 100);
    const std::vector<ProofEntry> entries = good.entries.to_vector();

    SECTION("a move changed to one that loses") {
        // Every entry whose position has a losing alternative: changing it must be refused.
        std::mt19937 rng(5);
        int tried = 0;
        for (int attempt = 0; attempt < 400 && tried < 25; ++attempt) {
            const std::size_t i = rng() % good.entries.size();
            const std::vector<MoveChild> ms = entry_moves(good, entries[i]);
            for (std::size_t m = 0; m < ms.size(); ++m) {
                if (m == entries[i].move) continue;
                const Position child = ms[m].child;
                // A move that leaves the opponent a win (by the reference engine) proves nothing.
                if (reference_winner(b, Ruleset::Brainking, child, false) != child.to_move)
                    continue;
                Certificate bad = good;
                bad.entries.set_value(i, static_cast<std::uint8_t>(m));
                INFO("entry " << i << ": move " << m);
                CHECK_THROWS_AS(check_certificate(bad), CertificateError);
                ++tried;
                break;
            }
        }
        CHECK(tried >= 10);
    }
    SECTION("a move number out of range") {
        Certificate bad = good;
        bad.entries.set_value(good.entries.size() / 2, 200);
        CHECK_THROWS_WITH(check_certificate(bad), Catch::Contains("out of range"));
    }
    SECTION("one reply's proof removed") {
        // Every entry of a built certificate is used, so removing any one breaks the proof.
        for (std::size_t i : {std::size_t{0}, good.entries.size() / 3, good.entries.size() - 1}) {
            Certificate bad = good;
            std::vector<ProofEntry> fewer = entries;
            fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(i));
            bad.entries = PackedKeys::from_vector(fewer);
            INFO("entry " << i << " removed");
            CHECK_THROWS_WITH(check_certificate(bad), Catch::Contains("no winning move"));
        }
    }
    SECTION("a root's winner flipped") {
        for (std::size_t i = 0; i < good.roots.size(); i += 3) {
            Certificate bad = good;
            bad.roots[i].winner = other(bad.roots[i].winner);
            INFO("root " << i);
            CHECK_THROWS_AS(check_certificate(bad), CertificateError);
        }
    }
    SECTION("a root missing or out of order") {
        Certificate bad = good;
        bad.roots.pop_back();
        CHECK_THROWS_WITH(check_certificate(bad), Catch::Contains("roots"));
        bad = good;
        std::swap(bad.roots[0], bad.roots[1]);
        CHECK_THROWS_WITH(check_certificate(bad), Catch::Contains("is not the board's opening"));
    }
    SECTION("the wrong board verdict cannot be claimed through the roots") {
        // A certificate of positions claiming a lost position won is refused.
        Certificate bad = good;
        bad.kind = CertificateKind::Positions;
        bad.roots = {bad.roots[0]};
        bad.roots[0].winner = other(bad.roots[0].winner);
        CHECK_THROWS_AS(check_certificate(bad), CertificateError);
    }
}

TEST_CASE("certificate: every damaged byte of the file is refused", "[certificate]") {
    const Board b = Board::make(4, 5);
    const Certificate c = openings_certificate(b, Ruleset::Brainking);
    TempDir dir("cert-damage");
    const fs::path file = dir.path / "c.proof";
    write_certificate(file, c);
    std::string bytes;
    {
        std::ifstream in(file, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    REQUIRE(bytes.size() > 100);
    const fs::path bad = dir.path / "bad.proof";
    for (std::size_t at = 0; at < bytes.size(); at += std::max<std::size_t>(1, bytes.size() / 97)) {
        std::string copy = bytes;
        copy[at] = static_cast<char>(copy[at] ^ 0x10);
        std::ofstream(bad, std::ios::binary | std::ios::trunc)
            .write(copy.data(), static_cast<long>(copy.size()));
        INFO("byte " << at);
        CHECK_THROWS_AS(read_certificate(bad), CertificateError);
    }
    // Cut short, and empty.
    std::ofstream(bad, std::ios::binary | std::ios::trunc)
        .write(bytes.data(), static_cast<long>(bytes.size() - 5));
    CHECK_THROWS_WITH(read_certificate(bad), Catch::Contains("checksum"));
    std::ofstream(bad, std::ios::binary | std::ios::trunc).write("x", 1);
    CHECK_THROWS_AS(read_certificate(bad), CertificateError);
    CHECK_THROWS_AS(read_certificate(dir.path / "missing.proof"), CertificateError);
}

TEST_CASE("certificate: konane check-proof's verdict and exit codes", "[certificate][cli]") {
    TempDir dir("cert-cli");
    const std::string file = (dir.path / "5x5.proof").string();
    const Run made =
        run("openings --search --board 5x5 -q --memory 4M --certificate " + quote(file));
    REQUIRE(made.code == 0);
    CHECK_THAT(made.out, Catch::Contains("certificate: " + file));
    const Run ok = run("check-proof -q " + quote(file));
    CHECK(ok.code == 0);
    CHECK_THAT(ok.out, Catch::Contains("verdict: black wins with perfect play (proven)"));
    const Run js = run("check-proof -q --json " + quote(file));
    CHECK(js.code == 0);
    CHECK_THAT(js.out, Catch::Contains("\"winner\":\"black\""));
    CHECK_THAT(js.out, Catch::Contains("\"by_pieces\":[{\"pieces\":"));
    const Run pieces = run("check-proof -q --by-pieces " + quote(file));
    CHECK(pieces.code == 0);
    CHECK_THAT(pieces.out, Catch::Contains("pieces in the proven positions: ") &&
                               Catch::Contains(" to 23") &&
                               Catch::Contains("pieces            won"));
    // A wrong claim: edit a root's winner in the header and recompute nothing: the checksum
    // refuses it (exit 2); a certificate rewritten with a wrong claim is refused (exit 1).
    Certificate c = read_certificate(file);
    c.roots[0].winner = other(c.roots[0].winner);
    const std::string bad = (dir.path / "bad.proof").string();
    write_certificate(bad, c);
    const Run refused = run("check-proof -q " + quote(bad));
    CHECK(refused.code == 1);
    CHECK_THAT(refused.out, Catch::Contains("refused"));
    const Run missing = run("check-proof " + quote((dir.path / "none.proof").string()));
    CHECK(missing.code == 2);
    // solve --wdl --certificate on a position.
    const std::string pos_file = (dir.path / "pos.proof").string();
    const Run solved =
        run("solve 'xoxox/oxoxo/xo.ox/ox.xo/xoxox b' --wdl -q --memory 4M --certificate " +
            quote(pos_file));
    REQUIRE(solved.code == 0);
    const Run pos_ok = run("check-proof -q " + quote(pos_file));
    CHECK(pos_ok.code == 0);
    CHECK_THAT(pos_ok.out, Catch::Contains("black wins (proven)"));
    // --certificate without --search / --wdl is refused.
    CHECK(run("openings --board 5x5 --certificate " + quote(file)).code == 2);
}

TEST_CASE("certificate: a search resumed from its work directory decides as an unbroken one",
          "[certificate][cli]") {
    TempDir dir("search-work");
    const std::string work = (dir.path / "work").string();
    auto winners = [](const std::string& out) {
        const auto j = nlohmann::json::parse(out.substr(out.find('{')));
        std::vector<std::string> w;
        for (const auto& l : j["openings"])
            w.push_back(l["winner"].is_null() ? "undecided" : l["winner"].get<std::string>());
        return w;
    };
    const Run whole = run("openings --search --board 5x5 -q --json --memory 4M 2>/dev/null");
    REQUIRE(whole.code == 0);
    // Stopped at a node limit: some openings undecided, the decided ones kept in the work
    // directory; the same command without the limit completes them and removes it.
    const Run part =
        run("openings --search --board 5x5 -q --json --memory 4M --max-nodes 200 "
            "--work " +
            quote(work) + " 2>/dev/null");
    CHECK(part.code == 1);
    REQUIRE(fs::exists(fs::path(work) / "openings.txt"));
    const std::vector<std::string> partial = winners(part.out);
    CHECK(std::count(partial.begin(), partial.end(), "undecided") > 0);
    const Run rest = run("openings --search --board 5x5 --json --memory 4M --work " + quote(work));
    REQUIRE(rest.code == 0);
    CHECK_THAT(rest.out, Catch::Contains("resuming from"));
    CHECK_THAT(rest.out, !Catch::Contains("searched by"));
    CHECK(winners(rest.out) == winners(whole.out));
    CHECK(!fs::exists(work));
    // Begun by df-pn, resumed without --dfpn: said (even with -q), and the same verdicts.
    CHECK(run("openings --search --dfpn --board 5x5 -q --memory 4M --max-nodes 200 --work " +
              quote(work) + " >/dev/null 2>&1")
              .code == 1);
    REQUIRE(fs::exists(fs::path(work) / "openings.txt"));
    const Run switched =
        run("openings --search --board 5x5 -q --json --memory 4M --work " + quote(work));
    REQUIRE(switched.code == 0);
    CHECK_THAT(switched.out, Catch::Contains("was searched by df-pn so far; this run goes on by "
                                             "proof alpha-beta"));
    CHECK(winners(switched.out) == winners(whole.out));
    // Killed (SIGKILL) part-way through 6x6, then resumed: the verdicts of an unbroken run.
    const Run unbroken = run("openings --search --board 6x6 -q --json --memory 64M 2>/dev/null");
    REQUIRE(unbroken.code == 0);
    run("openings --search --board 6x6 -q --memory 64M --checkpoint 1 --work " + quote(work) +
            " >/dev/null 2>&1",
        "timeout -s KILL 2");
    const Run resumed = run("openings --search --board 6x6 -q --json --memory 64M --work " +
                            quote(work) + " 2>/dev/null");
    REQUIRE(resumed.code == 0);
    CHECK(winners(resumed.out) == winners(unbroken.out));
    // A damaged state is refused, naming the file.
    run("openings --search --board 5x5 -q --memory 4M --max-nodes 200 --work " + quote(work) +
        " >/dev/null 2>&1");
    REQUIRE(fs::exists(fs::path(work) / "openings.txt"));
    {
        std::fstream f(fs::path(work) / "openings.txt", std::ios::in | std::ios::out);
        f.seekp(30);
        f.put('#');
    }
    const Run damaged = run("openings --search --board 5x5 -q --memory 4M --work " + quote(work));
    CHECK(damaged.code != 0);
    CHECK_THAT(damaged.out, Catch::Contains("openings.txt"));
    // Another board's work directory is refused.
    fs::remove(fs::path(work) / "openings.txt");
    const Run other = run("openings --search --board 4x5 -q --memory 4M --work " + quote(work));
    CHECK(other.code != 0);
}

TEST_CASE("certificate: check-proof escapes the generator line, with one exit code in both modes",
          "[certificate][cli]") {
    // A valid certificate whose free-text generator line holds a terminal sequence (clear the
    // screen, cursor home) and bytes that are not UTF-8: write_certificate() writes it with its
    // checksum, so only the text differs from a certificate konane writes.
    TempDir dir("cert-generator");
    const Board b = Board::make(4, 4);
    Certificate c = openings_certificate(b, Ruleset::Brainking);
    c.generator = "evil \x1b[2J\x1b[H\xff\xfe tool";
    const std::string file = (dir.path / "evil.proof").string();
    write_certificate(file, c);
    REQUIRE(read_certificate(file).generator == c.generator);
    const Run text = run("check-proof -q " + quote(file));
    CHECK(text.code == 0);
    CHECK_THAT(text.out, Catch::Contains("written by: evil \\x1b[2J\\x1b[H\\xff\\xfe tool"));
    CHECK_THAT(text.out, Catch::Contains("verdict: "));
    CHECK(text.out.find('\x1b') == std::string::npos);
    const Run js = run("check-proof -q --json " + quote(file));
    CHECK(js.code == text.code);
    const auto j = nlohmann::json::parse(js.out);
    CHECK(j["valid"] == true);
    CHECK(j["generator"] == "evil \\x1b[2J\\x1b[H\\xff\\xfe tool");
    CHECK(js.out.find('\x1b') == std::string::npos);
}

TEST_CASE("certificate: a decompression bomb is refused from its header, before its memory",
          "[certificate]") {
    // As found (issue 51): 2^29 entries (occupancies 1, 2, 3, ... each with move 0) in a 33 KB
    // file, behind the header of the published 6x6 certificate, with a right checksum. Reading
    // it took 39 s and 1.33 GB, then was accepted with "536870912 entries unused".
    TempDir dir("cert-bomb");
    const std::string head =
        header_before_entries(slurp(fs::path(KONANE_PROOFS_DIR) / "6x6-brainking.proof"));
    const std::uint64_t n = std::uint64_t{1} << 29;
    const std::string packed = bomb_frame(n, n);
    INFO("compressed bomb: " << packed.size() << " bytes");
    const fs::path bomb = dir.path / "bomb.proof";
    write_bytes(bomb, seal_certificate(head, std::to_string(n) + " 0 0 0", 2 * n, packed));
    const auto t = std::chrono::steady_clock::now();
    CHECK_THROWS_WITH(read_certificate(bomb), Catch::Contains("decompression bomb"));
    CHECK(seconds_since(t) < 5.0);
    // Past the ratio (a reader told to allow it), the budget of entries still refuses it.
    CertificateLimits lenient;
    lenient.free_entries = n;
    lenient.max_entries = std::uint64_t{1} << 24;
    CHECK_THROWS_WITH(read_certificate(bomb, lenient),
                      Catch::Contains("more entries than a reader takes"));

    // A smaller bomb under a lenient ratio is decoded, and refused at the first entry that no
    // line of the proof can reach: one with more pieces than any root (every move removes one).
    const std::uint64_t m = std::uint64_t{1} << 12;
    const Board b4 = Board::make(4, 4);
    const std::string small_head =
        "konane proof certificate 1\nboard 4x4\nopening brainking\n"
        "game jumps\nkind positions\ngenerator forged\nroot " +
        format_position(b4, Position{0x0f, Color::Black}) + " black\n";
    const fs::path pieces = dir.path / "pieces.proof";
    write_bytes(pieces, seal_certificate(small_head, std::to_string(m) + " 0 0 0", 2 * m,
                                         bomb_frame(m, m)));
    lenient.max_entries = kMaxCertificateEntries;
    CHECK_THROWS_WITH(read_certificate(pieces, lenient),
                      Catch::Contains("5 pieces, more than any root (4)"));

    // The published certificates are far from the ratio (0.4 to 0.5 entries a compressed byte):
    // the 6x7 one reads under a limit of 1 entry a byte with no free entries, and the budget of
    // entries is exact.
    const fs::path published = fs::path(KONANE_PROOFS_DIR) / "6x7-brainking.proof";
    CertificateLimits strict;
    strict.free_entries = 0;
    strict.entries_per_byte = 1;
    const Certificate c = read_certificate(published, strict);
    strict.max_entries = c.entries.size();
    CHECK(read_certificate(published, strict).entries.size() == c.entries.size());
    strict.max_entries = c.entries.size() - 1;
    CHECK_THROWS_WITH(read_certificate(published, strict),
                      Catch::Contains("more entries than a reader takes"));
}

TEST_CASE("certificate: a huge file is refused from its header, without reading the rest",
          "[certificate]") {
    // As found: a 20 GB sparse file that starts with the certificate's first line took 89 s to
    // refuse (the whole file was checksummed before its header was read).
    TempDir dir("cert-huge");
    const fs::path file = dir.path / "huge.proof";
    const std::uint64_t gb20 = std::uint64_t{20} << 30;
    write_bytes(file, "konane proof certificate 1\n");
    fs::resize_file(file, gb20);
    auto t = std::chrono::steady_clock::now();
    CHECK_THROWS_WITH(read_certificate(file), Catch::Contains("no 'end' line"));
    CHECK(seconds_since(t) < 5.0);

    // A real certificate with 20 GB of zeros after it: the sizes of its header disagree.
    const std::string real = slurp(fs::path(KONANE_PROOFS_DIR) / "5x5-brainking.proof");
    write_bytes(file, real);
    fs::resize_file(file, gb20);
    t = std::chrono::steady_clock::now();
    CHECK_THROWS_WITH(read_certificate(file), Catch::Contains("cut short, or bytes added"));
    CHECK(seconds_since(t) < 5.0);

    // A forged header whose sizes agree with a file of 1 TiB (the most a reader opens): the
    // entries it would take are refused before the checksum.
    const std::string head = header_before_entries(real);
    const std::uint64_t tib = std::uint64_t{1} << 40;
    const std::uint64_t entries = std::uint64_t{1} << 31;
    std::string text;
    for (std::uint64_t packed = tib;;) {
        text = head + "entries " + std::to_string(entries) + " 0 0 0\ndata " +
               std::to_string(11 * entries) + " " + std::to_string(packed) + "\nend\n";
        const std::uint64_t want = tib - text.size() - 8;
        if (want == packed) break;
        packed = want;
    }
    write_bytes(file, text);
    fs::resize_file(file, tib);
    t = std::chrono::steady_clock::now();
    CHECK_THROWS_WITH(read_certificate(file),
                      Catch::Contains("larger than zstd makes of their size"));
    CHECK(seconds_since(t) < 5.0);
    fs::remove(file);
}
