// Internal to konane_format: a table file read into the process's own anonymous memory, backed by
// 2 MiB transparent huge pages where the kernel gives them (Table::open with Load::memory), and
// what the machine's huge-page settings and free memory are (Load::automatic).
//
// Why: a table mapped from the page cache gets 4 KiB pages wherever the kernel does not map
// file folios with huge pages (FilePmdMapped stays 0: no large folios on the file system, or THP
// for files off). A probe of a position seen once then misses the TLB on its two reads
// (directory entries, block) and walks page tables that outgrow the caches on a multi-GB table,
// or takes a minor page fault on a page not mapped yet: 5.4-5.8 us p99 for a value on 6x6
// (issue 26). Anonymous memory advised with MADV_HUGEPAGE gets 2 MiB pages under THP "always"
// and "madvise" alike, and reading the file into it leaves no page to fault in.
#pragma once

#include <cstdint>
#include <string>

namespace konane::format::detail {

/// Anonymous memory holding a copy of a file: `size` bytes at `base` (2 MiB aligned), of a
/// mapping of `mapped` bytes (size rounded up to 2 MiB), read-only once loaded.
struct LoadedFile {
    const std::uint8_t* base = nullptr;
    std::uint64_t size = 0;
    std::uint64_t mapped = 0;
};

/// Reads bytes [0, size) of the open file `fd` into fresh anonymous memory, advised to huge
/// pages (madvise MADV_HUGEPAGE) before it is first written and made read-only (mprotect)
/// after. `name` prefixes the messages.
/// @throws IoError "<name>: load: cannot map N bytes of memory: <strerror>" when the memory
///         cannot be had, "<name>: load: read: <strerror>" on a read error, and FormatError
///         "<name>: file: changed while loading ..." when the file ends before `size` bytes
void load_file(int fd, std::uint64_t size, const std::string& name, LoadedFile& out);

/// Unmaps what load_file() mapped. Never throws; an empty LoadedFile is ignored.
void unload_file(LoadedFile& f);

/// Bytes of [addr, addr + len) backed by transparent huge pages: the AnonHugePages of the
/// mapping of /proc/self/smaps that starts at addr (the one load_file() made), or -1 when it
/// cannot be read (no /proc, no such mapping).
std::int64_t anon_huge_bytes(const void* addr);

/// The selected mode of /sys/kernel/mm/transparent_hugepage/FILE (FILE "enabled" for anonymous
/// memory, "shmem_enabled" for shared memory): the word in brackets, e.g. "madvise", or ""
/// when the file cannot be read (no THP support).
std::string thp_mode(const char* file);

/// A field of /proc/meminfo in bytes (e.g. "MemAvailable", "FilePmdMapped"), or -1 when absent.
std::int64_t meminfo_bytes(const char* field);

}  // namespace konane::format::detail
