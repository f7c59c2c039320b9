"""A rational function of a variable divided through by its denominator's leading power."""

from __future__ import annotations

import eqsat
from eqsat.accuracy.at_infinity import divided_through
from tests.conftest import assert_equivalent


def test_a_quotient_of_horner_polynomials_in_the_reciprocal() -> None:
    expr = eqsat.parse("(((x*y + z)*y + 27464.7644705)*y + t)/(((y + a)*y + b)*y + c)")
    divided = divided_through(expr, eqsat.symbol("y"))
    assert str(divided) == \
        "(x + 1/y*(z + 1/y*(27464.7644705 + 1/y*t)))/(1 + 1/y*(a + 1/y*(b + 1/y*c)))"
    assert_equivalent(expr, divided, digits=50)
    # a numerator of lower degree, a polynomial part, together's common denominators out
    assert str(divided_through(eqsat.parse("x/(x*x + 1)"), eqsat.symbol("x"))) == \
        "1/x/(1 + 1/x*(1/x))"
    made = divided_through(eqsat.parse("(x - 2)*(4*x + 1/3)/(x/2 + 5)"), eqsat.symbol("x"))
    assert made is not None
    assert_equivalent(eqsat.parse("(x - 2)*(4*x + 1/3)/(x/2 + 5)"), made, digits=50)


def test_none_where_it_is_not_a_rational_function_of_the_variable() -> None:
    y = eqsat.symbol("y")
    for text in ("exp(y)/(y + 1)", "y^2 + 1", "x/(x + 1)", "sqrt(y)/(y + 1)", "0/(y + 1)",
                 "y*fmod(x, 3)/(y + 1)"):  # (SymPy's form of fmod does not come back)
        assert divided_through(eqsat.parse(text), y) is None, text
    assert eqsat.stabilize("y*fmod(x, 3)/(y*y + 1)") is not None


def test_a_fraction_that_would_expand_past_its_bound_is_left_before_sympy_expands_it() -> None:
    """(A sum of 11 fractions in distinct symbols is one fraction of 11*2^10 terms over 2^11:
    SymPy took 137 s on it, for each of its 12 variables.)"""
    total = " + ".join(f"1/(y + {name})" for name in "abcdefghijk")
    assert divided_through(eqsat.parse(total), eqsat.symbol("y")) is None
    assert divided_through(eqsat.parse("(y + 1)^300/(y + 2)"), eqsat.symbol("y")) is None
