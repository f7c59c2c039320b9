"""Budgets count work, not seconds: with the clock made 4x faster or slower, time-limited
queries whose work fits well inside their limit give the same answer and stop reason. (The
time limit is a backstop; where it cuts, the report says `time`.)"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

import eqsat

LIMITS = eqsat.Limits(seconds=5)


@contextmanager
def clock_at(rate: float) -> Iterator[None]:
    """time.perf_counter running `rate` times as fast as the real clock."""
    real = time.perf_counter
    began = real()
    time.perf_counter = lambda: began + (real() - began) * rate
    try:
        yield
    finally:
        time.perf_counter = real


def _simplify(text: str) -> tuple[str, str]:
    report = eqsat.simplify_report(text, limits=LIMITS)
    return str(report.expr), str(report.report.stop_reason)


def _diff(text: str) -> tuple[str, str]:
    report = eqsat.diff_report(text, "x", limits=LIMITS)
    return str(report.expr), str(report.report.stop_reason)


def _stabilize(text: str) -> tuple[str, str]:
    """stabilize with a limit that its work (0.2-2.5 s here on a 2-core machine) fits in
    four times over on a busy machine too, at the fast clock: the eight powers' answer
    followed the load at a 2 s limit, sqrt(x + 1) - sqrt(x)'s stop reason at 5 s."""
    report = eqsat.stabilize_report(text, limits=eqsat.Limits(seconds=40))
    return str(report.expr), str(report.report.stop_reason)


def _solve(text: str) -> tuple[str, str]:
    return str(eqsat.solve(text, "x", limits=LIMITS)), ""


def _compile(text: str) -> tuple[str, str]:
    return eqsat.compile(text, limits=LIMITS).source, ""


CASES: list[tuple[Callable[[str], tuple[str, str]], str]] = [
    (_simplify, "sin(x)^2 + cos(x)^2 + tan(x)*cos(x)"),
    (_simplify, "exp(x)*exp(y)/exp(x + y)"),
    (_simplify, "abs(x)/abs(x^2) + log(y)"),
    (_diff, "x^x*sin(x)"),
    (_stabilize, "sqrt(x + 1) - sqrt(x)"),
    (_stabilize, "log(1 + x)"),
    (_stabilize, "2^x*a^y*2^z*b^w*c^v*a^u*s*b^t"),
    (_solve, "x^2/a = 1"),
    (_solve, "exp(2*x) - 5*exp(x) + 6 = 0"),
    (_compile, "exp(x) - 1 + sin(x)*y"),
]


@pytest.mark.parametrize(("query", "text"), CASES)
def test_the_same_answer_on_a_fast_and_a_slow_clock(query: Callable[[str], tuple[str, str]],
                                                    text: str) -> None:
    query(text)  # (the engine and its rules built before any clock is changed)
    answers = []
    for rate in (1.0, 4.0, 0.25):
        eqsat.clear_cache()
        with clock_at(rate):
            answers.append(query(text))
    assert answers[0] == answers[1] == answers[2], answers
    assert "time" not in answers[0][1]
