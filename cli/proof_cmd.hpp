// `konane solve --wdl` and `konane openings --search`: win/loss by proof search
// (probe/proof.hpp), and the one description of which game a position is played as.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/board.hpp"
#include "probe/search.hpp"

namespace konane::cli {

/// The arguments of `konane solve`: by memoised search (cli/cmd_probe.cpp), or win/loss only
/// by proof search with --wdl (run_solve_wdl).
struct SolveArgs {
    std::string position;
    std::string board;
    std::string table;
    std::string load;  ///< --load of the --table (add_load_option()); empty: auto
    std::string rules = "brainking";
    bool rules_given = false;
    bool both = false;
    bool jumps_only = false;
    bool json = false;
    bool quiet = false;
    std::size_t max_positions = 50'000'000;
    std::string memory;  ///< the search's memory budget; with --wdl the transposition table's
                         ///< size (default kDefaultProofMemory)
    bool wdl = false;    ///< --wdl: win/loss by proof search (cli/cmd_proof.cpp)
    bool plain = false;
    bool dfpn = false;  ///< --dfpn: proof-number search (with --wdl)
    std::uint64_t max_nodes = 0;
    std::string gap;                 ///< --gap SQ,SQ: solve that gap's start position
    std::string certificate;         ///< --certificate FILE: write the proof (with --wdl)
    std::string work;                ///< --work DIR: checkpoints of a long search (with --wdl)
    std::uint64_t checkpoint = 300;  ///< --checkpoint SECONDS between checkpoints
    int threads = 1;                 ///< -j: threads of the proof search
};

/// `konane solve POSITION --wdl`.
int run_solve_wdl(const SolveArgs& a);

/// The same in words, for the `game:` line: e.g. "jumps (no opening of ruleset brainking leaves
/// this position, so it is played by jumps)".
std::string game_description(const Board& b, Ruleset r, bool jumps_only, Position p);

}  // namespace konane::cli
