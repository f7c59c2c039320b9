"""Points inside each branch of a split: the split term's value in the branch's range."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

import eqsat
from eqsat.accuracy.measure import bits_at, where_they_differ, where_they_differ_at
from eqsat.accuracy.regimes import Regimes, wrong_where
from eqsat.accuracy.within import branch_points
from eqsat.term.numeric import evaluate
from eqsat.term.sampling import extreme_bands, magnitude_floats

EVERY = (-math.inf, math.inf)
START = eqsat.parse("x + y*z/a")
# a split on |y*z| that gives x + y*(z/a) the points where y*z underflows: NaN at y = 0 where
# z/a overflows (z huge, a tiny), the input right there; draws over every float meet the
# first branch's range (7 floats of y*z) seldom, such a point never
SPLIT = Regimes(eqsat.parse("abs(y*z)"), (3e-323, 1e300),
                (eqsat.parse("x + y*(z/a)"), START, eqsat.parse("x + z*(y/a)")), 0.0)


def test_each_branch_gets_points_with_the_split_term_in_its_range() -> None:
    points = branch_points(SPLIT, dict.fromkeys("axyz", EVERY), "float64", 0, 512)
    with np.errstate(all="ignore"):
        held = np.abs(points["y"] * points["z"])
    assert set(points) == set("axyz") and len(held) == len(points["a"])
    # (some are dropped: y*z rounded out of the range, or past the largest float)
    assert np.sum(held < 3e-323) > 250
    assert np.sum((held >= 3e-323) & (held < 1e300)) > 250
    assert np.sum(held >= 1e300) > 250


def test_a_branch_wrong_in_a_corner_of_its_range_is_found_there() -> None:
    branched = SPLIT.expr()
    drawn = branch_points(SPLIT, dict.fromkeys("axyz", EVERY), "float64", 0, 4096)
    found = where_they_differ_at(START, branched, drawn, None, "float64", 20)
    assert found is not None
    with np.errstate(all="ignore"):
        assert np.any(wrong_where(bits_at(branched, found), bits_at(START, found)))


def test_a_variable_range_bounds_the_split_on_it() -> None:
    split = Regimes(eqsat.parse("x"), (0.5,), (eqsat.parse("x"), eqsat.parse("x + 0")), 0.0)
    points = branch_points(split, {"x": (0.0, 1.0), "y": EVERY}, "float64", 1, 256)
    assert np.all((points["x"] >= 0) & (points["x"] <= 1))
    assert np.sum(points["x"] < 0.5) == 256 and np.sum(points["x"] >= 0.5) == 256


def test_no_points_where_no_variable_can_be_solved_for() -> None:
    split = Regimes(eqsat.parse("sin(x*y)"), (0.0,), (eqsat.parse("x"), eqsat.parse("y")), 0.0)
    assert branch_points(split, {"x": EVERY, "y": EVERY}, "float64", 0, 64) == {}
    twice = Regimes(eqsat.parse("x*x"), (1.0,), (eqsat.parse("x"), eqsat.parse("y")), 0.0)
    assert branch_points(twice, {"x": EVERY}, "float64", 0, 64) == {}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_extremes_are_moderate_tiny_huge_or_near_the_edges_and_finite(dtype: str) -> None:
    bands = extreme_bands(dtype)
    drawn = magnitude_floats(random.Random(0), -math.inf, math.inf, 5000, dtype, bands)
    assert drawn is not None and np.all(np.isfinite(drawn))
    magnitudes = np.abs(drawn)
    for low, high in bands:
        # each band gets a fifth of the draws at least (the edges' overlap the ends'), of
        # either sign (subnormals round to their floats)
        assert np.sum((magnitudes >= low * 0.99) & (magnitudes <= high)) > 800
    largest = float(np.finfo(dtype).max)
    assert 100 < np.sum(magnitudes > largest / 2) < 400  # (where 2*c overflows: 1 in 27)
    assert magnitude_floats(random.Random(0), 2.0, 3.0, 4, dtype, bands[1:]) is None


def test_drawn_at_extremes_finds_an_overflow_that_draws_over_every_float_seldom_meet() -> None:
    """z*(y/a) overflows where y/a does (y moderate, a tiny) and z is tiny enough that y*z/a
    is finite: at one draw in ten thousand over every float."""
    form = eqsat.parse("x + z*(y/a)")
    found = where_they_differ(START, form, None, "float64", 0, 20, drawn_as="extremes")
    assert found is not None
    with np.errstate(all="ignore"):
        assert np.any(np.isinf(evaluate(form, found.values)) & np.isfinite(found.truth))
