"""subs and N: symbols replaced by values or expressions, and values to any number of digits."""

from __future__ import annotations

import math
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

import mpmath

from ..errors import EvaluationError
from ..term import arguments
from ..term.expr import Expr, make, number
from ..term.inputs import ExprInput, to_expr
from ..term.ops import folded
from ..term.reference import digits_needed, reference
from ..term.shape import is_tensor
from ..term.walks import postorder

MAX_DIGITS = 10_000  # the most digits N gives
GUARD_DIGITS = 10  # digits carried past those asked for, and past those a subterm hides
TOP_DIGITS = 2_000  # the working precision N stops at (or 8 times the digits asked for)


def subs(expr: ExprInput, values: Mapping[str, Any] | None = None, *, evaluate: bool = True,
         **named: Any) -> Expr:
    """expr with each named symbol replaced by a value or an expression, all at once:
    subs("x^2 + y", {"x": 3}) is y + 9; subs(e, x="y + 1"); values are numbers (exact:
    0.1 is 1/10), text or Exprs. The constant subterms the replacement makes are folded
    exactly where they have an exact value (3^2 is 9; sqrt(2) stays), a sum's number
    written last; nothing else is simplified (simplify the result for that).
    evaluate=False folds nothing (3^2 + y); a symbol named evaluate goes in values."""
    parsed = to_expr(expr)
    given = {**arguments.mapping(values, "values"), **named}
    by_name = {s.name: s for s in parsed.free_symbols()}
    unknown = sorted(set(given) - set(by_name))
    if unknown:
        raise EvaluationError(f"{parsed} has no symbol named {', '.join(map(repr, unknown))} "
                              f"(its symbols: {', '.join(sorted(by_name)) or 'none'})")
    mapping = {by_name[name]: to_expr(value) for name, value in given.items()}
    return parsed.subs(mapping) if not evaluate else _folded_subs(parsed, mapping)


def _folded_subs(term: Expr, mapping: dict[Expr, Expr]) -> Expr:
    """term.subs(mapping), each subterm that held a replaced symbol and whose operands are
    now numbers folded to its exact value where it has one, bottom-up; a sum that the fold
    gave a leading number writes it last (y + 9, as printed answers do)."""
    done: dict[Expr, Expr] = {}
    for node in postorder(term):
        if node in mapping:
            done[node] = mapping[node]
            continue
        args = [done[a] for a in node.args]
        if args == list(node.args):
            done[node] = node
            continue
        value = folded(node.op, [a.number for a in args]) if all(a.is_number for a in args) \
            else None
        if value is not None:
            done[node] = number(value)
        elif node.op == "add" and args[0].is_number and not args[1].is_number and \
                not node.args[0].is_number:
            done[node] = make("add", args[1], args[0])
        else:
            done[node] = make(node.op, *args)
    return done[term]


def N(expr: ExprInput, digits: int = 15, values: Mapping[str, Any] | None = None,
      **named: Any) -> Decimal:
    """expr's value to `digits` significant digits, as a Decimal that prints them, at values
    for its symbols (exact, as subs takes them): N("sqrt(2)*pi", 30). The precision is raised
    until every subterm keeps GUARD_DIGITS beyond the digits it hides (cancellation cannot
    pass for digits: (1 + 1e-40) - 1 is 1e-40) and two precisions in a row agree on the
    digits (cos(sinh(60)) needs the 26 digits of its argument's integer part; atanh(erf(-9))
    is -inf until erf(-9) is seen to be above -1); a subterm that cancels to exactly 0 at
    TOP_DIGITS is 0 (x - x), and so is a value that shrinks below what TOP_DIGITS resolves
    (sin(pi)). An EvaluationError where the value is undefined or not finite at every
    precision, or where the digits do not settle by TOP_DIGITS."""
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
        shown, needed = _digits_at(constant, working, digits, top)
        if shown is not None and needed <= working:  # confirmed at a second precision
            other = working * 3 // 4 if working == top else working + working // 2
            confirmed, _ = _digits_at(constant, other, digits, top)
            if confirmed == shown:
                return Decimal(shown)
            if working == top and confirmed is not None and \
                    max(abs(Decimal(shown)), abs(Decimal(confirmed))) < _resolved(other):
                return Decimal("0.0")  # below what either precision resolves: sin(pi)
        if working == top:
            if shown is None:
                raise EvaluationError(f"{constant} is undefined or not finite")
            raise EvaluationError(f"the first {digits} digits of {constant} do not settle "
                                  f"within {top} digits of working precision")
        working = min(max(math.ceil(needed), 2 * working), top)


def _resolved(working: int) -> Decimal:
    """The least magnitude a working precision tells from 0 in a value whose terms are of
    order 1 (sin(pi) is about 10^-working at any precision)."""
    return Decimal(10) ** (GUARD_DIGITS - working)


def _digits_at(constant: Expr, working: int, digits: int, top: int) -> tuple[str | None, float]:
    """The constant's first digits at this working precision (None where it is undefined or
    not finite there), and the precision its spreads ask for (see digits_needed)."""
    spreads: list[float] = []
    value = reference(constant, {}, working, spreads=spreads)
    if value is None:
        return None, working
    return (mpmath.nstr(value, digits, strip_zeros=False, min_fixed=-4, max_fixed=digits),
            digits_needed(spreads, digits + GUARD_DIGITS, top))
