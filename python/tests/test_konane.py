"""Tests of the Python module konane: the facts the C++ tests check (perft, the 4x4 and 5x5
verdicts, perfect lines of the stated depth, rules.md's facts, bad input raising the right
exception), the table against the search, threads, generation and the README's example."""
import _thread
import concurrent.futures
import os
import pickle
import random
import signal

import pytest

import konane


def random_positions(start, count, seed):
    """`count` positions, each taken at a random ply of a game of random legal moves from
    `start` (any stage, finished games included), reproducibly from `seed`."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        game = [start]
        while not game[-1].game_over:
            game.append(game[-1].play(rng.choice(game[-1].moves())))
        out.append(rng.choice(game))
    return out


# ------------------------------------------------------------------------------------------------
# Positions and moves


def test_perft_matches_the_cpp_tests():
    # Hand counts of the removals on 4x4 (tests/core/test_rules_perft.cpp).
    start = konane.Position.start("4x4")
    assert start.perft(0) == 1
    assert start.perft(1) == 4
    assert start.perft(2) == 12
    assert konane.Position.start("4x4", rules="center").perft(2) == 8
    assert konane.Position.start((4, 4), rules="any").perft(2) == 24
    assert konane.Position.start("4x4", rules="any").perft(16) == 0
    # Regression anchors agreed by core and the reference engine.
    assert konane.Position.start("4x4").perft(8) == 2808
    assert konane.Position.start("5x5").perft(10) == 698568
    assert konane.Position.start("6x6").perft(7) == 22676
    assert konane.Position.start("3x7", rules="center").perft(12) == 8752


def test_ctrl_c_stops_perft(interrupted_after):
    p = konane.Position.start("8x8")
    assert interrupted_after(lambda: p.perft(30)) < 9.5  # days of work; 10 s from the start
    assert p.perft(2) == sum(p.play(m).perft(1) for m in p.moves())  # usable again


def test_perft_is_the_sum_over_the_moves():
    p = konane.Position.start("5x5").play("c3 c2")
    assert p.perft(4) == sum(p.play(m).perft(3) for m in p.moves())


def test_position_text_round_trip_and_properties():
    p = konane.Position.parse("..xo/oxox/xoxo/oxox b")
    assert str(p) == "..xo/oxox/xoxo/oxox b"
    assert repr(p) == "Position('..xo/oxox/xoxo/oxox b')"
    assert (p.board, p.rows, p.cols, p.rules) == ("4x4", 4, 4, "brainking")
    assert p.to_move == "black"
    assert p.pieces == 14
    assert p.stage == "play"
    assert konane.Position("..xo/oxox/xoxo/oxox b") == p
    wide = konane.Position.parse("xoxoxo/oxoxox/xoxoxo/oxoxox w", rules="center")
    assert (wide.rows, wide.cols, wide.to_move, wide.rules) == (4, 6, "white", "center")
    assert repr(wide) == "Position('xoxoxo/oxoxox/xoxoxo/oxoxox w', rules='center')"


def test_stages_follow_the_opening():
    start = konane.Position.start("4x4")
    assert str(start) == "xoxo/oxox/xoxo/oxox b"
    assert start.stage == "full_board"
    one_hole = start.play("a4")
    assert one_hole.stage == "one_hole" and one_hole.to_move == "white"
    assert str(one_hole) == ".oxo/oxox/xoxo/oxox w"
    after = one_hole.play("b4")
    assert after.stage == "play" and after.to_move == "black"
    assert str(after) == "..xo/oxox/xoxo/oxox b"
    assert start.play("a4 b4") == after


def test_rules_md_facts_8x8():
    start = konane.Position.start("8x8")
    assert sorted(start.moves()) == ["a8", "d5", "e4", "h1"]
    assert sorted(start.play("a8").moves()) == ["a7", "b8"]
    assert start.play("a8 b8").moves() == ["a6-a8"]


def test_rules_md_facts_2x2_black_loses():
    p = konane.Position.start("2x2")
    for black in p.moves():
        for white in p.play(black).moves():
            after = p.play(f"{black} {white}")
            assert after.game_over
            assert konane.solve(after).value == konane.Value(False, 0)


def test_multi_jumps_are_moves_of_their_own():
    p = konane.Position.parse("xo.o. b")
    assert p.moves() == ["a1-c1", "a1-e1"]
    assert str(p.play("a1-e1")) == "....x w"


def test_positions_are_values():
    a = konane.Position.parse("..xo/oxox/xoxo/oxox b")
    b = konane.Position.start("4x4").play("a4 b4")
    assert a == b and hash(a) == hash(b)
    assert len({a, b}) == 1
    assert a != konane.Position.parse("..xo/oxox/xoxo/oxox b", rules="any")
    assert a != "..xo/oxox/xoxo/oxox b"
    assert pickle.loads(pickle.dumps(a)) == a
    center = konane.Position.start("5x5", rules="center")
    assert pickle.loads(pickle.dumps(center)).rules == "center"


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "empty position"),
        ("xoxo/oxo b", "row"),
        ("xoxo/oxox/xoxo/oxoz b", "unknown character 'z'"),
        ("oxox/oxox/xoxo/oxox b", "piece"),
        ("xoxo/oxox/xoxo/oxox", "side to move"),
        ("xoxo/oxox/xoxo/oxox q", "side to move"),
    ],
)
def test_bad_positions_raise_value_error(text, words):
    with pytest.raises(ValueError, match=words):
        konane.Position.parse(text)


def test_bad_boards_moves_and_rules_raise_value_error():
    with pytest.raises(ValueError, match="9x9"):
        konane.Position.start("9x9")
    with pytest.raises(ValueError):
        konane.Position.start((0, 4))
    with pytest.raises(TypeError):
        konane.Position.start(5)
    with pytest.raises(ValueError, match="ruleset"):
        konane.Position.start("4x4", rules="nonsense")
    start = konane.Position.start("4x4")
    with pytest.raises(ValueError, match="b4"):  # a White square: not Black's removal
        start.play("b4")
    with pytest.raises(ValueError, match="move 2"):
        start.play("a4 c4")
    with pytest.raises(ValueError, match="z9"):
        start.play("z9")
    with pytest.raises(ValueError, match="depth"):
        start.perft(-1)


def test_boards_past_8_per_side():
    # Any board of at most 64 squares; files past z are aa, ab, ... (README.md).
    row = konane.Position.start("1x64")
    assert (row.rows, row.cols, row.pieces) == (1, 64, 64)
    assert konane.Position.start((64, 1)).cols == 1
    assert konane.Position.start("3x12").moves() == ["a1", "f2", "a3"]
    jump = konane.Position.parse("x" + "." * 25 + "xo.o. b")
    assert jump.moves() == ["aa1-ac1", "aa1-ae1"]
    assert str(jump.play("aa1-ae1")) == "x" + "." * 29 + "x w"
    # rules.md: a gap, n alternating pieces from White, a gap: n = 62 = 2 (mod 4), first player.
    gap = "." + "ox" * 31 + "."
    assert konane.solve(gap + " b").value.win
    assert konane.solve(gap + " w").value.win
    with pytest.raises(ValueError, match="65 squares"):
        konane.Position.start("5x13")
    with pytest.raises(ValueError, match="off the 1x64 board"):
        row.play("bm1")
    with pytest.raises(ValueError, match="at most 36.*mpirun -np N konane generate 6x7"):
        konane.generate("6x7")


# ------------------------------------------------------------------------------------------------
# Tables


def test_generate_reports_the_4x4_counts(tables):
    path, report = tables("4x4")
    # rules.md: 975 classes and 3,858 raw positions are reachable on 4x4 under brainking.
    assert (report.classes, report.raw) == (975, 3858)
    assert report.path == str(path) and os.path.getsize(path) == report.file_bytes
    assert (report.board, report.rules) == ("4x4", "brainking")
    assert sum(layer.classes for layer in report.layers) == report.classes
    assert [layer.pieces for layer in report.layers] == sorted(l.pieces for l in report.layers)
    assert report.layers[-1].pieces == 14


def test_4x4_white_wins(tb4):
    assert (tb4.board, tb4.rules) == ("4x4", "brainking")
    value = tb4.value(tb4.start)
    assert not value.win  # Black, to move on the full board, loses
    assert value.depth % 2 == 0
    openings = tb4.openings()
    assert openings.winner == "white"
    assert {c.black for c in openings.choices} == set(tb4.start.moves())
    # Every Black removal has a White reply after which Black, to move, loses.
    for choice in openings.choices:
        assert choice.winner == "white"
        after = tb4.start.play(f"{choice.black} {choice.white}")
        assert not tb4.value(after).win
        assert tb4.value(after).depth == choice.depth


def test_5x5_black_wins_and_the_openings_agree_with_the_values(tb5):
    value = tb5.value(tb5.start)
    assert value.win  # rules.md: Black wins 5x5
    openings = tb5.openings()
    assert openings.winner == "black"
    assert len(openings.lines) == sum(len(tb5.start.play(b).moves()) for b in tb5.start.moves())
    for line in openings.lines:
        after = tb5.start.play(f"{line.black} {line.white}")
        v = tb5.value(after)
        assert line.depth == v.depth
        assert line.winner == (after.to_move if v.win else "white")
    best = openings.best
    # Black's best removal leads, after White's best reply, to the win of least depth.
    assert best.winner == "black"
    assert best.depth == min(c.depth for c in openings.choices if c.winner == "black")
    # The full board's depth counts the two removals.
    assert value.depth == best.depth + 2


def test_moves_best_move_and_values_agree(tb5):
    for p in random_positions(tb5.start, 60, seed=1):
        value = tb5.value(p)
        assert (value.depth % 2 == 1) == value.win
        moves = tb5.moves(p)
        assert [m.move for m in moves] == p.moves()
        for m in moves:
            assert m.position == p.play(m.move)
            child = tb5.value(m.position)
            assert m.value == konane.Value(not child.win, child.depth + 1)
        best = tb5.best_move(p)
        if not moves:
            assert best is None and value == konane.Value(False, 0) and p.game_over
            continue
        assert best.value == value
        assert best in moves


def test_perfect_line_lasts_the_stated_depth(tb5):
    wins = losses = 0
    for p in random_positions(tb5.start, 40, seed=2):
        value = tb5.value(p)
        line = tb5.perfect_line(p)
        assert len(line) == value.depth
        at = p
        for i, m in enumerate(line):
            assert m.value.depth == value.depth - i
            assert m.value.win == (value.win == (i % 2 == 0))  # the winner stays the winner
            at = at.play(m.move)
            assert m.position == at
        assert at.game_over
        loser = p.to_move if not value.win else ("white" if p.to_move == "black" else "black")
        assert at.to_move == loser
        wins += value.win
        losses += not value.win
    assert wins > 0 and losses > 0


def test_perfect_line_from_the_best_opening(tb5):
    best = tb5.openings().best
    p = tb5.start.play(f"{best.black} {best.white}")
    line = tb5.perfect_line(p)
    assert len(line) == best.depth
    assert line[-1].position.game_over
    assert line[-1].position.to_move == "white"


def test_the_table_agrees_with_the_search(tb5):
    for p in random_positions(tb5.start, 20, seed=3):
        s = konane.solve(p)
        assert s.value == tb5.value(p)
        assert [m.move for m in s.moves] == [m.move for m in tb5.moves(p)]
        assert [m.value for m in s.moves] == [m.value for m in tb5.moves(p)]
        assert len(s.perfect_line) == s.value.depth
        assert s.best_move == tb5.best_move(p)
        assert s.positions > 0
        # With the table the search takes the checked stored values.
        assert konane.solve(str(p), table=tb5).value == s.value


def test_positions_as_strings_and_membership(tb4):
    text = "..xo/oxox/xoxo/oxox b"
    assert tb4.value(text) == tb4.value(konane.Position.parse(text))
    assert text in tb4
    assert tb4.start in tb4


def test_positions_not_stored_raise_not_stored(tb4):
    start = tb4.start
    # A one-hole board whose hole (b4, a White square) is no legal removal.
    not_removal = konane.Position.parse("x.xo/oxox/xoxo/oxox w")
    assert not_removal not in tb4
    with pytest.raises(konane.NotStored, match="not stored"):
        tb4.value(not_removal)
    with pytest.raises(konane.NotStored):
        tb4.moves(not_removal)
    with pytest.raises(LookupError):  # NotStored is a LookupError
        tb4.perfect_line(not_removal)
    # The full board with White to move is not stored either.
    with pytest.raises(konane.NotStored):
        tb4.best_move(konane.Position.parse(str(start)[:-1] + "w"))
    # Positions of another board are refused.
    with pytest.raises(ValueError, match="5x5"):
        tb4.value(konane.Position.start("5x5"))
    with pytest.raises(ValueError, match="4x4"):
        tb4.value("xoxox/oxoxo/xoxox/oxoxo/xoxox b")


def test_unreachable_positions_are_not_stored(tb4):
    # After the two removals 14 pieces remain with Black to move: 15 pieces with Black to move
    # (Black's removal and no White reply) and an empty board are never reached.
    for text in ["xoxo/oxox/xoxo/oxo. b", ".oxo/oxox/xoxo/oxox b", "..../..../..../.... w"]:
        with pytest.raises(konane.NotStored):
            tb4.value(text)


def test_bad_table_files_raise_format_error(tables, tmp_path):
    with pytest.raises(konane.FormatError, match="missing.kbt"):
        konane.Tablebase(tmp_path / "missing.kbt")
    path, _ = tables("4x4")
    data = bytearray(path.read_bytes())
    (tmp_path / "short.kbt").write_bytes(data[: len(data) // 2])
    with pytest.raises(konane.FormatError, match="short.kbt"):
        konane.Tablebase(tmp_path / "short.kbt")
    data[len(data) - 20] ^= 0xFF
    (tmp_path / "damaged.kbt").write_bytes(data)
    with pytest.raises(konane.FormatError, match="damaged.kbt"):
        konane.Tablebase(tmp_path / "damaged.kbt")
    (tmp_path / "text.kbt").write_text("not a table\n")
    with pytest.raises(konane.FormatError):
        konane.Tablebase(str(tmp_path / "text.kbt"))
    # A table that is not the one asked for.
    with pytest.raises(konane.FormatError, match="5x5|rows|board"):
        konane.Tablebase(path, board="5x5")
    with pytest.raises(konane.FormatError):
        konane.Tablebase(path, rules="center")
    with konane.Tablebase(path, board=(4, 4), rules="brainking") as tb:
        assert tb.board == "4x4"


def test_context_manager_closes(tables):
    path, _ = tables("4x4")
    with konane.Tablebase(path) as tb:
        assert not tb.closed
        assert "4x4 brainking" in repr(tb)
    assert tb.closed
    assert "closed" in repr(tb)
    with pytest.raises(ValueError, match="closed"):
        tb.value("..xo/oxox/xoxo/oxox b")
    tb.close()  # idempotent


def test_threads_probing_one_table_get_the_same_answers(tb5):
    positions = random_positions(tb5.start, 300, seed=4)

    def answers(chunk):
        return [(tb5.value(p), tb5.best_move(p), len(tb5.perfect_line(p))) for p in chunk]

    expected = answers(positions)
    chunks = [positions[i::6] for i in range(6)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=6) as pool:
        got = list(pool.map(answers, chunks * 3))
    for i, result in enumerate(got):
        assert result == expected[i % 6 :: 6]


# ------------------------------------------------------------------------------------------------
# Search


def test_search_rules_md_linear_facts():
    assert konane.outcome("xo.. b") == "black"
    assert konane.outcome(".ox. b") == "first"
    # One empty square, n alternating pieces starting with White, one empty square.
    for n in range(2, 7):
        row = "." + "".join("o" if i % 2 == 0 else "x" for i in range(n)) + ". b"
        want = "black" if n % 2 == 1 else ("second" if n % 4 == 0 else "first")
        assert konane.outcome(row) == want, row
    assert konane.outcome(".oxoxox. w") == "first"


def test_solve_a_row():
    s = konane.solve(".oxox. b")
    assert s.value == konane.Value(False, 2)
    assert str(s.value) == "loss in 2 plies"
    assert s.best_move.move == "c1-a1"
    assert [m.move for m in s.perfect_line] == ["c1-a1", "d1-f1"]
    assert s.perfect_line[-1].position.game_over


def test_solve_limits_and_bad_input():
    with pytest.raises(konane.SearchLimit):
        konane.solve(konane.Position.start("5x5").play("c3 c2"), max_positions=10)
    assert issubclass(konane.SearchLimit, RuntimeError)
    with pytest.raises(ValueError):
        konane.solve("xo.q b")
    with pytest.raises(TypeError):
        konane.solve(42)


def test_solve_with_a_table_of_another_board(tb4):
    with pytest.raises(ValueError, match="5x5"):
        konane.solve(konane.Position.start("5x5"), table=tb4)
    with pytest.raises(ValueError, match="ruleset"):
        konane.solve(tb4.start, table=tb4, rules="any")


# ------------------------------------------------------------------------------------------------
# Generation


def test_generate_is_deterministic_and_reports_progress(tmp_path, tables):
    calls = []
    report = konane.generate(
        (4, 4),
        rules="brainking",
        threads=1,
        output=tmp_path / "one.kbt",
        progress=lambda phase, pieces, done, total: calls.append((phase, pieces, done, total)),
    )
    assert report.threads == 1
    assert (tmp_path / "one.kbt").read_bytes() == tables("4x4")[0].read_bytes()
    assert {c[0] for c in calls} >= {"enumerate", "hash"}
    assert all(c[3] == 0 or c[2] <= c[3] for c in calls)


def test_generate_other_rulesets(tables):
    _, center = tables("4x4", "center")
    _, brainking = tables("4x4")
    assert center.rules == "center"
    assert 0 < center.classes < brainking.classes  # fewer removals, fewer positions
    with konane.Tablebase(center.path) as tb:
        assert tb.rules == "center"
        assert tb.start.rules == "center"
        assert len(tb.start.moves()) < len(konane.Position.start("4x4").moves())


def test_generate_from_a_gap(tmp_path, tables):
    report = konane.generate("4x5", gap="c3,c2", output=tmp_path / "gap.kbt")
    assert report.rules == "gap-c2-c3"  # Black's square first
    _, brainking = tables("4x5")
    assert 0 < report.classes < brainking.classes
    with konane.Tablebase(tmp_path / "gap.kbt") as tb:
        assert tb.gap == "c2,c3"
        assert tb.rules == "any"
        assert str(tb.start) == "xoxox/ox.xo/xo.ox/oxoxo b"
        assert tb.value(tb.start) is not None
    with konane.Tablebase(tables("4x5")[0]) as tb:
        assert tb.gap is None
    with pytest.raises(ValueError, match="not orthogonally adjacent"):
        konane.generate("4x5", gap="a1,d1", output=tmp_path / "x.kbt")
    with pytest.raises(ValueError, match="drop --rules"):
        konane.generate("4x5", gap="a1,b1", rules="center", output=tmp_path / "x.kbt")


def test_generate_errors(tmp_path):
    with pytest.raises(ValueError, match="7x7"):
        konane.generate("7x7", output=tmp_path / "big.kbt")
    with pytest.raises(ValueError, match="ruleset"):
        konane.generate("4x4", rules="nonsense", output=tmp_path / "x.kbt")
    with pytest.raises(ValueError, match="threads"):
        konane.generate("4x4", threads=-1, output=tmp_path / "x.kbt")
    with pytest.raises(TypeError):
        konane.generate("4x4", output=tmp_path / "x.kbt", progress=3)
    with pytest.raises(konane.FormatError) as error:
        konane.generate("3x3", output=tmp_path / "no" / "such" / "dir.kbt")
    assert isinstance(error.value, OSError)  # konane.IoError
    assert list(tmp_path.iterdir()) == []


def test_an_exception_in_progress_stops_generation_and_leaves_no_table(tmp_path):
    class Stop(Exception):
        pass

    def progress(phase, pieces, done, total):
        if phase == "hash":
            raise Stop(f"stopped at {pieces}")

    with pytest.raises(Stop, match="stopped at"):
        konane.generate("4x4", output=tmp_path / "stopped.kbt", progress=progress)
    # No table; the work directory keeps the finished steps, and a rerun resumes from them.
    assert [p.name for p in tmp_path.iterdir()] == ["stopped.kbt.work"]
    report = konane.generate("4x4", output=tmp_path / "stopped.kbt")
    assert report.classes == 975
    assert [p.name for p in tmp_path.iterdir()] == ["stopped.kbt"]


def test_ctrl_c_stops_generation_and_leaves_no_table(tmp_path):
    # interrupt_main() is what Ctrl-C does: a pending SIGINT for the main thread. Whichever
    # thread reports progress, the KeyboardInterrupt comes out of generate(). A shell starts a
    # background job with SIGINT ignored, and Python then leaves it so (interrupt_main() does
    # nothing): the test puts Python's own handler back, as in a foreground process.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _generate_and_interrupt(tmp_path)
    finally:
        signal.signal(signal.SIGINT, previous)


def _generate_and_interrupt(tmp_path):
    interrupted = []

    def progress(phase, pieces, done, total):
        if not interrupted:
            interrupted.append(phase)
            _thread.interrupt_main()

    with pytest.raises(KeyboardInterrupt):
        konane.generate("5x5", output=tmp_path / "interrupted.kbt", progress=progress)
    assert interrupted
    # No table; only the work directory a rerun resumes from.
    assert [p.name for p in tmp_path.iterdir()] == ["interrupted.kbt.work"]


# ------------------------------------------------------------------------------------------------
# Documentation


def test_every_public_name_has_a_docstring():
    public = [n for n in dir(konane) if not n.startswith("_")]
    assert {"Position", "Tablebase", "generate", "solve", "outcome", "Value", "NotStored",
            "FormatError", "IoError", "SearchLimit"} <= set(public)
    for name in public:
        obj = getattr(konane, name)
        if isinstance(obj, str):
            continue
        assert obj.__doc__ and len(obj.__doc__) > 40, name
    for cls in (konane.Position, konane.Tablebase):
        for name, member in vars(cls).items():
            if not name.startswith("_"):
                assert member.__doc__, f"{cls.__name__}.{name}"
