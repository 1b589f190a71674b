// What every long call of the Python module shares: the work on a worker thread without the
// GIL while the calling thread answers Ctrl-C (python/bind_*.cpp).
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <future>
#include <optional>
#include <thread>

namespace konane::python {

namespace py = pybind11;

/// Runs work(stop) without the GIL on a worker thread while the calling thread checks for
/// pending signals every 100 ms (konane.Engine, value(), solve()): on one (Ctrl-C) it sets
/// stop, waits for the worker, which is to return soon after, and raises the signal's Python
/// error (KeyboardInterrupt) whatever the worker ended with. Otherwise the worker's exception,
/// if any, is rethrown here (with the GIL held, for the exception translators).
template <class Work>
void run_stoppable(Work&& work) {
    std::atomic<bool> stop{false};
    std::exception_ptr failure;
    std::optional<py::error_already_set> signal;
    {
        py::gil_scoped_release release;
        std::promise<void> done;
        std::future<void> finished = done.get_future();
        std::thread worker([&] {
            try {
                work(static_cast<const std::atomic<bool>&>(stop));
            } catch (...) {
                failure = std::current_exception();
            }
            done.set_value();
        });
        while (finished.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready) {
            if (signal) continue;
            py::gil_scoped_acquire gil;
            if (PyErr_CheckSignals() != 0) {
                signal.emplace();
                stop = true;
            }
        }
        worker.join();
    }
    if (signal) {
        signal->restore();
        signal.reset();
        throw py::error_already_set();
    }
    if (failure) std::rethrow_exception(failure);
}

}  // namespace konane::python
