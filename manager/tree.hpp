// The proof tree of the proof manager (manager.hpp; docs/beyond.md "The proof manager"): the
// positions near the roots of a proof too long for one run, each open, won or lost for its side
// to move, with proof and disproof numbers that choose the leaf to search next. Its leaves are
// solved by workers with a node budget; a leaf they cannot decide is expanded into its children,
// so the tree grows where the proof is hard (PN², Allis 1994; the front end of the checkers proof,
// Schaeffer et al. 2007). The tree is a DAG: a position reached by several lines is one node.
// It is saved to one checksummed file, small enough to move to another machine.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "cert/certificate.hpp"
#include "cert/proof_key.hpp"
#include "core/board.hpp"
#include "core/gap.hpp"

namespace konane {

/// The value of a tree node for its side to move.
enum class TreeState : std::uint8_t { Open = 0, Won = 1, Lost = 2 };

/// A position of the proof tree.
struct TreeNode {
    ProofKey key;  ///< as in certificates (ProofGame::key)
    TreeState state = TreeState::Open;
    /// Its children are nodes of the tree (in ProofGame::moves order).
    bool expanded = false;
    /// Won by the tree: the index (ProofGame::moves) of a move to a child that is lost.
    std::uint8_t move = 0;
    /// Decided by a worker: the number of the proof file (proofs/N.proof of the work directory)
    /// that proves it; 0 when the tree decided it from its children, or it has no move.
    std::uint32_t proof_file = 0;
    std::uint32_t tries = 0;  ///< worker searches that left it undecided (the last: expanded)
    std::uint64_t work = 0;   ///< nodes the workers spent on it
    // Not saved: rebuilt from the keys on load.
    std::uint64_t pn = 1, dn = 1;  ///< proof and disproof numbers for the side to move
    std::uint64_t leaf_dn = 1;     ///< dn of the open leaf: its number of moves (df-pn+ style)
    bool busy = false;             ///< a worker is searching it
    std::vector<std::uint32_t> children, parents;
};

/// Sizes of a proof tree, for the progress line and the report.
struct TreeStats {
    std::uint64_t nodes = 0;        ///< positions in the tree
    std::uint64_t open_leaves = 0;  ///< open, not expanded: what the workers may take
    std::uint64_t expanded = 0;
    std::uint64_t won = 0, lost = 0;
    std::uint64_t busy = 0;  ///< leaves with a worker now
};

/// What a worker found about a leaf it could not decide: per move of ProofGame::moves(leaf), the
/// child's value for its side to move where known (its transposition table held it), and the
/// proof file proving those values (0: none).
struct LeafChildren {
    std::vector<std::optional<bool>> values;
    std::uint32_t proof_file = 0;
};

/// How a tree's leaves were searched (saved with the tree, so that a resumed run goes on as the
/// last one did unless told otherwise).
struct LeafSearch {
    std::uint64_t leaf_nodes = 0;  ///< node budget of one leaf's search
    bool dfpn = false;             ///< df-pn, else the enhanced alpha-beta
    int retries = 0;               ///< ManagerOptions::leaf_retries
};

/// A proof tree. Not thread-safe: the manager holds a lock around it.
class ProofTree {
  public:
    /// A tree of one node per root (roots may share a node: symmetric start positions).
    /// `kind` says what the certificate will prove (Openings: the roots are
    /// start_positions(board, opening) in order). Throws std::invalid_argument for no root or
    /// more than 2^32 - 1 roots.
    ProofTree(const Board& b, const Opening& o, bool jumps_only, CertificateKind kind,
              std::vector<Position> roots);

    /// Reads a tree written by save(). Throws std::runtime_error naming the file for a file that
    /// is not a proof tree, damaged (checksum), truncated, or inconsistent (a child missing, a
    /// value the children do not give).
    static ProofTree load(const std::filesystem::path& path);
    /// Writes the tree to `path` through a temporary file renamed when complete: a text header
    /// (the roots as positions), 32 bytes a node (docs/beyond.md "The proof manager"), an XXH64
    /// of every byte before it.
    void save(const std::filesystem::path& path) const;

    /// Opens again every node decided by a proof file for which `missing(file)` is true, and
    /// every value the tree derived from them; returns how many nodes it opened.
    std::uint64_t forget_proofs(const std::function<bool(std::uint32_t)>& missing);

    const ProofGame& game() const { return game_; }
    CertificateKind kind() const { return kind_; }
    const std::vector<Position>& root_positions() const { return root_positions_; }
    /// The value of root r for the side to move in its position (nullopt: open).
    std::optional<bool> root_value(std::size_t r) const;
    std::size_t root_count() const { return roots_.size(); }
    /// The node of root r.
    std::uint32_t root_node(std::size_t r) const { return roots_.at(r); }
    /// Whether every root is decided.
    bool done() const;
    std::size_t size() const { return nodes_.size(); }
    const TreeNode& node(std::uint32_t i) const { return nodes_[i]; }
    TreeStats stats() const;

    /// The leaf a worker should search next, marked busy: the most-proving leaf (the child of
    /// least disproof number at every step) below the open root nearest to a verdict, skipping
    /// busy leaves. nullopt when no open leaf is free (every one busy, or every root decided).
    std::optional<std::uint32_t> select();
    /// Leaf i decided by a worker (win: for its side to move), proven by proof file `file`.
    void decided(std::uint32_t i, bool win, std::uint32_t file, std::uint64_t work);
    /// Leaf i left undecided after `work` nodes: expanded into its children, those whose values
    /// the worker knows decided (proven by c.proof_file).
    void expand(std::uint32_t i, const LeafChildren& c, std::uint64_t work);
    /// Leaf i left undecided after `work` nodes, kept as a leaf to be searched again with a
    /// larger budget (ManagerOptions::leaf_retries): its tries counted, not expanded.
    void retry(std::uint32_t i, std::uint64_t work);
    /// Leaf i given back undecided (the run stops), after `work` nodes of a search that was
    /// stopped (counted in its work and the tree's total; 0: not searched).
    void release(std::uint32_t i, std::uint64_t work = 0);

    /// A new proof file number (1, 2, ...; saved with the tree).
    std::uint32_t next_proof_file() { return ++proof_files_; }
    /// The leaf search of the tree's last run; none for a tree never run (or saved before the
    /// header had it).
    const std::optional<LeafSearch>& leaf_search() const { return leaf_search_; }
    void set_leaf_search(const LeafSearch& s) { leaf_search_ = s; }
    /// Nodes searched and seconds of the workers' searches, over every run of this tree.
    std::uint64_t total_nodes() const { return total_nodes_; }
    double total_seconds() const { return total_seconds_; }
    void add_seconds(double s) { total_seconds_ += s; }

    /// The proof of the decided roots: the moves of the nodes the tree won (one entry per won
    /// node on the proof), and the proof files of the nodes workers decided on it. Throws
    /// std::logic_error when a root is open.
    struct Proof {
        std::vector<ProofEntry> entries;   ///< sorted by key, distinct
        std::vector<std::uint32_t> files;  ///< sorted, distinct
    };
    Proof proof() const;

  private:
    ProofTree(ProofGame game, CertificateKind kind);
    std::uint32_t add_node(const ProofKey& k);
    /// Recomputes the numbers of i and of every ancestor whose numbers change.
    void update(std::uint32_t i);
    bool recompute(std::uint32_t i);
    std::optional<std::uint32_t> descend(std::uint32_t i, std::vector<std::uint8_t>& full);
    void link_children(std::uint32_t i);

    ProofGame game_;
    CertificateKind kind_;
    std::vector<Position> root_positions_;
    std::vector<std::uint32_t> roots_;
    std::vector<TreeNode> nodes_;
    struct KeyHash {
        std::size_t operator()(const ProofKey& k) const {
            return static_cast<std::size_t>(
                (k.occ ^ (std::uint64_t{k.tag} << 62)) * 0x9E3779B97F4A7C15ULL >> 7);
        }
    };
    std::unordered_map<ProofKey, std::uint32_t, KeyHash> index_;  ///< key -> node
    std::uint32_t proof_files_ = 0;
    std::optional<LeafSearch> leaf_search_;
    std::uint64_t total_nodes_ = 0;
    double total_seconds_ = 0;
};

}  // namespace konane
