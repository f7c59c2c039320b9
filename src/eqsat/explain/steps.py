"""eqsat.explain: the derivation of a result from its input, one checked rule application a step."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..egraph.per_thread import engine
from ..errors import EqsatError
from ..extract import CostModel, TreeExtractor
from ..limits.budget import Budget, Limits
from ..limits.report import RunReport, StopReason
from ..limits.rounds import Round, in_rounds
from ..term import arguments
from ..term.display import latex, latex_text
from ..term.expr import Expr
from ..term.inputs import ExprInput, to_expr
from ..term.numeric import evaluate
from ..term.sampling import within_assumptions
from ..term.shape import is_tensor
from ..verbs.simplify import simplify
from .derivation import Deriver, OutOfBudget, RawStep, Step
from .replay import replay

SAMPLE_POINTS = 64
TOLERANCE = 1e-7  # relative difference allowed between the values before and after a step


@dataclass(frozen=True)
class Derivation:
    """How start becomes result: steps, each one rule application checked numerically
    (checked[i]: sample points where step i's two sides were both compared; 0 when neither
    side is defined at any sampled point). found is False, with the reason, when no path was
    found: then there are no steps, never invented ones."""

    start: Expr
    result: Expr
    steps: tuple[Step, ...]
    checked: tuple[int, ...]
    found: bool
    reason: str = ""

    def __str__(self) -> str:
        if not self.found:
            return f"no derivation of {self.result} from {self.start}: {self.reason}"
        terms = [str(self.start), *(str(step.term) for step in self.steps)]
        width = min(max(len(t) for t in terms), 60)
        lines = [f"  {terms[0]}"]
        for step, term in zip(self.steps, terms[1:], strict=True):
            lines.append(f"= {term:<{width}}   by {step}")
        if not self.steps:
            lines.append("  (no rewriting needed)")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<Derivation {len(self.steps)} step(s)>\n{self}" if self.found else \
            f"<Derivation not found: {self.reason}>"

    def _repr_latex_(self) -> str:
        """Jupyter shows the chain of equalities, each line with its rule."""
        if not self.found:
            return f"$\\text{{{latex_text(str(self))}}}$"
        rows = [f"& {latex(self.start)}"]
        rows += [f"&= {latex(step.term)} && \\text{{{latex_text(str(step.rule))}"
                 f"{' (right to left)' if step.reverse else ''}}}" for step in self.steps]
        return "$\\begin{aligned}" + " \\\\ ".join(rows) + "\\end{aligned}$"


def explain(start: ExprInput, result: ExprInput | None = None, *,
            rules: Iterable[str | Path] = (), rulesets: Sequence[str] = ("simplify",),
            limits: Limits | None = None, assume: Mapping[str, str | Iterable[str]] | None = None,
            rounds: int = 4) -> Derivation:
    """A step-by-step derivation of result (by default: what simplify returns) from start.

    Each round saturates an e-graph holding both; if they share an e-class, a path of single
    rewrites between them is searched for among the e-graph's terms; otherwise the round
    derives the cheapest term it found and the next round goes on from there, as simplify
    does. The searches are bounded by work (derivation.MAX_PLAN_WORK); the time limit covers
    the whole call, the rounds' runs and the searches. Every step is checked by evaluating
    both sides at sampled points.
    """
    limits = Limits.of(limits)
    budget = Budget.start(limits)
    rule_files = arguments.rule_files(rules)
    begin = to_expr(start, assume)
    if is_tensor(begin):
        raise EqsatError("explain derives scalar expressions; this one has tensors")
    goal = simplify(begin, rules=rule_files, rulesets=rulesets, limits=limits, assume=assume) \
        if result is None else to_expr(result, assume)
    def one_round(state: _Progress, limits: Limits) -> Round[_Progress]:
        """A fresh e-graph holding the term reached so far and the goal."""
        current, steps, _ = state
        try:
            found, reached = _one_round(current, goal, rule_files, rulesets, limits,
                                        budget.seconds_left())
        except OutOfBudget as failure:
            failed = _missing(begin, goal, f"no path of rewrites found ({failure})")
            return Round((current, steps, failed), done=True)
        if found is None:
            failed = _missing(begin, goal, "the rules do not show them equal within the limits")
            return Round((current, steps, failed), done=True)
        steps = steps + replay(current, found)
        if reached == goal:
            return Round((goal, steps, _checked(begin, goal, steps)), done=True)
        return Round((reached, steps, None))

    started: _Progress = (begin, [], None)
    _, _, outcome = in_rounds(started, one_round, budget, rounds,
                              RunReport(StopReason.ITERATIONS))
    return outcome or _missing(begin, goal, f"not reached in {rounds} rounds")


_Progress = tuple[Expr, list[Step], Derivation | None]  # reached, steps, outcome if ended


def _one_round(current: Expr, goal: Expr, rules: list[str | Path], rulesets: Sequence[str],
               limits: Limits, seconds: float) -> tuple[list[RawStep] | None, Expr]:
    """Raw steps from current to goal, or to the cheapest term of current's e-class when
    goal is not in it; (None, current) when neither gets anywhere."""
    chosen = engine(rules)
    with chosen.session(rulesets=rulesets) as session:
        here, there = session.add(current), session.add(goal)
        report = session.run(rulesets, limits)
        if report.stop_reason == StopReason.CONTRADICTION:
            return None, current
        snapshot = session.snapshot([here, there], facts=True)
    model = CostModel()
    cheapest = TreeExtractor(snapshot, model, session.symbol)
    wanted = set(rulesets)
    active = [r for r in chosen.rules.rules if r.ruleset in wanted and not r.about_tensors]
    deriver = Deriver(snapshot, active, cheapest.term, seconds=seconds)
    if snapshot.roots[here] == snapshot.roots[there]:
        return deriver.derive(current, goal), goal
    best = cheapest.term(snapshot.roots[here])
    if model.tree_cost(best) >= model.tree_cost(current):
        return None, current
    return deriver.derive(current, best), best


def _missing(start: Expr, goal: Expr, reason: str) -> Derivation:
    return Derivation(start, goal, (), (), False, reason)


def _checked(start: Expr, goal: Expr, steps: list[Step]) -> Derivation:
    """The derivation, each step's two sides compared at sampled points; a step whose sides
    differ where the first is defined means a wrong rule: an error, never a derivation."""
    counts = []
    before = start
    for number_, step in enumerate(steps, 1):
        compared, where = _compare(before, step.term)
        if where is not None:
            raise EqsatError(f"step {number_} of the derivation ({step}) changes the value at "
                             f"{where}: a rule is unsound")
        counts.append(compared)
        before = step.term
    return Derivation(start, goal, tuple(steps), tuple(counts), True)




def _compare(before: Expr, after: Expr) -> tuple[int, dict[str, float] | None]:
    """Points where both were compared, and a point where they differ (or None)."""
    values = within_assumptions(before.free_symbols() | after.free_symbols(), SAMPLE_POINTS)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        first = np.broadcast_to(np.asarray(evaluate(before, values), float), (SAMPLE_POINTS,))
        second = np.broadcast_to(np.asarray(evaluate(after, values), float), (SAMPLE_POINTS,))
    defined = np.isfinite(first)
    close = np.isclose(second, first, rtol=TOLERANCE, atol=TOLERANCE)
    wrong = np.flatnonzero(defined & ~close)
    if wrong.size:
        return int(defined.sum()), {k: float(v[wrong[0]]) for k, v in values.items()}
    return int(defined.sum()), None
