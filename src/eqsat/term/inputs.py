"""What users hand the verbs: an expression as text or an Expr, with assumptions and
shapes for its symbols."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ..errors import ArgumentError, EqsatError, ShapeError
from . import arguments
from .expr import Expr
from .ops import NOT_VALUES
from .parse import parse
from .shape import is_tensor, shape_of
from .tensors import tensor
from .walks import has_non_values, postorder

ExprInput = Expr | str
Variable = Expr | str
Shapes = Mapping[str, Sequence["int | str"]]


def _declared(assume: Mapping[str, str | Iterable[str]] | None,
              shapes: Shapes | None) -> list[Expr]:
    """The symbols given assumptions or shapes (a shape makes a tensor)."""
    flags: dict[str, list[str]] = {}
    for name, held in (assume or {}).items():  # "integer positive", or a list of words
        given = arguments.strings(held, f"the assumptions of {name}")
        words = [word for words in given for word in words.replace(",", " ").split()]
        if not words:
            raise ArgumentError(f"the assumptions of {name} are words such as 'positive', "
                                f"not {held!r}")
        flags[name] = [word for word in words if word != "real"]  # (every symbol is real)
    for name in shapes or {}:
        flags.setdefault(name, [])
    return [tensor(name, (shapes or {}).get(name, ()), **dict.fromkeys(held, True))
            for name, held in flags.items()]


def to_expr(value: ExprInput, assume: Mapping[str, str | Iterable[str]] | None = None,
            shapes: Shapes | None = None, non_values: bool = False) -> Expr:
    """Text or an Expr; `assume` gives symbols assumptions, e.g. {"x": "positive"};
    `shapes` makes symbols tensors, e.g. {"A": ("n", "m")}. A tensor expression's shapes
    are checked (ShapeError). oo and order terms, results of series and limit that are
    not values, are refused (an EqsatError) unless non_values."""
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
    if not non_values and has_non_values(found):
        raise EqsatError(f"{found}: {_non_value(found)}")
    return found


def _non_value(found: Expr) -> str:
    first = next(node for node in postorder(found) if node.op in NOT_VALUES)
    if first.op == "O":
        return (f"the order term {first} is not a value (series(..., order=False) gives the "
                "terms alone)")
    return "oo, infinity, is not a value"
