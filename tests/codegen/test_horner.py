"""Horner's scheme for the polynomial parts of kernels: equal values, fewer operations, and no
power computed one by one."""

from __future__ import annotations

import random

import numpy as np
import pytest

import eqsat
from eqsat.codegen.horner import horner
from eqsat.codegen.numpy import COSTS
from eqsat.extract import CostModel

COST = CostModel(COSTS).dag_cost
POLYNOMIAL = " + ".join(f"{k + 1}/{k + 2}*x^{k}" for k in range(1, 20)) + " + 1/2"


@pytest.mark.parametrize(("text", "expected"), [
    ("x^3 + 2*x^2 + x", "((x + 2)*x + 1)*x"),
    ("a*x^2 + b*x + c", "(a*x + b)*x + c"),
    ("x^2 - 3*x*y^2 + y^3 - 2", "(x - 3*y^2)*x + (y^3 - 2)"),
    ("exp(x^2 + x)", "exp((x + 1)*x)"),
    ("x^19 + 1", "x^19 + 1"),  # a gap: the power alone is cheaper
    ("x + 1", "x + 1"),
])
def test_sums_of_powers_take_horners_scheme_where_it_is_cheaper(text: str,
                                                                expected: str) -> None:
    assert str(horner(eqsat.parse(text), COST)) == expected


def test_random_polynomials_keep_their_values_and_never_cost_more() -> None:
    rng = random.Random(5)
    points = {name: np.linspace(-2, 2, 9) for name in "xyz"}
    for _ in range(200):
        terms = [f"{rng.randint(-5, 5)}*x^{rng.randint(0, 6)}*y^{rng.randint(0, 3)}*"
                 f"sin(z)^{rng.randint(0, 2)}" for _ in range(rng.randint(1, 7))]
        expr = eqsat.parse(" + ".join(terms))
        found = horner(expr, COST)
        assert COST(found) <= COST(expr)
        np.testing.assert_allclose(eqsat.evaluate(found, points), eqsat.evaluate(expr, points),
                                   rtol=1e-12, atol=1e-9)


def test_a_polynomial_kernel_computes_no_power() -> None:
    kernel = eqsat.compile(POLYNOMIAL, ["x"])
    assert "np.power" not in kernel.source and "np.square" not in kernel.source
    x = np.linspace(-1.5, 1.5, 101)
    np.testing.assert_allclose(kernel(x), eqsat.evaluate(POLYNOMIAL, x=x), rtol=1e-13)
