"""Numeric meaning of an Expr: NumPy evaluation, and the mpmath ground truth."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from ..errors import EvaluationError
from .expr import Expr, postorder
from .ops import COMPARISONS, OPS, TENSOR_OPS, OpKind
from .shape import ALL_AXES, AXISWISE, REDUCTIONS


def rounded(value: Fraction) -> float:
    """The nearest float to an exact constant; past float's range an infinity, as a float
    literal such as 1e400 rounds."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def erf(x: Any) -> Any:
    """Error function, elementwise."""
    elementwise = np.frompyfunc(math.erf, 1, 1)  # made here: a module-level one would not
    return np.asarray(elementwise(x), dtype=np.result_type(x, np.float32))  # pickle (Dask)


def erfc(x: Any) -> Any:
    """Complementary error function, elementwise."""
    elementwise = np.frompyfunc(math.erfc, 1, 1)
    return np.asarray(elementwise(x), dtype=np.result_type(x, np.float32))


def sigmoid(x: Any) -> Any:
    """1 / (1 + exp(-x)), without overflow for large |x|."""
    return np.exp(-np.logaddexp(0, -x))


def softplus(x: Any) -> Any:
    """log(1 + exp(x)), without overflow."""
    return np.logaddexp(0, x)


def log1mexp(x: Any) -> Any:
    """log(1 - exp(x)) for x < 0, accurate near 0 and for large -x."""
    return np.where(x > -math.log(2), np.log(-np.expm1(x)), np.log1p(-np.exp(x)))


def logsumexp(x: Any, axis: int | None = None) -> Any:
    """log(sum(exp(x))) over an axis (None: all), shifted by the largest element so that
    exp neither overflows nor underflows."""
    x = np.asarray(x)
    top = np.max(x, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0)
    total = np.log(np.sum(np.exp(x - top), axis=axis, keepdims=True)) + top
    return total.reshape(()) if axis is None else np.squeeze(total, axis=axis)


def softmax(x: Any, axis: int | None = None) -> Any:
    """exp(x) / sum(exp(x)) over an axis (None: all), shifted by the largest element."""
    x = np.asarray(x)
    shifted = np.asarray(x - np.max(x, axis=axis, keepdims=True))  # new: updated in place
    np.exp(shifted, out=shifted)
    shifted /= np.sum(shifted, axis=axis, keepdims=True)
    return shifted


def log_softmax(x: Any, axis: int | None = None) -> Any:
    """log(softmax(x)) over an axis (None: all), without forming the softmax."""
    x = np.asarray(x)
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def expand(c: Any, shape: tuple[int, ...], axis: int | None = None) -> Any:
    """c, a reduction over an axis (None: all) of a tensor of this shape, repeated back
    to the shape."""
    if axis is None:
        return np.broadcast_to(c, shape)
    reduced = np.broadcast_to(c, shape[:axis] + shape[axis + 1:])
    return np.broadcast_to(np.expand_dims(reduced, axis), shape)


def sum_to(c: Any, shape: tuple[int, ...]) -> Any:
    """c summed down to a shape it was broadcast from (NumPy's rules run backwards)."""
    c = np.asarray(c)
    extra = c.ndim - len(shape)
    if extra > 0:
        c = np.sum(c, axis=tuple(range(extra)))
    stretched = tuple(k for k, size in enumerate(shape) if size == 1 and c.shape[k] != 1)
    if stretched:
        c = np.sum(c, axis=stretched, keepdims=True)
    return np.broadcast_to(c, shape)


def numpy_function(name: str) -> Callable[..., Any]:
    """The callable behind an op's `numpy` entry: a NumPy ufunc or a helper here."""
    spec = OPS[name]
    if name == "where":
        return lambda c, a, b: np.where(np.asarray(c) != 0, a, b)
    if spec.numpy.startswith("np."):
        return getattr(np, spec.numpy[3:])  # type: ignore[no-any-return]
    return globals()[spec.numpy]  # type: ignore[no-any-return]


def evaluate(expr: Expr, values: Mapping[str, Any]) -> Any:
    """Evaluate with NumPy; `values` maps symbol names to numbers or arrays."""
    done: dict[Expr, Any] = {}
    sizes: dict[str, int] = {}  # what each named dimension is in the values given
    with np.errstate(all="ignore"):
        for node in postorder(expr):
            if node.is_symbol:
                if node.name not in values:
                    raise EvaluationError(f"no value given for symbol {node.name!r}")
                arr = _real_array(node.name, values[node.name])
                if node.shape:
                    _check_declared(node, arr.shape, sizes)
                done[node] = arr
            elif node.is_number:
                done[node] = rounded(node.number)
            elif OPS[node.op].kind == OpKind.CONSTANT:
                done[node] = float(getattr(np, OPS[node.op].numpy[3:]))
            elif not OPS[node.op].is_value:
                raise EvaluationError(f"cannot evaluate {node.op} {node}: it is not a value")
            elif node.op in TENSOR_OPS:
                done[node] = _tensor_value(node.op, [done[a] for a in node.args])
            else:
                value = numpy_function(node.op)(*(done[a] for a in node.args))
                if node.op in COMPARISONS:  # 1.0 where true, 0.0 where false
                    value = np.asarray(value, dtype=np.result_type(
                        *(done[a] for a in node.args), np.float32))
                done[node] = value
    return done[expr]


def _real_array(name: str, given: Any) -> Any:
    """A symbol's value as a float array; complex and non-numeric values are refused (the
    expressions are real-valued: an imaginary part must not be dropped silently)."""
    try:
        arr = np.asarray(given)
    except (TypeError, ValueError) as error:
        raise EvaluationError(f"the value of {name!r} is not an array of numbers: "
                              f"{error}") from None
    if arr.dtype.kind == "c":
        raise EvaluationError(f"the value of {name!r} is complex: eqsat evaluates real-valued "
                              "expressions (pass the real part, or real and imaginary parts "
                              "as two symbols)")
    if arr.dtype.kind == "f":
        return arr
    if arr.dtype.kind not in "iub":
        raise EvaluationError(f"the value of {name!r} is {type(given).__name__}, not a number "
                              "or an array of numbers")
    return arr.astype(np.float64)


def _check_declared(symbol: Expr, shape: tuple[int, ...], sizes: dict[str, int]) -> None:
    """A tensor's value has its declared shape; a named dimension is one size throughout."""
    fits = len(shape) == len(symbol.shape)
    for declared, size in zip(symbol.shape, shape, strict=False):
        if isinstance(declared, str):
            fits = fits and sizes.setdefault(declared, size) == size
        else:
            fits = fits and declared == size
    if not fits:
        named = ", ".join(f"{k} = {v}" for k, v in sizes.items())
        raise EvaluationError(f"{symbol.name} is declared with shape {symbol.shape}, and its "
                              f"value has shape {shape}" + (f" (with {named})" if named else ""))


def _tensor_value(op: str, args: list[Any]) -> Any:
    """A tensor op on NumPy arrays; an axis argument of -1 means every axis."""
    if op in ("expand", "sum_to", *REDUCTIONS, *AXISWISE):
        axis = None if op == "sum_to" or int(args[-1]) == ALL_AXES else int(args[-1])
        if op == "expand":
            return expand(args[0], np.shape(args[1]), axis)
        if op == "sum_to":
            return sum_to(args[0], np.shape(args[1]))
        return numpy_function(op)(args[0], axis=axis)
    return numpy_function(op)(*args)


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

def _spreads(op: str, args: list[mpmath.mpf], result: mpmath.mpf) -> list[mpmath.mpf]:
    """How many digits a node's value hides, as ratios 10^k: a sum or difference spans its
    operands and result (cancellation, or a small operand absorbed by a large one; infinite
    when it cancels to exactly 0); exp(a), cos(a), ... near a = 0 hide a (or a^2) under 1."""
    if op in ("add", "sub"):
        sizes = [abs(a) for a in args if a] + ([abs(result)] if result else [])
        if not result:
            return [mpmath.inf] if sizes else []
        return [max(sizes) / min(sizes)]
    if op in OPS and OPS[op].absorbs and args[0] and abs(args[0]) < 1:
        return [1 / abs(args[0]) ** OPS[op].absorbs]
    if op == "log1mexp" and args[0] < -1:  # log(1 - exp(a)): exp(a) under 1
        return [mpmath.exp(-args[0])]
    if op == "logaddexp" and result and abs(result) < 1:  # log(1 + small)
        return [1 / abs(result)]
    if op == "pow" and args[0] > 0 and args[1]:
        with mpmath.workprec(_ROUGH):
            shift = abs(args[1] * mpmath.log(args[0]))
            return [1 / shift] if 0 < shift < 1 else []
    return []


ASTRONOMICAL = mpmath.mpf(10) ** 308  # no float is larger: exp of it means nothing here


def digits_needed(spreads: list[mpmath.mpf], kept: float, top: float) -> float:
    """The working digits that leave every node `kept` digits beyond what it hides (its
    spread from reference(); a total cancellation asks for top); spreads past top cannot be
    resolved and are left out (0 where there are none)."""
    wanted = [float(mpmath.log10(r)) + kept if mpmath.isfinite(r) else top for r in spreads]
    return max((w for w in wanted if w <= top), default=0.0)


def _astronomical(op: str, args: list[mpmath.mpf]) -> bool:
    """Whether an exponential's or a periodic function's argument is beyond every float
    (exp(exp(exp(20))) has the argument 10^(2*10^8); sin(exp(x)) at x = 10^5 needs pi to
    43,000 digits): mpmath would take minutes or more on it, and no float input can produce
    it. Such points count as not finite."""
    spec = OPS.get(op)
    if spec is not None and spec.periodic:
        return bool(abs(args[0]) > ASTRONOMICAL)
    if spec is None or not spec.exponential:  # (mpmath takes minutes, or runs out of
        return False  # memory, on sigmoid(10^(10^13)), tanh and erfc alike)
    if op == "pow":
        base, exponent = args
        with mpmath.workprec(_ROUGH):
            return bool(abs(exponent) > ASTRONOMICAL or
                        (abs(base) > 1 and abs(exponent) * mpmath.log(abs(base)) > ASTRONOMICAL))
    return any(abs(a) > ASTRONOMICAL for a in args)


def reference(expr: Expr, values: Mapping[str, mpmath.mpf], digits: int = 60,
              max_magnitude: int | None = None,
              spreads: list[mpmath.mpf] | None = None) -> mpmath.mpf | None:
    """The exact-enough real value at a point, or None where expr is undefined or not finite
    (or astronomically large: see _astronomical).

    With max_magnitude, also None when an intermediate value reaches 10^max_magnitude: its
    absolute rounding error could then swamp a result that cancels down to a small number.
    With `spreads` (a list), it receives for each node a ratio 10^k that says the node
    needs about k more digits than the float result: see _spreads.
    """
    done: dict[Expr, mpmath.mpf] = {}
    bound = mpmath.mpf(10) ** max_magnitude if max_magnitude is not None else None
    with mpmath.workdps(digits):
        for node in postorder(expr):
            if node.is_symbol:
                if node.name not in values:
                    raise EvaluationError(f"no value given for symbol {node.name!r}")
                result = mpmath.mpf(values[node.name])
            elif node.is_number:
                result = mpmath.mpf(node.number.numerator) / node.number.denominator
            elif node.op == "diff":
                result = _derivative(node, values)
            else:
                function = OPS[node.op].reference
                if function is None:
                    raise EvaluationError(f"cannot evaluate {node.op} {node}: it is not a value")
                if _astronomical(node.op, [done[a] for a in node.args]):
                    return None
                try:
                    result = function(*(done[a] for a in node.args))
                except (ZeroDivisionError, ValueError, OverflowError):
                    return None
            if not isinstance(result, mpmath.mpf) or not mpmath.isfinite(result):
                return None
            if bound is not None and abs(result) >= bound:
                return None
            if spreads is not None:
                spreads.extend(_spreads(node.op, [done[a] for a in node.args], result))
            done[node] = result
    return done[expr]
