"""Expanding an expression in one variable near a point, subterm by subterm: Taylor, Laurent
and Puiseux series (series.py), and values growing faster than every power (growth.py).

The expansion variable t is small: x = x0 + t (from above), x = x0 - t (from below), x = 1/t
at +oo, x = -1/t at -oo; t > 0 in each (both signs at a point seen from both sides, where a
fractional power or a log of t has no real series). Asymptotic expansions (series and limit)
also allow log terms, exponents that depend on the variable (a^b as exp(b*log(a))), and
values beyond every power (growth.py); stabilize's regimes ask for plain series.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import sympy

from ..term.expr import Expr, make, symbol
from ..term.ops import OPS, SCALAR_KINDS
from ..term.parse import parse
from ..term.sympy_bridge import to_sympy
from ..term.walks import rebuild
from .growth import (
    Value,
    add_values,
    as_series,
    exp_value,
    log_value,
    mul_values,
    negated,
    power_value,
    reciprocal_value,
    sign_of,
)
from .series import NoSeries, Series, add, compose, constant, mul, reciprocal, series_of_variable

NON_ANALYTIC = {"abs", "sign", "min", "max", "where"}
# ops whose derivative is a polynomial in the op (see compose), and their quotients at a pole
_CHAINS: dict[str, Callable[[Any], Any]] = {"tan": lambda f: 1 + f**2, "tanh": lambda f: 1 - f**2}
_QUOTIENTS = {"tan": ("sin", "cos"), "tanh": ("sinh", "cosh")}
# the inverse sine and cosine where their argument starts at 1 or -1 (their derivatives are
# infinite there), by the half angle: a = 1 - 2*sin(t)^2, so the series is in sqrt((1 - a)/2)
# (Puiseux); each identity holds on -1 <= a <= 1, where both sides are defined
_AT_ENDS = {("asin", 1): "pi/2 - 2*asin(sqrt((1 - a)/2))",
            ("asin", -1): "2*asin(sqrt((1 + a)/2)) - pi/2",
            ("acos", 1): "2*asin(sqrt((1 - a)/2))",
            ("acos", -1): "pi - 2*asin(sqrt((1 + a)/2))"}


@dataclass
class Expander:
    """Expansions of the subterms of one expression in one variable near one point (see the
    module's note): point, a SymPy value free of the variable or +-oo; side, +1 (from above),
    -1 (from below) or 0 (both, at a finite point); asymptotic: log terms, variable exponents,
    parts smaller than every power and growing values allowed."""

    variable: str
    point: Any
    side: int
    asymptotic: bool = False
    done: dict[Expr, Value] = field(default_factory=dict)

    @property
    def positive_t(self) -> bool:
        return self.side != 0

    def series(self, expr: Expr) -> Series:
        """The series of expr (NoSeries where it grows faster than every power)."""
        return as_series(self.value(expr), "a series")

    def value(self, expr: Expr) -> Value:
        found = self.done.get(expr)
        if found is None:
            if expr.is_symbol and expr.name == self.variable:
                found = series_of_variable(self.point, self.side)
            elif not any(s.name == self.variable for s in expr.free_symbols()):
                found = constant(to_sympy(expr))
            else:
                found = self._node(expr)
            self.done[expr] = found
        return found

    def _node(self, node: Expr) -> Value:
        op = node.op
        if op in ("mul", "div") or (op == "pow" and self._varying_exponent(node)):
            return self._product(node)
        if op in ("add", "sub"):
            return add_values(self.value(node.args[0]), self.value(node.args[1]),
                              1 if op == "add" else -1)
        if op == "neg":
            return negated(self.value(node.args[0]))
        if op == "pow":
            exponent = self.series(node.args[1])
            if set(exponent.coefficients) - {0} or exponent.order != math.inf:
                raise NoSeries("an exponent that depends on the variable")
            return power_value(self.value(node.args[0]), to_sympy(node.args[1]),
                               self.positive_t)
        if op == "sqrt":
            return power_value(self.value(node.args[0]), sympy.Rational(1, 2), self.positive_t)
        if self.asymptotic and self.positive_t:
            special = self._asymptotic(node)
            if special is not None:
                return special
        spec = OPS.get(op)
        if spec is None or op in NON_ANALYTIC or spec.kind not in SCALAR_KINDS:
            raise NoSeries(f"no series through {op}")
        if spec.defined_as:  # through its definition in other ops
            operands = [symbol(name) for name in spec.operands]
            definition = parse(spec.defined_as, operands)
            given = dict(zip(operands, node.args, strict=True))
            return self.value(rebuild(definition, lambda n, a: given[n] if n in given else
                                      make(n.op, *a) if n.args else n))
        if len(node.args) != 1 or spec.sympy is None:
            raise NoSeries(f"no series through {op}")
        inner = as_series(self.value(node.args[0]), op)
        end = (op, inner.coefficients.get(Fraction(0))) if inner.valuation == 0 else None
        function = getattr(sympy, spec.sympy)
        if end in _AT_ENDS and len(inner.coefficients) == 1:  # 1 + O(t^k): the half angle's
            value = function(end[1])                             # root, O(t^(k/2))
            return Series({Fraction(0): value} if value != 0 else {}, inner.order / 2)
        if end in _AT_ENDS:
            a = symbol("a")
            identity = parse(_AT_ENDS[end], [a])
            return self.value(rebuild(identity, lambda n, args: node.args[0] if n == a else
                                      make(n.op, *args) if n.args else n))
        if op in _CHAINS:
            if self.asymptotic and _at_pole(function, inner):  # as a quotient there
                top, bottom = (getattr(sympy, name) for name in _QUOTIENTS[op])
                return mul(compose(top, inner), reciprocal(compose(bottom, inner)))
            return compose(function, inner, _CHAINS[op])
        return compose(function, inner)

    def _varying_exponent(self, node: Expr) -> bool:
        return self.asymptotic and any(s.name == self.variable
                                       for s in node.args[1].free_symbols())

    def _product(self, node: Expr) -> Value:
        """A product of factors, each to the power +-1; in an asymptotic expansion the
        exponentials among them (exp(b), and a^b with b varying) in one exp of the sum of
        their exponents, where poles may cancel (x^2/exp(x) at oo; exp(1/sin(x))/
        exp(cot(x)) at 0)."""
        product: Value = constant(sympy.Integer(1))
        exponent: Series | None = None
        for factor, sign in factors(node):
            if self.asymptotic and factor.op == "exp":
                part = self.series(factor.args[0])
            elif factor.op == "pow" and self._varying_exponent(factor):
                part = mul(self.series(factor.args[1]), log_value(self.value(factor.args[0])))
            else:
                found = self.value(factor)
                product = mul_values(product, found if sign > 0 else reciprocal_value(found))
                continue
            signed = part if sign > 0 else add(constant(sympy.Integer(0)), part, -1)
            exponent = signed if exponent is None else add(exponent, signed)
        if exponent is None:
            return product
        return mul_values(product, exp_value(exponent))

    def _asymptotic(self, node: Expr) -> Value | None:
        """log, exp, abs and atan where t > 0 tells more than their power series."""
        if node.op == "log":
            return log_value(self.value(node.args[0]))
        if node.op == "exp":
            return exp_value(self.value(node.args[0]))
        if node.op == "abs":
            inner = self.value(node.args[0])
            sign = sign_of(inner)
            if sign is None:
                raise NoSeries(f"the sign of {node.args[0]} near the point is not known")
            return inner if sign > 0 else negated(inner)
        if node.op == "atan":
            found = self.value(node.args[0])
            if isinstance(found, Series) and (found.valuation is None or found.valuation >= 0):
                return None
            sign = sign_of(found)  # atan(y) = sign(y)*pi/2 - atan(1/y)
            if sign is None:
                raise NoSeries(f"the sign of {node.args[0]} near the point is not known")
            small = as_series(reciprocal_value(found), "atan")
            return add(constant(sign * sympy.pi / 2), compose(sympy.atan, small), -1)
        return None


def _at_pole(function: Callable[[Any], Any], inner: Series) -> bool:
    """Whether the function is infinite at inner's constant term."""
    if inner.valuation is not None and inner.valuation < 0:
        return False
    return bool(function(inner.coefficients.get(Fraction(0), 0)).has(sympy.zoo))


def factors(node: Expr, sign: int = 1) -> Iterator[tuple[Expr, int]]:
    """The factors of nested products and quotients, each with its power (+1 or -1)."""
    if node.op == "mul":
        yield from factors(node.args[0], sign)
        yield from factors(node.args[1], sign)
    elif node.op == "div":
        yield from factors(node.args[0], sign)
        yield from factors(node.args[1], -sign)
    else:
        yield node, sign


def expand(expr: Expr, variable: str, at: str) -> Series:
    """expr's series in t, where x = t (at "0", t of either sign), x = 1/t ("+inf") or
    x = -1/t ("-inf"): stabilize's regimes, paid for from the allowance they set."""
    point = {"0": sympy.Integer(0), "+inf": sympy.oo, "-inf": -sympy.oo}[at]
    return Expander(variable, point, 0 if at == "0" else 1).series(expr)
