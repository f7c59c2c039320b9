"""Interval analysis: bounds on every subterm from bounds on the symbols (outward-rounded
mpmath intervals), and the sign facts they prove, so that guards on compound terms hold
where a domain says so (x in [2, 3]: x - 1 > 0)."""

from __future__ import annotations

from collections.abc import Mapping

import mpmath

from ..term.bounds import WHOLE, Interval, iv
from ..term.expr import Expr
from ..term.ops import KEPT_SIGNS, OPS, SIGN_IMPLIED, Sign
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
    """The sign facts the ranges prove of expr's compound subterms (those with any): each
    one's interval's, and what the op table's sign rules conclude from its operands' facts,
    as the e-graph's sign analysis does (exp(x) > 0, and exp(x) + exp(y) > 0, where their
    intervals are [0, inf]), with the facts these imply."""
    intervals = bounds(expr, ranges)
    facts: dict[Expr, set[str]] = {}
    for node in postorder(expr):
        found = sign_facts(intervals[node])
        spec = OPS.get(node.op) if node.args else None
        if spec is not None:
            operands = [facts[a] for a in node.args]
            if spec.sign == Sign.POSITIVE:
                found.add("Pos")
            elif spec.sign == Sign.KEEPS_SIGN:
                found |= operands[0] & set(KEPT_SIGNS)
            found |= {concluded for needs, concluded in spec.signs
                      if all(need is None or need in have
                             for need, have in zip(needs, operands, strict=True))}
        facts[node] = _implied(found)
    return {node: found for node, found in facts.items() if node.args and found}


def _implied(facts: set[str]) -> set[str]:
    """The facts with those they imply (SIGN_IMPLIED), until no more follow."""
    while new := {concluded for needs, concluded in SIGN_IMPLIED
                  if concluded not in facts and all(need in facts for need in needs)}:
        facts |= new
    return facts
