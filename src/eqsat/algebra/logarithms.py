"""Logs of products, quotients and powers as sums of the logs of their factors' magnitudes,
which no product or power of the factors over- or underflows."""

from __future__ import annotations

from fractions import Fraction

from ..term.expr import Expr, make, number, signed_sum
from ..term.walks import postorder


def log_products(root: Expr) -> list[tuple[Expr, Expr]]:
    """(log, its form) for each log in root of a product or quotient of two or more factors,
    or of a power with a number exponent (or of the magnitude of one; a factor 1 or -1 not
    counted): the logs of the factors' magnitudes, each times its exponent, added (those
    divided by subtracted), log(x*y^3/z) as log(abs(x)) + 3*log(abs(y)) - log(abs(z)), where
    x*y^3 under- or overflows and the log does not. Equal where the log is defined (then the
    product is positive, or nonzero under abs, and so is each factor's magnitude; a^n > 0
    there is |a|^n); a number's log is kept as one (log(2), not 0.693...)."""
    forms = []
    for node in postorder(root):
        if node.op != "log":
            continue
        inner = node.args[0].args[0] if node.args[0].op == "abs" else node.args[0]
        factors = [(f, power) for f, power in _factors(inner, Fraction(1))
                   if not (f.is_number and abs(f.number) == 1)]
        if len(factors) < 2 and all(abs(power) == 1 for _, power in factors):
            continue
        forms.append((node, signed_sum([(_times_log(f, abs(power)), 1 if power > 0 else -1)
                                        for f, power in factors])))
    return forms


def _times_log(factor: Expr, power: Fraction) -> Expr:
    """power*log(|factor|) (a number's magnitude written as a number)."""
    found = make("log", number(abs(factor.number)) if factor.is_number else make("abs", factor))
    return found if power == 1 else make("mul", number(power), found)


def _factors(term: Expr, power: Fraction) -> list[tuple[Expr, Fraction]]:
    """The factors of nested products, quotients, powers with a number exponent and
    negations, each with its exponent: 1 where it multiplies, -1 where it divides, n in a
    power's base (a negation's -1 is a factor of magnitude 1)."""
    if term.op == "mul":
        return _factors(term.args[0], power) + _factors(term.args[1], power)
    if term.op == "div":
        return _factors(term.args[0], power) + _factors(term.args[1], -power)
    if term.op == "neg":
        return [(number(-1), power), *_factors(term.args[0], power)]
    if term.op == "pow" and term.args[1].is_number and term.args[1].number != 0:
        return _factors(term.args[0], power * term.args[1].number)
    return [(term, power)]
