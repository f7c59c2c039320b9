"""Differences of square roots as a quotient by their sum, the radicands' difference reduced."""

from __future__ import annotations

import pytest

import eqsat
from eqsat.algebra.conjugates import conjugates
from eqsat.algebra.normal import normalise
from eqsat.extract import CostModel
from tests.conftest import assert_equivalent


def _reduced(term: eqsat.Expr) -> eqsat.Expr:
    return normalise(term, CostModel().remembering_tree_cost()).forms[0]


@pytest.mark.parametrize(("text", "numerator"), [
    ("sqrt((x + y)^2 + z^2) - sqrt((x - y)^2 + z^2)", "4*(x*y)"),
    ("hypot(x + 1, y) - hypot(x, y)", "2*x + 1"),
    ("2*(sqrt(x^2 + 2*x + 1) - sqrt(x^2 + 1))", "2*x"),
])
def test_a_difference_of_roots_is_one_quotient_with_the_radicands_difference_reduced(
        text: str, numerator: str) -> None:
    term = eqsat.parse(text)
    (difference, quotient), = conjugates(term, _reduced)
    assert quotient.op == "div" and quotient.args[0] == eqsat.parse(numerator)
    # equal where the roots are defined, 0 included (where both are 0, it divides by 1)
    assert_equivalent(difference, quotient, digits=60)


def test_no_quotient_where_the_radicands_difference_does_not_shrink() -> None:
    assert list(conjugates(eqsat.parse("sqrt(x) - sqrt(y)"), _reduced)) == []
    assert list(conjugates(eqsat.parse("sqrt(x) + sqrt(x + 1)"), _reduced)) == []
    assert list(conjugates(eqsat.parse("sqrt(x + 1) - x"), _reduced)) == []


def test_stabilize_reaches_the_reduced_quotient() -> None:
    """The radicands' difference is 4*x*y only once both are expanded, which the rules do
    not: the input loses every bit where the two roots are close."""
    result = eqsat.stabilize_report("sqrt((x + y)^2 + z^2) - sqrt((x - y)^2 + z^2)")
    assert result.bits_before > 30 and result.bits_after < 8, str(result)
