"""konane.value() and Position.value(): combinatorial game values (cgt/, docs/cgt.md)."""
from fractions import Fraction

import pytest

import konane


def test_published_values():
    # cgt-tools' `..ox` is `xo..` here (the mirror image): Black's piece jumps, value 1.
    assert konane.value("xo..")["value"] == "1"
    assert konane.value(".ox.")["value"] == "*"
    v = konane.value(".ox./o..x/.... b")
    assert v["value"] == "{1|-1}"
    assert v["outcome"] == "N" and v["outcome_name"] == "first"
    assert v["mean"] == 0 and v["temperature"] == 1
    assert not v["number"]


def test_position_value_and_ascii():
    p = konane.Position("......../..oxo.../.....o../.....x../........ w")
    v = p.value()
    assert v["value"] == "1/2" and v["number"] and v["mean"] == Fraction(1, 2)
    assert v["outcome_name"] == "black"
    # A number plus up and star: Unicode arrows by default, ^ and v with ascii=True.
    w = konane.value(".ox.x/.xo../..x../..... b")
    assert w == konane.Position(".ox.x/.xo../..x../..... b").value()
    assert "^" not in w["value"]
    assert konane.value(".ox.x/.xo../..x../.....", ascii=True)["value"].replace("^", "\u2191").replace(
        "v", "\u2193") == w["value"]


def test_regions_sum_and_limit():
    v = konane.value("xo.....o/o......x/......../...x..../...o..../......../x......o/oxo...ox")
    assert len(v["regions"]) == 5
    assert v["value"] == "1*"
    with pytest.raises(konane.SearchLimit, match="not computed within 2 positions"):
        konane.value(".oxoxoxoxoxo.", max_positions=2)
    with pytest.raises(ValueError):
        konane.value("xx..")


# 8x8 after the opening d5 e5: about 30 s to reach the default 2,000,000 positions on a CPU of
# 2026, and no limit with max_positions=0 (the memory budget's then: the CLI's default).
BIG = konane.Position.start("8x8").play("d5 e5")


def test_ctrl_c_stops_a_value(interrupted_after):
    # Before, the signal took effect when the call ended (28.5 s later).
    assert interrupted_after(lambda: konane.value(BIG)) < 1.5
    assert interrupted_after(lambda: BIG.value(max_positions=0)) < 1.5
    # The module is usable after the interruption.
    assert konane.value("xo..")["value"] == "1"


def test_ctrl_c_stops_a_negamax_solve(interrupted_after):
    assert interrupted_after(lambda: konane.solve(BIG, max_positions=0)) < 1.5
    assert konane.solve(".oxox. b").value.depth == 2


def test_value_limits_are_the_clis():
    # max_positions as --max-nodes: 0 to 2**40, 0 meaning no limit but the memory budget.
    for bad in (-1, 2**40 + 1):
        with pytest.raises(ValueError, match="max_positions: expected 0"):
            konane.value("xo..", max_positions=bad)
    assert konane.value("xo..", max_positions=0)["value"] == "1"
    assert konane.value("xo..", max_positions=2**40)["value"] == "1"
    with pytest.raises(konane.SearchLimit, match=r"within 2 positions \(max_positions=\)"):
        konane.value(".oxoxoxoxoxo.", max_positions=2)
    # memory as --memory: about 2048 bytes a position; too small for one is a ValueError.
    with pytest.raises(ValueError, match="too small"):
        konane.value("xo..", memory=2047)
    with pytest.raises(ValueError, match="memory: expected"):
        konane.value("xo..", memory="lots")
    assert konane.value("xo..", memory=2048)["value"] == "1"
    # The memory budget binds when it allows fewer positions than max_positions (or 0).
    for limit in (0, 1_000_000):
        with pytest.raises(konane.SearchLimit,
                           match=r"within 512 positions \(the memory budget 1 MiB"):
            BIG.value(max_positions=limit, memory="1M")
