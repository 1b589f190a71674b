// konane.generate(): a table made and written (solver/solve.hpp), with a progress callback, and
// stopped by Ctrl-C or by an exception the callback raises.
#include <pybind11/pybind11.h>

#include <omp.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <typeinfo>
#include <utility>

#include "core/board.hpp"
#include "core/gap.hpp"
#include "format/table.hpp"
#include "python/module.hpp"
#include "solver/keyfile.hpp"
#include "solver/solve.hpp"

using namespace pybind11::literals;

namespace konane::python {

namespace {

/// The progress function given to generate(): calls the Python callback (if any) under the GIL,
/// from whichever thread reports, and checks for pending signals on the calling thread. A
/// Python error is kept, and raised by throwing Interrupted at the next report made on the
/// calling thread outside any parallel region, active or not (omp_get_level() == 0: an
/// exception must not cross an OpenMP region, even one that runs on one thread).
///
/// While the callback runs, its thread is marked (in_progress_callback): generate() called from
/// there is refused, since the generation that called back cannot go on until it returns.
thread_local bool in_progress_callback = false;

struct ProgressBridge {
    py::object callback;  // None or a callable (phase, pieces, done, total)
    std::thread::id caller = std::this_thread::get_id();
    std::optional<py::error_already_set> error;  // guarded by the GIL

    void operator()(const char* phase, int pieces, std::uint64_t done, std::uint64_t total) {
        const bool can_throw = std::this_thread::get_id() == caller && omp_get_level() == 0;
        {
            py::gil_scoped_acquire gil;
            if (!error) {
                try {
                    if (!callback.is_none()) {
                        in_progress_callback = true;
                        try {
                            callback(phase, pieces, done, total);
                        } catch (...) {
                            in_progress_callback = false;
                            throw;
                        }
                        in_progress_callback = false;
                    }
                    if (can_throw && PyErr_CheckSignals() != 0) throw py::error_already_set();
                } catch (py::error_already_set& e) {
                    error = std::move(e);
                }
            }
        }
        if (error && can_throw) throw Interrupted();
    }
};

py::object generate(const BoardArg& board, const std::string& rules, int threads,
                    const std::optional<std::filesystem::path>& output, const py::object& progress,
                    const std::optional<std::string>& gap) {
    if (in_progress_callback) {
        throw std::runtime_error(
            "generate() called from a progress callback of another generate(): refused (that "
            "generation waits for the callback to return); start the next one after it");
    }
    if (!progress.is_none() && !PyCallable_Check(progress.ptr())) {
        throw py::type_error("progress: expected a callable (phase, pieces, done, total) or None");
    }
    konane::solver::GenerateOptions o;
    o.board = board_arg(board);
    o.rules = konane::parse_ruleset(rules);
    if (gap) {
        // A gap replaces the removals; a ruleset other than the default must allow it.
        o.gap = konane::parse_gap(o.board, *gap);
        if (rules != "brainking") {
            if (const auto why = konane::gap_rules_conflict(o.board, *o.gap, o.rules); !why.empty())
                throw py::value_error(why);
        }
    }
    if (threads < 0 || threads > 1024) {
        throw py::value_error("threads: expected 0 (every core) to 1024, got " +
                              std::to_string(threads));
    }
    o.threads = threads;
    o.output = output ? *output
                      : std::filesystem::path(konane::solver::default_table_name(
                            o.board, konane::solver::opening_of(o)));
    if (o.output.empty()) throw py::value_error("output: expected a file name, got ''");
    // Shared with the progress function, which generate() copies.
    auto bridge = std::make_shared<ProgressBridge>();
    bridge->callback = progress;
    o.progress = [bridge](const char* phase, int pieces, std::uint64_t done, std::uint64_t total) {
        (*bridge)(phase, pieces, done, total);
    };
    konane::solver::GenerateReport rep;
    try {
        py::gil_scoped_release release;
        rep = konane::solver::generate(o);
    } catch (const Interrupted&) {
        bridge->error->restore();
        throw py::error_already_set();
    } catch (const konane::solver::KeyFileError& e) {
        throw konane::format::IoError(e.what());  // a work file that cannot be written or read
    } catch (const std::runtime_error& e) {
        // The solver's plain runtime_errors name a work directory or file that failed (removed
        // during the run, say): file-system failures, IoError as the documentation says.
        if (typeid(e) != typeid(std::runtime_error)) throw;
        throw konane::format::IoError(e.what());
    }
    if (bridge->error) {  // raised in a worker thread's report, after the last check
        bridge->error->restore();
        throw py::error_already_set();
    }
    py::list layers;
    for (const auto& l : rep.layers) {
        layers.append(g_types.layer_report(l.pieces, l.classes, l.raw, l.max_depth));
    }
    // rules: the ruleset's name, or the gap's tag ("gap-c3-c4") as the table's header has it.
    return g_types.generate_report(fs_str(o.output.string()), o.board.name(),
                                   konane::opening_tag(o.board, konane::solver::opening_of(o)),
                                   rep.classes, rep.raw, layers, rep.total_seconds,
                                   rep.peak_rss_bytes, rep.file_bytes, rep.threads);
}

}  // namespace

void bind_generate(py::module_& m) {
    m.def("generate", &generate, "board"_a, py::kw_only(), "rules"_a = "brainking", "threads"_a = 0,
          "output"_a = py::none(), "progress"_a = py::none(), "gap"_a = py::none(),
          R"(Enumerates every position reachable after the removals of a board and ruleset, solves
them all by retrograde analysis and writes the table file; returns a GenerateReport.

board: 'RxC' or (rows, cols), at most 36 squares. rules: 'brainking', 'center' or 'any'.
gap: None, or two adjacent squares such as 'c3,c4': the table then holds the positions reachable
from that gap alone (Black to move; default output 'konane-RxC-gap-c3-c4.kbt'; the report's
rules is then 'gap-c3-c4'); a rules other than the default must allow the gap.
threads: 0 for every core. output: the file to write (default 'konane-RxC-RULES.kbt' in the
current directory); written under a temporary name and renamed when complete, so a failure or
an interruption leaves no file under that name; the finished steps stay in OUTPUT.work, and
calling generate() again with the same output resumes from them (the directory is removed
once the table is complete). progress: None or a callable
progress(phase, pieces, done, total) called from time to time (phase 'enumerate', 'hash',
'solve' or 'write'; pieces the layer's piece count; done and total positions, total 0 when unknown),
possibly from a worker thread. An exception raised by progress, or Ctrl-C, stops the
generation at the next layer and is raised. Same board and ruleset give the same file for any
thread count. Runs without the GIL. Raises ValueError for a board that is too large or bad
arguments, FormatError / IoError when the file cannot be written.)");
}

}  // namespace konane::python
