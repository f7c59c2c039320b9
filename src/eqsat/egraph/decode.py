"""Terms read back from egglog's extraction as Exprs."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from egglog import bindings

from ..errors import EqsatError
from ..term.expr import Expr, make, number
from ..term.ops import ROWS

BY_CONSTRUCTOR = {spec.egg: spec.name for spec in ROWS}


CONSTRUCTORS = frozenset({"Num", "Sym", *BY_CONSTRUCTOR})


def term_to_expr(termdag: bindings.TermDag, root: int,
                 symbol: Callable[[str], Expr]) -> Expr:
    """Read an extracted term structurally (never by re-parsing its printed text)."""
    done: dict[int, Any] = {}
    for index in range(root + 1):
        term = termdag.get(index)
        if isinstance(term, bindings.TermLit):
            done[index] = getattr(term.value, "value", None)
        elif isinstance(term, bindings.TermApp):
            args = [done[a] for a in term.args]
            done[index] = _app(term.name, args, symbol)
    result = done[root]
    if not isinstance(result, Expr):
        raise EqsatError(f"extracted a non-term: {result!r}")
    return result


def _app(name: str, args: list[Any], symbol: Callable[[str], Expr]) -> Any:
    if name in ("from-string", "bigint"):
        return int(args[0])
    if name == "bigrat":
        return Fraction(args[0], args[1])
    if name == "Num":
        return number(args[0])
    if name == "Sym":
        return symbol(args[0])
    if name in BY_CONSTRUCTOR:
        return make(BY_CONSTRUCTOR[name], *args)
    raise EqsatError(f"extracted an unknown constructor {name!r}")
