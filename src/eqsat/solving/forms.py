"""Answers as expressions: exact quotients of polynomials, roots of a quadratic."""

from __future__ import annotations

import math
from fractions import Fraction

from ..algebra.normal import normalise, square_free
from ..algebra.poly import Poly, Ring
from ..extract import CostModel, display_order
from ..term.expr import Expr, make, number


def quotient(ring: Ring, numerator: Poly, denominator: Poly) -> Expr:
    """numerator/denominator with common factors cancelled (normal.py), sign normalised."""
    value = denominator.constant_value()
    if value is not None:
        return display_order(ring.to_expr(numerator.scale(1 / value)))
    written = make("div", ring.to_expr(numerator), ring.to_expr(denominator))
    return display_order(normalise(written, CostModel().remembering_tree_cost()).forms[0])


def content(ring: Ring, polys: list[Poly], leading: Poly) -> Fraction:
    """A rational that divides every coefficient of the polys, signed so that `leading`
    divided by it is written with a plus in front."""
    coefficients = [c for p in polys for c in p.terms.values()]
    top = math.gcd(*(c.numerator for c in coefficients))
    bottom = math.lcm(*(c.denominator for c in coefficients))
    sign = 1 if ring.leading_coefficient(leading) > 0 else -1
    return Fraction(top, bottom) * sign


def quadratic_roots(ring: Ring, a: Poly, b: Poly, discriminant: Poly,
                    square: Poly | None = None) -> list[Expr]:
    """(-b + sqrt(d))/(2*a) and (-b - sqrt(d))/(2*a): exact numbers where a, b and d are
    numbers and d is a square, (p + k*sqrt(m))/q with integers where they are numbers; where
    d is the square of a polynomial s (square), (-b +- s)/(2*a) in lowest terms, which are
    the same two roots (x^2 - (a + b)*x + a*b = 0 has x = a and x = b)."""
    values = [p.constant_value() for p in (a, b, discriminant)]
    if square is not None and any(v is None for v in values):
        found = [quotient(ring, root, a.scale(Fraction(2))) for root in (-b + square, -b - square)]
        return list(dict.fromkeys(found))
    if any(v is None for v in values):  # sqrt(4*a) as 2*sqrt(a): the content's square out
        outside, _ = square_free(abs(content(ring, [discriminant], discriminant)))
        radical = make("sqrt", ring.to_expr(discriminant.scale(1 / outside**2)))
        lead = a.constant_value()
        if lead is not None and b.is_zero():  # +- k*sqrt(d), k = outside/(2*a)
            spread = outside / (2 * abs(lead))
            found = [_times_root(spread, radical), _times_root(-spread, radical)]
        elif b.is_zero():  # +- (outside/2)*sqrt(d)/a
            found = [make("div", _times_root(sign * outside / 2, radical), ring.to_expr(a))
                     for sign in (1, -1)]
        else:
            two_a, minus_b = (ring.to_expr(p) for p in (a.scale(Fraction(2)), -b))
            root = _times_root(outside, radical)
            found = [make("div", make(op, minus_b, root), two_a) for op in ("add", "sub")]
        return [display_order(r) for r in dict.fromkeys(found)]
    a_, b_, d_ = (v for v in values if v is not None)
    outside, inside = square_free(d_) if d_ else (Fraction(0), 1)
    centre, spread = -b_ / (2 * a_), abs(outside / (2 * a_))
    if inside == 1 or spread == 0:
        return [number(v) for v in dict.fromkeys((centre + spread, centre - spread))]
    below = math.lcm(centre.denominator, spread.denominator)
    irrational = make("sqrt", number(inside))
    scaled = irrational if spread * below == 1 else make("mul", number(spread * below),
                                                         irrational)
    found = []
    for op in ("add", "sub"):
        top = make(op, number(centre * below), scaled) if centre else \
            (scaled if op == "add" else make("neg", scaled))
        found.append(top if below == 1 else make("div", top, number(below)))
    return [display_order(r) for r in found]


def _times_root(scale: Fraction, radical: Expr) -> Expr:
    """scale*radical written p*radical/q (-sqrt(a), 2*sqrt(a), sqrt(a)/2)."""
    top = radical if abs(scale.numerator) == 1 else make("mul", number(abs(scale.numerator)),
                                                         radical)
    top = top if scale.denominator == 1 else make("div", top, number(scale.denominator))
    return make("neg", top) if scale < 0 else top
