"""Constructors of tensor terms: a symbol with a shape, an op along an axis, an op called by
name (its shapes checked as it is built)."""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import ShapeError
from .expr import Expr, as_expr, call, make, number, shaped_symbol
from .ops import OPS, REDUCING, lookup
from .shape import ALL_AXES, AXIS_OPS, Dim, check_shape, shape_of, show


def with_axis(op: str, args: Sequence[Expr], axis: int | None = None) -> Expr:
    """op(*args) over every axis (axis None) or along one of its last argument's axes; a
    negative axis counts from the end, and the only axis of a vector is every axis."""
    if op not in AXIS_OPS:
        raise ShapeError(f"{op} takes no axis")
    if len(args) != OPS[op].arity - 1:
        raise ShapeError(f"{op} takes {OPS[op].arity - 1} argument(s) and an optional axis=k")
    shape = shape_of(args[-1])
    rank = len(shape)
    if axis is None or (rank == 1 and axis in (0, -1)):
        value = ALL_AXES
    elif isinstance(axis, bool) or not isinstance(axis, int) or not -rank <= axis < rank:
        raise ShapeError(f"{op}: axis {axis!r} is out of range for shape {show(shape)}")
    else:
        value = axis % rank
    return make(op, *args, number(value))


def tensor(name: str, shape: Sequence[Dim], **assumptions: bool) -> Expr:
    """A symbol with a shape: tensor("A", ("n", "m")); sizes are integers or names."""
    return shaped_symbol(name, check_shape(shape), assumptions)


def apply(name: str, *args: object, axis: int | None = None) -> Expr:
    """An op by name, as the module functions and the parser apply it: max(a) and min(a)
    reduce, max(a, b) compares; reductions and softmaxes take an axis."""
    spec = lookup(name)
    if spec is None:
        raise ShapeError(f"unknown function {name!r}")
    target = REDUCING[name] if name in REDUCING and len(args) == 1 else spec.name
    if target in AXIS_OPS:
        return with_axis(target, [as_expr(a) for a in args], axis)  # type: ignore[arg-type]
    if axis is not None:
        raise ShapeError(f"{name} takes no axis")
    return call(target, *args)  # type: ignore[arg-type]
