"""The API for research use (issue 27): whole tables (len, layers, positions, NumPy arrays), the
proof search (solve(wdl=True), openings()), positions from squares, colour swap, equality up to
symmetry, the SVG board and CGT's outcome letters."""
import collections

import pytest

import konane


def reachable_classes(board, rules="brainking"):
    """Every position reachable after the two removals, as canonical forms, by walking the
    game tree from the full board (the set the table must hold: rules.md "Equivalent
    positions")."""
    start = konane.Position.start(board, rules=rules)
    frontier = {start.play(f"{b} {w}") for b in start.moves() for w in start.play(b).moves()}
    seen = set()
    while frontier:
        nxt = set()
        for p in frontier:
            c = p.canonical()
            if c in seen:
                continue
            seen.add(c)
            nxt.update(p.play(m) for m in p.moves())
        frontier = nxt
    return seen


# ------------------------------------------------------------------------------------------------
# Whole tables


@pytest.mark.parametrize("board", ["4x4", "4x5"])
def test_positions_yield_exactly_the_tables_classes_with_probes_values(tables, board):
    path, report = tables(board)
    with konane.Tablebase(path) as tb:
        got = list(tb.positions())
        assert len(got) == len(tb) == report.classes
        positions = [p for p, _ in got]
        assert len(set(positions)) == len(positions)
        assert set(positions) == reachable_classes(board)
        for p, value in got:
            assert p.canonical() == p
            assert tb.value(p) == value
            assert p.rules == tb.rules
        # File order: by layer (ascending pieces), then as the layer stores them.
        pieces = [p.pieces for p in positions]
        assert pieces == sorted(pieces)
        for layer in tb.layers:
            one = list(tb.positions(pieces=layer.pieces))
            assert len(one) == layer.classes
            assert one == [pv for pv in got if pv[0].pieces == layer.pieces]


@pytest.mark.parametrize("board", ["4x4", "4x5", "5x5"])
def test_layers_count_wins_and_losses(tables, board):
    path, report = tables(board)
    with konane.Tablebase(path) as tb:
        layers = tb.layers
        assert [(l.pieces, l.classes, l.raw) for l in layers] == [
            (l.pieces, l.classes, l.raw) for l in report.layers
        ]
        assert "wins" not in repr(layers[0])  # counted when first read
        for layer in layers:
            assert layer.wins + layer.losses == layer.classes
            assert "wins=%d" % layer.wins in repr(layer)
        if board != "5x5":
            counts = collections.Counter((p.pieces, v.win) for p, v in tb.positions())
            for layer in layers:
                assert (layer.wins, layer.losses) == (
                    counts[layer.pieces, True],
                    counts[layer.pieces, False],
                )
        assert tb.layers is layers  # made once per table
        assert sum(l.classes for l in layers) == len(tb)


def test_positions_bad_layer_raises_value_error(tb4):
    with pytest.raises(ValueError, match="no layer of 15 pieces"):
        tb4.positions(pieces=15)
    with pytest.raises(ValueError, match="no layer"):
        tb4.layer_arrays(-1)


def test_layer_arrays_are_the_positions_as_numpy(tb4):
    np = pytest.importorskip("numpy")
    for layer in tb4.layers:
        keys, depths = tb4.layer_arrays(layer.pieces)
        assert keys.dtype == np.uint64 and depths.dtype == np.uint8
        assert len(keys) == len(depths) == layer.classes
        assert bool((keys[1:] > keys[:-1]).all())  # ascending: the file's order
        assert int((depths % 2 == 1).sum()) == layer.wins
        pairs = list(tb4.positions(pieces=layer.pieces))
        for (p, value), key, depth in zip(pairs, keys.tolist(), depths.tolist()):
            assert value == konane.Value(depth % 2 == 1, depth)
            assert key >> 63 == (p.to_move == "white")
            squares = {f"{chr(ord('a') + s % p.cols)}{s // p.cols + 1}" for s in range(63) if key >> s & 1}
            assert squares == set(p.black) | set(p.white)


# ------------------------------------------------------------------------------------------------
# Proof search


def test_solve_wdl_agrees_with_the_table(tb5):
    start = tb5.start
    for black in start.moves():
        for white in start.play(black).moves():
            p = start.play(f"{black} {white}")
            for q in [p] + [p.play(m) for m in p.moves()[:2]]:
                s = konane.solve(q, wdl=True, memory="16M")
                assert s.win == tb5.value(q).win
                if s.win:
                    assert not tb5.value(q.play(s.winning_move)).win
                else:
                    assert s.winning_move is None
                assert s.nodes > 0


def test_openings_search_decides_every_5x5_opening_as_the_table(tb5):
    found = konane.openings("5x5", memory=16 << 20)
    table = tb5.openings()
    assert [(l.black, l.white) for l in found.lines] == [(l.black, l.white) for l in table.lines]
    for searched, stored in zip(found.lines, table.lines):
        assert searched.winner == stored.winner
    assert found.winner == table.winner == "black"
    for choice, stored in zip(found.choices, table.choices):
        assert choice.black == stored.black and choice.winner == stored.winner
    with_table = konane.openings((5, 5), table=tb5, memory="16M")
    assert [l.winner for l in with_table.lines] == [l.winner for l in found.lines]
    two = konane.openings("5x5", memory="16M", threads=2)
    assert [l.winner for l in two.lines] == [l.winner for l in found.lines]
    with pytest.raises(ValueError):
        konane.openings("5x5", threads=0)


def test_openings_search_on_boards_no_table_holds():
    # 2x2: Black has no move after the removals and loses (rules.md).
    found = konane.openings("2x2", memory="1M")
    assert found.winner == "white"
    assert all(l.winner == "white" for l in found.lines)


def test_proof_search_limits_and_bad_input(tb4):
    p = konane.Position.start("6x6").play("c4 c3")
    with pytest.raises(konane.SearchLimit, match="max_nodes=100"):
        konane.solve(p, wdl=True, max_nodes=100, memory="1M")
    undecided = konane.openings("5x5", max_nodes=10, memory="1M")
    assert undecided.winner is None and any(l.winner is None for l in undecided.lines)
    # "16777217T" is 2^64 + 2^40 bytes: it wrapped to 1 TiB and was taken.
    for bad in ("12Q", "", "-5", "M", "16777217T", "999999999999999T"):
        with pytest.raises(ValueError, match="memory"):
            konane.solve("xo.. b", wdl=True, memory=bad)
    with pytest.raises(ValueError, match="memory"):
        konane.solve("xo.. b", wdl=True, memory=10)
    with pytest.raises(ValueError, match="Tablebase.openings"):
        konane.openings("4x4", search=False)
    with pytest.raises(ValueError, match="5x5"):
        konane.openings("5x5", table=tb4)
    with pytest.raises(ValueError, match="ruleset"):
        konane.openings("4x4", table=tb4, rules="any")
    # The table's fit is checked in one place (query/tables.hpp): the same words for every call.
    with pytest.raises(ValueError, match="the position is for a 5x5 board, the table .* is for a "
                                         "4x4 board"):
        konane.solve(konane.Position.start("5x5"), wdl=True, table=tb4)
    for call in (lambda: konane.solve("xoxo/oxox/xo.o/oxox b", wdl=True, table=tb4, rules="any"),
                 lambda: konane.Engine("4x4", table=tb4, rules="any")):
        with pytest.raises(ValueError, match="rules=any differs from the table's ruleset brainking"):
            call()


def test_outcome_wdl_and_letters():
    # rules.md's linear facts, by both searches.
    cases = {"xo.. b": ("black", "L"), ".ox. b": ("first", "N"), ".oxox. b": ("second", "P")}
    for text, (word, letter) in cases.items():
        for wdl in (False, True):
            o = konane.outcome(text, wdl=wdl)
            assert o == word and o.letter == letter and isinstance(o, str)
    assert konane.outcome("..xo b").letter == "R"
    assert {konane.Outcome(w).letter for w in ("black", "white", "first", "second")} == set("LRNP")


@pytest.mark.slow
@pytest.mark.parametrize("opening", ["c4 c3", "a6 a5"])
def test_proof_search_decides_6x6_openings_white_wins(opening):
    # rules.md: White wins 6x6 from the corner and the centre gap (Norvig 2021).
    p = konane.Position.start("6x6").play(opening)
    s = konane.solve(p, wdl=True, memory="256M")
    assert s.win is False


# ------------------------------------------------------------------------------------------------
# Positions


def test_from_squares_and_the_squares_of_each_colour():
    p = konane.Position.from_squares("4x4", black=["c4", "b3"], white=["d4", "a3"], to_move="white")
    assert str(p) == "..xo/ox../..../.... w"
    assert p.black == ["b3", "c4"] and p.white == ["a3", "d4"]
    start = konane.Position.start("5x5")
    assert konane.Position.from_squares((5, 5), black=start.black, white=start.white) == start
    with pytest.raises(ValueError, match="b4 is a white square"):
        konane.Position.from_squares("4x4", black=["b4"])
    with pytest.raises(ValueError, match="twice"):
        konane.Position.from_squares("4x4", black=["a4", "a4"])
    with pytest.raises(ValueError, match="off the"):
        konane.Position.from_squares("4x4", white=["e1"])
    with pytest.raises(ValueError, match="to_move"):
        konane.Position.from_squares("4x4", to_move="red")


def test_swap_colors_is_the_negative(tb4):
    p = konane.Position.parse("xo../..../..../.... b")
    q = p.swap_colors()
    assert q.to_move == "black" and len(q.black) == len(p.white) and len(q.white) == len(p.black)
    assert q.swap_colors().equivalent(p)
    swap = {"black": "white", "white": "black", "first": "first", "second": "second"}
    for text in ["xo../..../..../.... b", "..xo/oxox/xoxo/oxox b", ".ox./..../xo../.... w"]:
        a = konane.Position.parse(text)
        assert konane.outcome(a.swap_colors()) == swap[konane.outcome(a)]
    for a in [p for p, _ in tb4.positions(pieces=12)][:50]:
        assert konane.outcome(a.swap_colors()) == swap[konane.outcome(a)]
    with pytest.raises(ValueError, match="both sides odd"):
        konane.Position.start("5x5").swap_colors()


def test_equivalence_up_to_symmetry(tb4):
    a = konane.Position.start("4x4").play("a4 b4")
    b = konane.Position.start("4x4").play("d1 c1")  # the 180-degree turn of a
    c = konane.Position.start("4x4").play("a4 a3")  # the diagonal mirror's image
    assert a != b and a.equivalent(b) and a.canonical() == b.canonical()
    assert a.equivalent(c)
    assert tb4.value(a) == tb4.value(b) == tb4.value(c)
    assert not a.equivalent(konane.Position.start("4x4").play("c2 c3"))
    assert not a.equivalent(konane.Position.parse(str(a), rules="any"))


def test_svg_board():
    p = konane.Position.parse("..xo/oxox/xoxo/oxox b")
    svg = p._repr_svg_()
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert svg.count("<circle") == p.pieces == 14
    assert svg.count("<rect") == 16
    assert "black to move" in svg and str(p) in svg


# ------------------------------------------------------------------------------------------------
# Where a table is read from (issue 26): mapped, or read into memory on huge pages


@pytest.mark.parametrize("board", ["4x4", "4x5"])
def test_a_table_read_into_memory_answers_every_position_as_the_mapped_one(tables, board):
    path, report = tables(board)
    with konane.Tablebase(path, load="map") as mapped, \
            konane.Tablebase(path, load="memory") as loaded:
        assert mapped.memory == {"load": "map", "bytes": 0, "huge_page_bytes": 0}
        assert loaded.memory["load"] == "memory"
        size = path.stat().st_size
        assert size <= loaded.memory["bytes"] < size + 2 * 1024 * 1024
        assert loaded.memory["huge_page_bytes"] <= loaded.memory["bytes"]
        got = list(loaded.positions())
        assert got == list(mapped.positions())
        assert len(got) == report.classes
        for p, value in got:
            assert mapped.value(p) == value
            assert loaded.best_move(p) == mapped.best_move(p)
        assert loaded.openings() == mapped.openings()
    with konane.Tablebase(path) as tb:  # 'auto': one of the two, and says which
        assert tb.memory["load"] in ("map", "memory")


def test_load_refuses_another_word_and_a_damaged_file_alike(tables, tmp_path):
    path, _ = tables("4x4")
    with pytest.raises(ValueError, match="map, memory or auto"):
        konane.Tablebase(path, load="huge")
    bad = tmp_path / "bad.kbt"
    data = bytearray(path.read_bytes())
    data[10] ^= 0x01  # the header's version field: refused at open
    bad.write_bytes(bytes(data))
    messages = []
    for load in ("map", "memory"):
        with pytest.raises(konane.FormatError) as e:
            konane.Tablebase(bad, load=load)
        messages.append(str(e.value))
    assert messages[0] == messages[1]
