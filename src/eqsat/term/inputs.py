"""What users hand the verbs: an expression as text or an Expr, with assumptions and
shapes for its symbols."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ..errors import ShapeError
from . import arguments
from .expr import Expr
from .parse import parse
from .shape import is_tensor, shape_of
from .tensors import tensor

ExprInput = Expr | str
Variable = Expr | str
Shapes = Mapping[str, Sequence["int | str"]]


def _declared(assume: Mapping[str, str | Iterable[str]] | None,
              shapes: Shapes | None) -> list[Expr]:
    """The symbols given assumptions or shapes (a shape makes a tensor)."""
    flags: dict[str, list[str]] = {}
    for name, held in (assume or {}).items():
        flags[name] = arguments.strings(held, f"the assumptions of {name}")
    for name in shapes or {}:
        flags.setdefault(name, [])
    return [tensor(name, (shapes or {}).get(name, ()), **dict.fromkeys(held, True))
            for name, held in flags.items()]


def to_expr(value: ExprInput, assume: Mapping[str, str | Iterable[str]] | None = None,
            shapes: Shapes | None = None) -> Expr:
    """Text or an Expr; `assume` gives symbols assumptions, e.g. {"x": "positive"};
    `shapes` makes symbols tensors, e.g. {"A": ("n", "m")}. A tensor expression's shapes
    are checked (ShapeError)."""
    value = arguments.expression(value)
    known = _declared(arguments.mapping(assume, "assume"), arguments.mapping(shapes, "shapes"))
    if isinstance(value, Expr):
        found = value.subs({Expr("sym", (), s.name): s for s in known}) if known else value
        for declared in known:
            clash = [s for s in found.free_symbols()
                     if s.name == declared.name and s.shape != declared.shape]
            if clash and shapes and declared.name in shapes:
                raise ShapeError(f"{declared.name} has shape {clash[0].shape} in the "
                                 f"expression, and shapes= says {declared.shape}")
    else:
        found = parse(value, known)
    if is_tensor(found):
        shape_of(found)
    return found
