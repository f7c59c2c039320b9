"""Points inside each branch of a split (regimes.py), where draws over the whole domain seldom
land: the split term's value drawn in the branch's range, one variable it holds once solved
for from it, the others drawn at extremes (sampling.extreme_bands)."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Mapping

import numpy as np

from ..term.expr import Expr
from ..term.numeric import evaluate
from ..term.sampling import DTYPES, banded_floats, extreme_bands, float_bits
from .regimes import Regimes

_INVERTIBLE = frozenset({"add", "sub", "mul", "div", "neg", "abs"})


def branch_points(regimes: Regimes, ranges: Mapping[str, tuple[float, float]], dtype: str,
                  seed: int, count: int) -> dict[str, np.ndarray]:
    """Up to count points for each branch (one array per variable of ranges) where the split
    term lies in the branch's range: none for a term that holds no variable once through +
    - * / and abs alone."""
    on = regimes.on
    paths = {name: path for name in sorted(ranges) if (path := _path(on, name)) is not None}
    if not paths:
        return {}
    rng = random.Random(seed)
    bands = extreme_bands(dtype)
    ends = [-math.inf, *regimes.thresholds, math.inf]
    made: dict[str, list[np.ndarray]] = {name: [] for name in ranges}
    for branch, (low, high) in enumerate(itertools.pairwise(ends)):
        if on.is_symbol:  # (the variable's own range within the branch's)
            low, high = max(low, ranges[on.name][0]), min(high, ranges[on.name][1])
        elif on.op == "abs":
            low = max(low, 0.0)
        if low >= high:
            continue
        for k, (name, path) in enumerate(paths.items()):
            size = count // len(paths) + (k < count % len(paths))
            drawn = {other: banded_floats(rng, *bounds, size, dtype, bands)
                     for other, bounds in sorted(ranges.items()) if other != name}
            # half among the range's floats, half at its extremes (its moderate part too)
            target = np.concatenate([float_bits(rng, low, high, size // 2, dtype),
                                     banded_floats(rng, low, high, size - size // 2, dtype,
                                                   bands)])
            with np.errstate(all="ignore"):
                drawn[name] = _solved(path, target, drawn, rng).astype(DTYPES[dtype][0])
                value = np.broadcast_to(evaluate(on, drawn), (size,))
            keep = (regimes.branch_at(value) == branch) & np.isfinite(drawn[name])
            for other in ranges:
                made[other].append(drawn[other][keep])
    return {name: np.concatenate(parts) for name, parts in made.items()}


def _path(term: Expr, name: str) -> list[tuple[Expr, int]] | None:
    """The nodes from the term down to its one occurrence of the variable, each with the
    operand the path takes, through invertible operations; None where it occurs more than
    once, not at all, or under another operation."""
    if term.is_symbol:
        return [] if term.name == name else None
    held = [k for k, arg in enumerate(term.args) if name in {s.name for s in arg.free_symbols()}]
    if len(held) != 1 or term.op not in _INVERTIBLE:
        return None
    rest = _path(term.args[held[0]], name)
    return None if rest is None else [(term, held[0]), *rest]


def _solved(path: list[tuple[Expr, int]], target: np.ndarray, values: dict[str, np.ndarray],
            rng: random.Random) -> np.ndarray:
    """The values of the variable at the path's end that give the term at its start the
    target values (NaN where none), the other variables at theirs: each operation on the
    path undone (abs with either sign)."""
    value = np.asarray(target, dtype=float)
    for node, k in path:
        if node.op == "neg":
            value = -value
            continue
        if node.op == "abs":
            signs = np.array([rng.choice((-1.0, 1.0)) for _ in range(len(value))])
            value = np.where(value >= 0, value * signs, np.nan)
            continue
        other = np.broadcast_to(evaluate(node.args[1 - k], values), value.shape)
        if node.op == "add":
            value = value - other
        elif node.op == "sub":
            value = value + other if k == 0 else other - value
        elif node.op == "mul":
            value = value / other
        else:  # div
            value = value * other if k == 0 else other / value
    return value
