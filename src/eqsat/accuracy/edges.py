"""Points about where a subterm of a form passes the largest float or the smallest normal one,
or underflows to 0, each variable swept while the others are held: a form that scales by a
constant before an exponential's overflow (1/(2*exp(2*c)) for 0.5/exp(2*c)) is wrong in a
band a fifth of a unit wide there, which draws over every float meet at one point in five
million, moderate ones at one in 65,000; a - e*(e*a) for a*(1 - e*e) overflows only where a
is within a factor e of the largest float; 4*y^2 is 0 where (4*y)*y is the least subnormal."""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from ..term.expr import Expr
from ..term.numeric import evaluate
from ..term.sampling import (
    DTYPES,
    banded_floats,
    extreme_bands,
    float_from_ordinals,
    ordinal_array,
    stratified,
)
from .localize import float_values
from .measure import Sample, values_at

GRID = 4096  # points a lone variable's edges are first looked for among (about one a binade)
SWEPT = 512  # ... each of several variables', from each of the BASES points
BASES = 64  # points the other variables are held at while one is swept
NEAR_ONE = (1 / 8, 8)  # a band of the bases' magnitudes beside extreme_bands: a factor near 1
MOST_EDGES = 16  # edges kept, one for each subterm, limit and variable first
WINDOW = 1 / 64  # points are drawn this far either side of an edge, relatively
REFINE = 256  # floats an edge is narrowed among at each step (evenly spaced by ordinal)


def edge_points(start: Expr, form: Expr, ranges: dict[str, tuple[float, float]], dtype: str,
                seed: int, count: int, passed: Callable[[], bool] = lambda: False
                ) -> dict[str, np.ndarray]:
    """Up to count points, the swept variable drawn uniformly within WINDOW of each value
    where a subterm of the form passes the largest float or the smallest normal one, or
    underflows to 0, and the input (start) is finite (found between two points of a grid
    over its range, its ends included, and narrowed over the floats between them), the
    others at the base point it was swept from (none for a lone variable; else BASES points,
    each variable's magnitude moderate, tiny, huge (sampling.extreme_bands) or NEAR_ONE);
    none where no subterm does, or where `passed` (a time limit's backstop, asked before each
    variable's sweep and each edge's narrowing) is true before they are found."""
    names = sorted(ranges)
    bases = _bases(ranges, dtype, seed) if len(names) > 1 else {}
    found = _edges(start, form, ranges, bases, dtype, seed, passed)
    if not found:
        return {}
    rng = np.random.default_rng(random.Random(seed).getrandbits(64))
    each = -(-count // len(found))
    blocks = []
    with np.errstate(all="ignore"):  # (beside the largest float: some overflow, dropped)
        for base, swept, centre in found:
            blocks.append({name: centre * (1 + rng.uniform(-WINDOW, WINDOW, each))
                           if name == swept else np.full(each, bases[name][base])
                           for name in names})
        drawn = {name: np.concatenate([block[name] for block in blocks])[:count].astype(
            DTYPES[dtype][0]) for name in names}
    keep = np.all([np.isfinite(drawn[n]) & (drawn[n] >= ranges[n][0]) &
                   (drawn[n] <= ranges[n][1]) for n in names], axis=0)
    return {name: values[keep] for name, values in drawn.items()}


class _Crossing(NamedTuple):
    """A subterm passing a limit between two neighbours of a variable's grid, the others at
    a base point; whether the form is inf or 0 on either grid point where the input is
    neither, and whether one of the same subterm, limit and variable was found before it."""

    suspect: bool
    later: bool
    node: Expr
    base: int
    name: str
    low: float
    high: float
    limit: float


def _edges(start: Expr, form: Expr, ranges: dict[str, tuple[float, float]],
           bases: dict[str, np.ndarray], dtype: str, seed: int, passed: Callable[[], bool]
           ) -> list[tuple[int, str, float]]:
    """(base, swept variable, value) of up to MOST_EDGES edges where the input is finite on
    either side, one a grid cell: first the suspect ones, then for each subterm, limit and
    variable the first found (over the bases in turn; the variables taking turns), then the
    others."""
    info = np.finfo(DTYPES[dtype][0])
    count = len(next(iter(bases.values()))) if bases else 1
    crossings: list[_Crossing] = []
    for name in sorted(ranges):
        if passed():
            return []
        grid = _grid(name, ranges[name], dtype, seed, SWEPT if bases else GRID)
        points = _swept(name, grid, bases, dtype)
        with np.errstate(all="ignore"):  # (every subterm's values in one walk: float_values)
            subterms = [(node, values) for node, values, operands in float_values(form, points)
                        if operands]  # (not a variable or a constant)
            input_values = _input_values(start, name, ranges, dtype, seed,
                                         points).reshape(count, len(grid))
            form_values = (subterms[-1][1] if subterms and subterms[-1][0] == form
                           else values_at(form, points)).reshape(count, len(grid))
        finite = np.isfinite(input_values)
        beside = finite[:, 1:] | finite[:, :-1]
        wrong = finite & (input_values != 0) & (~np.isfinite(form_values) | (form_values == 0))
        suspect = wrong[:, 1:] | wrong[:, :-1]
        for node, values in subterms:
            with np.errstate(all="ignore"):
                magnitudes = np.abs(values).reshape(count, len(grid))
            for limit in (float(info.max), float(info.smallest_normal),
                          float(info.smallest_subnormal)):
                past = magnitudes >= limit
                crossed = np.argwhere((past[:, 1:] != past[:, :-1]) & beside)
                crossings += [_Crossing(bool(suspect[base, i]), k > 0, node, int(base), name,
                                        float(grid[i]), float(grid[i + 1]), limit)
                              for k, (base, i) in enumerate(crossed)
                              if k < MOST_EDGES or suspect[base, i]]
    turns: dict[tuple[str, bool], int] = {}  # (the variables take turns among the first)
    ranked = []
    for crossing in crossings:
        turn = turns[crossing.name, crossing.later] = \
            turns.get((crossing.name, crossing.later), -1) + 1
        ranked.append(((not crossing.suspect, crossing.later, turn), crossing))
    cells: set[tuple[str, int, float]] = set()
    chosen: list[_Crossing] = []
    for _, crossing in sorted(ranked, key=lambda r: r[0]):  # (stable: as found)
        cell = (crossing.name, crossing.base, crossing.low)
        if cell not in cells and len(chosen) < MOST_EDGES:
            cells.add(cell)
            chosen.append(crossing)
    edges = []
    for c in chosen:
        if passed():
            return []
        edges.append((c.base, c.name, _narrowed(c.node, c.name, c.low, c.high, c.limit,
                                                {o: float(v[c.base]) for o, v in bases.items()
                                                 if o != c.name}, dtype)))
    return edges


def _swept(name: str, grid: np.ndarray, bases: dict[str, np.ndarray], dtype: str) -> Sample:
    """The grid of one variable at each base point of the others (their values repeated)."""
    count = len(next(iter(bases.values()))) if bases else 1
    return Sample({name: np.tile(grid, count)} |
                  {other: np.repeat(values, len(grid)) for other, values in bases.items()
                   if other != name}, np.zeros(count * len(grid)), dtype)


_INPUT_VALUES: dict[tuple[Expr, str, tuple[tuple[str, tuple[float, float]], ...], str, int],
                    np.ndarray] = {}
_INPUTS_KEPT = 64  # sweeps whose input values are kept (a refusal checks dozens of forms)


def _input_values(start: Expr, name: str, ranges: dict[str, tuple[float, float]], dtype: str,
                  seed: int, points: Sample) -> np.ndarray:
    """The input's values on one variable's sweep (_swept): the same for every form checked
    against it (the grid and bases follow from all the ranges, dtype and seed), so computed
    once."""
    key = (start, name, tuple(sorted(ranges.items())), dtype, seed)
    if key not in _INPUT_VALUES:
        if len(_INPUT_VALUES) >= _INPUTS_KEPT:
            del _INPUT_VALUES[next(iter(_INPUT_VALUES))]
        _INPUT_VALUES[key] = values_at(start, points)
    return _INPUT_VALUES[key]


def _bases(ranges: dict[str, tuple[float, float]], dtype: str, seed: int
           ) -> dict[str, np.ndarray]:
    """BASES points of the ranges, each variable's magnitude moderate, tiny, huge or near 1."""
    rng = random.Random(seed)
    return {name: banded_floats(rng, low, high, BASES, dtype, (*extreme_bands(dtype), NEAR_ONE))
            for name, (low, high) in sorted(ranges.items())}


@lru_cache(maxsize=32)
def _grid(name: str, bounds: tuple[float, float], dtype: str, seed: int, size: int
          ) -> np.ndarray:
    """size floats of the range (stratified), its ends, in order: the same for every form a
    stabilize checks (a refusal tries dozens). Shared: not to be changed."""
    largest = float(np.finfo(DTYPES[dtype][0]).max)
    ends = np.clip(np.array(bounds), -largest, largest).astype(DTYPES[dtype][0])
    grid = np.sort(np.concatenate([stratified({name: bounds}, size, dtype, seed)[name], ends]))
    grid.flags.writeable = False
    return grid


def _narrowed(node: Expr, name: str, low: float, high: float, limit: float,
              held: dict[str, float], dtype: str) -> float:
    """A float between low and high within a small part of WINDOW of where the subterm
    passes the limit (the other variables held), narrowed among REFINE floats evenly spaced
    by ordinal at each step."""
    float_type = DTYPES[dtype][0]
    start, stop = (int(o) for o in ordinal_array(np.array([low, high]), dtype))
    while stop - start > 1 and abs(high - low) > abs(low) * WINDOW / 16:
        ordinals = sorted({start + (stop - start) * k // REFINE for k in range(REFINE + 1)})
        values = float_from_ordinals(ordinals, dtype)
        with np.errstate(all="ignore"):
            computed = np.broadcast_to(np.asarray(evaluate(node, {name: values} | {
                other: float_type(v) for other, v in held.items()}), dtype=float_type),
                values.shape)
        changes = np.flatnonzero((np.abs(computed[1:]) >= limit) !=
                                 (np.abs(computed[:-1]) >= limit))  # (NaN: not past)
        step = int(changes[0]) if len(changes) else len(ordinals) - 2
        start, stop = ordinals[step], ordinals[step + 1]
        low, high = float(values[step]), float(values[step + 1])
    return low
