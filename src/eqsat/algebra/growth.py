"""Values beyond every power of t near a point: exp(B)*f with B a pole (tending to +oo or
-oo: x^2*exp(x) and x^2*exp(-x) at oo), and their arithmetic with series: the fastest growth
decides a sum (2^x + 3^x is 3^x*(1 + (2/3)^x)), exponents cancel in products and quotients
(3^(x + 1)/3^x), and a log brings one back to a series (log(1 + exp(x)) is x + log(1 +
exp(-x))). One that shrinks is, beside any series, smaller than every power of t."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy

from .series import (
    FLAT,
    NoSeries,
    Series,
    add,
    constant,
    exp_of,
    log_of,
    mul,
    power,
    reciprocal,
    sign_near,
)


@dataclass(frozen=True)
class Exponential:
    """exp(exponent) * factor, where the exponent is a pole whose leading coefficient has a
    known sign: grows is whether it is positive (the value tends to +-oo), else it shrinks
    faster than every power of t."""

    exponent: Series
    factor: Series
    grows: bool


Value = Series | Exponential


def _pole_sign(exponent: Series) -> int | None:
    """+1 or -1 where a series is a pole (tending to +oo or -oo), None where it is bounded;
    NoSeries where its sign is not known."""
    if exponent.valuation is None or exponent.valuation >= 0:
        return None
    sign = sign_near(exponent.leading()[1])
    if sign is None:
        raise NoSeries("the sign of an exponent that tends to infinity is not known")
    return sign


def exponential(exponent: Series, factor: Series) -> Value:
    """exp(exponent) * factor: an Exponential where the exponent is a pole, else a series."""
    sign = _pole_sign(exponent)
    if sign is None:
        return mul(exp_of(exponent), factor)
    return Exponential(exponent, factor, sign > 0)


def negated_series(value: Series) -> Series:
    return add(constant(sympy.Integer(0)), value, -1)


def negated(value: Value) -> Value:
    if isinstance(value, Exponential):
        return Exponential(value.exponent, negated_series(value.factor), value.grows)
    return negated_series(value)


def as_series(value: Value, what: str) -> Series:
    """A value as a series: one that shrinks is no terms up to FLAT; NoSeries for one that
    grows."""
    if isinstance(value, Series):
        return value
    if value.grows:
        raise NoSeries(f"{what} of a value growing faster than every power")
    return Series({}, FLAT)


def add_values(a: Value, b: Value, sign: int = 1) -> Value:
    """a + sign*b: a growing value hides a series and a series hides a shrinking one; of two
    exponentials, the faster, or both over the first's exponent where their exponents differ
    by a bounded amount."""
    if sign < 0:
        b = negated(b)
    if isinstance(a, Series) and isinstance(b, Series):
        return add(a, b)
    if isinstance(a, Series) or isinstance(b, Series):
        series, other = (a, b) if isinstance(a, Series) else (b, a)
        assert isinstance(series, Series) and isinstance(other, Exponential)
        return other if other.grows else add(series, as_series(other, "a sum"))
    faster = _pole_sign(add(a.exponent, b.exponent, -1))
    if faster is not None:
        return a if faster > 0 else b
    scaled = mul(b.factor, exp_of(add(b.exponent, a.exponent, -1)))  # exp(B - A)
    return Exponential(a.exponent, add(a.factor, scaled), a.grows)


def mul_values(a: Value, b: Value) -> Value:
    if isinstance(a, Series) and isinstance(b, Series):
        return mul(a, b)
    if isinstance(a, Series):
        a, b = b, a
    assert isinstance(a, Exponential)
    if isinstance(b, Series):
        return Exponential(a.exponent, mul(a.factor, b), a.grows)
    return exponential(add(a.exponent, b.exponent), mul(a.factor, b.factor))


def reciprocal_value(value: Value) -> Value:
    if isinstance(value, Series):
        return reciprocal(value)
    return Exponential(negated_series(value.exponent), reciprocal(value.factor), not value.grows)


def power_value(value: Value, exponent: Any, positive_t: bool) -> Value:
    """value^exponent for an exponent free of t (see series.power)."""
    if isinstance(value, Series):
        return power(value, exponent, positive_t)
    if exponent.is_negative:
        return reciprocal_value(power_value(value, -exponent, positive_t))
    if exponent == 0:
        return constant(sympy.Integer(1))
    scaled = Series({p: v * exponent for p, v in value.exponent.coefficients.items()},
                    value.exponent.order)
    return Exponential(scaled, power(value.factor, exponent, positive_t), value.grows)


def log_value(value: Value) -> Series:
    """log(value): log(exp(B)*f) = B + log(f)."""
    if isinstance(value, Series):
        return log_of(value)
    return add(value.exponent, log_of(value.factor))


def exp_value(value: Value) -> Value:
    """exp(value): an Exponential where value tends to +-oo."""
    if isinstance(value, Exponential):
        if value.grows:
            raise NoSeries("exp of a value growing faster than every power")
        value = as_series(value, "exp")
    return exponential(value, constant(sympy.Integer(1)))


def sign_of(value: Value) -> int | None:
    """The sign of a value near the point, where its leading coefficient tells."""
    leading = value.factor if isinstance(value, Exponential) else value
    return sign_near(leading.leading()[1])
