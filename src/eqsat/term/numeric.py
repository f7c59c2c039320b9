"""An Expr evaluated by NumPy at arrays of points, and NumPy forms of the ops it lacks."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import EvaluationError
from .ops import COMPARISONS, OPS, TENSOR_OPS, OpKind
from .shape import ALL_AXES, AXISWISE, REDUCTIONS
from .walks import postorder

if TYPE_CHECKING:
    from .expr import Expr


def rounded(value: Fraction) -> float:
    """The nearest float to an exact constant; past float's range an infinity, as a float
    literal such as 1e400 rounds."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def erf(x: Any) -> Any:
    """Error function, elementwise (in double for a Python number: NumPy takes its type from
    the array alone, and erf(2/3) came out a float32)."""
    elementwise = np.frompyfunc(math.erf, 1, 1)  # (made here: a module-level one would not
    return np.asarray(elementwise(x), dtype=np.result_type(np.asarray(x), np.float32))  # pickle)


def erfc(x: Any) -> Any:
    """Complementary error function, elementwise (in double for a Python number, as erf)."""
    elementwise = np.frompyfunc(math.erfc, 1, 1)
    return np.asarray(elementwise(x), dtype=np.result_type(np.asarray(x), np.float32))


def erfcx(x: Any) -> Any:
    """exp(x^2)*erfc(x), elementwise: x^2 split exactly into two floats (Dekker), so that
    exp of it is as accurate as erfc; past x = 26, where exp(x^2) overflows, the asymptotic
    series 1/(x*sqrt(pi))*(1 - 1/(2x^2) + 3/(2x^2)^2 - ...), eight terms (the ninth is below
    1e-19 there)."""
    values = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        square = values * values
        split = 134217729.0 * values  # (2^27 + 1: values = high + low, each of 26 bits)
        high = split - (split - values)
        low = values - high
        rest = ((high * high - square) + 2 * high * low) + low * low  # x^2 = square + rest
        rest = np.where(np.abs(rest) < 1, rest, 0)  # (NaN where x^2 overflows: exp is inf)
        direct = np.exp(square) * (1 + rest) * np.asarray(  # (erfc's helper inline: the
            np.frompyfunc(math.erfc, 1, 1)(values), dtype=np.float64)  # target copies each)
        t = 1 / (2 * square)
        series = np.ones_like(values)
        for k in range(7, 0, -1):  # 1 - t*(1 - 3t*(1 - 5t*(...)))
            series = 1 - (2 * k - 1) * t * series
        asymptotic = series / (values * math.sqrt(math.pi))
    found = np.where(values > 26, asymptotic, direct)
    return np.asarray(found, dtype=np.result_type(np.asarray(x), np.float32))


def sigmoid(x: Any) -> Any:
    """1 / (1 + exp(-x)), without overflow for large |x|."""
    return np.exp(-np.logaddexp(0, -x))


def softplus(x: Any) -> Any:
    """log(1 + exp(x)), without overflow."""
    return np.logaddexp(0, x)


def log1mexp(x: Any) -> Any:
    """log(1 - exp(x)) for x < 0, accurate near 0 and for large -x."""
    return np.where(x > -math.log(2), np.log(-np.expm1(x)), np.log1p(-np.exp(x)))


def sinpi(x: Any) -> Any:
    """sin(pi*x) with its argument reduced exactly: x less the nearest multiple of 1/2 (both
    floats: fmod and the difference are exact), the sine or cosine of what is left."""
    reduced = np.fmod(x, 2.0)
    half_turns = np.rint(2 * reduced)
    angle = np.pi * (reduced - half_turns / 2)
    quarter = np.mod(half_turns, 4)
    turned = np.where(quarter % 2 == 0, np.sin(angle), np.cos(angle))
    return np.where(quarter < 2, turned, -turned)


def cospi(x: Any) -> Any:
    """cos(pi*x) with its argument reduced exactly, as sinpi reduces it."""
    reduced = np.fmod(x, 2.0)
    half_turns = np.rint(2 * reduced)
    angle = np.pi * (reduced - half_turns / 2)
    quarter = np.mod(half_turns, 4)
    turned = np.where(quarter % 2 == 0, np.cos(angle), np.sin(angle))
    return np.where((quarter == 0) | (quarter == 3), turned, -turned)


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
            elif not OPS[node.op].is_value:
                raise EvaluationError(f"cannot evaluate {node.op} {node}: it is not a value")
            else:
                done[node] = applied(node.op, [done[a] for a in node.args])
    return done[expr]


def applied(op: str, operands: list[Any]) -> Any:
    """An op whose result is a value (OpSpec.is_value; not a number or a symbol) on its
    operands' NumPy values."""
    if OPS[op].kind == OpKind.CONSTANT:
        return float(getattr(np, OPS[op].numpy[3:]))
    if op in TENSOR_OPS:
        return _tensor_value(op, operands)
    value = numpy_function(op)(*operands)
    if op in COMPARISONS:  # 1.0 where true, 0.0 where false
        value = np.asarray(value, dtype=np.result_type(*operands, np.float32))
    return value


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


