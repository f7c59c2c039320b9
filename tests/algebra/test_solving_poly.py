"""Exact polynomials and elimination under eqsat.solve."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from eqsat import parse, symbols
from eqsat.algebra.linear import clear_denominators, eliminate
from eqsat.algebra.poly import NotPolynomial, Poly, Ring

x, y, a, b = symbols("x y a b")


def test_expansion_collects_like_terms_exactly() -> None:
    ring = Ring([x])
    poly = ring.to_poly(parse("(x + 1)^2 - (x^2 + 2x) + x/3"))
    assert str(ring.to_expr(poly)) == "x/3 + 1"


def test_a_deep_sum_of_parameters_is_read_without_recursion() -> None:
    """A determinant of 720 products is a sum 720 deep: read children first, each once."""
    deep = parse(" + ".join(f"a{i}*b{i}" for i in range(3000)) + " + x")
    assert len(Ring([x]).to_poly(deep).terms) == 3001


def test_a_quotient_by_a_sum_is_one_parameter_whatever_its_numerator() -> None:
    """n/(a + b) is one parameter, even where n's expansion is too large to make."""
    numerator = "(a + b + c + d + 1)^12*(a - b + c - d + 2)^12"
    with pytest.raises(NotPolynomial, match="too large"):
        Ring([x]).to_poly(parse(f"x + {numerator}"))
    assert len(Ring([x]).to_poly(parse(f"x + {numerator}/(a + b)")).terms) == 2


def test_parameters_may_be_divided_by_unknowns_may_not() -> None:
    ring = Ring([x])
    assert str(ring.to_expr(ring.to_poly(parse("x/a + sin(b)")))) == "x/a + sin(b)"
    with pytest.raises(NotPolynomial, match="denominator of 1/x"):
        ring.to_poly(parse("1/x"))
    with pytest.raises(NotPolynomial, match="sqrt"):
        ring.to_poly(parse("sqrt(x) + 1"))


def test_exact_quotient_inverts_a_product() -> None:
    ring = Ring([])
    p, q = (ring.to_poly(parse(t)) for t in ("a^2 - 2*a*b + 3", "a*b + b - 1"))
    assert (p * q).exact_quotient(q).terms == p.terms


def test_denominators_are_cleared_by_a_monomial() -> None:
    ring = Ring([x])
    row = [ring.to_poly(parse("1/a")), ring.to_poly(parse("b/a^2"))]
    assert [str(ring.to_expr(e)) for e in clear_denominators(row)] == ["a", "b"]


def test_fraction_free_and_rational_elimination_agree() -> None:
    rng = random.Random(3)
    size = 6
    matrix = [[Fraction(rng.randint(-9, 9)) for _ in range(size + 1)] for _ in range(size)]
    rational = eliminate([[Poly.constant(v) for v in row] for row in matrix], size, lambda: None)
    # the same system with a parameter t = 1 multiplied into the first row goes fraction-free
    ring = Ring([])
    t = ring.to_poly(parse("t"))
    rows = [[Poly.constant(v) * (t if i == 0 else Poly.constant(1)) for v in row]
            for i, row in enumerate(matrix)]
    symbolic = eliminate(rows, size, lambda: None)
    one = {ring.index(parse("t")): Poly.constant(1)}
    for (r1, c1), (r2, c2) in zip(rational.pivots, symbolic.pivots, strict=True):
        assert c1 == c2
        value = rational.rows[r1][size].constant_value()
        numerator = symbolic.rows[r2][size].substitute(*next(iter(one.items())))
        determinant = symbolic.determinant.substitute(*next(iter(one.items())))
        assert numerator.constant_value() == value * determinant.constant_value()
