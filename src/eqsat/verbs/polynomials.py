"""factor, cancel and together: a rational function as one fraction in lowest terms (FLINT)."""

from __future__ import annotations

from ..algebra.normal import as_fraction, is_rational_node
from ..errors import EqsatError
from ..extract.order import display_order
from ..term.expr import Expr, make
from ..term.inputs import ExprInput, to_expr
from ..term.shape import is_tensor
from ..term.walks import rebuild


def factor(expr: ExprInput) -> Expr:
    """expr as one fraction whose numerator and denominator are each a rational number times
    irreducible polynomials over the rationals, multivariate; symbols and non-rational
    subterms (sin(x), sqrt(y)) are its variables, and their arguments are factored too:
    factor("x^2 - 1") is (x - 1)*(x + 1), factor("1/x + 1/y") is (x + y)/(x*y)."""
    return _written(expr, (True, True), "factor")


def cancel(expr: ExprInput) -> Expr:
    """expr as one fraction in lowest terms, numerator and denominator expanded with integer
    coefficients (function arguments too): cancel("(x^2 - 1)/(x - 1)") is x + 1. Equal to
    expr wherever expr is defined."""
    return _written(expr, (False, False), "cancel")


def together(expr: ExprInput) -> Expr:
    """expr over one common denominator, in lowest terms: the numerator expanded, the
    denominator factored (function arguments too): together("1/x + 2/y") is
    (2*x + y)/(x*y)."""
    return _written(expr, (False, True), "together")


def _written(expr: ExprInput, factored: tuple[bool, bool], verb: str) -> Expr:
    parsed = to_expr(expr)
    if is_tensor(parsed):
        raise EqsatError(f"{verb} takes a scalar expression, not {parsed}")

    def inside(node: Expr, args: list[Expr]) -> Expr:  # function arguments written so too
        if not node.args or is_rational_node(node):
            return make(node.op, *args) if node.args else node
        return make(node.op, *(as_fraction(a, factored=factored) or a for a in args))

    found = as_fraction(rebuild(parsed, inside), factored=factored)
    if found is None:
        raise EqsatError(f"{verb}: {parsed} is too large for the normal forms")
    return display_order(found)
