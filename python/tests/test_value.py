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
