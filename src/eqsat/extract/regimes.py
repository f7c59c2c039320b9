"""Regimes: one expression of where(...) branches, each branch the form with the fewest bits
of error on its own range of one variable (as Herbie's regimes do). Every form is equal to the
input, so the whole is too: only its accuracy depends on where the branches split."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..expr import Expr, make, number, symbol
from .accuracy import Sample, bits_at

MAX_BRANCHES = 4
MAX_FORMS = 8  # the most accurate distinct forms considered
GAIN_PER_BRANCH = 0.5  # mean bits of error each branch past the first must save
MIN_POINTS = 8  # points a branch must hold (fewer would fit the sample, not the function)


@dataclass(frozen=True)
class Regimes:
    """Branches on one variable: forms[k] below thresholds[k], the last one above them all."""

    variable: Expr
    thresholds: tuple[float, ...]
    forms: tuple[Expr, ...]
    bits: float  # mean bits of error on the sample it was chosen on

    def expr(self) -> Expr:
        result = self.forms[-1]
        for threshold, form in zip(reversed(self.thresholds), reversed(self.forms[:-1]),
                                   strict=True):
            bound = number(Fraction(repr(threshold)))  # its shortest decimal, exactly
            result = make("where", make("lt", self.variable, bound), form, result)
        return result


def best_regimes(forms: Sequence[Expr], points: Sample) -> Regimes | None:
    """The split of one variable's range among the forms (the first few: give the most
    accurate first) with the fewest mean bits of error on the sample, counting
    GAIN_PER_BRANCH per extra branch; None where no split of two or more branches beats the
    single most accurate form by that."""
    if points.size < 2 * MIN_POINTS or not points.values:
        return None
    with np.errstate(all="ignore"):  # the first forms given (the most accurate, if ranked)
        measured = [(float(np.mean(b)), f, b) for f in list(dict.fromkeys(forms))[:2 * MAX_FORMS]
                    if np.all(np.isfinite(b := bits_at(f, points)))]
    measured.sort(key=lambda m: m[0])
    chosen = measured[:MAX_FORMS]
    if len(chosen) < 2:
        return None
    errors = np.array([b for _, _, b in chosen])
    single = chosen[0][0]
    if float(np.mean(errors.min(axis=0))) > single - GAIN_PER_BRANCH:
        return None  # not even the best form at every point would save a branch's worth
    symbols = {s.name: s for _, form, _ in chosen for s in form.free_symbols()}
    best: Regimes | None = None
    for name, values in sorted(points.values.items()):
        order = np.argsort(values, kind="stable")
        found = _split(errors[:, order], values[order])
        if found is None:
            continue
        cuts, picks, total = found
        bits = total / points.size
        if len(picks) < 2 or bits > single - GAIN_PER_BRANCH * (len(picks) - 1):
            continue
        if best is None or bits < best.bits:
            ordered = values[order]
            thresholds = tuple(_between(float(ordered[c - 1]), float(ordered[c])) for c in cuts)
            variable = symbols.get(name, symbol(name))  # with its assumptions
            best = Regimes(variable, thresholds, tuple(chosen[k][1] for k in picks), bits)
    return best


def _split(errors: np.ndarray, values: np.ndarray
           ) -> tuple[list[int], list[int], float] | None:
    """Dynamic programming over the sorted points: for 1 to MAX_BRANCHES segments of at least
    MIN_POINTS points (cut only where the value changes), each given the form with the least
    total error on it, the cheapest once each extra segment pays GAIN_PER_BRANCH per point.
    Returns the cut positions, the form of each segment and the total error."""
    forms, n = errors.shape
    cumulative = np.concatenate([np.zeros((forms, 1)), np.cumsum(errors, axis=1)], axis=1)
    allowed = np.zeros(n + 1, dtype=bool)
    allowed[0] = allowed[n] = True
    allowed[1:n] = values[1:] != values[:-1]
    cost = np.full((MAX_BRANCHES + 1, n + 1), np.inf)
    cost[0, 0] = 0.0
    back: dict[tuple[int, int], tuple[int, int]] = {}
    for segments in range(1, MAX_BRANCHES + 1):
        for end in range(MIN_POINTS, n + 1):
            if not allowed[end]:
                continue
            starts = np.arange(0, end - MIN_POINTS + 1)
            starts = starts[allowed[starts] & np.isfinite(cost[segments - 1, starts])]
            if not starts.size:
                continue
            spans = cumulative[:, end][:, None] - cumulative[:, starts]  # forms x starts
            form = np.argmin(spans, axis=0)
            totals = cost[segments - 1, starts] + spans[form, np.arange(starts.size)]
            pick = int(np.argmin(totals))
            cost[segments, end] = totals[pick]
            back[(segments, end)] = (int(starts[pick]), int(form[pick]))
    penalties = [cost[s, n] + GAIN_PER_BRANCH * n * (s - 1) for s in range(1, MAX_BRANCHES + 1)]
    segments = int(np.argmin(penalties)) + 1
    if not np.isfinite(cost[segments, n]):
        return None
    cuts, picks, end = [], [], n
    for s in range(segments, 0, -1):
        start, form = back[(s, end)]
        picks.append(form)
        if start:
            cuts.append(start)
        end = start
    return cuts[::-1], picks[::-1], float(cost[segments, n])


def _between(low: float, high: float) -> float:
    """A threshold between two sampled values: their midpoint, or the geometric one where
    both have one sign and far apart magnitudes (so that 1e-9 and 1e3 split near 1e-3)."""
    if (low > 0 and high / low > 16) or (high < 0 and low / high > 16):
        return float(np.sign(low) * np.sqrt(low * high))
    return (low + high) / 2
