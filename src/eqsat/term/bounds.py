"""Outward-rounded interval bounds of an op's values from bounds of its operands (mpmath
intervals): the helpers the op table's rows name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mpmath

iv = mpmath.iv
Interval = Any  # an mpmath.iv.mpf (mpmath has no types)
WHOLE = iv.mpf(["-inf", "inf"])
SLACK = mpmath.mpf(2) ** -40  # relative widening of a function's values at an interval's ends


def clipped(low: float, function: Callable[[Interval], Interval]) -> Callable[..., Interval]:
    """A function defined above `low` (at it, too): the bounds of its values where defined."""
    def bounded(x: Interval) -> Interval:
        if x.b <= low:
            return WHOLE  # defined nowhere here: nothing to say
        return function(iv.mpf([max(x.a, low), x.b]))
    return bounded


def monotone(function: Callable[[mpmath.mpf], mpmath.mpf],
              increasing: bool = True) -> Callable[[Interval], Interval]:
    """An increasing (or decreasing) function, from its values at the ends (mpmath's, to
    nearest at 53 bits or more), widened by SLACK."""
    def bounded(x: Interval) -> Interval:
        ends = [function(mpmath.mpf(x.a)), function(mpmath.mpf(x.b))]
        low, high = (ends if increasing else ends[::-1])
        return iv.mpf([low - abs(low) * SLACK, high + abs(high) * SLACK])
    return bounded


def divided(a: Interval, b: Interval) -> Interval:
    if b.a <= 0 <= b.b:
        return WHOLE
    return a / b


def powered(a: Interval, b: Interval) -> Interval:
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


def absolute(a: Interval) -> Interval:
    return iv.mpf([0 if a.a <= 0 <= a.b else min(abs(a.a), abs(a.b)), max(abs(a.a), abs(a.b))])
