"""Tensor shapes: declared on symbols, inferred for every op (NumPy broadcasting), checked."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import ShapeError
from .memos import Kept
from .ops import OPS, SCALAR_KINDS, TENSOR_OPS
from .walks import sizes

if TYPE_CHECKING:
    from .expr import Expr

Dim = int | str
Shape = tuple[Dim, ...]
ALL_AXES = -1  # the axis argument of a reduction over every axis
REDUCTIONS = frozenset({"sum", "mean", "prod", "amax", "amin", "logsumexp"})
AXISWISE = frozenset({"softmax", "log_softmax"})  # same shape out, normalized along an axis
AXIS_OPS = REDUCTIONS | AXISWISE | {"expand"}  # ops whose last argument is an axis
# the arguments an op's shape comes from, where not all of them
SHAPE_ARGUMENTS: dict[str, tuple[int, ...]] = {
    **dict.fromkeys(REDUCTIONS | AXISWISE, (0,)), "expand": (1,), "sum_to": (1,), "vjp": (),
    "diff": (), "solve": (), "equation": ()}

ELEMENTWISE = frozenset(name for name, op in OPS.items()
                        if op.kind in SCALAR_KINDS and name not in TENSOR_OPS)
_cache: Kept[Shape] = Kept("shape")


def check_shape(shape: Sequence[object]) -> Shape:
    """A shape as given by a user: a tuple of sizes (positive integers) and size names."""
    if isinstance(shape, (str, bytes)) or not isinstance(shape, Sequence):
        raise ShapeError(f"a shape is a tuple of sizes and names, not {shape!r}")
    dims: list[Dim] = []
    for dim in shape:
        if isinstance(dim, bool) or not isinstance(dim, (int, str)):
            raise ShapeError(f"a dimension is a positive integer or a name, not {dim!r}")
        if isinstance(dim, int) and dim < 1:
            raise ShapeError(f"a dimension is a positive integer or a name, not {dim}")
        if isinstance(dim, str) and not dim.isidentifier():
            raise ShapeError(f"dimension name {dim!r} is not an identifier")
        dims.append(dim)
    return tuple(dims)


def show(shape: Shape) -> str:
    """(n, 3) as text; a scalar is ()."""
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def broadcast(op: str, first: Shape, second: Shape) -> Shape:
    """NumPy broadcasting of two shapes; two different names do not broadcast (their sizes
    are unknown), nor does a name with a number other than 1."""
    result: list[Dim] = []
    for k in range(1, max(len(first), len(second)) + 1):
        a = first[-k] if k <= len(first) else 1
        b = second[-k] if k <= len(second) else 1
        if a == b or b == 1:
            result.append(a)
        elif a == 1:
            result.append(b)
        else:
            raise ShapeError(f"{op}: shapes {show(first)} and {show(second)} do not broadcast")
    return tuple(reversed(result))


def matmul(op: str, first: Shape, second: Shape) -> Shape:
    """a @ b for vectors and matrices: the inner dimensions must be equal."""
    if not (1 <= len(first) <= 2 and 1 <= len(second) <= 2):
        raise ShapeError(f"{op} takes vectors and matrices, not shapes {show(first)} and "
                         f"{show(second)}")
    inner = second[0] if len(second) == 1 else second[-2]
    if first[-1] != inner:
        raise ShapeError(f"{op}: shapes {show(first)} and {show(second)} do not fit "
                         f"({first[-1]} != {inner})")
    return first[:-1] + second[1:] if len(second) == 2 else first[:-1]


def axis_of(node: Expr, shape: Shape) -> int:
    """The axis argument of a reduction or softmax: ALL_AXES or 0 <= axis < rank."""
    axis = node.args[-1]
    if not axis.is_number or axis.number.denominator != 1:
        raise ShapeError(f"{node.op}: the axis is an integer, not {axis}")
    value = int(axis.number)
    if value != ALL_AXES and not 0 <= value < len(shape):
        raise ShapeError(f"{node.op}: axis {value} is out of range for shape {show(shape)}")
    return value


def _node_shape(node: Expr, args: list[Shape]) -> Shape:
    op = node.op
    if op == "sym":
        return node.shape
    if op == "num" or not node.args:
        return ()
    if op in REDUCTIONS:
        axis = axis_of(node, args[0])
        return () if axis == ALL_AXES else args[0][:axis] + args[0][axis + 1:]
    if op in AXISWISE:
        axis_of(node, args[0])
        return args[0]
    if op in ("matmul", "dot"):
        return matmul(op, args[0], args[1])
    if op == "transpose":
        if len(args[0]) > 2:
            raise ShapeError(f"transpose takes a vector or matrix, not shape {show(args[0])}")
        return tuple(reversed(args[0]))
    if op == "outer":
        if len(args[0]) != 1 or len(args[1]) != 1:
            raise ShapeError(f"outer takes two vectors, not shapes {show(args[0])} and "
                             f"{show(args[1])}")
        return args[0] + args[1]
    if op == "expand":  # c fits the reduced shape
        axis = axis_of(node, args[1])
        reduced = () if axis == ALL_AXES else args[1][:axis] + args[1][axis + 1:]
        if broadcast(op, reduced, args[0]) != reduced:
            raise ShapeError(f"expand: shape {show(args[0])} does not fit {show(reduced)}")
        return args[1]
    if op == "sum_to":  # c was broadcast from the shape
        if broadcast(op, args[0], args[1]) != args[0]:
            raise ShapeError(f"sum_to: shape {show(args[0])} was not broadcast from "
                             f"{show(args[1])}")
        return args[1]
    if op == "vjp":
        return args[2]
    if op in ("diff", "solve", "equation"):
        if any(args):
            raise ShapeError(f"{op} takes scalar expressions; for tensors use grad")
        return ()
    result: Shape = ()
    for shape in args:  # elementwise
        result = broadcast(op, result, shape)
    return result


def shape_of(expr: Expr) -> Shape:
    """The shape of an expression's value; ShapeError names the op and the shapes that do
    not fit."""
    if not sizes(expr)[2]:  # no shaped symbol and no tensor op: a scalar (kept per node)
        return ()
    stack: list[tuple[Expr, bool]] = [(expr, False)]
    while stack:  # children first, never below a node already known
        node, ready = stack.pop()
        if node in _cache:
            continue
        if ready:
            _cache[node] = _node_shape(node, [_cache[a] for a in node.args])
        else:
            stack.append((node, True))
            stack.extend((a, False) for a in node.args if a not in _cache)
    return _cache[expr]


def is_tensor(expr: Expr) -> bool:
    """Whether an expression has a symbol with a shape or a tensor op."""
    return sizes(expr)[2]


