"""Truncated series in a small variable t: Taylor, Laurent and Puiseux terms with exact
coefficients (SymPy's), and their arithmetic (sums, products, reciprocals, powers, analytic
functions of them; logs and exps in asymptotic expansions).

Asymptotic expansions (the verbs') also allow log(t) in coefficients (LOG_T, slower than
every power of t) and parts smaller than every power (exp(-1/t): a series of no terms up to
FLAT). Coefficients are paid for from an allowance of work, so the same input always ends
the same way (algebra/expander.py expands expressions with these).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from ..limits.budget import Backstop

PRECISION = 8  # exponents known past the leading one, unless an allowance says more
MAX_COEFFICIENT_OPS = 400  # a coefficient larger than this stops an expansion
WRITTEN_PER_OP = 2  # ... and one whose unexpanded form has more than this many nodes per op
MAX_PRODUCT_TERMS = 2000  # terms of a product of two coefficients, expanded
FLAT = Fraction(10**6)  # the order of a part smaller than every power of t, as exp(-1/t)
LOG_T = sympy.Dummy("log_t")  # log(t) inside a coefficient
ZERO_DIGITS = 30  # a coefficient not proven 0 but within 10^-ZERO_DIGITS of it at random
# points is undecided (exact expansions): neither kept nor dropped


class NoSeries(Exception):
    """The expression has no series of this kind here (a branch point, an essential
    singularity, a non-analytic op), or its coefficients would grow too large."""


Order = Fraction | float  # an exponent, or math.inf


@dataclass(frozen=True)
class Series:
    """sum of coefficients[e] * t^e for e < order, the rest unknown; math.inf for an exact
    finite sum."""

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

    @property
    def flat(self) -> bool:
        """Whether it is smaller than every power of t (no terms, known to order ~FLAT)."""
        return not self.coefficients and self.order >= FLAT / 2

    def shifted(self, by: Fraction, scale: Any = 1) -> Series:
        """t^by * scale * self."""
        return Series({p + by: v * scale for p, v in self.coefficients.items()},
                      self.order + by)


@dataclass
class Allowance:
    """What the expansions of one call may spend: coefficient operations (work), and the
    backstop of its time; precision: exponents computed past a leading one; exact:
    coefficients in lowest terms, a zero decided (never guessed) where it matters; largest:
    the operations one coefficient may hold."""

    work: int
    backstop: Backstop | None = None
    precision: int = PRECISION
    exact: bool = False
    largest: int = MAX_COEFFICIENT_OPS  # operations in one coefficient


_ALLOWANCE: ContextVar[Allowance | None] = ContextVar("series_allowance", default=None)


@contextmanager
def allowance(given: Allowance) -> Iterator[Allowance]:
    """Expansions inside pay from this allowance."""
    token = _ALLOWANCE.set(given)
    try:
        yield given
    finally:
        _ALLOWANCE.reset(token)


def _precision() -> int:
    found = _ALLOWANCE.get()
    return found.precision if found is not None else PRECISION


def _largest() -> int:
    found = _ALLOWANCE.get()
    return found.largest if found is not None else MAX_COEFFICIENT_OPS


def _kept(coefficients: dict[Fraction, Any], order: Order) -> Series:
    """The terms below order whose coefficients are not zero (expanded, checked), each
    paid for from the allowance (NoSeries when it is spent)."""
    found = _ALLOWANCE.get()
    exact = found is not None and found.exact
    kept = {}
    for power, value in coefficients.items():
        if found is not None and found.backstop is not None and found.backstop.passed():
            raise NoSeries("out of time")
        if power >= order:
            continue
        # expanding costs time by the size of what is expanded, more than by the result
        written = _nodes(value, WRITTEN_PER_OP * _largest())
        if written > WRITTEN_PER_OP * _largest():
            raise NoSeries("a coefficient grew too large")
        _spend(found, written)
        value = _lowest_terms(value) if exact else sympy.expand(value)
        if value.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
            raise NoSeries("a coefficient is infinite")
        if value.has(sympy.AccumBounds):  # (atan(log(0)): SymPy's bounds of atan(zoo))
            raise NoSeries("a coefficient is undefined")
        if exact and (value.has(sympy.I) or value.is_extended_real is False):
            raise NoSeries("a coefficient is not real")  # (asin(sinh(1)) holds no I)
        size = sympy.count_ops(value)
        if size > _largest():
            raise NoSeries("a coefficient grew too large")
        _spend(found, size + 1)
        if value != 0 and not (exact and _is_zero(value)):
            kept[power] = value
    return Series(kept, order)


def _spend(found: Allowance | None, work: int) -> None:
    """Pay work from the allowance (NoSeries when it is spent)."""
    if found is not None:
        found.work -= work
        if found.work < 0:
            raise NoSeries("the series' work budget is spent")


def _nodes(value: Any, cap: int) -> int:
    """The nodes of a SymPy expression as written, counted up to cap + 1."""
    count, stack = 0, [value]
    while stack and count <= cap:
        node = stack.pop()
        count += 1
        stack.extend(getattr(node, "args", ()))
    return count


def _lowest_terms(value: Any) -> Any:
    """A coefficient as a fraction in lowest terms, logs of rationals over primes (so that
    log(46656) - 6*log(6) is 0)."""
    value = sympy.sympify(value).replace(
        lambda e: isinstance(e, sympy.log) and e.args[0].is_Rational and e.args[0] > 0,
        _log_over_primes)
    return sympy.cancel(sympy.expand(value))


def _log_over_primes(term: Any) -> Any:
    number = term.args[0]
    parts = {**sympy.factorint(number.p)}
    for prime, count in sympy.factorint(number.q).items():
        parts[prime] = parts.get(prime, 0) - count
    return sum((count * sympy.log(prime) for prime, count in parts.items()), sympy.Integer(0))


def _is_zero(value: Any) -> bool:
    """Whether a coefficient that is not literally 0 is 0: near 0 at random points but not
    proven so (by SymPy's simplify) is undecided, NoSeries."""
    if value.is_Rational:
        return False
    chooser = random.Random(len(str(value)))  # the same points for the same coefficient
    free = sorted(value.free_symbols, key=str)
    for _ in range(2):
        point = {s: sympy.Rational(chooser.randint(2, 97), chooser.randint(2, 97)) *
                 (-1 if s is LOG_T else 1) for s in free}
        with_values = value.xreplace(point).evalf(ZERO_DIGITS + 10)
        if not with_values.is_number or abs(with_values) > sympy.Float(10) ** -ZERO_DIGITS:
            return False
    if sympy.simplify(value) == 0:
        return True
    raise NoSeries(f"cannot decide whether {value} is 0")


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
    """How many powers low, low + step, ... lie below order (precision past low if infinite)."""
    limit = order if order != math.inf else low + _precision()
    return max(math.ceil((limit - low) / step), 0)


def compose(f: Callable[[Any], Any], inner: Series,
            chain: Callable[[Any], Any] | None = None) -> Series:
    """f(a0 + w) = sum f^(k)(a0)/k! w^k, for w of positive valuation (a0 its constant term).
    chain: f' as a polynomial in f (1 + f^2 for tan), whose derivatives then stay small."""
    if inner.valuation is not None and inner.valuation < 0:
        raise NoSeries("an analytic function of a pole")
    a0 = inner.coefficients.get(Fraction(0), 0)
    rest = Series({p: v for p, v in inner.coefficients.items() if p != 0}, inner.order)
    z = sympy.Dummy("z")
    derivative = z if chain is not None else f(z)  # (a polynomial in f(z), or in z)
    at = f(a0) if chain is not None else a0
    if inner.order <= 0:
        raise NoSeries("its constant term is not known")
    if not rest.coefficients:  # a constant, up to the inner order
        return _kept({Fraction(0): derivative.subs(z, at)}, inner.order)
    step = rest.leading()[0]
    order = inner.order if inner.order != math.inf else step * _precision()
    total: dict[Fraction, Any] = {}
    power = constant(1)
    for k in range(_steps(order, Fraction(0), step) + 1):
        if sympy.count_ops(derivative) > _largest():
            raise NoSeries("a derivative grew too large")
        coefficient = derivative.subs(z, at) / math.factorial(k)
        for p, v in power.coefficients.items():
            if len(sympy.Add.make_args(coefficient)) * len(sympy.Add.make_args(v)) > \
                    MAX_PRODUCT_TERMS:
                raise NoSeries("a product of coefficients would grow too large")
            if p < order:
                total[p] = total.get(p, 0) + coefficient * v
        power = mul(power, rest)
        derivative = sympy.expand(sympy.diff(derivative, z) * chain(z)) if chain is not None \
            else sympy.diff(derivative, z)
    return _kept(total, order)


def _unit(b: Series) -> tuple[Fraction, Any, Series]:
    """b = c t^m (1 + u): m, c and 1 + u."""
    m, c = b.leading()
    unit = Series({p - m: v / c for p, v in b.coefficients.items()},
                  b.order - m if b.order != math.inf else _precision())
    return m, c, unit


def reciprocal(b: Series) -> Series:
    """1/b: b = c t^m (1 + u), 1/b = t^-m/c * (1 - u + u^2 - ...)."""
    m, c, unit = _unit(b)
    return compose(lambda z: 1 / z, unit).shifted(-m, 1 / c)


def power(base: Series, exponent: Any, positive_t: bool) -> Series:
    """base^exponent for an exponent free of t: integers by products, others by the binomial
    series (a fractional power of the leading t only where t > 0)."""
    if exponent.is_Integer:
        n = int(exponent)
        result, factor = constant(1), base if n >= 0 else reciprocal(base)
        for _ in range(abs(n)):
            result = mul(result, factor)
        return result
    m, c, unit = _unit(base)
    if m != 0 and not (positive_t and exponent.is_Rational and c.is_positive):
        raise NoSeries("a fractional power of a term that may be negative")
    if c.is_negative:  # (undefined in the reals: (-8)^(1/3) is no number here)
        raise NoSeries("a fractional power of a negative value")
    shifted = compose(lambda z: (c * z) ** exponent, unit)
    return shifted.shifted(m * Fraction(str(exponent)) if m != 0 else Fraction(0))


def log_of(s: Series) -> Series:
    """log(s); where s = c t^m (1 + u) with m != 0 (t > 0), log(c) + m log(t) + log(1 + u)."""
    m, c, unit = _unit(s)
    if m == 0 and not c.has(LOG_T):
        return compose(sympy.log, s)
    if c.has(LOG_T):
        raise NoSeries("a log of a log term")
    return add(constant(sympy.log(c) + sympy.Rational(m.numerator, m.denominator) * LOG_T),
               compose(sympy.log, unit))


def exp_of(s: Series) -> Series:
    """exp(s) for s bounded (growth.py takes poles): exp(k log(t) + r + w) = t^k exp(r)
    (1 + ...) for a rational k."""
    if s.valuation is not None and s.valuation < 0:
        raise NoSeries("exp of a pole")
    a0 = sympy.expand(s.coefficients.get(Fraction(0), 0))
    k = a0.coeff(LOG_T) if a0.has(LOG_T) else sympy.Integer(0)
    rest = sympy.expand(a0 - k * LOG_T)
    if rest.has(LOG_T) or not k.is_Rational:
        raise NoSeries("exp of a log term that is not a rational multiple of log(t)")
    inner = Series({**s.coefficients, Fraction(0): rest}, s.order)
    return compose(sympy.exp, inner).shifted(Fraction(int(k.p), int(k.q)))


def sign_near(value: Any) -> int | None:
    """+1 or -1 where SymPy proves a coefficient's sign as t tends to 0+ (log(t) to -oo);
    None where it cannot."""
    if value.has(LOG_T):  # a ratio of polynomials in log(t): its leading terms decide
        top, bottom = sympy.fraction(sympy.cancel(value))
        if not (top.is_polynomial(LOG_T) and bottom.is_polynomial(LOG_T)):
            return None
        high, low = sympy.Poly(top, LOG_T), sympy.Poly(bottom, LOG_T)
        lead = sign_near(high.LC() / low.LC())
        return None if lead is None else lead * (-1) ** (high.degree() - low.degree())
    if value.is_positive:
        return 1
    if value.is_negative:
        return -1
    return None


def series_of_variable(point: Any, side: int) -> Series:
    """x itself: x0 + t (side +1 or 0), x0 - t (side -1), 1/t at +oo, -1/t at -oo."""
    if point in (sympy.oo, -sympy.oo):
        return Series({Fraction(-1): sympy.Integer(1 if point == sympy.oo else -1)}, math.inf)
    return _kept({Fraction(0): point, Fraction(1): sympy.Integer(side or 1)}, math.inf)


def terms(series: Series, count: int) -> Series:
    """The first `count` nonzero terms."""
    kept = sorted(series.coefficients)[:count]
    return Series({p: series.coefficients[p] for p in kept}, math.inf)
