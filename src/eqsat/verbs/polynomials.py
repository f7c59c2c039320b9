"""expand, factor, cancel and together: a product multiplied out, or a rational function as
one fraction in lowest terms (FLINT)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..algebra import expansion
from ..algebra.normal import as_fraction, is_rational_node
from ..errors import EqsatError
from ..extract.order import display_order
from ..term.expr import Expr, make
from ..term.inputs import ExprInput, to_expr
from ..term.shape import is_tensor
from ..term.walks import rebuild


def expand(expr: ExprInput, *, deep: bool = True, power: bool = True, log: bool = True,
           assume: Mapping[str, str | Iterable[str]] | None = None) -> Expr:
    """expr with its products and integer powers of sums multiplied out, as SymPy's expand:
    expand("(x + 1)^2") is x^2 + 2*x + 1, expand("(x + y)^(3/2)") is x*sqrt(x + y) +
    y*sqrt(x + y), a quotient's numerator is spread over its denominator, and that
    denominator multiplied out. deep: inside function arguments too. Where the assumptions
    prove a base positive (assume={"x": "positive"}), power: 2^(a + b) is 2^a*2^b and
    (2*y)^z is 2^z*y^z; log: log(x*y) is log(x) + log(y) and log(x^3) is 3*log(x). Equal to
    expr wherever expr is defined; a LimitError past 10,000 terms."""
    parsed = to_expr(expr, assume)
    if is_tensor(parsed):
        raise EqsatError(f"expand takes a scalar expression, not {parsed}")
    return display_order(expansion.expand(parsed, deep=deep, power=power, log=log))


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
