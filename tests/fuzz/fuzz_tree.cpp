// libFuzzer target: the proof manager's tree reader (manager/tree.hpp ProofTree::load) on any
// bytes as a work directory's `tree` file. Each input is read twice: as it is, and "sealed",
// with its trailing XXH64 recomputed so that mutations reach the header parser and the body
// behind the checksum. Whatever loads is saved and loaded again, and must give the same
// positions. Properties: loading either succeeds or throws std::runtime_error naming the file;
// any other exception, a crash, a hang or a sanitizer report is a finding.
#include <unistd.h>

#include <xxhash.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "manager/tree.hpp"

using namespace konane;

namespace {

/// A file of this process's own in the temporary folder, removed at exit.
struct Scratch {
    std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("konane-fuzz-tree-" + std::to_string(::getpid()));
    ~Scratch() {
        std::error_code ec;
        std::filesystem::remove(path, ec);
        std::filesystem::remove(path.string() + ".again", ec);
    }
};

void load(const Scratch& s, const std::string& bytes) {
    {
        std::ofstream out(s.path, std::ios::binary | std::ios::trunc);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
    std::optional<ProofTree> tree;
    try {
        tree.emplace(ProofTree::load(s.path));
    } catch (const std::runtime_error&) {
        return;
    }
    // What loads is a tree: written and read back, it has the same positions.
    const std::filesystem::path again = s.path.string() + ".again";
    tree->save(again);
    const ProofTree back = ProofTree::load(again);
    if (back.size() != tree->size()) {
        std::fprintf(stderr, "fuzz check: %zu positions saved, %zu read back\n", tree->size(),
                     back.size());
        std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const Scratch scratch;
    std::string bytes(reinterpret_cast<const char*>(data), size);
    load(scratch, bytes);
    if (size >= 8) {
        const std::uint64_t sum = XXH64(bytes.data(), size - 8, 0);
        for (int i = 0; i < 8; ++i)
            bytes[size - 8 + i] = static_cast<char>(sum >> (8 * i));
        load(scratch, bytes);
    }
    return 0;
}
