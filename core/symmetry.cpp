#include "core/symmetry.hpp"

#include <algorithm>
#include <array>

namespace konane {

SymmetryGroup::SymmetryGroup(const Board& b) : board_(b) {
    const int R = b.rows, C = b.cols, n = b.squares();
    const bool square = R == C;
    size_ = square ? 8 : 4;
    bytes_ = (n + 7) / 8;
    perm_.assign(static_cast<std::size_t>(size_) * 64, 0);
    // Coordinates: f = file 0..C-1, y = rank - 1 = 0..R-1. Each map returns (f', y').
    auto map = [&](int g, int f, int y) -> std::pair<int, int> {
        switch (g) {
            case 0:
                return {f, y};  // identity
            case 1:
                return {C - 1 - f, R - 1 - y};  // 180-degree rotation
            case 2:
                return {C - 1 - f, y};  // left-right mirror
            case 3:
                return {f, R - 1 - y};  // top-bottom mirror
            case 4:
                return {y, f};  // diagonal mirror a1-h8
            case 5:
                return {C - 1 - y, R - 1 - f};  // anti-diagonal mirror
            case 6:
                return {y, C - 1 - f};  // quarter turn
            default:
                return {C - 1 - y, f};  // quarter turn the other way
        }
    };
    for (int g = 0; g < size_; ++g) {
        for (int s = 0; s < n; ++s) {
            auto [f2, y2] = map(g, b.file_of(s), b.rank_of(s) - 1);
            perm_[g * 64 + s] = y2 * C + f2;
        }
        if (b.color_of(perm_[g * 64]) != b.color_of(0)) swap_mask_ |= 1u << g;
    }
    table_.assign(static_cast<std::size_t>(size_) * bytes_ * 256, 0);
    for (int g = 0; g < size_; ++g) {
        for (int j = 0; j < bytes_; ++j) {
            std::uint64_t* t = &table_[(static_cast<std::size_t>(g) * bytes_ + j) * 256];
            for (int v = 0; v < 256; ++v) {
                std::uint64_t r = 0;
                for (int i = 0; i < 8; ++i) {
                    const int s = 8 * j + i;
                    if (s < n && ((v >> i) & 1)) r |= std::uint64_t{1} << perm_[g * 64 + s];
                }
                t[v] = r;
            }
        }
    }
    // The bit-operation path: boards of at most 8 x 8 whose keys leave bit 63 free.
    fast_ = R <= 8 && C <= 8 && n <= 63;
    if (fast_) {
        gap_ = 8 - C;
        const std::uint64_t row = (std::uint64_t{1} << C) - 1;
        for (int i = 0; i < 3; ++i) {
            const int bit = 2 - i;  // step i moves the rows y with bit `bit` of y set
            for (int y = 0; y < R; ++y) {
                if (!((y >> bit) & 1)) continue;
                // Before step i, row y has moved by the steps of its higher bits.
                const int moved = (y >> (bit + 1) << (bit + 1)) * gap_;
                spread_[i] |= row << (y * C + moved);
                // from_8x8 undoes step i after undoing the steps of the lower bits.
                const int left = (y >> bit << bit) * gap_;  // shift still applied then
                gather_[i] |= row << (y * C + left);
            }
        }
        // The images of Black's squares, in canonical_key_8x8's order.
        std::uint64_t img[8];
        images_8x8(to_8x8(b.color[0]), img);
        for (int k = 0; k < size_; ++k) {
            const std::uint64_t black = from_8x8(img[k]);
            if (black != b.color[0] && black != b.color[1]) {
                fast_ = false;  // not a symmetry of the colouring: cannot happen on R x C
                break;
            }
            side_flip_[k] = black == b.color[0] ? 0 : std::uint64_t{1} << 63;
        }
    }
    // child_key()'s table: every jump in a line (2, 4, ... squares along a rank or a file), the
    // squares it changes (from, land, the captured squares between) mapped by each image.
    if (fast_) {
        jump_index_.assign(64 * 64, kNoJump);
        const int dir[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
        for (int s = 0; s < n; ++s) {
            for (const auto& d : dir) {
                std::uint64_t change = std::uint64_t{1} << s;
                for (int step = 1;; ++step) {
                    const int f = b.file_of(s) + d[0] * step, y = b.rank_of(s) - 1 + d[1] * step;
                    if (f < 0 || f >= C || y < 0 || y >= R) break;
                    if (step % 2 == 1) {
                        change |= std::uint64_t{1} << (y * C + f);  // a captured square
                        continue;
                    }
                    const int land = y * C + f;
                    jump_index_[static_cast<std::size_t>(s * 64 + land)] =
                        static_cast<std::uint16_t>(jump_images_.size() / 8);
                    std::uint64_t img[8] = {};
                    images_8x8(to_8x8(change | (std::uint64_t{1} << land)), img);
                    jump_images_.insert(jump_images_.end(), img, img + 8);
                }
            }
        }
    }
}

Position SymmetryGroup::canonical(Position p) const {
    Position best = p;
    for (int g = 1; g < size_; ++g) {
        const Position q = image(g, p);
        if (q < best) best = q;
    }
    return best;
}

int SymmetryGroup::preserving_orbit_size_by_tables(Position p) const {
    std::array<std::uint64_t, 8> seen{};
    int count = 0;
    for (int g = 0; g < size_; ++g) {
        if (swaps_colour(g)) continue;
        const std::uint64_t q = apply(g, p.occ);
        if (std::find(seen.begin(), seen.begin() + count, q) == seen.begin() + count) {
            seen[count++] = q;
        }
    }
    return count;
}

}  // namespace konane
