"""Interval analysis: bounds on every subterm from bounds on the symbols (outward-rounded
mpmath intervals), and the sign facts they prove, so that guards on compound terms hold
where a domain says so (x in [2, 3]: x - 1 > 0)."""

from __future__ import annotations

from collections.abc import Mapping

import mpmath

from ..term.bounds import WHOLE, Interval, iv
from ..term.expr import Expr
from ..term.ops import OPS, Sign
from ..term.walks import postorder


def bounds(expr: Expr, ranges: Mapping[str, tuple[float, float]]) -> dict[Expr, Interval]:
    """An interval holding each subterm's values wherever it is defined, the symbols in
    their ranges (the whole line for a symbol without one, or an op it cannot bound)."""
    found: dict[Expr, Interval] = {}
    for node in postorder(expr):
        if node.is_symbol:
            low, high = ranges.get(node.name, (-mpmath.inf, mpmath.inf))
            found[node] = iv.mpf([low, high])
        elif node.is_number:
            found[node] = iv.mpf(node.number.numerator) / node.number.denominator
        elif (bound := OPS[node.op].bounds if node.op in OPS else None) is not None:
            try:
                found[node] = bound(*(found[a] for a in node.args))
            except (ZeroDivisionError, ValueError, ArithmeticError):
                found[node] = WHOLE
        elif node.op in OPS and OPS[node.op].sign == Sign.POSITIVE:
            found[node] = iv.mpf([0, "inf"])
        else:
            found[node] = WHOLE
    return found


def sign_facts(interval: Interval) -> set[str]:
    """The sign analysis' facts an interval proves (Pos, NonNeg, Neg, NonPos, NonZero)."""
    facts = set()
    if interval.a > 0:
        facts |= {"Pos", "NonNeg", "NonZero"}
    elif interval.a >= 0:
        facts.add("NonNeg")
    if interval.b < 0:
        facts |= {"Neg", "NonPos", "NonZero"}
    elif interval.b <= 0:
        facts.add("NonPos")
    return facts


def proven_facts(expr: Expr, ranges: Mapping[str, tuple[float, float]]) -> dict[Expr, set[str]]:
    """The sign facts the ranges prove of expr's compound subterms (those with any)."""
    return {node: facts for node, interval in bounds(expr, ranges).items()
            if node.args and (facts := sign_facts(interval))}
