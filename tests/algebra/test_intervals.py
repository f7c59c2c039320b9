"""Interval analysis: every subterm's values lie in its bounds wherever it is defined, and
the signs they prove let guarded rules fire on a domain."""

from __future__ import annotations

import random

import mpmath
import pytest

import eqsat
from eqsat.algebra.intervals import bounds, proven_facts
from eqsat.rules.guards import GUARDS
from eqsat.term.reference import reference
from eqsat.term.walks import postorder

RANGES = {"x": (2.0, 3.0), "y": (-1.5, 0.25), "z": (1e-9, 1e-3)}


@pytest.mark.parametrize("text", [
    "sqrt((x - 1)^2) + log(x - 1)", "atan(y) - exp(-x) + (x - 3)^2", "1/(x - 2.5) + y^3",
    "x*y/(z + 1)", "sin(x*y) + cos(z) - tanh(y)", "erfc(y) + erf(x) + sinh(y)",
    "log1p(y) + expm1(z) + abs(y - 0.1)", "(x*y)^4 - y^2*x", "softplus(y) + sigmoid(x)",
    "x^(1/2) + z^0.75",
])
def test_every_value_lies_in_its_bounds(text: str) -> None:
    expr = eqsat.parse(text)
    found = bounds(expr, RANGES)
    rng = random.Random(text)
    for _ in range(200):
        point = {name: mpmath.mpf(rng.uniform(low, high)) for name, (low, high) in
                 RANGES.items()}
        point["x"] = mpmath.mpf(rng.choice([2.0, 3.0])) if rng.random() < 0.2 else point["x"]
        for node in postorder(expr):
            value = reference(node, point, 30)
            if value is not None:
                assert found[node].a <= value <= found[node].b, (node, point, found[node])


def test_the_signs_a_domain_proves_of_compound_terms() -> None:
    facts = proven_facts(eqsat.parse("sqrt(x - 1) + (x - 3)*y - 1/(x - 2.5)"), RANGES)
    assert facts[eqsat.parse("x - 1")] >= {"Pos", "NonZero"}
    assert facts[eqsat.parse("x - 3")] == {"NonPos"}
    assert eqsat.parse("x - 2.5") not in facts  # spans 0
    assert eqsat.parse("(x - 3)*y") not in facts  # y spans 0 too


def test_the_op_tables_sign_rules_prove_what_closed_intervals_cannot() -> None:
    """exp(x) over the whole line has the interval [0, inf]: only its row says it is never
    0, and the sum and product rules carry that up, as the e-graph's sign analysis does."""
    facts = proven_facts(eqsat.parse("log(exp(x) + exp(y)) - exp(y)*sigmoid(x) + sqrt(x)"), {})
    assert facts[eqsat.parse("exp(x) + exp(y)")] >= {"Pos", "NonNeg", "NonZero"}
    assert facts[eqsat.parse("exp(y)*sigmoid(x)")] >= {"Pos", "NonZero"}
    assert facts[eqsat.parse("sqrt(x)")] == {"NonNeg"}  # 0 at x = 0
    assert eqsat.parse("log(exp(x) + exp(y))") not in facts
    assert GUARDS["> 0"].bounded_on_term(eqsat.parse("exp(x) + exp(y)")) is True
    assert GUARDS["< 0"].bounded_on_term(eqsat.parse("-exp(x)")) is True


def test_a_guard_on_a_compound_term_fires_on_a_domain() -> None:
    # sqrt(a^2) => a needs a >= 0: for x - 1, only the domain says so
    assert str(eqsat.stabilize("sqrt((x - 1)^2)", {"x": (2, 3)})) == "x - 1"
    assert str(eqsat.stabilize("sqrt((x - 1)^2)")) == "abs(x - 1)"


def test_declared_signs_narrow_the_points_and_the_bounds() -> None:
    x = eqsat.symbols("x", positive=True)
    result = eqsat.stabilize_report(eqsat.sqrt((x + 2) ** 2))
    assert str(result.expr) == "x + 2"  # no branch for negative x, which is never sampled
    assert result.sample.values["x"].min() > 0
    narrowed = eqsat.stabilize_report("sqrt((x + 1)^2)", "x < 5", assume={"x": "nonnegative"})
    assert str(narrowed.expr) == "x + 1" and narrowed.sample.values["x"].max() < 5
    # positive x says nothing of the sign of x - 1
    assert str(eqsat.stabilize("sqrt((x - 1)^2)", assume={"x": "positive"})) == "abs(x - 1)"
