"""A rational function of a variable with its numerator and denominator divided by the
denominator's leading power, each in Horner's form in the reciprocal: equal to it wherever the
variable is not 0, and finite at large magnitudes where the two polynomials overflow and
their quotient does not (logGamma's (((x*y + z)*y + 27464.8)*y + t)/(((y + a)*y + b)*y + c)
is inf/inf past |y| = 1e77)."""

from __future__ import annotations

import sympy

from ..errors import EqsatError
from ..term.expr import Expr, make, number, tidy
from ..term.sympy_bridge import from_sympy, to_sympy
from ..term.walks import postorder

MAX_DEGREE = 12  # larger polynomials are left as they are
MAX_TERMS = 256  # and numerators or denominators that would expand to more terms than this
# (SymPy's together and Poly expand them: a sum of 11 fractions took 137 s)


def divided_through(expr: Expr, variable: Expr) -> Expr | None:
    """The expression as such a quotient, where it is a rational function of the variable
    whose denominator has degree 1 or more (up to MAX_DEGREE); None otherwise."""
    if _expanded_terms(expr, variable) is None:
        return None
    y = to_sympy(variable)
    try:  # (an op of the term SymPy has no form for, or has one eqsat reads no way back)
        numerator, denominator = sympy.fraction(sympy.together(to_sympy(expr)))
        top, bottom = sympy.Poly(numerator, y), sympy.Poly(denominator, y)
        degree = bottom.degree()
        if not 1 <= degree <= MAX_DEGREE or top.degree() > MAX_DEGREE:
            return None
        lead = bottom.LC()  # (together's common denominators, out where it is a number)
        scale = lead if lead.is_number and lead != 0 else sympy.Integer(1)
        above = [from_sympy(c / scale) for c in reversed(top.all_coeffs())]  # (by power)
        below = [from_sympy(c / scale) for c in reversed(bottom.all_coeffs())]
    except (EqsatError, sympy.PolynomialError, sympy.GeneratorsNeeded, ValueError,
            TypeError):
        return None
    reciprocal = make("div", number(1), variable)
    above += [number(0)] * (degree + 1 - len(above))
    # sum of a_k y^(k - m): a_m + (1/y)*(a_(m-1) + ... (1/y)*a_0), and y*(a_(m+1) + y*(...))
    scaled_top = tidy("add", [_horner(above[:degree + 1], reciprocal),
                              tidy("mul", [variable, _horner(above[:degree:-1], variable)])])
    if scaled_top.is_number and scaled_top.number == 0:
        return None
    return make("div", scaled_top, _horner(below, reciprocal))


def _horner(innermost_first: list[Expr], by: Expr) -> Expr:
    """c[n] + by*(c[n-1] + by*(... + by*c[0])) of [c[0], ..., c[n]] (tidy: no 0 or 1
    written); 0 for none."""
    total = number(0)
    for coefficient in innermost_first:
        total = tidy("add", [coefficient, tidy("mul", [by, total])])
    return total


def _expanded_terms(expr: Expr, variable: Expr) -> tuple[int, int] | None:
    """Bounds on the terms of the numerator and the denominator the expression expands to
    as one fraction, its subterms free of the variable (other than sums, products,
    quotients and integer powers) counted as one; None where the variable is under another
    op or a bound passes MAX_TERMS."""
    found: dict[Expr, tuple[int, int]] = {}
    for node in postorder(expr):
        if not node.args or (node.op not in _RATIONAL and variable not in
                             node.free_symbols()):
            found[node] = (1, 1)
            continue
        if node.op not in _RATIONAL:
            return None
        if node.op == "pow":
            power = node.args[1]
            if not (power.is_number and power.number.denominator == 1):
                if variable in node.free_symbols():
                    return None
                found[node] = (1, 1)
                continue
            top, bottom = found[node.args[0]]
            exponent = abs(int(power.number))
            if exponent > MAX_TERMS:
                return None
            top, bottom = top ** exponent, bottom ** exponent
            found[node] = (top, bottom) if power.number >= 0 else (bottom, top)
        elif node.op == "neg":
            found[node] = found[node.args[0]]
        else:
            (a, b), (c, d) = found[node.args[0]], found[node.args[1]]
            found[node] = {"add": (a * d + c * b, b * d), "sub": (a * d + c * b, b * d),
                           "mul": (a * c, b * d), "div": (a * d, b * c)}[node.op]
        if max(found[node]) > MAX_TERMS:
            return None
    return found[expr]


_RATIONAL = frozenset({"add", "sub", "mul", "div", "neg", "pow"})
