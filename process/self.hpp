// What this process holds (its resident memory, from /proc/self/status), the CPU time it has
// used, and the kill point the tests use to end it at a chosen step, as a power cut would.
#pragma once

#include <cstdint>

namespace konane::process {

/// Peak resident set size of this process in bytes since it started (VmHWM of
/// /proc/self/status; 0 if unknown).
std::uint64_t peak_rss_bytes();

/// Resident set size of this process in bytes now (VmRSS of /proc/self/status; 0 if unknown).
std::uint64_t resident_bytes();

/// Test hook: when the environment variable KONANE_KILL_AT is a number N, the N-th call of
/// kill_point() in this process ends it at once with SIGKILL (as a power cut or `kill -9`
/// would). Called after every file and manifest write of a generation.
void kill_point();

/// The machine's memory in bytes (MemTotal of /proc/meminfo), 0 when it cannot be read.
std::uint64_t machine_memory_bytes();

/// CPU seconds this process has used so far, all its threads together
/// (CLOCK_PROCESS_CPUTIME_ID).
double cpu_seconds();

}  // namespace konane::process
