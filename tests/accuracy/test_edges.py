"""Points about where a subterm of a form passes the edge of the floats, each variable swept."""

from __future__ import annotations

import math

import numpy as np

import eqsat
from eqsat.accuracy.edges import edge_points
from eqsat.accuracy.measure import bits_at, where_they_differ, where_they_differ_at
from eqsat.accuracy.regimes import wrong_where

EVERY = (-math.inf, math.inf)


def test_a_form_wrong_in_a_narrow_band_before_an_overflow_is_found_there() -> None:
    """1/(2*exp(2*c)) is 0 for c in (354.7, 354.9), where 2*exp(2*c) overflows and the input
    0.5/exp(2*c) is a subnormal: draws over every float never land there."""
    start, form = eqsat.parse("0.5/exp(2*c)"), eqsat.parse("1/(2*exp(2*c))")
    assert all(where_they_differ(start, form, None, "float64", seed, 20, drawn_as=how) is None
               for seed in (3, 4) for how in ("floats", "moderate", "extremes"))
    drawn = edge_points(start, form, {"c": EVERY}, "float64", 0, 1024)
    assert np.all(np.isfinite(drawn["c"])) and np.any(np.abs(drawn["c"] - 354.8) < 0.1)
    found = where_they_differ_at(start, form, drawn, None, "float64", 20)
    assert found is not None
    with np.errstate(all="ignore"):
        assert np.any(wrong_where(bits_at(form, found), bits_at(start, found)))


def test_edges_of_each_subterm_and_none_where_nothing_passes_them() -> None:
    both = eqsat.parse("exp(x) + x*x")
    drawn = edge_points(both, both, {"x": EVERY}, "float64", 0, 512)
    near = [709.78, -708.4, -1.34e154]  # exp over/underflows, x*x overflows
    assert all(np.any(np.abs(drawn["x"] / edge - 1) < 1 / 32) for edge in near)
    # (where x*x overflows at 1.34e154 exp(x) has: the input is inf on both sides)
    assert not np.any(np.abs(drawn["x"] / 1.34e154 - 1) < 1 / 32)
    cos = eqsat.parse("cos(x) + 1")
    assert edge_points(cos, cos, {"x": (-1.0, 1.0)}, "float64", 0, 64) == {}
    exp = eqsat.parse("exp(x)")
    inside = edge_points(exp, exp, {"x": (0.0, 710.0)}, "float64", 0, 256)["x"]
    assert len(inside) and np.all((inside >= 0) & (inside <= 710))


def test_one_variable_swept_while_the_others_are_held_finds_a_corner_near_the_largest_float(
        ) -> None:
    """a - e*(e*a) overflows where a is within a factor e of the largest float, and the input
    a*(1 - e*e) is finite there for 1 < |e| < 1.6 (a = -1.6e308, e = -1.43): draws with
    stabilize's seeds seldom meet it; sweeping a from points where e is moderate does."""
    start, form = eqsat.parse("a*(1 - e*e)"), eqsat.parse("a - e*(e*a)")
    for seed in range(4):
        drawn = edge_points(start, form, {"a": EVERY, "e": EVERY}, "float64", seed, 1024)
        found = where_they_differ_at(start, form, drawn, None, "float64", 20)
        assert found is not None
        with np.errstate(all="ignore"):
            wrong = wrong_where(bits_at(form, found), bits_at(start, found))
        assert np.any(wrong & (np.abs(found.values["a"]) > 1e307)), seed


def test_a_branch_of_a_split_is_swept_past_its_condition() -> None:
    """x/z + (1 - x/z)*y overflows where x is near the largest float and |z| < 1 while the
    input is finite (y near 1): the edges of a split's branches are looked for too, and a
    grid point where the form is inf and the input is not comes first."""
    start = eqsat.parse("(x + y*(z - x))/z")
    form = eqsat.parse("where(y < 2.1, x/z + (1 - x/z)*y, (x + y*(z - x))/z)")
    ranges = {"x": EVERY, "y": EVERY, "z": EVERY}
    found = [where_they_differ_at(start, form, edge_points(start, form, ranges, "float64",
                                                           seed, 1024), None, "float64", 20)
             for seed in range(4)]
    with np.errstate(all="ignore"):
        assert sum(np.any(wrong_where(bits_at(form, f), bits_at(start, f)))
                   for f in found if f is not None) >= 2


def test_a_subterm_that_underflows_to_zero_has_an_edge_too() -> None:
    """4*y^2 is 0 where (4*y)*y is the least subnormal (|y| about 3e-162): 2*x^2/(4*y^2 +
    x^2) - 1 is NaN there for a tiny x, where the input is -1."""
    start = eqsat.parse("(x*x - (y*4)*y)/(x*x + (y*4)*y)")
    form = eqsat.parse("2*x^2/(4*y^2 + x^2) - 1")
    found = where_they_differ_at(start, form, edge_points(start, form, {"x": EVERY, "y": EVERY},
                                                          "float64", 0, 1024),
                                 None, "float64", 20)
    assert found is not None
    with np.errstate(all="ignore"):
        wrong = wrong_where(bits_at(form, found), bits_at(start, found))
    assert np.any(wrong & (np.abs(found.values["y"]) < 1e-161))
