"""subs and N: symbols replaced by values or expressions, and values to any number of digits."""

from __future__ import annotations

import math
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

import mpmath

from ..errors import EvaluationError
from ..term import arguments
from ..term.expr import Expr
from ..term.inputs import ExprInput, to_expr
from ..term.reference import digits_needed, reference
from ..term.shape import is_tensor

MAX_DIGITS = 10_000  # the most digits N gives
GUARD_DIGITS = 10  # digits carried past those asked for, and past those a subterm hides
TOP_DIGITS = 2_000  # the working precision N stops at (or 8 times the digits asked for)


def subs(expr: ExprInput, values: Mapping[str, Any] | None = None, **named: Any) -> Expr:
    """expr with each named symbol replaced by a value or an expression, all at once:
    subs("x^2 + y", {"x": 3}) is 3^2 + y; subs(e, x="y + 1"); values are numbers (exact:
    0.1 is 1/10), text or Exprs. Nothing is simplified (simplify the result for that)."""
    parsed = to_expr(expr)
    given = {**arguments.mapping(values, "values"), **named}
    by_name = {s.name: s for s in parsed.free_symbols()}
    unknown = sorted(set(given) - set(by_name))
    if unknown:
        raise EvaluationError(f"{parsed} has no symbol named {', '.join(map(repr, unknown))} "
                              f"(its symbols: {', '.join(sorted(by_name)) or 'none'})")
    return parsed.subs({by_name[name]: to_expr(value) for name, value in given.items()})


def N(expr: ExprInput, digits: int = 15, values: Mapping[str, Any] | None = None,
      **named: Any) -> Decimal:
    """expr's value to `digits` significant digits, as a Decimal that prints them, at values
    for its symbols (exact, as subs takes them): N("sqrt(2)*pi", 30). The precision is raised
    until every subterm keeps GUARD_DIGITS beyond the digits it hides (cancellation cannot
    pass for digits: (1 + 1e-40) - 1 is 1e-40); a subterm that cancels to exactly 0 at
    TOP_DIGITS is 0 (x - x). An EvaluationError where the value is undefined or not finite."""
    digits = arguments.count(digits, "digits")
    if digits > MAX_DIGITS:
        raise EvaluationError(f"N gives at most {MAX_DIGITS:,} digits, not {digits:,}")
    constant = subs(expr, values, **named)
    if is_tensor(constant):
        raise EvaluationError(f"N takes a scalar expression, not {constant}")
    left = sorted(s.name for s in constant.free_symbols())
    if left:
        raise EvaluationError(f"N needs a value for {', '.join(map(repr, left))} in {constant}")
    top = max(TOP_DIGITS, 8 * (digits + GUARD_DIGITS))
    working = digits + GUARD_DIGITS
    while True:
        spreads: list[float] = []
        value = reference(constant, {}, working, spreads=spreads)
        if value is None:
            raise EvaluationError(f"{constant} is undefined or not finite")
        needed = digits_needed(spreads, digits + GUARD_DIGITS, top)
        if needed <= working or working == top:
            return Decimal(mpmath.nstr(value, digits, strip_zeros=False, min_fixed=-4,
                                       max_fixed=digits))
        working = min(max(math.ceil(needed), 2 * working), top)
