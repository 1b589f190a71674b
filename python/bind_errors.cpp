// The exceptions of the package konane (NotStored, FormatError, IoError, SearchLimit,
// ResourceError) and the translation of the C++ library's exceptions into them, and into
// ValueError, each with its message.
#include <pybind11/pybind11.h>

#include <exception>
#include <filesystem>
#include <stdexcept>

#include "format/table.hpp"
#include "probe/probe.hpp"
#include "process/resource_error.hpp"
#include "python/module.hpp"
#include "search/search.hpp"

namespace konane::python {

namespace {

/// konane.IoError (a FormatError and an OSError), created at import and never released.
PyObject* g_io_error = nullptr;

/// Sets the Python error `type` with `message` decoded by fs_str() (never an empty message
/// because of bytes that are not UTF-8).
void set_error(PyObject* type, const char* message) {
    PyObject* text = PyUnicode_DecodeFSDefault(message);
    if (text == nullptr) {
        PyErr_Clear();
        PyErr_SetString(type, "(message not decodable)");
        return;
    }
    PyErr_SetObject(type, text);
    Py_DECREF(text);
}

}  // namespace

void bind_errors(py::module_& m) {
    // Exceptions. pybind11 tries translators in reverse order of registration: the derived
    // IoError is registered after FormatError so that it is matched first.
    auto& not_stored = py::register_exception<konane::NotStored>(m, "NotStored", PyExc_LookupError);
    not_stored.attr("__doc__") =
        "The table does not hold the position (not reachable under the table's ruleset). A "
        "LookupError; the message names the position and the file.";
    auto& format_error =
        py::register_exception<konane::format::FormatError>(m, "FormatError", PyExc_Exception);
    format_error.attr("__doc__") =
        "A missing, damaged or foreign table file, or a table not matching what was asked; the "
        "message reads '<file>: <section>: <what is wrong>'.";
    const py::tuple io_bases = py::make_tuple(format_error, py::handle(PyExc_OSError));
    // Kept for the life of the process, as pybind11 keeps its registered exception types.
    g_io_error = PyErr_NewExceptionWithDoc(
        "konane.IoError",
        "A file-system failure while writing a table (no space, no permission, a missing "
        "directory): an OSError as well as a FormatError.",
        io_bases.ptr(), nullptr);
    if (g_io_error == nullptr) throw py::error_already_set();
    m.attr("IoError") = py::handle(g_io_error);
    auto& search_limit =
        py::register_exception<konane::SearchLimit>(m, "SearchLimit", PyExc_RuntimeError);
    search_limit.attr("__doc__") =
        "A search would keep more positions than its max_positions allows, or a proof search "
        "(wdl=True) did not decide within max_nodes (a RuntimeError).";
    auto& resource_error =
        py::register_exception<konane::ResourceError>(m, "ResourceError", PyExc_RuntimeError);
    resource_error.attr("__doc__") =
        "A run that lacks memory or disk: a memory budget that cannot hold it, or a file system "
        "without the free space it needs (a RuntimeError); the message says how much is needed.";
    // Registered last, so tried first: every error of the library with its message decoded as
    // file names are (a message naming a file that is not UTF-8 keeps its text), IoError before
    // the FormatError it derives from, and a file-system error (a work directory removed during
    // generate(), say) as IoError.
    static PyObject* const not_stored_type = not_stored.ptr();
    static PyObject* const format_error_type = format_error.ptr();
    static PyObject* const search_limit_type = search_limit.ptr();
    static PyObject* const resource_error_type = resource_error.ptr();
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const konane::format::IoError& e) {
            set_error(g_io_error, e.what());
        } catch (const konane::format::FormatError& e) {
            set_error(format_error_type, e.what());
        } catch (const std::filesystem::filesystem_error& e) {
            set_error(g_io_error, e.what());
        } catch (const konane::NotStored& e) {
            set_error(not_stored_type, e.what());
        } catch (const konane::SearchLimit& e) {
            set_error(search_limit_type, e.what());
        } catch (const konane::ResourceError& e) {
            set_error(resource_error_type, e.what());
        } catch (const py::value_error& e) {
            set_error(PyExc_ValueError, e.what());
        } catch (const std::invalid_argument& e) {
            set_error(PyExc_ValueError, e.what());
        }
    });
}

}  // namespace konane::python
