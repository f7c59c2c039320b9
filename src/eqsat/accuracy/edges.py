"""Points of one variable about where a subterm of a form passes the largest float or the
smallest normal one: a form that scales by a constant before an exponential's overflow
(1/(2*exp(2*c)) for 0.5/exp(2*c)) is wrong in a band a fifth of a unit wide there, which
draws over every float meet at one point in five million, moderate ones at one in 65,000."""

from __future__ import annotations

import random
from functools import lru_cache

import numpy as np

from ..term.expr import Expr
from ..term.numeric import evaluate
from ..term.sampling import DTYPES, float_from_ordinals, ordinal_array, stratified
from .localize import float_values
from .measure import Sample

GRID = 4096  # points the edges are first looked for among (about one a binade)
MOST_EDGES = 8  # edges kept, the first found
WINDOW = 1 / 64  # points are drawn this far either side of an edge, relatively


def edge_points(form: Expr, name: str, bounds: tuple[float, float], dtype: str, seed: int,
                count: int) -> dict[str, np.ndarray]:
    """Up to count values of the variable, drawn uniformly within WINDOW of each value where a
    subterm of the form passes the largest float or the smallest normal one (bisected over
    the floats between two points of a grid over the range, its ends included, on either
    side); none where no subterm does."""
    float_type = DTYPES[dtype][0]
    info = np.finfo(float_type)
    grid = _grid(name, bounds, dtype, seed)
    found: list[float] = []
    with np.errstate(all="ignore"):  # (every subterm's values in one walk: see float_values)
        for node, values, operands in float_values(form, Sample({name: grid},
                                                                 np.zeros(len(grid)), dtype)):
            if not operands:  # (a variable or a constant)
                continue
            for limit in (float(info.max), float(info.smallest_normal)):
                past = np.abs(values) >= limit
                for i in np.flatnonzero(past[1:] != past[:-1])[:MOST_EDGES - len(found)]:
                    found.append(_bisected(node, name, grid[i], grid[i + 1], limit, dtype))
    if not found:
        return {}
    rng = np.random.default_rng(random.Random(seed).getrandbits(64))
    centres = np.repeat(found, -(-count // len(found)))[:count]
    with np.errstate(all="ignore"):  # (beside the largest float: some overflow, dropped)
        drawn = np.asarray(centres * (1 + rng.uniform(-WINDOW, WINDOW, len(centres))),
                           dtype=float_type)
    low, high = bounds
    return {name: drawn[np.isfinite(drawn) & (drawn >= low) & (drawn <= high)]}


@lru_cache(maxsize=8)
def _grid(name: str, bounds: tuple[float, float], dtype: str, seed: int) -> np.ndarray:
    """GRID floats of the range (stratified), its ends, in order: the same for every form a
    stabilize checks (a refusal tries dozens). Shared: not to be changed."""
    largest = float(np.finfo(DTYPES[dtype][0]).max)
    ends = np.clip(np.array(bounds), -largest, largest).astype(DTYPES[dtype][0])
    grid = np.sort(np.concatenate([stratified({name: bounds}, GRID, dtype, seed)[name], ends]))
    grid.flags.writeable = False
    return grid


def _past(node: Expr, name: str, values: np.ndarray, limit: float, float_type: type
          ) -> np.ndarray:
    """Where the subterm's magnitude at the values is past the limit (NaN: not past)."""
    with np.errstate(all="ignore"):
        computed = np.broadcast_to(np.asarray(evaluate(node, {name: values}),
                                              dtype=float_type), values.shape)
        return np.asarray(np.abs(computed) >= limit)


def _bisected(node: Expr, name: str, low: float, high: float, limit: float, dtype: str
              ) -> float:
    """A float between low and high, next to where the subterm passes the limit."""
    float_type = DTYPES[dtype][0]
    side = _past(node, name, np.array([low], dtype=float_type), limit, float_type)[0]
    start, stop = (int(o) for o in ordinal_array(np.array([low, high]), dtype))
    while stop - start > 1:
        middle = (start + stop) // 2
        point = float_from_ordinals([middle], dtype)
        if _past(node, name, point, limit, float_type)[0] == side:
            start = middle
        else:
            stop = middle
    return float(float_from_ordinals([start], dtype)[0])
