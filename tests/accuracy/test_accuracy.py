"""Bits of error (Herbie's measure): exact on simple cases, and equal to an independent
computation with mpmath and the float bit patterns."""

from __future__ import annotations

import math
import struct
import sys
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import eqsat
from eqsat.accuracy.measure import (
    bits_at,
    domain_bounds,
    sample,
    shortest_decimal,
    true_value,
    ulp_bits,
    where_they_differ,
)


def test_exact_expressions_have_no_error() -> None:
    assert eqsat.error_bits("x + 0") == 0.0
    assert eqsat.error_bits("x * y", {"x": (1, 2), "y": (1, 2)}) <= 0.5  # one rounding
    assert eqsat.error_bits("x - x") == 0.0


def test_cancellation_costs_many_bits() -> None:
    assert eqsat.error_bits("(1 + x) - 1", {"x": (1e-13, 1e-11)}) > 30
    assert eqsat.error_bits("x", {"x": (1e-13, 1e-11)}) == 0.0
    assert eqsat.error_bits("exp(x) - 1", "abs(x) < 1e-100") > 50
    assert eqsat.error_bits("expm1(x)", "abs(x) < 1e-100") < 0.5


def _ordinal(value: float) -> int:
    bits = struct.unpack("<q", struct.pack("<d", value))[0]
    return bits if bits >= 0 else -(bits & 0x7FFF_FFFF_FFFF_FFFF)


def test_agrees_with_an_independent_mpmath_computation() -> None:
    expr = eqsat.parse("sqrt(x + 1) - sqrt(x)")
    points = sample(expr, {"x": (1, 1e12)}, points=64, seed=3)
    ours = bits_at(expr, points)
    for x, bits in zip(points.values["x"], ours, strict=True):
        with mpmath.workdps(80):
            exact = mpmath.sqrt(mpmath.mpf(x) + 1) - mpmath.sqrt(mpmath.mpf(x))
        truth = float(exact)
        computed = math.sqrt(float(x) + 1) - math.sqrt(float(x))
        expected = math.log2(1 + abs(_ordinal(computed) - _ordinal(truth)))
        assert bits == pytest.approx(expected)


def test_ulp_distance_counts_floats_and_marks_non_finite_results() -> None:
    one = np.array([1.0, 1.0, 1.0])
    computed = np.array([1.0, np.nextafter(1.0, 2.0), np.inf])
    assert list(ulp_bits(computed, one)) == [0.0, 1.0, 64.0]
    assert list(ulp_bits(np.array([-0.0]), np.array([0.0]))) == [0.0]
    # across zero: the floats on both sides (the count passes 2^63 between the largest two)
    tiny, largest = 5e-324, sys.float_info.max
    across = ulp_bits(np.array([-tiny, -largest, -1.0]), np.array([tiny, largest, 1.0]))
    assert across[0] == math.log2(3)
    assert across[1] == pytest.approx(math.log2(1 + 2 * _ordinal(largest)))
    assert across[2] == pytest.approx(math.log2(1 + 2 * _ordinal(1.0)))


def test_true_value_resolves_deep_cancellation_and_drops_undefined_points() -> None:
    tiny = 1e-200
    assert true_value(eqsat.parse("exp(x) - 1"), {"x": tiny}, "float64") == tiny
    assert true_value(eqsat.parse("log(exp(a) + exp(b))"), {"a": -1e-291, "b": -1e10},
                      "float64") == -1e-291
    assert true_value(eqsat.parse("log(x)"), {"x": -1.0}, "float64") is None
    assert true_value(eqsat.parse("exp(x)"), {"x": 1e6}, "float64") is None  # overflows


@pytest.mark.parametrize("outer", ["sigmoid", "softplus", "log1mexp", "logaddexp", "tanh",
                                   "erfc"])
def test_an_exponential_of_an_astronomical_argument_is_not_finite_at_once(outer: str) -> None:
    # exp(x) at x = 1.3e14 is 10^(5.8e13): mpmath ran out of memory (or for minutes) on
    # the exponential inside sigmoid, softplus, log1mexp, logaddexp, tanh and erfc, as on
    # exp's own
    argument = "-exp(x)" if outer == "log1mexp" else "exp(x)"
    expr = eqsat.parse(f"logaddexp({argument}, 1)" if outer == "logaddexp" else
                       f"{outer}({argument})")
    assert true_value(expr, {"x": 133852957463381.94}, "float64") is None


def test_domains_ranges_preconditions_and_float32() -> None:
    ranged = sample(eqsat.parse("x"), {"x": (2, 3)}, points=50)
    assert ranged.values["x"].min() >= 2 and ranged.values["x"].max() <= 3
    pre = sample(eqsat.parse("x + y"), "0 < x < 1 and y > 2 * x", points=50)
    assert np.all((pre.values["x"] > 0) & (pre.values["x"] < 1))
    assert np.all(pre.values["y"] > 2 * pre.values["x"])
    single = sample(eqsat.parse("x"), "x == 77617", points=5)
    assert set(single.values["x"]) == {77617.0}
    narrow = sample(eqsat.parse("x*x"), {"x": (1, 2)}, points=20, dtype="float32")
    assert narrow.truth.dtype == np.float32
    assert eqsat.error_bits("(1 + x) - 1", {"x": (1e-6, 1e-5)}, dtype="float32") > 5


@pytest.mark.parametrize(("precondition", "bounds"), [
    ("x > 0", (5e-324, math.inf)),  # strict: the nearest float beyond, so x is positive
    ("-1 < x <= 2", (math.nextafter(-1, 0), 2)),
    ("x < -1 or x > 1", (-math.inf, math.inf)),  # no one range holds both
    ("(0 < x < 1 or 2 <= x <= 3) and y > 1", (5e-324, 3)),
    ("not (x < 0)", (-math.inf, math.inf)),  # (read as x < 0 before: x assumed negative)
    ("x + y > 0", (-math.inf, math.inf)),
])
def test_the_bounds_a_precondition_implies(precondition: str, bounds: tuple[float, float]) -> None:
    assert domain_bounds(precondition, ["x", "y"])["x"] == bounds


def test_a_precondition_s_signs_are_what_it_implies() -> None:
    # x > 0 makes x positive, so that a^b - 1 => expm1(b*log(a)) if a > 0 applies
    assert str(eqsat.stabilize("x^y - 1", "x > 0")) == "expm1(y*log(x))"
    # x < -1 or x > 1 says no sign: sqrt(x^2) stays (x is not assumed positive)
    assert eqsat.stabilize("sqrt(x^2)", "x < -1 or x > 1") in \
        (eqsat.parse("sqrt(x^2)"), eqsat.parse("abs(x)"))


@pytest.mark.parametrize(("domain", "message"), [
    ("x <", "malformed precondition"),
    ("__import__('os').system('true')", "not a comparison"),
    ("z > 1", "'z', not a variable"),
    ({"y": (0, 1)}, "names 'y'"),
    ({"x": (2, 1)}, "empty"),
])
def test_bad_domains_are_clear_errors(domain: object, message: str) -> None:
    with pytest.raises(eqsat.EqsatError, match=message):
        eqsat.error_bits("x", domain)  # type: ignore[arg-type]


def test_nowhere_defined_is_a_clear_error() -> None:
    with pytest.raises(eqsat.EqsatError, match="no sampled point"):
        eqsat.error_bits("sqrt(-1 - x^2)")


def test_the_shortest_decimal_between_two_floats() -> None:
    assert shortest_decimal(0.0088, 0.009387977236375977) == Fraction(9, 1000)
    assert shortest_decimal(-0.5, 2.0) == 0
    # a series radius at +inf widened past the largest float (it overflowed: an error)
    assert float(shortest_decimal(1.7e308, float("inf"))) == 1.7e308


def test_the_points_where_two_forms_are_far_apart_without_true_values_at_the_rest() -> None:
    """x*x/x overflows for |x| > 1.3e154 and underflows to 0 for |x| < 1e-162: there it is
    far from x, and nowhere else; each point found comes with the true value."""
    found = where_they_differ(eqsat.parse("x"), eqsat.parse("x*x/x"), None, "float64", 0, 20)
    assert found is not None and 0 < found.size <= 32
    magnitudes = np.abs(found.values["x"])
    assert np.all((magnitudes > 1.3e154) | (magnitudes < 1e-150))
    assert np.array_equal(found.truth, found.values["x"])
    assert where_they_differ(eqsat.parse("x"), eqsat.parse("(x + x)/2"), "-1 < x < 1",
                             "float64", 0, 20) is None
