"""The public functions, composed from the layers below (parse, rules, e-graph, extract)."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from .egraph import Engine, Limits, RunReport
from .errors import EqsatError
from .expr import Expr, symbol
from .extract import CostModel, display_order, extract_dag
from .numeric import evaluate as _evaluate
from .parse import parse
from .rules import load_rules
from .rules.check import Verdict, check_rule

ExprInput = Expr | str


@dataclass(frozen=True)
class Simplified:
    """A simplified expression with the report of the run that produced it."""

    expr: Expr
    report: RunReport
    cost_before: float
    cost_after: float


@lru_cache(maxsize=8)
def _engine(rule_files: tuple[tuple[str, float], ...]) -> Engine:
    return Engine([path for path, _ in rule_files])


def _modified(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return -1.0  # loading it will say what is wrong


def engine(rules: Iterable[str | Path] = ()) -> Engine:
    """The shared engine for the shipped library plus these rule files.

    Compiled once per set of files, and again when a file changes.
    """
    return _engine(tuple((str(Path(r)), _modified(Path(r))) for r in rules))


def _assumed(assume: Mapping[str, str | Iterable[str]] | None) -> list[Expr]:
    found = []
    for name, held in (assume or {}).items():
        flags = [held] if isinstance(held, str) else list(held)
        found.append(symbol(name, **dict.fromkeys(flags, True)))
    return found


def to_expr(value: ExprInput, assume: Mapping[str, str | Iterable[str]] | None = None) -> Expr:
    """Text or an Expr; `assume` gives symbols assumptions, e.g. {"x": "positive"}."""
    known = _assumed(assume)
    if isinstance(value, Expr):
        return value.subs({Expr("sym", (), s.name): s for s in known}) if known else value
    return parse(value, known)


def simplify_report(expr: ExprInput, *, rules: Iterable[str | Path] = (),
                    rulesets: Sequence[str] = ("simplify",), limits: Limits | None = None,
                    assume: Mapping[str, str | Iterable[str]] | None = None,
                    cost: str = "tree", rounds: int = 4) -> Simplified:
    """Saturate, extract the cheapest equal term, and report how it went.

    Runs in rounds: each saturates a fresh e-graph from the best term so far, under the
    limits (the time limit covers all rounds), and the next round starts from what it
    extracted. It stops when a round saturates (its result is optimal for the rules) or
    stops improving.
    """
    if cost not in ("tree", "dag"):
        raise EqsatError(f"unknown cost {cost!r}: use 'tree' or 'dag'")
    limits = limits or Limits()
    start = to_expr(expr, assume)
    model = CostModel()
    measure = model.tree_cost if cost == "tree" else model.dag_cost
    best, total = start, RunReport("saturated")
    deadline = time.perf_counter() + limits.seconds
    for _ in range(rounds):
        remaining = replace(limits, seconds=max(deadline - time.perf_counter(), 0.0))
        found, report = _saturate_once(best, rules, rulesets, remaining, cost, model)
        total.absorb(report)
        improved = measure(found) < measure(best)
        if improved:
            best = found
        if not improved or report.stop_reason in ("saturated", "time"):
            break
    best = display_order(best)
    return Simplified(best, total, measure(start), measure(best))


def _saturate_once(expr: Expr, rules: Iterable[str | Path], rulesets: Sequence[str],
                   limits: Limits, cost: str, model: CostModel) -> tuple[Expr, RunReport]:
    with engine(rules).session() as session:
        handle = session.add(expr)
        report = session.run(rulesets, limits)
        if cost == "tree":
            return session.extract(handle)[0], report
        snapshot = session.snapshot([handle])
        return extract_dag(snapshot, [handle], model, session.symbol)[0], report


def simplify(expr: ExprInput, **options: Any) -> Expr:
    """The simplest equal expression the rules find (see simplify_report for options)."""
    return simplify_report(expr, **options).expr


def prove_equal(first: ExprInput, second: ExprInput, *, rules: Iterable[str | Path] = (),
                rulesets: Sequence[str] = ("simplify",), limits: Limits | None = None,
                library: bool = True) -> bool:
    """Whether saturation puts both expressions in one e-class (a proof of equality)."""
    chosen = engine(rules) if library else Engine(rules, library=False)
    with chosen.session() as session:
        a, b = session.add(to_expr(first)), session.add(to_expr(second))
        session.run(rulesets, limits or Limits())
        return session.same(a, b)


def evaluate(expr: ExprInput, values: Mapping[str, Any] | None = None, **named: Any) -> Any:
    """NumPy evaluation: evaluate("x*y/x", {"x": 2.0, "y": 3.0}) or evaluate(e, x=2.0, y=3.0)."""
    return _evaluate(to_expr(expr), {**(values or {}), **named})


def check_rules(paths: Iterable[str | Path], points: int = 300) -> list[Verdict]:
    """Load rule files and check every rule numerically; unsound ones carry a counterexample."""
    return [check_rule(rule, points) for rule in load_rules(paths).rules]
