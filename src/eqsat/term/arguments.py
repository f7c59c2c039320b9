"""Checks of what users pass to the public functions: a wrong type is an ArgumentError naming
the argument, never a TypeError or AttributeError from inside."""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..errors import ArgumentError
from .expr import Expr, as_expr
from .ops import OPS


def _shown(value: object) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:40]}{'...' if len(text) > 40 else ''}"


def expression(value: object, name: str = "the expression") -> Expr | str:
    """Text or an Expr as given; a Python or NumPy number becomes a constant."""
    if isinstance(value, (Expr, str)):
        return value
    if isinstance(value, numbers.Real):
        return as_expr(value)
    raise ArgumentError(f"{name} is text or an eqsat Expr, not {_shown(value)}")


def rule_files(value: object) -> list[str | Path]:
    """One path, or an iterable of paths (a lone string is one file, not its letters)."""
    if isinstance(value, (str, Path)):
        return [value]
    if value is None or not isinstance(value, Iterable):
        raise ArgumentError(f"rules is a list of .rules file paths, not {_shown(value)}")
    found = list(value)
    for item in found:
        if not isinstance(item, (str, Path)):
            raise ArgumentError(f"rules lists file paths; it holds {_shown(item)}")
    return found


def names(value: object, name: str, empty: bool = False) -> list[Expr | str]:
    """A symbol (its name or the Expr), or a list of them (empty: the list may be empty)."""
    found = [value] if isinstance(value, (str, Expr)) else \
        list(value) if isinstance(value, (list, tuple)) else None
    if found is None or (not found and not empty) or \
            not all(isinstance(v, (str, Expr)) for v in found):
        raise ArgumentError(f"{name} is a symbol's name or a list of them, not "
                            f"{_shown(value)}")
    return found


def mapping(value: object, name: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise ArgumentError(f"{name} maps symbol names to values, not {_shown(value)}")
    return value


def op_costs(value: object) -> dict[str, float]:
    """Costs by op name: each a known op's (or "sym", "num") and a number at least 0."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ArgumentError(f"costs maps op names to numbers, not {_shown(value)}")
    for op, cost in value.items():
        if op not in OPS and op not in ("sym", "num"):
            raise ArgumentError(f"costs names {op!r}, which is no op")
        if not isinstance(cost, numbers.Real) or not float(cost) >= 0:
            raise ArgumentError(f"the cost of {op} is a number at least 0, not {_shown(cost)}")
    return {op: float(cost) for op, cost in value.items()}


def strings(value: object, name: str) -> list[str]:
    """A list of names (a lone string is one name)."""
    found = [value] if isinstance(value, str) else \
        list(value) if isinstance(value, (list, tuple)) else None
    if not found or not all(isinstance(v, str) for v in found):
        raise ArgumentError(f"{name} is a list of names, not {_shown(value)}")
    return found


def count(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < 1:
        raise ArgumentError(f"{name} is a positive integer, not {_shown(value)}")
    return int(value)


def domain(value: object) -> Mapping[str, tuple[float, float]] | str | None:
    """None, a precondition's text, or ranges {name: (low, high)}."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        for key, bounds in value.items():
            if not isinstance(key, str) or not isinstance(bounds, (tuple, list)) or \
                    len(bounds) != 2 or not all(isinstance(b, numbers.Real) for b in bounds):
                raise ArgumentError(f"a domain maps each name to (low, high), as "
                                    f"{{'x': (0, 1)}}; it holds {key!r}: {_shown(bounds)}")
        return value
    raise ArgumentError("the domain is ranges such as {'x': (0, 1)} or a precondition such "
                        f"as '0 < x < 1', not {_shown(value)}")
