"""Problem: the equations, their unknowns, the engine and the budget one solve shares."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..algebra.normal import decided_comparisons
from ..errors import SolveError
from ..extract import display_order
from ..limits.budget import Budget, Limits
from ..term.expr import Expr, make, number
from ..term.walks import postorder

if TYPE_CHECKING:  # the e-graph layer loads egglog: only when a query runs
    from ..egraph.engine import Engine

MAX_CASE_DEPTH = 3  # nested case splits on parameters
# what tidying a value costs a node, in seconds, at most (its e-graph grows to eight times
# its nodes, then is extracted and ordered: a 720-term determinant's 5,000 nodes take 0.5 s)
SECONDS_PER_TIDIED_NODE = 1e-4


@dataclass(frozen=True)
class Problem:
    """Equations as lhs = rhs pairs, the unknowns, and how to solve them."""

    equations: tuple[tuple[Expr, Expr], ...]
    unknowns: tuple[Expr, ...]
    engine: Engine
    budget: Budget  # its limits for each e-graph run; its deadline bounds the whole solve
    method: str = "auto"  # "auto": polynomial elimination first; "rules": the e-graph first

    def remaining(self, nodes: int = 0) -> Limits:
        """The limits for the next e-graph run: what is left of the time limit (a
        SolveError where none is, or too little for a value of `nodes` nodes to be tidied)."""
        if self.budget.seconds_left() <= nodes * SECONDS_PER_TIDIED_NODE:
            raise SolveError(f"the time limit ({self.budget.limits.stated_seconds:g} s) was "
                             f"reached before the rules could isolate {', '.join(self.names)}")
        return self.budget.left()

    def check_time(self) -> None:
        """A SolveError once the time limit has passed (for loops that grow with the input)."""
        if self.budget.seconds_left() <= 0:
            raise SolveError(f"the time limit ({self.budget.limits.stated_seconds:g} s) was "
                             f"reached while solving for {', '.join(self.names)}")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(u.name for u in self.unknowns)

    @property
    def parameters(self) -> tuple[Expr, ...]:
        """The equations' symbols that are not unknowns, by name."""
        found = {s for pair in self.equations for side in pair for s in side.free_symbols()}
        return tuple(sorted(found - set(self.unknowns), key=lambda s: s.name))

    def with_equation(self, equation: Expr) -> Problem:
        """The same problem with one equation (an `equation` Expr) instead."""
        lhs, rhs = equation.args
        return replace(self, equations=((lhs, rhs),))

    def substituted(self, mapping: dict[Expr, Expr]) -> Problem:
        return replace(self, equations=tuple((lhs.subs(mapping), rhs.subs(mapping))
                                             for lhs, rhs in self.equations))

    def for_unknown(self, equation: tuple[Expr, Expr], unknown: Expr) -> Problem:
        """One equation in one unknown on the same engine and budget."""
        return replace(self, equations=(equation,), unknowns=(unknown,))

    def tidy(self, value: Expr) -> Expr:
        """A value simplified by the [simplify] rules (and its comparisons of constants
        decided), for display."""
        value = decided_comparisons(value)
        if value.is_number:
            return value
        limits = self.remaining(len(postorder(value)))  # (before it is encoded: work too)
        with self.engine.session(rulesets=["simplify"]) as session:
            handle = session.add(value)
            session.run(["simplify"], limits)
            simplest, _ = session.extract(handle)
        return display_order(simplest)


    def tidy_condition(self, condition: Expr) -> Expr:
        """A comparison simplified: a symbol against a constant as it is (a != 1), else
        its difference simplified against 0 (a + b != 0 for a != -b); 0 or 1 where it is
        decided."""
        lhs, rhs = condition.args
        if lhs.is_symbol and not rhs.free_symbols():
            return condition
        tidy = self.tidy(condition)
        if tidy.is_number:
            return tidy
        return make(condition.op, self.tidy(make("sub", lhs, rhs)) if rhs != number(0)
                    else self.tidy(lhs), number(0))
