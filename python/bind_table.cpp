// konane.Tablebase: a table file opened for probing (values, moves, perfect lines, the openings
// of its board), and its whole layers: their counts, their positions with values, NumPy arrays.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/board.hpp"
#include "core/gap.hpp"
#include "core/notation.hpp"
#include "format/table.hpp"
#include "probe/openings.hpp"
#include "probe/probe.hpp"
#include "python/module.hpp"

using namespace pybind11::literals;

namespace konane::python {

namespace {

/// Raises NotStored for position p, which the table t (handle tb) does not hold.
[[noreturn]] void throw_not_stored(const PyTablebase& t, const konane::Tablebase& tb,
                                   const PyPosition& p) {
    throw konane::NotStored("position " + konane::format_position(p.board, p.pos) +
                            " is not stored in " + t.path() + " (not reachable on " +
                            p.board.name() + (tb.opening().gap ? " from " : " under ") +
                            konane::opening_text(tb.board(), tb.opening()) + ")");
}

// Whole tables: layers, their positions and values

/// The index into the table's layers of the layer of `pieces` pieces. @throws ValueError naming
/// the piece counts the table has.
std::size_t layer_of(const konane::Tablebase& tb, int pieces) {
    const int i = pieces < 0 ? -1 : tb.table().layer_index(static_cast<std::uint32_t>(pieces));
    if (i < 0) {
        std::string have;
        for (const auto& l : tb.table().layers())
            have += (have.empty() ? "" : ", ") + std::to_string(l.pieces);
        throw py::value_error("pieces=" + std::to_string(pieces) + ": the table has no layer of " +
                              std::to_string(pieces) + " pieces (its layers: " + have + ")");
    }
    return static_cast<std::size_t>(i);
}

/// The positions of the table's layers in file order (ascending canonical key: the side to
/// move, then the occupied squares), each with its value: what Tablebase.positions() returns.
/// Decodes one layer at a time without the GIL (its keys and values: 9 bytes per class).
/// Storage made by operator new holds an exhausted iterator (see PyPosition).
class LayerIterator {
  public:
    LayerIterator() = default;
    LayerIterator(konane::Tablebase tb, std::vector<std::size_t> layers)
        : tb_(std::move(tb)), layers_(std::move(layers)) {}

    static void* operator new(std::size_t size) {
        void* p = ::operator new(size);
        ::new (p) LayerIterator();
        return p;
    }
    static void operator delete(void* p) { ::operator delete(p); }

    py::object next() {
        while (at_ == keys_.size()) {
            if (next_layer_ == layers_.size()) throw py::stop_iteration();
            const std::size_t layer = layers_[next_layer_++];
            py::gil_scoped_release release;
            tb_->table().read_keys(layer, keys_);
            tb_->table().read_values(layer, values_);
            at_ = 0;
        }
        const std::size_t i = at_++;
        return py::make_tuple(
            PyPosition{tb_->board(), tb_->rules(), konane::position_of_key(keys_[i])},
            make_value(konane::Value::from_depth(values_[i])));
    }

  private:
    std::optional<konane::Tablebase> tb_;
    std::vector<std::size_t> layers_;
    std::size_t next_layer_ = 0, at_ = 0;
    std::vector<std::uint64_t> keys_;
    std::vector<std::uint8_t> values_;
};

/// Wins and losses (for the side to move) among a layer's classes, read from its values
/// without the GIL.
std::pair<std::uint64_t, std::uint64_t> layer_counts(const konane::Tablebase& tb,
                                                     std::size_t layer) {
    py::gil_scoped_release release;
    std::vector<std::uint8_t> values;
    tb.table().read_values(layer, values);
    const auto wins = static_cast<std::uint64_t>(
        std::count_if(values.begin(), values.end(), [](std::uint8_t d) { return d & 1; }));
    return {wins, values.size() - wins};
}

/// Tablebase.layer_arrays(): a layer's keys (uint64) and depths (uint8) as NumPy arrays.
py::tuple layer_arrays(const konane::Tablebase& tb, int pieces) {
    const std::size_t layer = layer_of(tb, pieces);
    try {
        py::module_::import("numpy");
    } catch (py::error_already_set& e) {
        if (!e.matches(PyExc_ImportError)) throw;
        PyErr_SetString(PyExc_ImportError,
                        "Tablebase.layer_arrays() needs NumPy (Debian: python3-numpy; pip: "
                        "numpy); Tablebase.positions() needs nothing");
        throw py::error_already_set();
    }
    const auto n = static_cast<py::ssize_t>(tb.table().layers()[layer].classes);
    py::array_t<std::uint64_t> keys(n);
    py::array_t<std::uint8_t> depths(n);
    std::uint64_t* key_data = keys.mutable_data();
    std::uint8_t* depth_data = depths.mutable_data();
    {
        py::gil_scoped_release release;
        std::vector<std::uint64_t> k;
        std::vector<std::uint8_t> v;
        tb.table().read_keys(layer, k);
        tb.table().read_values(layer, v);
        std::copy(k.begin(), k.end(), key_data);
        std::copy(v.begin(), v.end(), depth_data);
    }
    return py::make_tuple(keys, depths);
}

}  // namespace

void bind_table(py::module_& m) {
    py::class_<LayerIterator>(
        m, "_LayerIterator", "The iterator Tablebase.positions() returns: (Position, Value) pairs.")
        .def("__iter__", [](py::object self) { return self; })
        .def("__next__", &LayerIterator::next);

    py::class_<PyTablebase>(m, "Tablebase", R"(A table file opened for probing (memory-mapped,
validated). Every method is thread-safe and runs without the GIL; positions may be given as
konane.Position (of the table's board) or as strings, which are parsed on the table's board;
moves and the positions returned follow the table's ruleset. The table answers the
positions reachable under its ruleset after the two removals, and the opening-stage positions
(the full board, and a one-hole board whose hole Black may empty) from their children.

    with konane.Tablebase('konane-5x5-brainking.kbt') as tb:
        print(tb.value(tb.start))

Tablebase(path, board=None, rules=None, load='auto'): board ('RxC' or (rows, cols)) and rules,
when given, must match the table's. load says where the table is read from: 'map' (the file
mapped: opens at once, shares the page cache), 'memory' (the whole file read into this
process's memory on 2 MiB huge pages: faster probes of a large table, costs the file's size in
memory, see the memory property) or 'auto' (memory when the kernel gives anonymous memory huge
pages and the file takes at most a quarter of the available memory, else map). Raises
FormatError for a missing, damaged or foreign file or a mismatch, ValueError for another load.)")
        .def(py::init<const std::filesystem::path&, const std::optional<BoardArg>&,
                      const std::optional<std::string>&, const std::string&>(),
             "path"_a, "board"_a = py::none(), "rules"_a = py::none(), "load"_a = "auto")
        .def("__enter__", [](py::object self) { return self; })
        .def(
            "__exit__",
            [](PyTablebase& t, const py::object&, const py::object&, const py::object&) {
                t.close();
                return false;
            },
            "Closes the table (see close()).")
        .def("close", &PyTablebase::close,
             "Releases the table's mapping; later calls raise ValueError. Idempotent.")
        .def_property_readonly("closed", &PyTablebase::closed, "True after close().")
        .def_property_readonly(
            "path", [](const PyTablebase& t) { return fs_str(t.path()); },
            "The file name given to open it, as a str (a name that is not UTF-8 is decoded as "
            "os.fsdecode() does: os.fsencode(tb.path) gives its bytes back).")
        .def_property_readonly(
            "board", [](const PyTablebase& t) { return t.handle().board().name(); },
            "The table's board size, 'RxC'.")
        .def_property_readonly(
            "rules", [](const PyTablebase& t) { return konane::ruleset_name(t.handle().rules()); },
            "The table's opening ruleset ('any' for a gap's table).")
        .def_property_readonly(
            "memory",
            [](const PyTablebase& t) {
                const auto m = t.handle().table().memory_use();
                py::dict d;
                d["load"] = konane::format::load_name(m.load);
                d["bytes"] = m.bytes;
                d["huge_page_bytes"] = m.huge;
                return d;
            },
            "What the table holds in memory of its own: {'load': 'map' or 'memory', 'bytes': "
            "the anonymous memory holding the file (0 when mapped), 'huge_page_bytes': how much "
            "of it is in transparent huge pages (-1 when unknown)}.")
        .def_property_readonly(
            "gap",
            [](const PyTablebase& t) -> std::optional<std::string> {
                const auto tb = t.handle();
                if (!tb.opening().gap) return std::nullopt;
                return konane::gap_name(tb.board(), *tb.opening().gap);
            },
            "The gap the table was built from ('c3,c4', Black's square first), or None.")
        .def_property_readonly(
            "start",
            [](const PyTablebase& t) {
                const auto tb = t.handle();
                if (const auto& g = tb.opening().gap)
                    return PyPosition{tb.board(), tb.rules(), konane::gap_start(tb.board(), *g)};
                return PyPosition{tb.board(), tb.rules(), tb.board().start()};
            },
            "The full board of the table's size and ruleset, Black to move (a gap's table: the "
            "gap's start position).")
        .def("__repr__",
             [](const PyTablebase& t) -> py::str {
                 if (!t.opened()) return py::str("<konane.Tablebase (never opened)>");
                 const py::str path = py::repr(fs_str(t.path()));
                 if (t.closed()) return py::str("<konane.Tablebase {} (closed)>").format(path);
                 const auto tb = t.handle();
                 return py::str("<konane.Tablebase {}: {} {}>")
                     .format(path, tb.board().name(),
                             konane::opening_tag(tb.board(), tb.opening()));
             })
        .def(
            "__reduce_ex__",
            [](const PyTablebase&, const py::object&) -> py::object {
                throw py::type_error(
                    "cannot pickle a konane.Tablebase (an open file mapping): pickle its path "
                    "and open it again with konane.Tablebase(path)");
            },
            "protocol"_a, "Refuses: a Tablebase cannot be pickled or copied (TypeError).")
        .def(
            "__len__",
            [](const PyTablebase& t) {
                std::uint64_t n = 0;
                for (const auto& l : t.handle().table().layers())
                    n += l.classes;
                return n;
            },
            "The number of positions stored (classes: positions up to symmetry).")
        .def_property_readonly(
            "layers",
            [](PyTablebase& t) -> py::object {
                const auto tb = t.handle();
                if (!t.layers_cache()) {
                    py::list out;
                    const auto& layers = tb.table().layers();
                    for (std::size_t i = 0; i < layers.size(); ++i) {
                        py::cpp_function count([tb, i] {
                            const auto [wins, losses] = layer_counts(tb, i);
                            return py::make_tuple(wins, losses);
                        });
                        out.append(g_types.layer(layers[i].pieces, layers[i].classes, layers[i].raw,
                                                 count));
                    }
                    t.layers_cache() = out;
                }
                return t.layers_cache();
            },
            R"(The table's layers, by ascending piece count: a list of konane.Layer(pieces, classes,
raw, wins, losses). wins and losses (classes won or lost by the side to move) are counted when
first read, by decoding the layer's values (a fraction of a second per million classes).)")
        .def(
            "positions",
            [](const PyTablebase& t, std::optional<int> pieces) {
                const auto tb = t.handle();
                std::vector<std::size_t> layers;
                if (pieces) {
                    layers.push_back(layer_of(tb, *pieces));
                } else {
                    for (std::size_t i = 0; i < tb.table().layers().size(); ++i)
                        layers.push_back(i);
                }
                return LayerIterator(tb, std::move(layers));
            },
            "pieces"_a = py::none(),
            R"(An iterator over the stored positions and their values: (Position, Value) pairs, the
layer of `pieces` pieces (None: every layer, ascending) in file order (ascending canonical key:
side to move, then occupied squares). Each position is its class's canonical() form, once per
class. Decodes one layer at a time (9 bytes per class of the layer). Raises ValueError for a
piece count the table has no layer of.)")
        .def(
            "layer_arrays",
            [](const PyTablebase& t, int pieces) { return layer_arrays(t.handle(), pieces); },
            "pieces"_a,
            R"(The layer of `pieces` pieces as two NumPy arrays in file order: keys (uint64: bit s
set when square s = (rank - 1) * cols + file is occupied, bit 63 set when White is to move;
canonical forms) and depths (uint8: the depth to the end in plies, odd for a WIN of the side to
move, even for a LOSS). Needs NumPy (ImportError naming it otherwise). Raises ValueError for a
piece count the table has no layer of.)")
        .def(
            "__contains__",
            [](const PyTablebase& t, const PositionArg& position) {
                const PyPosition p = t.arg(position);
                const auto tb = t.handle();
                py::gil_scoped_release release;
                return tb.value(p.pos).has_value();
            },
            "position"_a, "True when the table answers the position (value() would not raise).")
        .def(
            "value",
            [](const PyTablebase& t, const PositionArg& position) {
                const PyPosition p = t.arg(position);
                const auto tb = t.handle();
                std::optional<konane::Value> v;
                {
                    py::gil_scoped_release release;
                    v = tb.value(p.pos);
                }
                if (!v) throw_not_stored(t, tb, p);
                return make_value(*v);
            },
            "position"_a,
            R"(The Value (win, depth) of the position for the side to move. Raises NotStored when the
table does not hold it, FormatError on a damaged block, ValueError for bad input.)")
        .def(
            "moves",
            [](const PyTablebase& t, const PositionArg& position) {
                const PyPosition p = t.arg(position);
                const auto tb = t.handle();
                std::vector<konane::MoveValue> mvs;
                {
                    py::gil_scoped_release release;
                    mvs = tb.moves(p.pos);
                }
                return make_move_values(p, mvs);
            },
            "position"_a,
            R"(Every legal move (Position.moves() order) as a MoveValue(move, value, position): the
value for the mover, its depth counted from before the move. Empty when the side to move has
no move. Raises NotStored when the table does not hold the position or a child.)")
        .def(
            "best_move",
            [](const PyTablebase& t, const PositionArg& position) -> py::object {
                const PyPosition p = t.arg(position);
                const auto tb = t.handle();
                std::optional<konane::MoveValue> mv;
                {
                    py::gil_scoped_release release;
                    mv = tb.best_move(p.pos);
                }
                if (!mv) return py::none();
                return make_move_value(p, *mv);
            },
            "position"_a,
            R"(The perfect move as a MoveValue: from a WIN the move to the LOSS of least depth, from a
LOSS the move to the child of greatest depth; ties to the earliest move. Its value equals
value(position). None when the side to move has no move. Raises NotStored.)")
        .def(
            "perfect_line",
            [](const PyTablebase& t, const PositionArg& position) {
                const PyPosition p = t.arg(position);
                const auto tb = t.handle();
                std::vector<konane::MoveValue> line;
                {
                    py::gil_scoped_release release;
                    line = tb.perfect_line(p.pos);
                }
                return make_line(p, line);
            },
            "position"_a,
            R"(Perfect moves, one per ply, until the side to move has none, as MoveValues (each the
value for its mover). Its length equals value(position).depth. Raises NotStored.)")
        .def(
            "openings",
            [](const PyTablebase& t) {
                const auto tb = t.handle();
                std::optional<konane::Openings> o;
                {
                    py::gil_scoped_release release;
                    o = konane::compute_openings(tb);
                }
                const Board& b = tb.board();
                auto choice = [&](const konane::OpeningChoice& c) {
                    return g_types.opening_choice(
                        konane::format_move(b, c.black),
                        c.white ? py::object(py::str(konane::format_move(b, *c.white)))
                                : py::object(py::none()),
                        konane::color_name(c.winner), c.depth);
                };
                py::list lines, choices;
                for (const auto& l : o->lines) {
                    lines.append(g_types.opening_line(konane::format_move(b, l.black),
                                                      konane::format_move(b, l.white),
                                                      konane::color_name(l.winner), l.depth));
                }
                for (const auto& c : o->choices)
                    choices.append(choice(c));
                return g_types.openings(lines, choices,
                                        o->best ? choice(*o->best) : py::object(py::none()),
                                        konane::color_name(o->winner));
            },
            R"(The opening table as an Openings(lines, choices, best, winner): every removal pair with
its winner and depth (plies from Black's first jump), White's best reply to each Black removal,
Black's best removal and who wins the board. The winner hurries, the loser delays; ties go to
the earlier square. Raises NotStored if an opening position is missing.)");
}

}  // namespace konane::python
