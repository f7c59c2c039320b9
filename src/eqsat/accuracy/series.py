"""Truncated series of an expression in one variable, at 0 and at +-infinity (algebra/
series.py), after 1, 2, ... terms: candidates for stabilize's regimes, as Herbie's series are.

A truncated series is not equal to the expression: it agrees with it to rounding only near
the point it expands at. It is offered to stabilize's regimes only inside the radius where it
was measured to agree with the true value (guarded), the best exact form outside it.
"""

from __future__ import annotations

import contextlib
import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import sympy

from ..algebra.expander import expand
from ..algebra.series import Allowance, NoSeries, Series, allowance, terms
from ..errors import EqsatError
from ..limits.budget import Backstop
from ..term.expr import Expr, make, number, symbol
from ..term.sampling import float_at, float_from_ordinals, float_ordinals
from ..term.sympy_bridge import from_sympy, to_sympy
from ..term.walks import postorder
from .measure import (
    Domain,
    Sample,
    bits_at,
    domain_bounds,
    inside,
    narrowed,
    sample,
    sample_at,
    shortest_decimal,
)

MAX_TERMS = 4  # truncations offered: the first 1..MAX_TERMS nonzero terms
MAX_NODES = 60  # larger inputs are not expanded (their coefficients grow too fast)
SERIES_WORK = 5_000  # coefficient operations (and nodes expanded) an input's expansions spend
POINTS = ("0", "+inf", "-inf")
TRUST_BITS = 2.0  # bits of error a series may have where it stands in for the expression
# ... or, where the exact form is no closer, this many: a series farther off at a point of its
# region stands in for nothing, however far off the exact form is there (both overflow)
LOOSE_BITS = 20.0
TRUST_ROWS = 8  # sampled values of the other variables its radius is checked at
TRUST_STEPS = 64  # bisections of the radius over the floats
TINY = 1e-300  # the magnitude nearest 0 (or farthest from infinity) a radius is tried at
SHORTENING = 1 / 16  # a radius may move this much nearer its point to be a short decimal
REGION_POINTS = 64  # points drawn from a guarded series' region, the other variables too
REGION_VALUES = 6  # values of its variable at which the others are set near its magnitude
SCALES = tuple(range(-60, 61, 6))  # ... at 2^k times it
SWEEP = 48  # ... and at values spread over each one's whole range
TRIALS_AT_ONCE = 256  # those points' true values are taken in parts of this many


def to_expr(series: Series, variable: Expr, at: str) -> Expr:
    """The sum of the terms as an expression in the variable."""
    x = to_sympy(variable)
    t = x if at == "0" else 1 / x if at == "+inf" else -1 / x
    total = sum((value * t ** sympy.Rational(p.numerator, p.denominator)
                 for p, value in sorted(series.coefficients.items())), sympy.Integer(0))
    return from_sympy(total)


@dataclass(frozen=True)
class Approximation:
    """A truncated series of an expression in one variable at 0, +inf or -inf."""

    expr: Expr
    variable: Expr
    at: str


def candidates(expr: Expr, backstop: Backstop | None = None,
               work: int = SERIES_WORK) -> list[Approximation]:
    """Truncations (1 to MAX_TERMS terms) of expr's series in each variable at 0 and at
    +-infinity, those that exist and are found within `work` coefficient operations (in
    this order, so the same input always gets the same ones) and before the backstop."""
    if len(postorder(expr)) > MAX_NODES:
        return []
    found: dict[Expr, Approximation] = {}
    with allowance(Allowance(work, backstop)):
        for variable in sorted(expr.free_symbols(), key=lambda s: s.name):
            for at in POINTS:
                try:
                    expanded, written, point = _expansion(expr, variable, at)
                    for count in range(1, min(MAX_TERMS, len(expanded.coefficients)) + 1):
                        made = to_expr(terms(expanded, count), written, point)
                        found.setdefault(made, Approximation(made, variable, at))
                except (NoSeries, EqsatError, ZeroDivisionError, TypeError, ValueError):
                    continue
    return list(found.values())


def _expansion(expr: Expr, variable: Expr, at: str) -> tuple[Series, Expr, str]:
    """expr's series in the variable at the point, the term its powers are of and at which
    point (as to_expr takes them): the variable's, or where it occurs as abs(x) and otherwise
    only in even powers, the series in a variable u >= 0 at 0 or +inf, u = abs(x) at 0 (x ->
    0 from either side), x at +inf and -x at -inf: 1 - p(1/(1 + k*abs(x)))*exp(-x^2) near 0
    as 1e-9 + 1.128*abs(x), which no series in x is."""
    magnitude = make("abs", variable)
    nodes = postorder(expr)
    if magnitude not in nodes:
        return expand(expr, variable.name, at), variable, at
    names = {s.name for s in expr.free_symbols()}
    stand_in = symbol(next(n for k in itertools.count(1)
                           if (n := variable.name + "_" * k) not in names))
    even_powers = {node: make("pow", stand_in, node.args[1]) for node in nodes
                   if node.op == "pow" and node.args[0] == variable and node.args[1].is_number
                   and node.args[1].number % 2 == 0}  # (a Fraction: an even whole number)
    replaced = expr.subs({magnitude: stand_in, **even_powers})
    if variable in replaced.free_symbols():
        return expand(expr, variable.name, at), variable, at
    if at == "0":
        return expand(replaced, stand_in.name, "0"), magnitude, "0"
    return expand(replaced, stand_in.name, "+inf"), variable, at  # (1/u: 1/x, or -1/x)


@dataclass(frozen=True)
class Guarded:
    """An approximation inside its radius, the fallback outside; reach: how far from its
    point it holds (the radius at 0, 1/radius at infinity); region: the range of its
    variable where it stands in."""

    expr: Expr
    reach: float
    region: tuple[float, float]


def guarded(approximation: Approximation, original: Expr, fallback: Expr, points: Sample,
            backstop: Backstop) -> Guarded | None:
    """The approximation where it agrees with the original to TRUST_BITS (|x| < r at 0,
    x > R at +inf, x < -R at -inf), the fallback elsewhere; None where it agrees nowhere
    that was tried, or the backstop cut the search. The radius is bisected over the floats,
    each trial checked at both signs (at 0) against the true value, the other variables
    taking the values of up to TRUST_ROWS sampled points: with several variables, see
    holds_on_region before using it."""
    name = approximation.variable.name
    rows = np.linspace(0, points.size - 1, min(TRUST_ROWS, points.size)).astype(int)
    signs = (1.0, -1.0) if approximation.at == "0" else \
        (1.0,) if approximation.at == "+inf" else (-1.0,)

    def agrees(magnitude: float) -> bool:
        """Within TRUST_BITS wherever the original is defined there (somewhere, at least);
        point by point, so that the first disagreement ends the trial."""
        defined = False
        for row in rows:
            for sign in signs:
                point = {n: float(v[row]) for n, v in points.values.items()}
                point[name] = sign * magnitude
                one = sample_at(original, [point], points.dtype)
                if one is None:
                    continue
                defined = True
                if bits_at(approximation.expr, one)[0] > TRUST_BITS:
                    return False
        return defined

    largest = float(np.finfo(points.truth.dtype).max)
    smallest, top = float_ordinals(np.array([TINY, largest]), points.dtype)
    near, far = (smallest, top) if approximation.at == "0" else (top, smallest)
    if not agrees(float_at(near, points.dtype)):
        return None
    if agrees(float_at(far, points.dtype)):  # everywhere it was tried
        return Guarded(approximation.expr, math.inf, (-largest, largest))
    for _ in range(TRUST_STEPS):  # near agrees, far does not
        low, high = sorted((float_at(near, points.dtype), float_at(far, points.dtype)))
        # closer than the shortening below needs: a few steps past the exponent, not 60
        if abs(far - near) <= 1 or high <= low * (1 + SHORTENING / 4) or backstop.passed():
            break
        middle = (near + far) // 2
        near, far = (middle, far) if agrees(float_at(middle, points.dtype)) else (near, middle)
    if backstop.passed():
        return None
    edge = float_at(near, points.dtype)  # the farthest from its point found to agree
    at_zero = approximation.at == "0"
    # the shortest decimal a little nearer its point: |x| < 0.0094, not < 0.009387977236
    bound = shortest_decimal(edge * (1 - SHORTENING), edge) if at_zero else \
        shortest_decimal(edge, edge * (1 + SHORTENING))
    x, limit = approximation.variable, float(bound)
    if at_zero:
        inside_, region = make("lt", make("abs", x), number(bound)), (-limit, limit)
    elif approximation.at == "+inf":
        inside_, region = make("lt", number(bound), x), (limit, largest)
    else:
        inside_, region = make("lt", x, number(-bound)), (-largest, -limit)
    return Guarded(make("where", inside_, approximation.expr, fallback),
                   limit if at_zero else 1 / limit, region)


def holds_on_region(made: Guarded, approximation: Approximation, original: Expr,
                    fallback: Expr, points: Sample, domain: Domain, seed: int,
                    backstop: Backstop) -> bool:
    """Whether the approximation is within TRUST_BITS of the true value, or within LOOSE_BITS
    and no worse than the fallback, at points of its whole region in EVERY variable: drawn
    from the domain with its variable inside the region, and with the other variables set
    near its magnitude (2^k times it, each alone and all together), where a series in one
    variable fails that holds only while the others are small beside it (x*sqrt(y^2 - z^2)
    is x*|y| only for |z| << |y|). The radius was measured with the others at a few sampled
    values only."""
    name = approximation.variable.name
    others = sorted(n for n in points.values if n != name)
    checks: list[Sample | None] = []
    parts: Iterator[Sample | None] = iter(())
    with contextlib.suppress(EqsatError):
        checks.append(sample(original, narrowed(domain, {name: made.region}), REGION_POINTS,
                             points.dtype, seed, backstop=backstop))
    if others:
        low, high = float_ordinals(np.array(made.region), points.dtype)
        values = float_from_ordinals(np.linspace(low, high, REGION_VALUES).astype(np.int64)
                                     .tolist(), points.dtype)
        row = {n: float(v[0]) for n, v in points.values.items()}
        trials = []
        for value, k, sign in itertools.product(values.tolist(), SCALES, (1.0, -1.0)):
            near = sign * abs(value) * 2.0 ** k
            trials += [{**row, name: value, other: near} for other in others]
            if len(others) > 1:
                trials.append({**{other: near for other in others}, name: value})
        # and each other variable across its whole range: sqrt(y^2 + x) - y is its series
        # in x only while y*y is large beside x, whatever x's magnitude beside y
        ranges = domain_bounds(domain, sorted(points.values))
        for other in others:
            low, high = float_ordinals(np.array(ranges[other]), points.dtype)
            across = float_from_ordinals(np.linspace(low, high, SWEEP).astype(np.int64)
                                         .tolist(), points.dtype)
            trials += [{**row, name: value, other: spread}
                       for value in values.tolist() for spread in across.tolist()]
        with np.errstate(all="ignore"):
            kept = inside(domain, {n: np.array([t[n] for t in trials]) for n in row})
        trials = [t for t, keep in zip(trials, kept, strict=True) if keep]
        # their true values a part at a time: the first part where it fails decides
        parts = (sample_at(original, trials[k:k + TRIALS_AT_ONCE], points.dtype)
                 for k in range(0, len(trials), TRIALS_AT_ONCE))

    def within(check: Sample | None) -> bool:
        if check is None:
            return True
        with np.errstate(all="ignore"):
            error = bits_at(approximation.expr, check)
            return bool(np.all((error <= TRUST_BITS) |
                               ((error <= LOOSE_BITS) & (error <= bits_at(fallback, check)))))

    return all(within(check) for check in itertools.chain(checks, parts)) and \
        not backstop.passed()
