"""Shared test helpers: numeric equivalence at sampled points, and the reference corpora."""

from __future__ import annotations

import json
import os
import random
import tempfile
import threading
from pathlib import Path

import mpmath
import pytest
from hypothesis import settings

from eqsat import Expr
from eqsat.term.reference import reference

# what eqsat stores between processes (limits/stored.py) goes to a folder of the test run's
# own, for the processes the tests start too, and is gone with it
_STORED = tempfile.TemporaryDirectory(prefix="eqsat-stored-")
os.environ["EQSAT_CACHE_DIR"] = _STORED.name

# the same examples on every run: a property test that passes once passes in CI
settings.register_profile("eqsat", derandomize=True, deadline=None)
settings.load_profile("eqsat")

CORPORA = Path(os.environ.get("EQSAT_CORPORA",
                              Path(__file__).resolve().parents[2] / "shared" / "corpora"))


def corpus(name: str, kind: str | None = None) -> list[dict[str, object]]:
    """Records of one corpus file (optionally of one kind); none where the corpora are absent:
    a test parametrized with them is then reported as skipped (an empty parameter set)."""
    path = CORPORA / name
    if not path.exists():
        return []
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r for r in records if kind is None or r["kind"] == kind]


def _sample(rng: random.Random, symbol: Expr) -> float:
    held = symbol.assumptions
    if "integer" in held:
        value = float(rng.randint(1, 6))
    else:
        value = rng.choice([rng.uniform(-3, 3), rng.uniform(-20, 20), rng.uniform(0.01, 1)])
    if "positive" in held or "nonnegative" in held:
        value = abs(value) or 1.0
    if "negative" in held:
        value = -abs(value) or -1.0
    return value


def assert_equivalent(original: Expr, result: Expr, points: int = 60, needed: int = 8,
                      max_magnitude: int | None = None, digits: int = 60) -> None:
    """Wherever `original` is defined, `result` is defined and equal (60-digit arithmetic).
    With max_magnitude, points where a subterm of `original` reaches 10^max_magnitude are
    skipped (a numerical derivative of sin(exp(exp(x))) at x = 12 means nothing). Values
    that differ are computed again at 4 times the digits before they fail, as a form that
    cancels loses digits (log1p(-erf(x)) at x = 11 loses 53 of them)."""
    rng = random.Random(str(original))
    symbols = sorted(original.free_symbols() | result.free_symbols(), key=lambda s: s.name)
    compared = 0
    for _ in range(points):
        values = {s.name: mpmath.mpf(_sample(rng, s)) for s in symbols}
        left = reference(original, values, digits, max_magnitude=max_magnitude)
        if left is None:
            continue
        right = reference(result, values, digits)
        if right is None or not _close(left, right):  # or a side cancelled at these digits
            left = reference(original, values, 4 * digits, max_magnitude=max_magnitude)
            right = reference(result, values, 4 * digits)
            if left is None:
                continue
        where = {k: float(v) for k, v in values.items()}
        assert right is not None, f"{result} is undefined at {where} where {original} = {left}"
        assert _close(left, right), f"{original} = {left} but {result} = {right} at {where}"
        compared += 1
    assert compared >= needed, f"{original} was defined at only {compared} of {points} points"


def _close(left: mpmath.mpf, right: mpmath.mpf) -> bool:
    return bool(abs(left - right) <= mpmath.mpf(10) ** -20 * max(1, abs(left), abs(right)))


@pytest.fixture
def egglog_calls(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every command a test's queries send to egglog (none are sent: each is recorded). The
    test gets a cache of engines of its own: an engine built while commands are not sent would
    hold declarations egglog never saw, and fail the tests after it ("Unbound function")."""
    from eqsat.egraph import engine, per_thread, session

    calls: list[object] = []
    for module in (engine, session):
        monkeypatch.setattr(module, "run_commands", lambda *args: calls.append(args))
    monkeypatch.setattr(per_thread, "_per_thread", threading.local())
    return calls
