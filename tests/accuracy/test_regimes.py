"""Regimes: where two forms of one function win on different ranges of a variable (or of a
subexpression of several), one where(...) expression takes each on its own range, and equals
the function everywhere."""

from __future__ import annotations

import sys

import mpmath
import numpy as np

import eqsat
from eqsat.accuracy.measure import Sample, mean_bits, sample, sample_at
from eqsat.accuracy.regimes import (
    Regimes,
    best_regimes,
    edges,
    overflowing_terms,
    ranked_regimes,
    ratios,
    refine,
    split_terms,
)
from tests.conftest import assert_equivalent

DOMAIN = {"x": (-1e3, 1e3), "eps": (1e-6, 1e-3)}
SUBTRACTED = eqsat.parse("x - sqrt(x^2 - eps)")  # cancels for large positive x
RATIONALISED = eqsat.parse("eps/(x + sqrt(x^2 - eps))")  # cancels for large negative x


def test_two_forms_that_win_on_either_side_of_zero_are_split_there() -> None:
    points = sample(SUBTRACTED, DOMAIN, 256, seed=0)
    found = best_regimes([SUBTRACTED, RATIONALISED], points)
    assert found is not None and found.on.name == "x"
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


# sqrt(t^2 + 1) - t cancels for large positive t, its conjugate 1/(sqrt(t^2 + 1) + t) for large
# negative t: with t = x*y, neither x nor y alone says which side a point is on
PRODUCT = eqsat.parse("sqrt((x*y)^2 + 1) - x*y")
CONJUGATE = eqsat.parse("1/(sqrt((x*y)^2 + 1) + x*y)")


def _signed_magnitudes(seed: int) -> list[dict[str, float]]:
    """Points with x and y of either sign and magnitudes from 1 to 1e4."""
    rng = np.random.default_rng(seed)
    values = rng.choice([-1.0, 1.0], (2, 256)) * 10 ** rng.uniform(0, 4, (2, 256))
    return [{"x": float(x), "y": float(y)} for x, y in values.T]


def test_a_split_on_a_subexpression_of_two_variables_where_neither_alone_decides() -> None:
    points = sample_at(PRODUCT, _signed_magnitudes(0), "float64")
    assert points is not None
    found = best_regimes([PRODUCT, CONJUGATE], points, original=PRODUCT)
    assert found is not None and found.on == eqsat.parse("x*y")
    alone = min(mean_bits(PRODUCT, points), mean_bits(CONJUGATE, points))
    assert alone > 10 and found.bits < 1
    on_one_variable = best_regimes([PRODUCT, CONJUGATE], points)  # (no original: no terms)
    assert on_one_variable is not None and on_one_variable.bits > alone - 5
    fresh = sample_at(PRODUCT, _signed_magnitudes(1), "float64")
    assert fresh is not None and mean_bits(found.expr(), fresh) < 1
    assert refine(found, PRODUCT, points) == found  # no one variable moves its threshold
    # the original keeps what the sample does not give the other form: its threshold is
    # within 1/32 of the first value the conjugate takes
    taken = points.values["x"] * points.values["y"]
    first = taken[taken >= found.thresholds[0]].min()
    assert found.forms == (PRODUCT, CONJUGATE) and first * 31 / 32 <= found.thresholds[0]
    assert edges(found.expr()) == {eqsat.parse("x*y"): list(found.thresholds)}


def test_every_split_that_pays_is_offered_the_most_accurate_first() -> None:
    points = sample_at(PRODUCT, _signed_magnitudes(0), "float64")
    assert points is not None
    ranked = ranked_regimes([PRODUCT, CONJUGATE], points, original=PRODUCT)
    assert ranked[0] == best_regimes([PRODUCT, CONJUGATE], points, original=PRODUCT)
    assert [r.bits for r in ranked] == sorted(r.bits for r in ranked)
    assert "x*y" in {str(r.on) for r in ranked} and len(ranked) > 1


def test_a_term_that_overflows_at_some_points_is_split_on_too() -> None:
    """x*y overflows where |y| is large and y/z underflows where it is small: x*y/z on one
    side and x*(y/z) on the other, split on x*y, +-inf at half the points, or on |x*y|."""
    rng = np.random.default_rng(0)
    rows = [{"x": rng.choice([-1, 1]) * 10.0 ** rng.uniform(250, 300), "z": 1e300,
             "y": rng.choice([-1, 1]) * 10.0 ** (rng.uniform(100, 200) if k % 2 else
                                                  rng.uniform(-250, -200))}
            for k in range(128)]
    original = eqsat.parse("x*y/z")
    points = sample_at(original, rows, "float64")
    assert points is not None
    ranked = ranked_regimes([original, eqsat.parse("x*(y/z)")], points, original=original)
    for on in ("x*y", "abs(x*y)"):
        split = [r for r in ranked if r.on == eqsat.parse(on)]
        assert split and split[0].bits < 1 < mean_bits(original, points)
    # the other form only where x*y overflowed: between a finite value and inf, the original
    # keeps every finite one (there the two tie, and ties go to the original)
    assert next(r for r in ranked if str(r.on) == "abs(x*y)").thresholds == (sys.float_info.max,)


def test_a_split_is_kept_off_the_points_where_its_forms_are_wrong() -> None:
    """The first branch ends below them, the last starts above them, a middle one takes the
    fallback, as does the range a branch gives up; neighbours with one form are joined."""
    left, middle, right, fallback = (eqsat.parse(t) for t in ("x + 1", "x + 2", "x + 3", "x"))
    split = Regimes(eqsat.parse("x"), (-1.0, 1.0), (left, middle, right), 0.0)
    wrong = Sample({"x": np.array([-5.0, 0.5, 7.0])}, np.zeros(3), "float64")
    kept = split.without(wrong, fallback)
    assert kept is not None and kept.forms == (left, fallback, right)
    assert -5.2 < kept.thresholds[0] <= -5 and 7 < kept.thresholds[1] < 7.3
    values = eqsat.evaluate(kept.expr(), x=np.array([-9.0, -5.0, 0.5, 3.0, 7.0, 9.0]))
    assert list(values) == [-8.0, -5.0, 0.5, 3.0, 7.0, 12.0]
    # wrong beyond every finite value on one side: that branch gives up all of it
    overflowed = Sample({"x": np.array([-np.inf])}, np.zeros(1), "float64")
    assert split.without(overflowed, fallback) == \
        Regimes(split.on, (-1.0, 1.0), (fallback, middle, right), 0.0)
    assert Regimes(split.on, (0.0,), (left, fallback), 0.0).without(
        Sample({"x": np.array([-np.inf])}, np.zeros(1), "float64"), fallback) is None
    # ... as it does where the largest float is wrong (no float lies above it)
    largest = Sample({"x": np.array([sys.float_info.max])}, np.zeros(1), "float64")
    assert split.without(largest, fallback) == \
        Regimes(split.on, (-1.0, 1.0), (left, middle, fallback), 0.0)


def test_an_operation_that_overflows_at_some_points_is_split_on_though_its_variables_recur(
        ) -> None:
    """x + y*(z - x)/t: y*(z - x) overflows at half the points, and x occurs outside it.
    The split gives x + (z - x)*(y/t) the points where it overflowed, and only those: at the
    others y/t is a subnormal, and the original is right."""
    original = eqsat.parse("x + y*(z - x)/t")
    rng = np.random.default_rng(0)
    scales = [{"x": 1e-30, "z": 1e300, "y": 1e-20, "t": 1e300},  # y/t underflows
              {"x": 1.0, "z": 1e100, "y": 1e300, "t": 1e200}]  # y*(z - x) overflows
    rows = [{name: scale * float(rng.uniform(1, 2)) for name, scale in scales[k % 2].items()}
            for k in range(128)]
    points = sample_at(original, rows, "float64")
    assert points is not None
    assert overflowing_terms(original, points) == [eqsat.parse("y*(z - x)")]
    assert split_terms(original) == []
    other = eqsat.parse("x + (z - x)*(y/t)")
    ranked = ranked_regimes([original, other], points, original=original)
    found = next(r for r in ranked if r.on == eqsat.parse("abs(y*(z - x))"))
    assert found.thresholds == (sys.float_info.max,) and found.forms == (original, other)
    assert found.past_overflow
    assert mean_bits(found.expr(), points) < 1 < mean_bits(original, points)


def test_split_terms_are_the_subexpressions_whose_variables_occur_nowhere_else() -> None:
    assert split_terms(PRODUCT) == [eqsat.parse("x*y")]
    assert split_terms(eqsat.parse("exp(x*y) - x")) == []  # x occurs outside x*y
    assert split_terms(eqsat.parse("log(x + y) * z")) == [eqsat.parse("x + y")]


def test_ratios_are_of_each_two_variables_of_a_small_input() -> None:
    assert ratios(eqsat.parse("a*b + c")) == [eqsat.parse(t) for t in ("b/a", "c/a", "c/b")]
    assert ratios(eqsat.parse("a + b + c + d + e")) == []  # (more than MOST_RATIO_VARIABLES)


def test_a_split_on_the_ratio_of_two_variables() -> None:
    """3*x*y/(x + 2*y) over every float: 3*x*y overflows where the quotient does not, and
    3*y*(x/(x + 2*y)) is right there; which form is, depends on how large y is beside x, not
    on either alone (5.6 bits without a split on y/x)."""
    result = eqsat.stabilize_report("3*x*y/(x + 2*y)", limits=eqsat.Limits(seconds=60))
    assert result.bits_before > 10 and result.bits_after < 1
    assert eqsat.parse("y/x") in edges(result.expr)
    assert_equivalent(result.original, result.expr)


def test_a_split_next_to_a_value_that_overflowed_is_a_float() -> None:
    """exp(acosh(y)) overflows (inf) for y past about 1e308: a split on it between a finite
    value and inf was inf, and where(exp(acosh(y)) < inf, ...) could not be written (found
    by the semantic fuzz test, seed 32, once acosh had a second form)."""
    result = eqsat.stabilize("exp(acosh(y))", domain="y > 0")
    for threshold in edges(result).values():
        assert all(np.isfinite(t) for t in threshold)
    assert_equivalent(eqsat.parse("exp(acosh(y))"), result, digits=100)


def test_a_split_at_the_largest_float_keeps_it_below() -> None:
    """A split between the values that overflowed and the rest: the largest float did not
    overflow (2*x*y at x = -0.994, y = 9.04e307 is exactly it), and takes the branch below."""
    below, past = eqsat.parse("x*y"), eqsat.parse("y*x")
    split = Regimes(eqsat.parse("abs(x)"), (sys.float_info.max,), (below, past), 0.0)
    assert str(split.expr()) == "where(abs(x) <= 1.7976931348623157e308, x*y, y*x)"
    values = np.array([1.0, sys.float_info.max, np.inf])
    assert list(split.branch_at(values)) == [0, 0, 1]
    assert edges(split.expr()) == {eqsat.parse("x"): [-sys.float_info.max, sys.float_info.max]}
