#include "manager/tree.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <numeric>
#include <queue>
#include <sstream>
#include <stdexcept>
#include <unordered_set>

#include <fmt/format.h>

#include "core/movegen.hpp"
#include "core/notation.hpp"
#include "process/read_file.hpp"
#include "process/replace_file.hpp"

namespace konane {

namespace {

/// "Infinite" proof numbers: large enough that no sum of real ones reaches it.
constexpr std::uint64_t kInfinity = std::uint64_t{1} << 60;

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
    return std::min(kInfinity, a + b);
}

constexpr const char* kMagic = "konane proof tree 1";
constexpr std::size_t kRecordBytes = 32;
/// The largest tree file read: 2^31 nodes of 32 bytes, far past what a run builds (a tree
/// grows by one node per few million nodes searched).
constexpr std::uint64_t kMaxTreeBytes = std::uint64_t{64} << 30;
/// The most bytes of a tree's header (its root lines: some 100 bytes a root), and the size of a
/// tree checksummed before its header is read.
constexpr std::size_t kMaxTreeHeader = std::size_t{16} << 20;

void put64(std::string& out, std::uint64_t v) {
    for (int i = 0; i < 8; ++i)
        out.push_back(static_cast<char>(v >> (8 * i)));
}
void put32(std::string& out, std::uint32_t v) {
    for (int i = 0; i < 4; ++i)
        out.push_back(static_cast<char>(v >> (8 * i)));
}
std::uint64_t get64(const char* p) {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
        v |= std::uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
    return v;
}
std::uint32_t get32(const char* p) {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i)
        v |= std::uint32_t{static_cast<unsigned char>(p[i])} << (8 * i);
    return v;
}

}  // namespace

ProofTree::ProofTree(ProofGame game, CertificateKind kind) : game_(std::move(game)), kind_(kind) {}

ProofTree::ProofTree(const Board& b, const Opening& o, bool jumps_only, CertificateKind kind,
                     std::vector<Position> roots)
    : ProofTree(ProofGame(b, o, jumps_only), kind) {
    if (roots.empty()) throw std::invalid_argument("proof tree: no root position");
    if (roots.size() >= std::numeric_limits<std::uint32_t>::max())
        throw std::invalid_argument("proof tree: too many roots");
    root_positions_ = std::move(roots);
    for (const Position& p : root_positions_) {
        const std::uint32_t i = add_node(game_.key(p));
        roots_.push_back(i);
        update(i);
    }
}

std::uint32_t ProofTree::add_node(const ProofKey& k) {
    if (const auto it = index_.find(k); it != index_.end()) return it->second;
    if (nodes_.size() >= std::numeric_limits<std::uint32_t>::max())
        throw std::length_error("proof tree: more than 2^32 - 1 positions");
    TreeNode n;
    n.key = k;
    const std::size_t moves = game_.moves(k).size();
    if (moves == 0) {
        n.state = TreeState::Lost;  // rules.md "End": the player who cannot move loses
        n.pn = kInfinity;
        n.dn = 0;
    } else {
        n.leaf_dn = moves;
        n.pn = 1;
        n.dn = moves;
    }
    const auto i = static_cast<std::uint32_t>(nodes_.size());
    nodes_.push_back(std::move(n));
    index_.emplace(k, i);
    return i;
}

bool ProofTree::recompute(std::uint32_t i) {
    TreeNode& n = nodes_[i];
    const std::uint64_t pn = n.pn, dn = n.dn;
    if (n.state == TreeState::Won) {
        n.pn = 0;
        n.dn = kInfinity;
    } else if (n.state == TreeState::Lost) {
        n.pn = kInfinity;
        n.dn = 0;
    } else if (!n.expanded) {
        n.pn = 1;
        n.dn = n.leaf_dn;
    } else {
        // Negamax proof numbers (df-pn's phi and delta): the mover wins when some child is
        // lost for its mover, loses when every child is won for its mover.
        std::uint64_t best = kInfinity, sum = 0;
        std::size_t best_at = 0;
        for (std::size_t c = 0; c < n.children.size(); ++c) {
            const TreeNode& ch = nodes_[n.children[c]];
            if (ch.dn < best) {
                best = ch.dn;
                best_at = c;
            }
            sum = saturating_add(sum, ch.pn);
        }
        n.pn = best;
        n.dn = sum;
        if (best == 0) {
            n.state = TreeState::Won;
            n.move = static_cast<std::uint8_t>(best_at);
            n.pn = 0;
            n.dn = kInfinity;
        } else if (sum == 0) {
            n.state = TreeState::Lost;
            n.pn = kInfinity;
            n.dn = 0;
        }
    }
    return n.pn != pn || n.dn != dn;
}

void ProofTree::update(std::uint32_t i) {
    // Fewest pieces first: a parent has more pieces than its children, so each node is
    // recomputed once, after every child of it that changed (on a DAG, a walk by paths would
    // recompute an ancestor once per path).
    using Item = std::pair<int, std::uint32_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<>> work;
    std::unordered_set<std::uint32_t> queued{i};
    work.push({std::popcount(nodes_[i].key.occ), i});
    while (!work.empty()) {
        const std::uint32_t j = work.top().second;
        work.pop();
        queued.erase(j);
        if (!recompute(j) && j != i) continue;
        for (const std::uint32_t p : nodes_[j].parents) {
            if (nodes_[p].state == TreeState::Open && queued.insert(p).second)
                work.push({std::popcount(nodes_[p].key.occ), p});
        }
    }
}

std::uint64_t ProofTree::forget_proofs(const std::function<bool(std::uint32_t)>& missing) {
    std::uint64_t opened = 0;
    std::unordered_map<std::uint32_t, bool> known;
    for (TreeNode& n : nodes_) {
        if (n.proof_file == 0) continue;
        auto it = known.find(n.proof_file);
        if (it == known.end()) it = known.emplace(n.proof_file, missing(n.proof_file)).first;
        if (!it->second) continue;
        n.state = TreeState::Open;
        n.proof_file = 0;
        ++opened;
    }
    if (opened == 0) return 0;
    // What the tree derived (expanded nodes without a proof file) is derived again, from the
    // leaves up.
    for (TreeNode& n : nodes_)
        if (n.expanded && n.proof_file == 0) n.state = TreeState::Open;
    std::vector<std::uint32_t> order(nodes_.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        return std::popcount(nodes_[a].key.occ) < std::popcount(nodes_[b].key.occ);
    });
    for (const std::uint32_t i : order)
        recompute(i);
    return opened;
}

std::optional<bool> ProofTree::root_value(std::size_t r) const {
    const TreeNode& n = nodes_[roots_.at(r)];
    if (n.state == TreeState::Open) return std::nullopt;
    return n.state == TreeState::Won;
}

bool ProofTree::done() const {
    return std::all_of(roots_.begin(), roots_.end(),
                       [&](std::uint32_t i) { return nodes_[i].state != TreeState::Open; });
}

TreeStats ProofTree::stats() const {
    TreeStats s;
    s.nodes = nodes_.size();
    for (const TreeNode& n : nodes_) {
        if (n.state == TreeState::Won) ++s.won;
        if (n.state == TreeState::Lost) ++s.lost;
        if (n.expanded) ++s.expanded;
        if (n.state == TreeState::Open && !n.expanded) ++s.open_leaves;
        if (n.busy) ++s.busy;
    }
    return s;
}

std::optional<std::uint32_t> ProofTree::descend(std::uint32_t i, std::vector<std::uint8_t>& full) {
    TreeNode& n = nodes_[i];
    if (n.state != TreeState::Open || full[i]) return std::nullopt;
    if (!n.expanded) {
        if (n.busy) return std::nullopt;
        n.busy = true;
        return i;
    }
    // The child of least disproof number first (the most-proving node of negamax proof-number
    // search); a child whose open leaves are all busy is skipped, so parallel workers take the
    // next most-proving leaves.
    std::vector<std::uint32_t> order;
    for (const std::uint32_t c : n.children)
        if (nodes_[c].state == TreeState::Open && !full[c]) order.push_back(c);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return nodes_[a].dn < nodes_[b].dn; });
    for (const std::uint32_t c : order) {
        if (const auto leaf = descend(c, full)) return leaf;
        full[c] = 1;
    }
    return std::nullopt;
}

std::optional<std::uint32_t> ProofTree::select() {
    std::vector<std::uint32_t> open;
    for (const std::uint32_t r : roots_)
        if (nodes_[r].state == TreeState::Open) open.push_back(r);
    std::stable_sort(open.begin(), open.end(), [&](std::uint32_t a, std::uint32_t b) {
        return std::min(nodes_[a].pn, nodes_[a].dn) < std::min(nodes_[b].pn, nodes_[b].dn);
    });
    std::vector<std::uint8_t> full(nodes_.size(), 0);
    for (const std::uint32_t r : open)
        if (const auto leaf = descend(r, full)) return leaf;
    return std::nullopt;
}

void ProofTree::decided(std::uint32_t i, bool win, std::uint32_t file, std::uint64_t work) {
    TreeNode& n = nodes_[i];
    n.busy = false;
    n.work += work;
    total_nodes_ += work;
    if (n.state != TreeState::Open) return;
    n.state = win ? TreeState::Won : TreeState::Lost;
    n.proof_file = file;
    update(i);
}

void ProofTree::link_children(std::uint32_t i) {
    const std::vector<MoveChild> moves = game_.moves(nodes_[i].key);
    nodes_[i].children.clear();
    for (const MoveChild& m : moves) {
        const std::uint32_t c = add_node(game_.key(m.child));
        nodes_[i].children.push_back(c);
        auto& parents = nodes_[c].parents;
        if (std::find(parents.begin(), parents.end(), i) == parents.end()) parents.push_back(i);
    }
}

void ProofTree::expand(std::uint32_t i, const LeafChildren& c, std::uint64_t work) {
    nodes_[i].busy = false;
    nodes_[i].work += work;
    total_nodes_ += work;
    ++nodes_[i].tries;
    if (nodes_[i].state != TreeState::Open || nodes_[i].expanded) return;
    link_children(i);
    nodes_[i].expanded = true;
    update(i);
    const std::vector<std::uint32_t> children = nodes_[i].children;
    for (std::size_t m = 0; m < children.size() && m < c.values.size(); ++m) {
        TreeNode& ch = nodes_[children[m]];
        if (!c.values[m] || ch.state != TreeState::Open) continue;
        ch.state = *c.values[m] ? TreeState::Won : TreeState::Lost;
        ch.proof_file = c.proof_file;
        update(children[m]);  // and every parent it has (a transposition), i among them
    }
}

void ProofTree::retry(std::uint32_t i, std::uint64_t work) {
    nodes_[i].busy = false;
    nodes_[i].work += work;
    total_nodes_ += work;
    ++nodes_[i].tries;
}

void ProofTree::release(std::uint32_t i, std::uint64_t work) {
    nodes_[i].busy = false;
    nodes_[i].work += work;
    total_nodes_ += work;
}

ProofTree::Proof ProofTree::proof() const {
    if (!done()) throw std::logic_error("proof tree: a root is open");
    Proof out;
    std::vector<std::uint8_t> seen(nodes_.size(), 0);
    std::vector<std::uint32_t> work(roots_.begin(), roots_.end());
    while (!work.empty()) {
        const std::uint32_t i = work.back();
        work.pop_back();
        if (seen[i]) continue;
        seen[i] = 1;
        const TreeNode& n = nodes_[i];
        if (n.proof_file != 0) {
            out.files.push_back(n.proof_file);
        } else if (n.state == TreeState::Won) {
            out.entries.push_back({n.key, n.move});
            work.push_back(n.children.at(n.move));
        } else {
            // Lost by the tree: every child won (or no move at all).
            for (const std::uint32_t c : n.children)
                work.push_back(c);
        }
    }
    std::sort(out.entries.begin(), out.entries.end(),
              [](const ProofEntry& a, const ProofEntry& b) { return a.key < b.key; });
    std::sort(out.files.begin(), out.files.end());
    out.files.erase(std::unique(out.files.begin(), out.files.end()), out.files.end());
    return out;
}

void ProofTree::save(const std::filesystem::path& path) const {
    std::ostringstream h;
    const Board& b = game_.board();
    h << kMagic << '\n'
      << "board " << b.name() << '\n'
      << "opening " << opening_tag(b, game_.opening()) << '\n'
      << "game " << (game_.jumps_only() ? "jumps-only" : "jumps") << '\n'
      << "kind " << certificate_kind_name(kind_) << '\n';
    for (const Position& p : root_positions_)
        h << "root " << format_position(b, p) << '\n';
    if (leaf_search_) {
        h << "leaf-search " << (leaf_search_->dfpn ? "df-pn " : "alpha-beta ")
          << leaf_search_->leaf_nodes;
        if (leaf_search_->retries != 0) h << ' ' << leaf_search_->retries;
        h << '\n';
    }
    h << "nodes " << nodes_.size() << '\n'
      << "proof-files " << proof_files_ << '\n'
      << "searched " << total_nodes_ << '\n'
      << fmt::format("seconds {:.3f}\n", total_seconds_) << "end\n";
    std::string body;
    body.reserve(nodes_.size() * kRecordBytes);
    if (h.str().size() > kMaxTreeHeader) {
        throw std::length_error(fmt::format(
            "proof tree: a header of {} bytes (its roots), more than the {} a tree is read with",
            h.str().size(), kMaxTreeHeader));
    }
    for (const TreeNode& n : nodes_) {
        put64(body, n.key.occ);
        put64(body, n.work);
        put32(body, n.proof_file);
        put32(body, n.tries);
        body.push_back(static_cast<char>(n.key.tag));
        body.push_back(static_cast<char>(n.state));
        body.push_back(static_cast<char>(n.expanded ? 1 : 0));
        body.push_back(static_cast<char>(n.move));
        put32(body, 0);
    }
    process::replace_file(path, {h.str(), body}, process::ReplaceOptions::with_trailer());
}

ProofTree ProofTree::load(const std::filesystem::path& path) {
    const std::string name = path.string();
    auto bad = [&](const std::string& why) { return std::runtime_error(name + ": " + why); };
    const std::string damaged = "the tree cannot be used; start again or use a copy";
    // The header first, then the file's size against it, then the body: a file of gigabytes
    // behind a valid first line is refused without reading it. A link is not followed (a work
    // directory's tree is its own file).
    process::ChecksummedFile file(path, kMaxTreeBytes, process::Links::Refuse);
    const std::string magic = std::string(kMagic) + "\n";
    std::string first(static_cast<std::size_t>(std::min<std::uint64_t>(file.size(), magic.size())),
                      '\0');
    file.read(0, first.size(), first.data());
    if (first != magic)
        throw bad("not a konane proof tree (no '" + std::string(kMagic) + "' line)");
    if (file.size() < magic.size() + 8) throw bad("truncated: " + damaged);
    // A file small enough is checksummed before anything else, so that a damaged byte is
    // reported as damage, not as the header field it happens to hit.
    if (file.size() <= kMaxTreeHeader && !file.checksum_matches())
        throw bad("damaged (checksum mismatch): " + damaged);
    const std::optional<std::string> header = file.header(kMaxTreeHeader);
    if (!header) {
        throw bad(fmt::format("damaged: no 'end' line in its first {} bytes (the header): {}",
                              std::min<std::uint64_t>(file.size(), kMaxTreeHeader), damaged));
    }
    std::istringstream h(header->substr(0, header->size() - 4));
    std::string line;
    std::getline(h, line);
    std::optional<Board> board;
    std::string opening, game, kind;
    std::vector<std::string> roots;
    std::uint64_t count = 0, files = 0, searched = 0;
    double seconds = 0;
    std::optional<LeafSearch> leaf_search;
    while (std::getline(h, line)) {
        const std::size_t sp = line.find(' ');
        if (sp == std::string::npos) throw bad("malformed header line '" + line + "'");
        const std::string field = line.substr(0, sp), value = line.substr(sp + 1);
        try {
            if (field == "board") {
                board = Board::parse(value);
            } else if (field == "opening") {
                opening = value;
            } else if (field == "game") {
                game = value;
            } else if (field == "kind") {
                kind = value;
            } else if (field == "root") {
                roots.push_back(value);
            } else if (field == "nodes") {
                count = std::stoull(value);
            } else if (field == "proof-files") {
                files = std::stoull(value);
            } else if (field == "searched") {
                searched = std::stoull(value);
            } else if (field == "seconds") {
                seconds = std::stod(value);
            } else if (field == "leaf-search") {
                // "df-pn|alpha-beta BUDGET [RETRIES]"
                std::istringstream words(value);
                std::string how, budget, retries, rest;
                words >> how >> budget >> retries >> rest;
                const auto number = [](const std::string& w) {
                    return !w.empty() && w.size() <= 18 &&
                           w.find_first_not_of("0123456789") == std::string::npos;
                };
                if ((how != "df-pn" && how != "alpha-beta") || !number(budget) ||
                    std::stoull(budget) == 0 || (!retries.empty() && !number(retries)) ||
                    !rest.empty()) {
                    throw bad("header line '" + line +
                              "': expected df-pn or alpha-beta, a budget and the retries");
                }
                leaf_search = LeafSearch{std::stoull(budget), how == "df-pn",
                                         retries.empty() ? 0 : std::stoi(retries.substr(0, 9))};
            } else {
                throw bad("unknown header field '" + field + "'");
            }
        } catch (const std::invalid_argument& e) {
            throw bad("header line '" + line + "': " + e.what());
        } catch (const std::out_of_range&) {
            throw bad("header line '" + line + "': number out of range");
        }
    }
    if (!board || opening.empty() || game.empty() || kind.empty() || roots.empty())
        throw bad("header lacks the board, opening, game, kind or a root");
    if (game != "jumps" && game != "jumps-only") throw bad("unknown game '" + game + "'");
    if (kind != "openings" && kind != "positions") throw bad("unknown kind '" + kind + "'");
    if (files > std::numeric_limits<std::uint32_t>::max()) throw bad("proof-files out of range");
    const std::uint64_t data = header->size(), body_bytes = file.size() - 8 - data;
    if (count > body_bytes / kRecordBytes || count * kRecordBytes != body_bytes)
        throw bad(fmt::format("damaged: {} nodes do not fill the {} bytes after the header: {}",
                              count, body_bytes, damaged));
    const auto [bytes, checksum_ok] = file.body(data);
    if (!checksum_ok) throw bad("damaged (checksum mismatch): " + damaged);
    Opening o;
    try {
        o = parse_opening_tag(*board, opening);
    } catch (const std::exception& e) {
        throw bad(std::string("opening: ") + e.what());
    }
    ProofTree t(ProofGame(*board, o, game == "jumps-only"),
                kind == "openings" ? CertificateKind::Openings : CertificateKind::Positions);
    t.proof_files_ = static_cast<std::uint32_t>(files);
    t.total_nodes_ = searched;
    t.leaf_search_ = leaf_search;
    t.total_seconds_ = seconds;
    t.nodes_.reserve(count);
    const std::uint64_t board_mask =
        board->squares() == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << board->squares()) - 1;
    for (std::uint64_t i = 0; i < count; ++i) {
        const char* r = bytes.data() + i * kRecordBytes;
        TreeNode n;
        n.key.occ = get64(r);
        n.work = get64(r + 8);
        n.proof_file = get32(r + 16);
        n.tries = get32(r + 20);
        n.key.tag = static_cast<std::uint8_t>(r[24]);
        const auto state = static_cast<std::uint8_t>(r[25]);
        const auto flags = static_cast<std::uint8_t>(r[26]);
        n.move = static_cast<std::uint8_t>(r[27]);
        if (n.key.tag > 3 || state > 2 || flags > 1 || (n.key.occ & ~board_mask) != 0 ||
            n.proof_file > files)
            throw bad(fmt::format("node {}: malformed record", i));
        n.state = static_cast<TreeState>(state);
        n.expanded = flags != 0;
        if (!t.index_.emplace(n.key, static_cast<std::uint32_t>(i)).second)
            throw bad(fmt::format("node {}: a position listed twice", i));
        t.nodes_.push_back(std::move(n));
    }
    // The links, from the rules: every child of an expanded node must be in the tree.
    for (std::uint32_t i = 0; i < t.nodes_.size(); ++i) {
        TreeNode& n = t.nodes_[i];
        const std::vector<MoveChild> moves = t.game_.moves(n.key);
        n.leaf_dn = std::max<std::uint64_t>(1, moves.size());
        if (n.state == TreeState::Won && n.proof_file == 0 &&
            (!n.expanded || n.move >= moves.size()))
            throw bad(fmt::format("node {}: won without a move or a proof file", i));
        if (!n.expanded) continue;
        for (const MoveChild& m : moves) {
            const auto it = t.index_.find(t.game_.key(m.child));
            if (it == t.index_.end())
                throw bad(fmt::format("node {}: a child is missing from the tree", i));
            n.children.push_back(it->second);
            t.nodes_[it->second].parents.push_back(i);
        }
    }
    for (TreeNode& n : t.nodes_) {
        std::sort(n.parents.begin(), n.parents.end());
        n.parents.erase(std::unique(n.parents.begin(), n.parents.end()), n.parents.end());
    }
    // Numbers from the leaves up: a child has fewer pieces than its parent.
    std::vector<std::uint32_t> order(t.nodes_.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        return std::popcount(t.nodes_[a].key.occ) < std::popcount(t.nodes_[b].key.occ);
    });
    for (const std::uint32_t i : order) {
        // A value the tree derived must follow from the children's (a damaged or forged file
        // would otherwise give a proof with a hole).
        const TreeNode& n = t.nodes_[i];
        if (n.proof_file == 0 && n.state != TreeState::Open) {
            bool ok = true;
            if (n.state == TreeState::Won) {
                ok = t.nodes_[n.children[n.move]].state == TreeState::Lost;
            } else {
                for (const std::uint32_t c : n.children)
                    ok = ok && t.nodes_[c].state == TreeState::Won;
                ok = ok && (n.expanded || t.game_.moves(n.key).empty());
            }
            if (!ok) throw bad(fmt::format("node {}: a value its children do not give", i));
        }
        t.recompute(i);
    }
    for (const std::string& text : roots) {
        Position p;
        try {
            p = parse_position(text, &*board).position;
        } catch (const std::exception& e) {
            throw bad("root '" + text + "': " + e.what());
        }
        const auto it = t.index_.find(t.game_.key(p));
        if (it == t.index_.end()) throw bad("root '" + text + "' is not in the tree");
        t.root_positions_.push_back(p);
        t.roots_.push_back(it->second);
    }
    return t;
}

}  // namespace konane
