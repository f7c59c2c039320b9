"""Regimes: where two forms of one function win on different ranges of a variable, one
where(...) expression takes each on its own range, and equals the function everywhere."""

from __future__ import annotations

import mpmath
import numpy as np

import eqsat
from eqsat.accuracy.measure import mean_bits, sample
from eqsat.accuracy.regimes import best_regimes, refine

DOMAIN = {"x": (-1e3, 1e3), "eps": (1e-6, 1e-3)}
SUBTRACTED = eqsat.parse("x - sqrt(x^2 - eps)")  # cancels for large positive x
RATIONALISED = eqsat.parse("eps/(x + sqrt(x^2 - eps))")  # cancels for large negative x


def test_two_forms_that_win_on_either_side_of_zero_are_split_there() -> None:
    points = sample(SUBTRACTED, DOMAIN, 256, seed=0)
    found = best_regimes([SUBTRACTED, RATIONALISED], points)
    assert found is not None and found.variable.name == "x"
    assert set(found.forms) == {SUBTRACTED, RATIONALISED} and len(found.thresholds) == 1
    assert abs(found.thresholds[0]) < 50  # between the negative and the positive samples
    branched = found.expr()
    alone = min(mean_bits(SUBTRACTED, points), mean_bits(RATIONALISED, points))
    assert mean_bits(branched, points) < alone - 5  # each form where it is accurate
    fresh = sample(SUBTRACTED, DOMAIN, 256, seed=1)  # and on points it was not chosen on
    assert mean_bits(branched, fresh) < min(mean_bits(SUBTRACTED, fresh),
                                           mean_bits(RATIONALISED, fresh)) - 5


def test_the_branched_form_equals_the_function_at_every_point() -> None:
    points = sample(SUBTRACTED, DOMAIN, 256, seed=0)
    found = best_regimes([SUBTRACTED, RATIONALISED], points)
    assert found is not None
    x = np.linspace(-1e3, 1e3, 100)  # (not 0, where x^2 - eps < 0)
    got = eqsat.evaluate(found.expr(), x=x, eps=np.full_like(x, 1e-4))
    mpmath.mp.dps = 50
    exact = [float(mpmath.mpf(v) - mpmath.sqrt(mpmath.mpf(v) ** 2 - mpmath.mpf("1e-4")))
             for v in x]
    np.testing.assert_allclose(got, exact, rtol=1e-12)  # each branch accurate on its side


def test_one_form_that_wins_everywhere_needs_no_branches() -> None:
    points = sample(eqsat.parse("log(1 + x)"), {"x": (-0.5, 1.0)}, 256, seed=0)
    assert best_regimes([eqsat.parse("log1p(x)"), eqsat.parse("log(1 + x)")], points) is None


def test_a_threshold_is_bisected_between_its_two_samples() -> None:
    points = sample(SUBTRACTED, DOMAIN, 256, seed=0)
    found = best_regimes([SUBTRACTED, RATIONALISED], points)
    assert found is not None
    moved = refine(found, SUBTRACTED, points)
    x = points.values["x"]
    below = x[x < found.thresholds[0]].max()
    above = x[x >= found.thresholds[0]].min()
    assert below < moved.thresholds[0] <= above  # still between the same two samples
    assert mean_bits(moved.expr(), points) <= mean_bits(found.expr(), points)
    # at the new threshold the right form is at least as accurate as the left one
    edge = {"x": moved.thresholds[0], "eps": 1e-6}
    exact = mpmath.mpf(edge["x"]) - mpmath.sqrt(mpmath.mpf(edge["x"]) ** 2 -
                                                 mpmath.mpf(edge["eps"]))
    right = eqsat.evaluate(RATIONALISED, x=np.float64(edge["x"]), eps=np.float64(1e-6))
    assert abs(float(right) - float(exact)) <= 1e-12 * abs(float(exact))
