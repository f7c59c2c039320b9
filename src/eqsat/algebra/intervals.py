"""Interval analysis: bounds on every subterm from bounds on the symbols (outward-rounded
mpmath intervals), and the sign facts they prove, so that guards on compound terms hold
where a domain says so (x in [2, 3]: x - 1 > 0)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import mpmath

from ..term.expr import Expr, postorder
from ..term.ops import OPS, Sign

iv = mpmath.iv
Interval = Any  # an mpmath.iv.mpf (mpmath has no types)
WHOLE = iv.mpf(["-inf", "inf"])
SLACK = mpmath.mpf(2) ** -40  # relative widening of a function's values at an interval's ends


def _clipped(low: float, function: Callable[[Interval], Interval]) -> Callable[..., Interval]:
    """A function defined above `low` (at it, too): the bounds of its values where defined."""
    def bounded(x: Interval) -> Interval:
        if x.b <= low:
            return WHOLE  # defined nowhere here: nothing to say
        return function(iv.mpf([max(x.a, low), x.b]))
    return bounded


def _monotone(function: Callable[[mpmath.mpf], mpmath.mpf],
              increasing: bool = True) -> Callable[[Interval], Interval]:
    """An increasing (or decreasing) function, from its values at the ends (mpmath's, to
    nearest at 53 bits or more), widened by SLACK."""
    def bounded(x: Interval) -> Interval:
        ends = [function(mpmath.mpf(x.a)), function(mpmath.mpf(x.b))]
        low, high = (ends if increasing else ends[::-1])
        return iv.mpf([low - abs(low) * SLACK, high + abs(high) * SLACK])
    return bounded


def _div(a: Interval, b: Interval) -> Interval:
    if b.a <= 0 <= b.b:
        return WHOLE
    return a / b


def _pow(a: Interval, b: Interval) -> Interval:
    if b.a == b.b and mpmath.mpf(b.a) == int(b.a) and 0 <= b.a <= 64:
        n = int(b.a)
        result = iv.mpf(1)
        for _ in range(n):
            result = result * a
        if n % 2 == 0 and a.a < 0 < a.b:  # a square is not negative, even of a span over 0
            result = iv.mpf([0, result.b])
        return result
    if a.a > 0:
        return iv.exp(b * iv.log(a))
    return WHOLE


BOUNDS: dict[str, Callable[..., Interval]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": _div,
    "neg": lambda a: -a,
    "pow": _pow,
    "sqrt": _clipped(0, iv.sqrt),
    "exp": iv.exp,
    "log": _clipped(0, iv.log),
    "log1p": _clipped(-1, iv.log1p),
    "expm1": _monotone(mpmath.expm1),  # (iv.expm1 of a wide interval takes 0.2 s)
    "sin": iv.sin,
    "cos": iv.cos,
    "atan": _monotone(mpmath.atan),
    "sinh": _monotone(mpmath.sinh),
    "tanh": _monotone(mpmath.tanh),
    "asinh": _monotone(mpmath.asinh),
    "erf": _monotone(mpmath.erf),
    "erfc": _monotone(mpmath.erfc, increasing=False),
    "abs": lambda a: iv.mpf([0 if a.a <= 0 <= a.b else min(abs(a.a), abs(a.b)),
                             max(abs(a.a), abs(a.b))]),
}


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
        elif node.op in BOUNDS:
            try:
                found[node] = BOUNDS[node.op](*(found[a] for a in node.args))
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
