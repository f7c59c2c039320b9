"""Rounds: a verb's work as fresh e-graphs in turn, each from what the one before left."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from .budget import Budget, Limits
from .report import RunReport, StopReason

State = TypeVar("State")


@dataclass
class Round[State]:
    """What one round left: the state the next round starts from (the answer so far), the
    report of its run (None: it ran nothing), whether no further round would help, and the
    stop reason to give when it ended without a run."""

    state: State
    report: RunReport | None = None
    done: bool = False
    stop: StopReason | None = None


def in_rounds[State](start: State, one_round: Callable[[State, Limits], Round[State]],
              budget: Budget, count: int, total: RunReport) -> State:
    """Run one_round up to `count` times, each from the state the one before left and with
    the limits left in the budget (one deadline for all rounds), until a round is done. Each
    round's report is folded into `total`."""
    state = start
    for _ in range(count):
        found = one_round(state, budget.left())
        if found.report is not None:
            total.absorb(found.report)
        if found.stop is not None:
            total.stop_reason = found.stop
        state = found.state
        if found.done:
            break
    return state
