"""What both rule checkers share: a rule's verdict, and the random smooth functions that
stand for pattern variables under diff."""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction

from ..term.expr import Expr, make, number
from .model import Rule


@dataclass(frozen=True)
class Verdict:
    """The outcome of checking one rule."""

    rule: Rule
    tested: int  # points where the left side was defined and the guards held
    counterexample: dict[str, float] | None = None
    detail: str = ""

    @property
    def sound(self) -> bool:
        return self.counterexample is None

    def __str__(self) -> str:
        if self.counterexample is None:
            return f"ok    {self.rule.name} ({self.tested} points)"
        if not self.counterexample:
            return f"FAIL  {self.rule.name} at {self.rule.origin}: {self.detail}"
        point = ", ".join(f"{k} = {v:.17g}" for k, v in sorted(self.counterexample.items()))
        return f"FAIL  {self.rule.name} at {self.rule.origin}: {self.detail} at {point}"


def smooth_function(rng: random.Random, variable: Expr) -> Expr:
    """A random smooth function of one variable, to stand for a pattern variable."""
    c1, c2, c3 = (number(Fraction(rng.randint(-10, 10), 10)) for _ in range(3))
    c0 = number(Fraction(rng.choice([-1, 1]) * rng.randint(1, 10), 10))  # nonzero at x = 0
    return c0 + c1 * variable + c2 * variable**2 + c3 * make("sin", variable)
