"""konane.Engine (python/bind_engine.cpp): the engine's move, a move played, a game analysed,
and the errors of bad arguments."""
import subprocess
import sys
import threading
import time

import pytest

import konane

FIELDS = {"position", "move", "child", "source", "describe", "proven", "depth", "score", "pv",
          "nodes", "proof_nodes", "seconds", "value"}


def test_bestmove_on_6x6_by_nodes_is_a_legal_move_and_reproducible():
    start = konane.Position.start("6x6")
    p = start.play("c4 c3")  # a central removal and White's reply: three jumps from here
    assert len(p.moves()) > 1
    d = konane.Engine("6x6", nodes=20_000).bestmove(p)
    assert set(d) == FIELDS
    assert d["move"] in p.moves()
    assert d["child"] == str(p.play(d["move"]))
    assert d["position"] == str(p)
    assert d["source"] in {"proof", "search"}
    assert d["pv"][0] == d["move"]
    assert 0 < d["nodes"] <= 22_000  # the budget, give or take the last checks
    # nodes is reproducible: a second engine decides the same.
    again = konane.Engine("6x6", nodes=20_000).bestmove(str(p))
    assert (again["move"], again["score"], again["depth"]) == (d["move"], d["score"], d["depth"])


def test_bestmove_on_the_full_board_is_a_removal():
    d = konane.Engine((6, 6), depth=2).bestmove(konane.Position.start("6x6"))
    assert d["move"] in konane.Position.start("6x6").moves()


def test_bestmove_with_a_table_is_the_tables_perfect_move(tables, tb4):
    for table in (tb4, tables("4x4")[0], str(tables("4x4")[0])):
        eng = konane.Engine("4x4", table=table, nodes=1_000)
        p = konane.Position.start("4x4").play("a4 b4")
        d = eng.bestmove(p)
        assert d["source"] == "table"
        best = tb4.best_move(p)
        values = {mv.move: mv.value for mv in tb4.moves(p)}
        assert values[d["move"]] == best.value
        assert d["proven"] == ("win" if best.value.win else "loss")
        assert d["depth"] == tb4.value(p).depth


def test_bestmove_is_none_when_the_side_to_move_has_no_move():
    lone = konane.Position.from_squares("4x4", black=["b1"], to_move="black")
    assert lone.game_over
    assert konane.Engine("4x4", nodes=100).bestmove(lone) is None


def test_play_checks_the_move():
    eng = konane.Engine("6x6", depth=1)
    p = konane.Position.start("6x6").play("c4 c3")
    move = p.moves()[0]
    assert eng.play(p, move) == str(p.play(move))
    with pytest.raises(ValueError, match="a1-a5"):
        eng.play(p, "a1-a5")
    with pytest.raises(ValueError, match="one move"):
        eng.play(p, f"{move} {move}")


def test_analyse_compares_each_move_with_the_engines(tb4):
    eng = konane.Engine("4x4", table=tb4, nodes=1_000)
    record = "a4 b4 a2-a4"
    plies = eng.analyse(record, nodes=500)
    assert [ply["played"] for ply in plies] == record.split()
    assert [ply["ply"] for ply in plies] == [1, 2, 3]
    position = konane.Position.start("4x4")
    for ply in plies:
        assert ply["position"] == str(position)
        assert ply["engine"] in position.moves()
        assert ply["agrees"] == (ply["engine"] == ply["played"])
        assert ply["describe"]
        position = position.play(ply["played"])
    with pytest.raises(ValueError, match="d4-a4"):
        eng.analyse("a4 b4 d4-a4")
    # The same game as BrainKing shows games: the same plies.
    brainking = eng.analyse("1. A4 B4 2. A2-A4", nodes=500)
    assert [ply["played"] for ply in brainking] == record.split()


def test_bad_arguments_raise_value_error_naming_them(tb4):
    with pytest.raises(ValueError, match="64"):
        konane.Engine("9x9")
    with pytest.raises(ValueError, match="time"):
        konane.Engine("6x6", time=0)
    with pytest.raises(ValueError, match="time"):
        konane.Engine("6x6", time=float("nan"))
    with pytest.raises(ValueError, match="nodes"):
        konane.Engine("6x6", nodes=0)
    with pytest.raises(ValueError, match="depth"):
        konane.Engine("6x6", depth=500)
    with pytest.raises(ValueError, match="memory"):
        konane.Engine("6x6", memory="lots")
    with pytest.raises(ValueError, match="memory"):
        konane.Engine("6x6", memory=1000)
    with pytest.raises(ValueError, match="ruleset|rules"):
        konane.Engine("6x6", rules="chess")
    with pytest.raises(ValueError, match="4x4.*6x6|6x6.*4x4"):
        konane.Engine("6x6", table=tb4)
    with pytest.raises(ValueError, match="center"):
        konane.Engine("4x4", table=tb4, rules="center")
    with pytest.raises(TypeError, match="table"):
        konane.Engine("4x4", table=42)
    eng = konane.Engine("6x6", depth=1)
    with pytest.raises(ValueError, match="4x4.*6x6|6x6.*4x4"):
        eng.bestmove(konane.Position.start("4x4"))
    with pytest.raises(ValueError):
        eng.bestmove("xoxo/oxox")
    with pytest.raises(ValueError, match="nodes"):
        eng.bestmove(konane.Position.start("6x6"), nodes=-5)
    with pytest.raises(TypeError, match="position"):
        eng.bestmove(42)


def test_the_search_runs_without_the_gil():
    eng = konane.Engine("8x8", time=1.0)
    p = konane.Position.start("8x8").play("d5 e5")
    done = []

    def search():
        d = eng.bestmove(p)
        done.append((d, time.monotonic()))

    t = threading.Thread(target=search)
    t.start()
    time.sleep(0.1)  # the worker is in the search by now
    spins, began = 0, time.monotonic()
    while time.monotonic() - began < 0.3:
        spins += 1
    loop_end = time.monotonic()
    t.join()
    d, searched_until = done[0]
    assert d["move"] in p.moves()
    # This thread ran its loop while the search went on (with the GIL held it would have waited
    # for the search to end).
    assert spins > 0 and loop_end < searched_until


def test_repr_and_properties():
    eng = konane.Engine("5x6", nodes=1_000, rules="any")
    assert (eng.board, eng.rules) == ("5x6", "any")
    assert repr(eng) == "konane.Engine('5x6', nodes=1000, rules='any')"


def test_ctrl_c_stops_the_search(interrupted_after):
    eng = konane.Engine("8x8", time=60)
    p = konane.Position.start("8x8").play("d5 e5")
    assert interrupted_after(lambda: eng.bestmove(p)) < 9.5  # 10 s from the call's start
    # The engine is usable after the interruption.
    assert eng.bestmove(p, depth=2)["move"] in p.moves()


def test_engine_new_without_init_raises_value_error_in_a_child_process():
    code = """
import konane
e = konane.Engine.__new__(konane.Engine)
for call in (lambda: e.bestmove("6x6"), lambda: e.play("6x6", "a1"), lambda: e.analyse(""),
             e.clear, lambda: e.board, lambda: e.rules, lambda: repr(e)):
    try:
        call()
    except ValueError as error:
        assert "never initialised" in str(error), error
    else:
        raise SystemExit("no error")
print("ok")
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip() == "ok"
