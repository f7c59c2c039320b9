"""The rules path: saturate solve(lhs = rhs, x) with the [solve] and [simplify] rules and
read back the forms where x stands alone, or the other forms the equation took."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..extract import CostModel, TreeExtractor
from ..limits.budget import Budget, Limits, Snapshot
from ..limits.report import RunReport, StopReason
from ..limits.rounds import Round, in_rounds
from ..term.expr import Expr, make

if TYPE_CHECKING:  # the e-graph layer loads egglog: only when a query runs
    from ..egraph.engine import Engine
    from ..egraph.session import Session

RULESETS = ("solve", "simplify")
PHASES = (2, 4)  # iterations of the first runs, each followed by a look at the forms
ROUNDS = 4  # fresh e-graphs, each from the cheapest form the one before reached


@dataclass(frozen=True)
class Isolation:
    """What the rules made of one equation in one unknown."""

    solved: Expr | None  # the cheapest rhs of an `x = rhs` form with rhs free of x
    forms: tuple[Expr, ...]  # every equation form reached, cheapest first
    report: RunReport


def isolate(engine: Engine, lhs: Expr, rhs: Expr, unknown: Expr, limits: Limits,
            enough: Callable[[Isolation], bool] = lambda found: found.solved is not None
            ) -> Isolation:
    """Saturate solve(lhs = rhs, unknown) and look in its e-class for x = rhs forms.

    Runs in rounds, as simplify does: each starts a fresh e-graph from the cheapest form
    the one before reached (the e-graph of a long equation fills up with rearrangements of
    its first form), until `enough` accepts what was found, a round saturates, or the time
    limit (shared by all rounds) is spent.
    """
    total = RunReport(StopReason.ITERATIONS)
    forms: dict[Expr, None] = {}  # every form reached, over all rounds

    def one_round(state: tuple[Expr, Isolation], limits: Limits
                  ) -> Round[tuple[Expr, Isolation]]:
        """A fresh e-graph from the cheapest form the round before reached."""
        equation, _ = state
        found = _saturate(engine, equation, unknown, limits, enough)
        forms.update(dict.fromkeys(found.forms))
        merged = Isolation(found.solved, tuple(forms), total)
        done = enough(merged) or found.report.stop_reason != StopReason.NODES or \
            not found.forms or found.forms[0] == equation
        return Round((found.forms[0] if found.forms else equation, merged), found.report,
                     done=done)

    equation = make("equation", lhs, rhs)
    _, merged = in_rounds((equation, Isolation(None, (), total)), one_round,
                          Budget.start(limits), ROUNDS, total)
    return merged


def _saturate(engine: Engine, equation: Expr, unknown: Expr, limits: Limits,
              enough: Callable[[Isolation], bool]) -> Isolation:
    """One e-graph: a few iterations, then a few more, then to the limits, stopping once
    `enough`. Each phase first runs the [solve] rules alone (they only move terms, and come
    to a stop)."""
    budget = Budget.start(limits)
    total = RunReport(StopReason.ITERATIONS)
    with engine.session(rulesets=RULESETS) as session:
        session.add(unknown)  # first, so that it has a `free of` bit of its own
        handle = session.add(make("solve", equation, unknown))
        for iterations in (*PHASES, max(limits.iterations - sum(PHASES), 1)):
            for rulesets, steps in ((["solve"], limits.iterations), (RULESETS, iterations)):
                report = session.run(rulesets, budget.left(iterations=steps))
                total.absorb(report)
            found = _read(session, handle, unknown, total)
            if enough(found) or report.stop_reason != StopReason.ITERATIONS:
                break
    return found


def _read(session: Session, handle: str, unknown: Expr, report: RunReport) -> Isolation:
    snapshot: Snapshot = session.snapshot([handle])
    extractor = TreeExtractor(snapshot, CostModel(), session.symbol)
    root = snapshot.roots[handle]
    equations = {node[1][0] for node in snapshot.classes[root] if node[0] == "solve"}
    solved: list[tuple[float, Expr]] = []
    forms: list[tuple[float, Expr]] = []
    for eclass in equations:
        for node in snapshot.classes[eclass]:
            cost = extractor.node_cost(node)
            if node[0] != "equation" or cost is None:
                continue
            left, right = node[1]
            alone = any(n[0] == "sym" and n[2] == unknown.name for n in snapshot.classes[left])
            value = extractor.term(right)
            if alone and unknown not in value.free_symbols():
                solved.append((extractor.best[right][0], value))
            forms.append((cost, make("equation", extractor.term(left), value)))
    forms.sort(key=lambda f: f[0])
    best = min(solved, key=lambda s: s[0])[1] if solved else None
    return Isolation(best, tuple(dict.fromkeys(f for _, f in forms)), report)
