"""solve: equations and systems, by the algebraic solvers and the [solve] rules."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..egraph.per_thread import engine
from ..errors import EqsatError, LimitError, ShapeError, SolveError
from ..limits.budget import Limits
from ..term import arguments
from ..term.expr import Expr, symbol
from ..term.inputs import ExprInput, Variable, to_expr
from ..term.ops import COMPARISONS
from ..term.parse import reading_by
from ..term.shape import is_tensor
from ..term.walks import postorder

if TYPE_CHECKING:  # loaded when used
    from ..solving import Solution


def solve(equations: ExprInput | Sequence[ExprInput],
          unknowns: Variable | Sequence[Variable] | None = None, *,
          rules: Iterable[str | Path] = (), limits: Limits | None = None,
          assume: Mapping[str, str | Iterable[str]] | None = None,
          method: str = "auto") -> Solution:
    """solve("3x + 1 = 2(2x - 6)", "x")["x"] is 13; solve(["x + y = 3", "x - y = 1"],
    ["x", "y"]). An equation is `lhs = rhs`, `lhs == rhs`, or e meaning e = 0; unknowns
    default to every symbol. method "auto" eliminates polynomial systems exactly and uses
    the [solve] rules otherwise; "rules" goes to the rules first. The time limit covers the
    whole call, parsing included (not the rules' compiling: a process's one-time setup)."""
    from ..solving import solve as solve_problems  # (loaded with the first solve)

    compiled = engine(rules)
    began = time.perf_counter()
    listed = list(equations) if isinstance(equations, (list, tuple)) else [equations]
    if not listed:
        raise EqsatError("solve needs at least one equation")
    limits = Limits.of(limits)
    try:
        with reading_by(began + limits.seconds, limits.stated_seconds, limits.characters):
            parsed = [to_expr(arguments.expression(e, "an equation"), assume) for e in listed]
    except LimitError as error:  # solve's limits end in a SolveError
        raise SolveError(str(error)) from None
    for number_, equation in enumerate(parsed, 1):
        if is_tensor(equation):
            raise ShapeError(f"equation {number_} has tensors: solve takes scalar equations")
        if equation.op in COMPARISONS - {"eq"}:
            raise EqsatError(f"equation {number_} is the comparison {equation}: solve takes "
                             "equations (lhs = rhs, lhs == rhs, or e meaning e = 0)")
        inner = equation.args if equation.op in ("equation", "eq") else (equation,)
        if any(node.op == "equation" for side in inner for node in postorder(side)):
            raise EqsatError(f"equation {number_} holds an equation inside: {equation}")
    if unknowns is None:
        names = sorted({s.name for e in parsed for s in e.free_symbols()})
        if not names:
            raise EqsatError("the equations have no symbol to solve for")
        wanted: list[Variable] = list(names)
    else:
        wanted = arguments.names(unknowns, "unknowns")
    symbols_ = [_unknown(parsed, w) for w in wanted]
    if len(set(symbols_)) != len(symbols_):
        raise EqsatError(f"an unknown is named twice in {[str(s) for s in symbols_]}")
    return solve_problems(parsed, symbols_, compiled, limits, method, began)


def _unknown(equations: Sequence[Expr], wanted: Variable) -> Expr:
    """The symbol of that name in the equations (with its assumptions)."""
    if isinstance(wanted, Expr):
        if not wanted.is_symbol:
            raise EqsatError(f"can only solve for a symbol, not for {wanted}")
        return wanted
    for equation in equations:
        for found in equation.free_symbols():
            if found.name == wanted:
                return found
    return symbol(wanted)
