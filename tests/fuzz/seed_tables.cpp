// fuzz_seed_tables DIR: writes the table fuzzer's seeds, real tables of the small boards under
// every ruleset (1 to 9 KB each), into DIR.
#include <cstdio>
#include <exception>

#include "tests/fuzz/tables.hpp"

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: fuzz_seed_tables DIR\n");
        return 2;
    }
    try {
        const std::filesystem::path dir = argv[1];
        std::filesystem::create_directories(dir);
        using konane::Board;
        using konane::Ruleset;
        const struct {
            int rows, cols;
            Ruleset rules;
        } tables[] = {{1, 4, Ruleset::Brainking}, {2, 3, Ruleset::Brainking},
                      {3, 3, Ruleset::Brainking}, {3, 3, Ruleset::Any},
                      {2, 4, Ruleset::Center},    {3, 4, Ruleset::Brainking},
                      {4, 4, Ruleset::Brainking}, {4, 4, Ruleset::Center}};
        for (const auto& t : tables)
            konane::fuzz::write_table(dir, Board::make(t.rows, t.cols), t.rules);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "fuzz_seed_tables: %s\n", e.what());
        return 1;
    }
    return 0;
}
