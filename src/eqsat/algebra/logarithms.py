"""Logs of products and quotients as sums of the logs of their factors' magnitudes, which no
product of the factors over- or underflows."""

from __future__ import annotations

from ..term.expr import Expr, make, number, signed_sum
from ..term.walks import postorder


def log_products(root: Expr) -> list[tuple[Expr, Expr]]:
    """(log, its form) for each log in root of a product or quotient of two or more factors
    (or of its magnitude; a factor 1 or -1 not counted): the logs of the factors' magnitudes
    added, those divided by subtracted, log(x*y/z) as log(abs(x)) + log(abs(y)) -
    log(abs(z)), where x*y under- or overflows and the log does not. Equal where the log is
    defined (then the product is positive, or nonzero under abs, and so is each factor's
    magnitude); a number's log is kept as one (log(2), not 0.693...)."""
    forms = []
    for node in postorder(root):
        if node.op != "log":
            continue
        inner = node.args[0].args[0] if node.args[0].op == "abs" else node.args[0]
        terms = [(make("log", number(abs(f.number)) if f.is_number else make("abs", f)), sign)
                 for f, sign in _factors(inner, 1) if not (f.is_number and abs(f.number) == 1)]
        if len(terms) < 2:
            continue
        forms.append((node, signed_sum(terms)))
    return forms


def _factors(term: Expr, sign: int) -> list[tuple[Expr, int]]:
    """The factors of nested products, quotients and negations, each with 1 where it
    multiplies and -1 where it divides (a negation's -1 is a factor of magnitude 1)."""
    if term.op == "mul":
        return _factors(term.args[0], sign) + _factors(term.args[1], sign)
    if term.op == "div":
        return _factors(term.args[0], sign) + _factors(term.args[1], -sign)
    if term.op == "neg":
        return [(number(-1), sign), *_factors(term.args[0], sign)]
    return [(term, sign)]
