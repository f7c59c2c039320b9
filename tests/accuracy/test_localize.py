"""Localization: each operation's own loss of bits, its float result on its operands' true
values against its own true value; and whether an operation over- or underflows."""

from __future__ import annotations

import pytest

import eqsat
from eqsat.accuracy.localize import local_errors, overflows
from eqsat.accuracy.measure import sample


def test_the_operations_that_cancel_come_first() -> None:
    expr = eqsat.parse("(1 - cos(x))/x^2*exp(y) + (exp(y) - 1)/y")
    points = sample(expr, {"x": (1e-9, 1e-5), "y": (1e-12, 1e-6)}, 128)
    ranked = local_errors(expr, points)
    assert [str(node) for _, node in ranked[:2]] == ["1 - cos(x)", "exp(y) - 1"]
    assert ranked[0][0] > 40 and ranked[1][0] > 20
    assert all(bits < 1 for bits, _ in ranked[2:])  # the rest round once, or nearly


def test_an_accurate_term_loses_no_bits_anywhere() -> None:
    expr = eqsat.parse("exp(x)*sin(y) + sqrt(x^2 + 1)")
    points = sample(expr, {"x": (-3, 3), "y": (-3, 3)}, 64)
    assert all(bits < 1 for bits, _ in local_errors(expr, points))


def test_points_where_an_operand_is_undefined_are_left_out() -> None:
    """log(x) is undefined for x < 0: where(x > 0, log(x), x) is defined everywhere, and
    its log loses nothing at the points where it has a value."""
    expr = eqsat.parse("where(x > 0, log(x), x)")
    points = sample(expr, {"x": (-2, 2)}, 64)
    ranked = dict((str(node), bits) for bits, node in local_errors(expr, points))
    assert ranked["log(x)"] < 1


def test_an_operation_over_an_operand_that_overflows_loses_every_bit() -> None:
    """x*x overflows where sqrt(x*x + y) does not: the sqrt, computed from inf, is where the
    bits are lost (an operand without a true value in floats is not left out for it)."""
    expr = eqsat.parse("sqrt(x*x + y)")
    points = sample(expr, {"x": (1e160, 1e200), "y": (1, 2)}, 32)
    ranked = dict((str(node), bits) for bits, node in local_errors(expr, points))
    assert ranked["sqrt(x*x + y)"] == 64


@pytest.mark.parametrize(("text", "domain", "expected"), [
    ("exp(x)*y^3", {"x": (600, 700), "y": (1e-150, 1e-120)}, True),  # y^3 underflows
    ("x*x/x", {"x": (1e160, 1e200)}, True),  # x*x overflows
    ("exp(-x)*2", {"x": (750, 800)}, True),  # exp(-x) underflows where 2 is not 0
    ("log(1 + x) - x", {"x": (1e-12, 1e-3)}, False),  # loses bits, stays in range
    ("(x + 1) - x", {"x": (1e10, 1e20)}, False),  # 0 from a difference is not an underflow
])
def test_an_operation_that_over_or_underflows_at_a_sampled_point(text: str, domain: object,
                                                                 expected: bool) -> None:
    expr = eqsat.parse(text)
    assert overflows(expr, sample(expr, domain, 64)) is expected  # type: ignore[arg-type]
