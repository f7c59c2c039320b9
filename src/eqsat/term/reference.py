"""The exact-enough real value of a term at a point, by mpmath: the ground truth every
numeric check compares with, and the digits a value hides."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import mpmath

from ..errors import EvaluationError
from .ops import COMPARISONS, OPS
from .walks import postorder

if TYPE_CHECKING:
    from .expr import Expr


def _derivative(node: Expr, values: Mapping[str, mpmath.mpf]) -> mpmath.mpf | None:
    """diff(f, x) at a point, by mpmath's numerical differentiation of f's reference."""
    body, variable = node.args
    if not variable.is_symbol:
        raise EvaluationError(f"diff needs a symbol to differentiate in, not {variable}")

    def along(t: mpmath.mpf) -> mpmath.mpf:  # at the raised precision diff works in
        value = reference(body, {**values, variable.name: t}, mpmath.mp.dps)
        if value is None:
            raise ValueError("undefined near the point")
        return value

    if variable.name not in values:
        raise EvaluationError(f"no value given for symbol {variable.name!r}")
    try:
        return mpmath.diff(along, mpmath.mpf(values[variable.name]))
    except (ValueError, ZeroDivisionError):
        return None


_ROUGH = 64  # bits for a magnitude that only a comparison or a count of digits reads
_DIGITS_PER_BIT = math.log10(2)


def _digits(ratio_exponent: float) -> float:
    """The decimal digits of a ratio 2^k, given k (binary exponents: mpmath.mag)."""
    return ratio_exponent * _DIGITS_PER_BIT


def _spreads(op: str, args: list[mpmath.mpf], result: mpmath.mpf) -> list[float]:
    """How many digits a node's value hides (within a digit: read from binary exponents): a
    sum or difference spans its operands and result (cancellation, or a small operand
    absorbed by a large one; infinite when it cancels to exactly 0); exp(a), cos(a), ...
    near a = 0 hide a (or a^2) under 1."""
    if op in ("add", "sub"):
        sizes = [mpmath.mag(a) for a in args if a] + ([mpmath.mag(result)] if result else [])
        if not result:
            return [math.inf] if sizes else []
        return [_digits(max(sizes) - min(sizes))]
    if op in OPS and OPS[op].absorbs and args[0] and abs(args[0]) < 1:
        return [_digits(-OPS[op].absorbs * mpmath.mag(args[0]))]
    if op == "log1mexp" and args[0] < -1:  # log(1 - exp(a)): exp(a) under 1
        return [min(float(-args[0]), 1e300) * math.log10(math.e)]
    if op == "logaddexp" and result and abs(result) < 1:  # log(1 + small)
        return [_digits(-mpmath.mag(result))]
    if op == "pow" and args[0] > 0 and args[1]:
        with mpmath.workprec(_ROUGH):
            shift = abs(args[1] * mpmath.log(args[0]))
            return [_digits(-mpmath.mag(shift))] if 0 < shift < 1 else []
    return []


ASTRONOMICAL = mpmath.mpf(10) ** 308  # no float is larger: exp of it means nothing here
UNDECIDED_DIGITS = 15  # a comparison's sides within this many digits of the working
# precision's last are not told apart: acosh(cosh(x)) == x rounds to false at any precision


def digits_needed(spreads: list[float], kept: float, top: float) -> float:
    """The working digits that leave every node `kept` digits beyond what it hides (its
    spread from reference(), in digits; a total cancellation asks for top); spreads past top
    cannot be resolved and are left out (0 where there are none)."""
    wanted = [d + kept if math.isfinite(d) else top for d in spreads]
    return max((w for w in wanted if w <= top), default=0.0)


def astronomical(op: str, args: list[Any], huge: Any, log: Callable[[Any], Any]) -> bool:
    """Whether an exponential's or a periodic function's argument is beyond every float
    (exp(exp(exp(20))) has the argument 10^(2*10^8); sin(exp(x)) at x = 10^5 needs pi to
    43,000 digits): mpmath would take minutes or more on it, and no float input can produce
    it. Such points count as not finite. Decided on mpmath's numbers (huge: ASTRONOMICAL) or
    on arb balls (balls.py: where those cannot tell, not)."""
    spec = OPS.get(op)
    if spec is None or not spec.grows_past_floats:  # (mpmath takes minutes, or runs out of
        return False  # memory, on sigmoid(10^(10^13)), tanh and erfc alike)
    if spec.periodic:
        return bool(abs(args[0]) > huge)
    if op == "pow":
        base, exponent = (abs(a) for a in args)
        return bool(exponent > huge or (base > 1 and exponent * log(base) > huge))
    return any(abs(a) > huge for a in args)


def _rough_log(value: mpmath.mpf) -> mpmath.mpf:
    """A logarithm that only a comparison of magnitudes reads."""
    with mpmath.workprec(_ROUGH):
        return mpmath.log(value)


def _too_close(left: mpmath.mpf, right: mpmath.mpf) -> bool:
    """Whether two sides differ, but by no more than their rounding could make them."""
    rounding = mpmath.mpf(10) ** (UNDECIDED_DIGITS - mpmath.mp.dps)
    return bool(0 < abs(left - right) <= rounding * max(abs(left), abs(right)))


def reference(expr: Expr, values: Mapping[str, mpmath.mpf], digits: int = 60,
              max_magnitude: int | None = None,
              spreads: list[float] | None = None) -> mpmath.mpf | None:
    """The exact-enough real value at a point, or None where expr is undefined or not finite
    (or astronomically large: see astronomical), or a comparison's sides are too close for
    the digits to tell apart.

    With max_magnitude, also None when an intermediate value reaches 10^max_magnitude: its
    absolute rounding error could then swamp a result that cancels down to a small number.
    With `spreads` (a list), it receives for each node the k digits more than the float
    result that the node needs: see _spreads.
    """
    done: dict[Expr, mpmath.mpf | None] = {}  # None: undefined there
    bound = mpmath.mpf(10) ** max_magnitude if max_magnitude is not None else None
    nodes = postorder(expr)
    lazy = any(node.op == "where" for node in nodes)  # an undefined branch may not be taken
    with mpmath.workdps(digits):
        for node in nodes:
            result = _value(node, done, values)
            if not isinstance(result, mpmath.mpf) or not mpmath.isfinite(result) or \
                    (bound is not None and abs(result) >= bound):
                result = None
            if result is None and not lazy:
                return None
            if result is not None and spreads is not None:
                spreads.extend(_spreads(node.op, [done[a] for a in node.args], result))
            done[node] = result
    return done[expr]


def _value(node: Expr, done: Mapping[Expr, mpmath.mpf | None],
           values: Mapping[str, mpmath.mpf]) -> Any:
    """The node's value from its operands' (at the working precision), None where it is
    undefined or too large to mean anything; a where's is its taken branch's."""
    if node.is_symbol:
        if node.name not in values:
            raise EvaluationError(f"no value given for symbol {node.name!r}")
        return mpmath.mpf(values[node.name])
    if node.is_number:
        return mpmath.mpf(node.number.numerator) / node.number.denominator
    if node.op == "diff":
        return _derivative(node, values)
    spec = OPS[node.op]
    if spec.reference is None:
        raise EvaluationError(f"cannot evaluate {node.op} {node}: it is not a value")
    args = [done[a] for a in node.args]
    if node.op == "where" and args[0] is not None:
        return args[1] if args[0] != 0 else args[2]
    if any(a is None for a in args):
        return None
    if node.op in COMPARISONS and _too_close(*args):
        return None
    if spec.grows_past_floats and astronomical(node.op, args, ASTRONOMICAL, _rough_log):
        return None
    try:
        return spec.reference(*args)
    except (ZeroDivisionError, ValueError, OverflowError):
        return None
