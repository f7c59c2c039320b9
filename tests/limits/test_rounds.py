"""The rounds driver: each round starts from the last one's state, with what is left of one
deadline, until a round is done."""

from __future__ import annotations

import time

from eqsat.limits.budget import Budget, Limits
from eqsat.limits.report import RunReport, StopReason
from eqsat.limits.rounds import Round, in_rounds


def test_rounds_go_on_from_the_last_state_until_one_is_done() -> None:
    seen: list[tuple[int, float]] = []

    def one_round(state: int, limits: Limits) -> Round[int]:
        seen.append((state, limits.seconds))
        report = RunReport(StopReason.NODES, iterations=2, nodes=10 * state)
        return Round(state + 1, report, done=state == 3)

    total = RunReport(StopReason.ITERATIONS)
    budget = Budget(Limits(seconds=60), time.perf_counter() + 60)
    assert in_rounds(1, one_round, budget, 10, total) == 4
    assert [state for state, _ in seen] == [1, 2, 3]
    assert all(0 < seconds <= 60 for _, seconds in seen)  # what is left of one deadline
    assert (total.rounds, total.iterations, total.nodes) == (3, 6, 30)


def test_rounds_stop_at_their_count_and_say_why_without_a_run() -> None:
    total = RunReport(StopReason.ITERATIONS)
    budget = Budget.start(Limits(seconds=60))
    assert in_rounds(0, lambda s, _: Round(s + 1), budget, 5, total) == 5
    found = in_rounds(0, lambda s, _: Round(s, done=True, stop=StopReason.OPTIMAL), budget, 5,
                      total)
    assert found == 0 and total.stop_reason == StopReason.OPTIMAL and total.rounds == 0


def test_the_limits_left_name_the_limit_given() -> None:
    """A later stage gets the seconds that are left, and its messages the limit as given."""
    left = Budget.start(Limits(seconds=60)).left()
    assert left.seconds <= 60 and left.stated_seconds == 60
    assert Limits(seconds=1.7, given_seconds=2).stated_seconds == 2
    assert Budget.start(Limits(seconds=1.7, given_seconds=2)).left().stated_seconds == 2
