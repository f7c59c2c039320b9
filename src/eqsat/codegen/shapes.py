"""The check of a kernel's tensor arguments at its call, copied into generated modules: each of
its declared rank, and each named dimension of one size in all of them (a swapped call ended
in NumPy's or Dask's own error from inside the program, or in a silently wrong shape)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..term.expr import Expr


def _check_shapes(values: Mapping[str, Any], declared: Mapping[str, tuple[Any, ...]]) -> None:
    """Raise ValueError naming the argument whose shape is not the one declared."""
    sizes: dict[str, tuple[int, str]] = {}
    for name, dims in declared.items():
        shape = tuple(np.shape(values[name]))  # its .shape, or a nested list's
        shown = "(" + ", ".join(map(str, dims)) + ("," if len(dims) == 1 else "") + ")"
        if len(shape) != len(dims):
            raise ValueError(f"argument {name} has shape {shape}, not of the {len(dims)} "
                             f"dimension(s) {shown} it is declared with")
        for dim, size in zip(dims, shape, strict=True):
            if isinstance(dim, int) and dim != size:
                raise ValueError(f"argument {name} has shape {shape}, not {shown}")
            if isinstance(dim, str):
                seen, where = sizes.setdefault(dim, (size, name))
                if seen != size:
                    raise ValueError(f"argument {name} has shape {shape}: its {dim} is {size}, "
                                     f"where {where}'s is {seen}")


def shape_check(args: Sequence[str], outputs: Sequence[Expr]) -> list[str]:
    """The line of a kernel's body that checks its tensor arguments (none without any)."""
    symbols = {s.name: s for e in outputs for s in e.free_symbols()}
    declared = {arg: symbols[arg].shape for arg in args if arg in symbols and symbols[arg].shape}
    if not declared:
        return []
    values = ", ".join(f"{arg!r}: {arg}" for arg in declared)
    return [f"    _check_shapes({{{values}}}, {declared!r})"]


CHECK = _check_shapes  # what a generated module copies (its name there: _check_shapes)
