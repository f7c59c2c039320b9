"""Logs of products, quotients and powers as sums of the logs of their factors' magnitudes."""

from __future__ import annotations

import pytest

import eqsat
from eqsat.algebra.logarithms import log_products
from eqsat.term.reference import reference


@pytest.mark.parametrize(("text", "form"), [
    ("log(x*y)", "log(abs(x)) + log(abs(y))"),
    ("log(abs(x*y*z))", "log(abs(x)) + log(abs(y)) + log(abs(z))"),
    ("log(-2*x/(3*y))", "log(2) + log(abs(x)) - log(3) - log(abs(y))"),
    ("log(x/y)*log(-x)", "log(abs(x)) - log(abs(y))"),  # log(-x) has one factor
    ("log(x^4/y)", "4*log(abs(x)) - log(abs(y))"),
    ("log((x*y)^2)", "2*log(abs(x)) + 2*log(abs(y))"),
    ("log(x^(1/3))", "1/3*log(abs(x))"),
    ("log(x^y)", None),  # not a number's power
    ("log(1 - y/x)", None),  # a sum
])
def test_a_log_of_a_product_is_a_sum_of_logs(text: str, form: str | None) -> None:
    found = log_products(eqsat.parse(text))
    assert [str(f) for _, f in found] == ([form] if form else [])
    for node, made in found:  # equal where the log is defined
        for point in ({"x": 3.0, "y": 0.5, "z": -2.0}, {"x": -1e-200, "y": -1e-200, "z": 7.0}):
            expected = reference(node, point, 40)
            if expected is not None:
                assert abs(reference(made, point, 40) - expected) <= 1e-30 * max(1, abs(expected))


def test_its_value_is_finite_where_the_product_underflows() -> None:
    (node, made), = log_products(eqsat.parse("log(x*y)"))
    point = {"x": 1e-200, "y": 1e-200}
    assert float(eqsat.evaluate(node, point)) == float("-inf")
    assert float(eqsat.evaluate(made, point)) == pytest.approx(-921.0340371976183, rel=1e-15)
