#include "solver/pipeline.hpp"

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>

#include "format/table.hpp"

namespace konane::solver {

namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}
}  // namespace

PipelineOptions pipeline_options(const GenerateOptions& o, int threads, bool writes) {
    PipelineOptions po;
    po.board = o.board;
    po.opening = opening_of(o);
    po.output = o.output;
    po.writes = writes;
    po.threads = threads;
    po.run_progress = o.run_progress;
    return po;
}

PipelineReport run_pipeline(LayerStore& store, const PipelineOptions& o) {
    PipelineReport rep;
    // 1. Enumerate.
    const std::vector<LayerCount> layers = store.enumerate();
    if (!o.output.empty() && layers.empty()) {
        throw std::invalid_argument(std::string("no position is reachable after the removals on ") +
                                    o.board.name() + " " + opening_text(o.board, o.opening) +
                                    ": there is no table to write");
    }
    store.prepare_solve(layers);

    std::unique_ptr<format::TableWriter> writer;
    if (o.writes && !o.output.empty()) {
        writer = std::make_unique<format::TableWriter>(o.output, table_meta(o.board, o.opening),
                                                       o.threads);
    }
    std::uint64_t total = 0;
    for (const LayerCount& l : layers)
        total += l.classes;
    if (o.run_progress) o.run_progress(0, total);
    // 2-5. Per layer from the fewest pieces: hash and solve, encode and write.
    for (const LayerCount& l : layers) {
        LayerReport lr;
        lr.pieces = l.pieces;
        lr.classes = l.classes;
        lr.raw = l.raw;
        lr.enumerate_seconds = l.enumerate_seconds;
        store.solve(l, lr);
        const auto t = Clock::now();
        store.write(l, writer.get());
        rep.write_seconds += since(t);
        store.done(l);
        rep.hash_seconds += lr.hash_seconds;
        rep.solve_seconds += lr.solve_seconds;
        rep.classes += l.classes;
        rep.raw += l.raw;
        rep.layers.push_back(lr);
        if (o.run_progress) o.run_progress(rep.classes, total);
    }
    if (writer) {
        const auto t = Clock::now();
        writer->commit();
        rep.write_seconds += since(t);
        rep.file_bytes = std::filesystem::file_size(o.output);
    }
    return rep;
}

}  // namespace konane::solver
