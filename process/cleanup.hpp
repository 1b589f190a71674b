// Temporary files removed when the process is ended by a signal or by exit() (SIGINT, SIGTERM,
// SIGHUP and every other catchable signal whose default action ends the process), so that an
// interrupted generation leaves neither a table nor its temporary files behind; and the
// temporary files of a process that could not clean up (SIGKILL, a power cut), found by name.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace konane::process {

/// Registers a temporary file (or, with `directory`, an empty-at-the-end directory) to remove if
/// the process is interrupted. Returns a handle for unregister_temporary(), or -1 when the
/// fixed table of 256 entries is full or the path is longer than 4095 bytes (then the path is
/// simply not cleaned up on interruption). Thread-safe.
int register_temporary(const std::filesystem::path& path, bool directory = false);

/// Forgets a registration (the file was renamed or removed). Thread-safe; -1 is ignored.
void unregister_temporary(int handle);

/// Installs handlers for every catchable signal whose default action ends the process (SIGINT,
/// SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGPIPE, SIGXCPU,
/// SIGIO, SIGPWR, SIGSTKFLT) that remove every registered file, then every registered
/// directory, and re-raise the signal with its default action (so the exit status says which
/// signal ended the process); a signal ignored when the process started (nohup) stays ignored.
/// SIGXFSZ is ignored, so that a write past `ulimit -f` fails with EFBIG and is reported as an
/// I/O error. Registered files are also removed at exit() (a library that exits, such as the
/// OpenMP runtime when it cannot start a thread). Idempotent.
void install_interrupt_cleanup();

/// A line the interrupt handler writes to stderr (before it re-raises) when a signal ends the
/// process, e.g. how to resume the work; at most 1,023 bytes (longer is cut), "" for none.
/// Not shown for SIGPIPE (stderr may be the broken pipe). Thread-safe.
void set_interrupt_message(std::string_view message);

/// The temporary name "<name>.tmp.<suffix>" beside `final_path`, with <name> cut (at a UTF-8
/// character boundary) so that the whole name fits NAME_MAX (255 bytes).
std::filesystem::path temporary_path(const std::filesystem::path& final_path,
                                     const std::string& suffix);

/// Removes the temporary files of `final_path` ("<name>.tmp.<16 hex digits>", as AtomicFile
/// names them, atomic_file.hpp) that no live process holds: a writer holds an exclusive flock on
/// its temporary file, so those left are from a process that was killed (SIGKILL) or a power cut.
/// Returns the paths removed; never throws for a file it cannot remove (that one is left).
std::vector<std::filesystem::path> remove_stale_temporaries(
    const std::filesystem::path& final_path);

/// remove_stale_temporaries() for every file of directory `dir` ("*.tmp.<16 hex digits>"), for a
/// directory that holds only the process's own files (a work directory). Never removes through
/// a link: a link at `dir` itself is not followed (nothing is removed; resolve it first where
/// the caller was given it), nor one at a file's name.
std::vector<std::filesystem::path> remove_stale_temporaries_in(const std::filesystem::path& dir);

}  // namespace konane::process
