"""evaluate: an expression's value at given values, elementwise over arrays."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..term import arguments
from ..term.inputs import ExprInput, to_expr


def evaluate(expr: ExprInput, values: Mapping[str, Any] | None = None, **named: Any) -> Any:
    """NumPy evaluation: evaluate("x*y/x", {"x": 2.0, "y": 3.0}) or evaluate(e, x=2.0, y=3.0)."""
    from ..term.numeric import evaluate as evaluate_numpy

    return evaluate_numpy(to_expr(expr), {**arguments.mapping(values, "values"), **named})
