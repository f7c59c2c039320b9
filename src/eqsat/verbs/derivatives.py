"""Derivatives to completion: on the term by the [diff] rules, else saturated in an e-graph."""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from ..egraph.per_thread import engine
from ..errors import EqsatError
from ..extract import CostModel, TreeExtractor
from ..limits.report import RunReport, StopReason
from ..rules.derivative import derivative
from ..rules.reverse import DIFF_RULESET, GRAD_RULESET
from ..term.expr import Expr, make, number, symbol
from ..term.inputs import Variable
from ..term.shape import is_tensor
from ..term.walks import postorder, rebuild

if TYPE_CHECKING:  # the e-graph layer loads egglog: only when used
    from ..egraph.engine import Engine
    from ..egraph.session import Session


def expand_derivatives(expr: Expr, rules: Iterable[str | Path] = ()) -> tuple[Expr, RunReport]:
    """Replace every diff(e, x) in expr by its complete derivative, innermost first."""
    total = RunReport(StopReason.SATURATED)

    def build(node: Expr, args: list[Expr]) -> Expr:
        if node.op != "diff":
            return make(node.op, *args) if node.args else node
        derivative, report = differentiate(args[0], args[1], rules)
        total.absorb(report)
        return derivative

    if not any(node.op == "diff" for node in postorder(expr)):
        return expr, total
    return rebuild(expr, build), total


def cheapest_derived(session: Session, handle: str) -> Expr:
    """The handle's term of least tree cost with no diff or vjp left in it: by egglog, or
    on eqsat's side where the terms share so much that egglog's tree would not fit in memory,
    or where a derivative costs more as a tree than the diff statement (100,000)."""
    if not session.needs_snapshot:
        found = session.extract(handle)[0]
        if not any(node.op in ("diff", "vjp") for node in postorder(found)):
            return found
    snapshot = session.snapshot([handle])
    model = CostModel({"diff": math.inf, "vjp": math.inf})  # a statement left is no answer
    return TreeExtractor(snapshot, model, session.symbol).term(snapshot.roots[handle])


def variable_in(expr: Expr, wrt: Variable) -> Expr:
    """The symbol to differentiate in: the one of that name in expr (with its assumptions)."""
    if isinstance(wrt, Expr):
        if not wrt.is_symbol:
            raise EqsatError(f"can only differentiate in a symbol, not in {wrt}")
        return wrt
    for found in expr.free_symbols():
        if found.name == wrt:
            return found
    return symbol(wrt)


def differentiate(expr: Expr, wrt: Expr, rules: Iterable[str | Path]) -> tuple[Expr, RunReport]:
    """The complete derivative by the [diff] rules: applied to the term directly where that
    decides every step (see derivative.py), else saturated in an e-graph."""
    chosen = engine(rules)
    if not is_tensor(expr):
        direct = derivative(expr, wrt, chosen.diff_rules)
        if direct is not None:
            return direct[0], RunReport(StopReason.SATURATED, rule_matches=direct[1])
    return saturated_derivative(expr, wrt, chosen)


def saturated_derivative(expr: Expr, wrt: Expr, chosen: Engine) -> tuple[Expr, RunReport]:
    """The complete derivative, by saturating the [diff] rules (they always terminate)."""
    with chosen.session(is_tensor(expr), [DIFF_RULESET]) as session:
        session.add(wrt)  # first, so that it has a bit of its own for `free of` guards
        handle = session.add(make("diff", expr, wrt))
        report = session.saturate([DIFF_RULESET])
        result = cheapest_derived(session, handle)
    left = [node for node in postorder(result) if node.op == "diff"]
    if left:
        raise EqsatError(f"no derivative rule applies to {left[0].args[0]}")
    return result, report


def reverse_mode(f: Expr, variable: Expr, rules: Iterable[str | Path]) -> Expr:
    """vjp(f, 1, x) with the [grad] rules saturated (they always terminate), extracted."""
    with engine(rules).session(tensor=True, rulesets=[GRAD_RULESET]) as session:
        session.add(variable)  # first, so that it has a bit of its own for `free of` guards
        handle = session.add(make("vjp", f, number(1), variable))
        session.saturate([GRAD_RULESET])
        result = cheapest_derived(session, handle)
    left = [node for node in postorder(result) if node.op == "vjp"]
    if left:
        inner = left[0].args[0]
        raise EqsatError(f"no gradient rule applies to {inner}")
    return result
