"""latex() and pretty() of what a user hands in: an Expr, or text parsed first."""

from __future__ import annotations

from ..term import display
from ..term.inputs import ExprInput, to_expr


def latex(expr: ExprInput) -> str:
    """The LaTeX of an expression (math mode, without dollars): latex("x/2") is \\frac{x}{2}."""
    return display.latex(to_expr(expr, non_values=True))


def pretty(expr: ExprInput) -> str:
    """A one-line Unicode rendering for people: pretty("x^2*y") is x²·y."""
    return display.pretty(to_expr(expr, non_values=True))
