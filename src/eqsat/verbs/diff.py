"""diff and grad: derivatives of any order, then simplified."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, overload

from ..algebra.normal import check_defined_somewhere
from ..errors import LimitError, ShapeError
from ..extract import CostModel
from ..limits.budget import Budget, Limits
from ..limits.report import RunReport, StopReason
from ..term import arguments
from ..term.expr import Expr, make, number
from ..term.inputs import ExprInput, Shapes, Variable, to_expr
from ..term.parse import reading_by
from ..term.shape import ALL_AXES, is_tensor, shape_of, show
from .derivatives import differentiate, reverse_mode, variable_in
from .simplify import Simplified, nothing_to_clean, settled_at_a_symbol, simplify_report


def diff_report(expr: ExprInput, wrt: Variable | Sequence[Variable], n: int = 1, *,
                rules: Iterable[str | Path] = (), limits: Limits | None = None,
                assume: Mapping[str, str | Iterable[str]] | None = None) -> Simplified:
    """The n-th derivative in wrt (or mixed partials in a list of symbols, in order),
    simplified. The derivative is always complete; the limits bound its simplification,
    and the report says whether one cut it short. A LimitError when the time runs out
    before the last of several derivatives is begun."""
    limits = Limits.of(limits)
    budget = Budget.start(limits)
    with reading_by(budget.deadline, limits.stated_seconds, limits.characters):
        start = to_expr(expr, assume)
    check_defined_somewhere(start, "diff")
    if is_tensor(start):
        raise ShapeError(f"diff differentiates scalar expressions; {start} has tensors: use grad")
    n = arguments.count(n, "the order of a derivative")
    rules = arguments.rule_files(rules)  # (a generator is read once)
    given = arguments.names(wrt, "wrt")
    order = given * n if isinstance(wrt, (str, Expr)) else given
    model = CostModel()
    if any(variable_in(start, variable) not in start.free_symbols() for variable in order):
        # a derivative in a symbol the expression has none of is 0 (differentiating and
        # simplifying add no symbol), and so is every one after it
        zero = number(0)
        return Simplified(zero, RunReport(StopReason.OPTIMAL), start, model.tree_cost)
    # simplify first: the chain rule through sqrt(x - x) would give 0/0 where the
    # derivative of the simplified form, 0, is defined
    if settled_at_a_symbol(start, rules) or nothing_to_clean(start, rules):
        current, total = start, RunReport(StopReason.SATURATED)
    else:
        cleaned = simplify_report(start, rules=rules, limits=limits, rounds=1, quick=True)
        current, total = cleaned.expr, cleaned.report
    for done, variable in enumerate(order):
        if done and budget.seconds_left() <= 0:  # each derivative is complete, or none is
            raise LimitError(f"the time limit of {limits.stated_seconds:g} s ran out after "
                             f"{done} of {len(order)} derivatives; raise the time limit")
        symbol_ = variable_in(current, variable)
        if symbol_ not in current.free_symbols():
            current = number(0)  # a constant's derivatives are 0: no e-graph needed
            break  # (and so are theirs)
        derivative, report = differentiate(current, symbol_, rules)
        total.absorb(report)
        if any(variable_in(derivative, later) not in derivative.free_symbols()
               for later in order[done + 1:]):  # (simplifying adds no symbol)
            current = number(0)  # a later derivative is in a symbol it has none of
            break
        if not derivative.args or settled_at_a_symbol(derivative, rules) or \
                (done < len(order) - 1 and nothing_to_clean(derivative, rules)):
            current = derivative  # (1, cos(x); or one more derivative follows, which its
            continue              # cleaning would not change: only the last is simplified)
        simplified = simplify_report(derivative, rules=rules, limits=budget.left())
        total.absorb(simplified.report)
        current = simplified.expr
    return Simplified(current, total, start, model.tree_cost)


def diff(expr: ExprInput, wrt: Variable | Sequence[Variable], n: int = 1, **options: Any) -> Expr:
    """diff("2*x^3 + 8", "x") is 6*x^2; diff(e, "x", 2); diff(e, ["x", "y"]) for d/dx then d/dy."""
    return diff_report(expr, wrt, n, **options).expr


@overload
def grad(  # type: ignore[overload-overlap]
    expr: ExprInput, wrt: Variable, *, rules: Iterable[str | Path] = (),
    limits: Limits | None = None, assume: Mapping[str, str | Iterable[str]] | None = None,
    shapes: Shapes | None = None, stable: bool = True,
) -> Expr: ...


@overload
def grad(expr: ExprInput, wrt: Sequence[Variable], *, rules: Iterable[str | Path] = (),
         limits: Limits | None = None, assume: Mapping[str, str | Iterable[str]] | None = None,
         shapes: Shapes | None = None, stable: bool = True) -> list[Expr]: ...


def grad(expr: ExprInput, wrt: Variable | Sequence[Variable], *,
         rules: Iterable[str | Path] = (), limits: Limits | None = None,
         assume: Mapping[str, str | Iterable[str]] | None = None,
         shapes: Shapes | None = None, stable: bool = True) -> Expr | list[Expr]:
    """The gradient of a scalar-valued expression in a symbol (shaped like it), or a list of
    them for a list of symbols: grad(sum(A @ B), A) is ones @ B.T. Reverse mode for tensors:
    the [grad] rules push vjp(f, 1, x) inward; a scalar expression's gradient is its
    derivative, by the [diff] rules once per shared subterm (see diff). With stable (the
    default) the [stability] rules apply to f and to the gradient (the gradient of logsumexp
    is a softmax)."""
    f = to_expr(expr, assume, shapes)
    if shape_of(f):
        raise ShapeError(f"grad takes a scalar-valued expression; {f} has shape "
                         f"{show(shape_of(f))}")
    rulesets = ("simplify", "stability") if stable else ("simplify",)
    limits = Limits.of(limits)
    f = simplify_report(f, rules=rules, limits=limits, rulesets=rulesets, rounds=1).expr
    variables = arguments.names(wrt, "wrt")
    found = []
    for wanted in variables:
        variable = variable_in(f, wanted)
        if is_tensor(f):
            gradient = reverse_mode(f, variable, rules)
        else:  # the derivative: forward mode is reverse mode's equal in one variable
            gradient = differentiate(f, variable, rules)[0]
        gradient = simplify_report(gradient, rules=rules, limits=limits,
                                   rulesets=rulesets).expr
        if shape_of(gradient) != variable.shape:  # a constant gradient: fill the shape
            gradient = make("expand", gradient, variable, number(ALL_AXES))
        found.append(gradient)
    return found[0] if isinstance(wrt, (str, Expr)) else found
