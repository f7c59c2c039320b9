"""Series expansions of an expression in one variable, at 0 and at +-infinity (Taylor,
Laurent and Puiseux terms, exact rational exponents, SymPy coefficients), truncated after
1, 2, ... terms: candidates for stabilize's regimes, as Herbie's series are.

A truncated series is not equal to the expression: it agrees with it to rounding only near
the point it expands at. It is offered to stabilize's regimes only inside the radius where it
was measured to agree with the true value (guarded), the best exact form outside it.
"""

from __future__ import annotations

import contextlib
import itertools
import math
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import sympy

from ..errors import EqsatError
from ..limits.budget import Backstop
from ..term.expr import Expr, make, number, symbol
from ..term.ops import OPS, SCALAR_KINDS
from ..term.parse import parse
from ..term.sampling import float_at, float_from_ordinals, float_ordinals
from ..term.sympy_bridge import from_sympy, to_sympy
from ..term.walks import postorder, rebuild
from .measure import Domain, Sample, bits_at, inside, narrowed, sample, sample_at, shortest_decimal

PRECISION = 8  # exponents known past the leading one (of the variable, or of 1/x at infinity)
MAX_TERMS = 4  # truncations offered: the first 1..MAX_TERMS nonzero terms
MAX_NODES = 60  # larger inputs are not expanded (their coefficients grow too fast)
MAX_COEFFICIENT_OPS = 400  # a coefficient larger than this stops an expansion
MAX_PRODUCT_TERMS = 2000  # terms of a product of two coefficients, expanded
SERIES_WORK = 20_000  # coefficient operations all the expansions of one input may spend
POINTS = ("0", "+inf", "-inf")
TRUST_BITS = 2.0  # bits of error a series may have where it stands in for the expression
TRUST_ROWS = 8  # sampled values of the other variables its radius is checked at
TRUST_STEPS = 64  # bisections of the radius over the floats
TINY = 1e-300  # the magnitude nearest 0 (or farthest from infinity) a radius is tried at
SHORTENING = 1 / 16  # a radius may move this much nearer its point to be a short decimal
REGION_POINTS = 64  # points drawn from a guarded series' region, the other variables too
REGION_VALUES = 6  # values of its variable at which the others are set near its magnitude
SCALES = tuple(range(-60, 61, 6))  # ... at 2^k times it


class NoSeries(Exception):
    """The expression has no series of this kind here (a branch point, an essential
    singularity, a non-analytic op), or its coefficients would grow too large."""


Order = Fraction | float  # an exponent, or math.inf


@dataclass(frozen=True)
class Series:
    """sum of coefficients[e] * t^e for e < order (t: the variable, or 1/x, or -1/x), the
    rest unknown; math.inf for an exact finite sum."""

    coefficients: dict[Fraction, Any]
    order: Order

    @property
    def valuation(self) -> Fraction | None:
        return min(self.coefficients, default=None)

    def leading(self) -> tuple[Fraction, Any]:
        if not self.coefficients:
            raise NoSeries("every known term cancels")
        low = min(self.coefficients)
        return low, self.coefficients[low]


@dataclass
class _Allowance:
    """What the expansions of one input may still spend: coefficient operations (the work
    budget), and the backstop of the call's time."""

    work: int
    backstop: Backstop | None = None


_ALLOWANCE: ContextVar[_Allowance | None] = ContextVar("series_allowance", default=None)


def _kept(coefficients: dict[Fraction, Any], order: Order) -> Series:
    """The terms below order whose coefficients are not zero (expanded, checked), each
    paid for from the expansion's allowance (NoSeries when it is spent)."""
    allowance = _ALLOWANCE.get()
    if allowance is not None and allowance.backstop is not None and \
            allowance.backstop.passed():
        raise NoSeries("out of time")
    kept = {}
    for power, value in coefficients.items():
        if power >= order:
            continue
        value = sympy.expand(value)
        if value.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
            raise NoSeries("a coefficient is infinite")
        size = sympy.count_ops(value)
        if size > MAX_COEFFICIENT_OPS:
            raise NoSeries("a coefficient grew too large")
        if allowance is not None:
            allowance.work -= size + 1
            if allowance.work < 0:
                raise NoSeries("the series' work budget is spent")
        if value != 0:
            kept[power] = value
    return Series(kept, order)


def constant(value: Any) -> Series:
    return _kept({Fraction(0): value}, math.inf)


def add(a: Series, b: Series, sign: int = 1) -> Series:
    order = min(a.order, b.order)
    total = dict(a.coefficients)
    for power, value in b.coefficients.items():
        total[power] = total.get(power, 0) + sign * value
    return _kept(total, order)


def mul(a: Series, b: Series) -> Series:
    if not a.coefficients or not b.coefficients:
        # a known zero up to its order: the product is known up to that order plus the
        # other's valuation
        low_a = a.leading()[0] if a.coefficients else a.order
        low_b = b.leading()[0] if b.coefficients else b.order
        return Series({}, min(a.order + low_b, b.order + low_a))
    order = min(a.order + b.leading()[0], b.order + a.leading()[0])
    total: dict[Fraction, Any] = {}
    for pa, va in a.coefficients.items():
        for pb, vb in b.coefficients.items():
            if len(sympy.Add.make_args(va)) * len(sympy.Add.make_args(vb)) > MAX_PRODUCT_TERMS:
                raise NoSeries("a product of coefficients would grow too large")
            if pa + pb < order:
                total[pa + pb] = total.get(pa + pb, 0) + va * vb
    return _kept(total, order)


def _steps(order: Order, low: Fraction, step: Fraction) -> int:
    """How many powers low, low + step, ... lie below order (PRECISION past low if infinite)."""
    limit = order if order != math.inf else low + PRECISION
    return max(math.ceil((limit - low) / step), 0)


def compose(f: Callable[[Any], Any], inner: Series) -> Series:
    """f(a0 + w) = sum f^(k)(a0)/k! w^k, for w of positive valuation (a0 its constant term)."""
    if inner.valuation is not None and inner.valuation < 0:
        raise NoSeries("an analytic function of a pole")
    a0 = inner.coefficients.get(Fraction(0), 0)
    rest = Series({p: v for p, v in inner.coefficients.items() if p != 0}, inner.order)
    z = sympy.Dummy("z")
    derivative = f(z)
    if inner.order <= 0:
        raise NoSeries("its constant term is not known")
    if not rest.coefficients:  # a constant, up to the inner order
        return _kept({Fraction(0): derivative.subs(z, a0)}, inner.order)
    step = rest.leading()[0]
    order = inner.order if inner.order != math.inf else step * PRECISION
    total: dict[Fraction, Any] = {}
    power = constant(1)
    for k in range(_steps(order, Fraction(0), step) + 1):
        if sympy.count_ops(derivative) > MAX_COEFFICIENT_OPS:
            raise NoSeries("a derivative grew too large")
        coefficient = derivative.subs(z, a0) / math.factorial(k)
        for p, v in power.coefficients.items():
            if len(sympy.Add.make_args(coefficient)) * len(sympy.Add.make_args(v)) > \
                    MAX_PRODUCT_TERMS:
                raise NoSeries("a product of coefficients would grow too large")
            if p < order:
                total[p] = total.get(p, 0) + coefficient * v
        power = mul(power, rest)
        derivative = sympy.diff(derivative, z)
    return _kept(total, order)


def reciprocal(b: Series) -> Series:
    """1/b: b = c t^m (1 + u), 1/b = t^-m/c * (1 - u + u^2 - ...)."""
    m, c = b.leading()
    unit = Series({p - m: v / c for p, v in b.coefficients.items()},
                  b.order - m if b.order != math.inf else PRECISION)
    inverse = compose(lambda z: 1 / z, unit)
    return Series({p - m: v / c for p, v in inverse.coefficients.items()}, inverse.order - m)


def power(base: Series, exponent: Any, positive_side: bool) -> Series:
    """base^exponent for an exponent free of t: integers by products, others by the binomial
    series (a fractional power of the leading t only where t > 0)."""
    if exponent.is_Integer:
        n = int(exponent)
        result, factor = constant(1), base if n >= 0 else reciprocal(base)
        for _ in range(abs(n)):
            result = mul(result, factor)
        return result
    m, c = base.leading()
    if m != 0 and not (positive_side and exponent.is_Rational and c.is_positive):
        raise NoSeries("a fractional power of a term that may be negative")
    unit = Series({p - m: v / c for p, v in base.coefficients.items()},
                  base.order - m if base.order != math.inf else PRECISION)
    shifted = compose(lambda z: (c * z) ** exponent, unit)
    shift = m * Fraction(str(exponent)) if m != 0 else Fraction(0)
    return Series({p + shift: v for p, v in shifted.coefficients.items()},
                  shifted.order + shift)


def expand(expr: Expr, variable: str, at: str) -> Series:
    """expr's series in t, where x = t (at "0"), x = 1/t ("+inf") or x = -1/t ("-inf"), paid
    for from the allowance of the candidates() call it is part of (else NoSeries)."""
    return _Expander(variable, at).series(expr)


NON_ANALYTIC = {"abs", "sign", "min", "max", "where"}


@dataclass
class _Expander:
    """Series of the subterms of one expansion, each computed once (within the allowance:
    see _kept)."""

    variable: str
    at: str

    def __post_init__(self) -> None:
        self.done: dict[Expr, Series] = {}

    def series(self, expr: Expr) -> Series:
        for node in postorder(expr):
            if node in self.done:
                continue
            if node.is_symbol and node.name == self.variable:
                x = {"0": (1, 1), "+inf": (-1, 1), "-inf": (-1, -1)}[self.at]
                self.done[node] = Series({Fraction(x[0]): sympy.Integer(x[1])}, math.inf)
            elif not any(s.name == self.variable for s in node.free_symbols()):
                self.done[node] = constant(to_sympy(node))
            else:
                self.done[node] = self._node(node, [self.done[a] for a in node.args])
        return self.done[expr]

    def _node(self, node: Expr, args: list[Series]) -> Series:
        op = node.op
        if op == "add":
            return add(args[0], args[1])
        if op == "sub":
            return add(args[0], args[1], -1)
        if op == "neg":
            return add(constant(sympy.Integer(0)), args[0], -1)
        if op == "mul":
            return mul(args[0], args[1])
        if op == "div":
            return mul(args[0], reciprocal(args[1]))
        if op == "pow":
            if set(args[1].coefficients) - {0} or args[1].order != math.inf:
                raise NoSeries("an exponent that depends on the variable")
            return power(args[0], to_sympy(node.args[1]), self.at != "0")
        if op == "sqrt":
            return power(args[0], sympy.Rational(1, 2), self.at != "0")
        spec = OPS.get(op)
        if spec is None or op in NON_ANALYTIC or spec.kind not in SCALAR_KINDS:
            raise NoSeries(f"no series through {op}")
        if spec.defined_as:  # through its definition in other ops
            operands = [symbol(name) for name in spec.operands]
            definition = parse(spec.defined_as, operands)
            given = dict(zip(operands, node.args, strict=True))
            return self.series(rebuild(definition, lambda n, a: given[n] if n in given else
                                       make(n.op, *a) if n.args else n))
        if len(node.args) != 1 or spec.sympy is None:
            raise NoSeries(f"no series through {op}")
        function = getattr(sympy, spec.sympy)
        return compose(function, args[0])


def terms(series: Series, count: int) -> Series:
    """The first `count` nonzero terms."""
    kept = sorted(series.coefficients)[:count]
    return Series({p: series.coefficients[p] for p in kept}, math.inf)


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
    token = _ALLOWANCE.set(_Allowance(work, backstop))
    try:
        for variable in sorted(expr.free_symbols(), key=lambda s: s.name):
            for at in POINTS:
                try:
                    series = expand(expr, variable.name, at)
                    for count in range(1, min(MAX_TERMS, len(series.coefficients)) + 1):
                        made = to_expr(terms(series, count), variable, at)
                        found.setdefault(made, Approximation(made, variable, at))
                except (NoSeries, EqsatError, ZeroDivisionError, TypeError, ValueError):
                    continue
    finally:
        _ALLOWANCE.reset(token)
    return list(found.values())


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
        if abs(far - near) <= 1 or backstop.passed():
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
    """Whether the approximation is within TRUST_BITS of the true value, or no worse than the
    fallback, at points of its whole region in EVERY variable: drawn from the domain with
    its variable inside the region, and with the other variables set near its magnitude
    (2^k times it, each alone and all together), where a series in one variable fails that
    holds only while the others are small beside it (x*sqrt(y^2 - z^2) is x*|y| only for
    |z| << |y|). The radius was measured with the others at a few sampled values only."""
    name = approximation.variable.name
    others = sorted(n for n in points.values if n != name)
    checks = []
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
        with np.errstate(all="ignore"):
            kept = inside(domain, {n: np.array([t[n] for t in trials]) for n in row})
        found = sample_at(original, [t for t, keep in zip(trials, kept, strict=True) if keep],
                          points.dtype)
        if found is not None:
            checks.append(found)
    if backstop.passed():
        return False
    for check in checks:
        with np.errstate(all="ignore"):
            error = bits_at(approximation.expr, check)
            if not np.all((error <= TRUST_BITS) | (error <= bits_at(fallback, check))):
                return False
    return True
