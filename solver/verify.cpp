#include "solver/verify.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <memory>

#include "core/notation.hpp"
#include "core/symmetry.hpp"
#include "index/mphf.hpp"
#include "process/huge_pages.hpp"
#include "process/temp_dir.hpp"
#include "solver/keyfile.hpp"
#include "solver/retrograde.hpp"
#include "solver/solve.hpp"
#include "solver/workdir.hpp"
#include "table/header.hpp"

namespace konane::solver {

namespace {
void note(VerifyResult& r, const std::string& what) {
    r.ok = false;
    if (r.problems.size() < 20) r.problems.push_back(what);
}
}  // namespace

VerifyResult verify_table(const format::Table& table, const VerifyOptions& o) {
    VerifyResult r;
    const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
    const ProgressFn& progress = o.progress;
    const std::string file = table.path().string();
    // Cheap checks first: the header's board and ruleset against the stored layers (a header
    // edited to name a larger board must not start enumerating it).
    Board b;
    Opening rules;  // the header's ruleset, or the gap it was built from
    try {
        TableGame g = decode_header(table.meta(), file);
        b = g.board;
        rules = g.opening;
    } catch (const format::FormatError& e) {
        note(r, e.what());
        return r;
    }
    try {
        if (const std::string why = table_shape_problem(table, b, rules); !why.empty()) {
            ++r.layer_count_mismatches;
            note(r, why);
            return r;
        }
    } catch (const format::FormatError& e) {
        note(r, e.what());
        return r;
    }
    const auto sums = table.verify_checksums(threads);
    r.blocks_checked = sums.blocks_checked;
    for (const auto& p : sums.problems)
        note(r, p);
    if (!sums.ok) return r;  // the data cannot be trusted further
    std::filesystem::path work = o.work_dir;
    std::unique_ptr<process::TempDir> tmp;
    if (work.empty()) {
        // Beside the table where it can be written (room in proportion), else a temporary one.
        const auto dir = table.path().has_parent_path() ? table.path().parent_path()
                                                        : std::filesystem::path(".");
        if (::access(dir.c_str(), W_OK) == 0) {
            work = table.path();
            work += ".verify-work";
        } else {
            tmp = std::make_unique<process::TempDir>("konane-verify");
            work = tmp->path() / "work";
        }
    }
    WorkDir wd(work, b, rules);
    struct RemoveAtEnd {
        WorkDir& wd;
        ~RemoveAtEnd() { wd.remove_all(); }
    } remove_at_end{wd};
    EnumerateOptions eo;
    eo.threads = threads;
    eo.memory_bytes = o.memory_bytes ? o.memory_bytes : default_memory_budget();
    eo.progress = progress;
    // Each layer's counts are compared as soon as it is enumerated: a table that is not what
    // its header says stops verify after the first layer that differs.
    const auto& stored = table.layers();
    struct Differs {
        std::string what;
    };
    auto compare = [&](int pieces, std::uint64_t classes, std::uint64_t raw) {
        const int li = table.layer_index(static_cast<std::uint32_t>(pieces));
        const std::uint64_t got_classes = li < 0 ? 0 : stored[li].classes;
        const std::uint64_t got_raw = li < 0 ? 0 : stored[li].raw;
        if (got_classes != classes || got_raw != raw)
            throw Differs{file + ": layer " + std::to_string(pieces) + ": stored " +
                          std::to_string(got_classes) + " classes / " + std::to_string(got_raw) +
                          " raw, re-enumeration gives " + std::to_string(classes) + " / " +
                          std::to_string(raw)};
    };
    eo.layer_done = compare;
    try {
        for (int n = b.squares() - 2; n >= 0 && n >= wd.lowest_enumerated(); --n)
            compare(n, wd.layer(n).classes, wd.layer(n).raw);  // resumed: recorded before
        enumerate_to(wd, b, rules, eo);
    } catch (const Differs& d) {
        ++r.layer_count_mismatches;
        note(r, d.what);
        return r;
    }
    const std::vector<int> order = wd.layers_with_positions();  // ascending, as stored
    if (order.size() != stored.size()) {
        note(r, file + ": layer table: " + std::to_string(stored.size()) + " layers stored, " +
                    std::to_string(order.size()) + " reachable");
        ++r.layer_count_mismatches;
        return r;
    }
    const int most_captured = max_capture(b);

    // Holds each layer's hash and values as a SolvedLayer so SolvedLookup can read children.
    SolvedLookup lookup(b);
    std::vector<std::unique_ptr<SolvedLayer>> solved;
    for (std::size_t li = 0; li < order.size(); ++li) {
        EnumeratedLayer el;
        el.pieces = order[li];
        el.raw = wd.layer(el.pieces).raw;
        el.keys = read_key_file(wd.layer_keys(el.pieces));
        const auto& info = stored[li];
        const std::string where = file + ": layer " + std::to_string(info.pieces);
        if (static_cast<int>(info.pieces) != el.pieces || info.classes != el.keys.size() ||
            info.raw != el.raw) {
            ++r.layer_count_mismatches;
            note(r, where + ": stored " + std::to_string(info.classes) + " classes / " +
                        std::to_string(info.raw) + " raw with " + std::to_string(info.pieces) +
                        " pieces, re-enumeration gives " + std::to_string(el.keys.size()) + " / " +
                        std::to_string(el.raw) + " with " + std::to_string(el.pieces));
            return r;
        }
        auto layer = std::make_unique<SolvedLayer>();
        layer->pieces = el.pieces;
        // The stored positions must be exactly the enumerated ones (exact membership).
        std::vector<Depth> by_rank;
        try {
            std::vector<std::uint64_t> keys;
            table.read_keys(li, keys);
            if (keys != el.keys) {
                ++r.key_mismatches;
                note(r, where + ": the stored positions differ from the enumerated ones");
                return r;
            }
            table.read_values(li, by_rank);
        } catch (const std::exception& e) {
            // A reader error already names the file and the layer.
            const std::string what = e.what();
            note(r, what.rfind(file + ": ", 0) == 0 ? what : where + ": " + what);
            return r;
        }
        // Depths by slot of a perfect hash built here, for the children's look-ups.
        layer->mphf = Mphf::build(el.keys, threads, Mphf::kDefaultSeed, kFastBuild);
        const MphfView view = layer->mphf.view();
        process::assign_huge(layer->depth, el.keys.size());
        const auto n = static_cast<std::int64_t>(el.keys.size());
        scatter_by_slot(view, el.keys, by_rank, layer->depth.data(), threads);

        // Retrograde consistency: recompute each depth from the children's stored depths.
        std::atomic<std::uint64_t> wrong{0};
        std::atomic<std::int64_t> first_wrong{-1};
        recompute_layer(
            b, lookup, el.keys, el.pieces, threads, "verify", progress, [](std::int64_t) {},
            [&](std::int64_t i, int d) {
                if (d == by_rank[i]) return;
                wrong.fetch_add(1, std::memory_order_relaxed);
                std::int64_t f = first_wrong.load(std::memory_order_relaxed);
                while ((f < 0 || i < f) && !first_wrong.compare_exchange_weak(f, i)) {
                }
            });
        by_rank = {};
        r.positions_checked += static_cast<std::uint64_t>(n);
        r.wrong_values += wrong.load();
        if (wrong) {
            note(r, where + ": " + std::to_string(wrong.load()) +
                        " stored depths differ from the depths recomputed from their children");
        }
        if (progress) progress("verify", el.pieces, el.keys.size(), el.keys.size());
        if (wrong) {
            r.problems.push_back(where + ": first wrong position " +
                                 format_position(b, position_of_key(el.keys[first_wrong.load()])));
        }
        lookup.add(el.pieces, view, layer->depth.data());
        solved.push_back(std::move(layer));
        drop_unreachable_layers(lookup, solved, el.pieces, most_captured);
    }
    return r;
}

}  // namespace konane::solver
