"""Random points, one named distribution each: float bit patterns, strata of them and floats
of moderate magnitude (accuracy), spread values with special ones (rule soundness), values
within declared assumptions (explanations), uniform arrays (tensor rules), special values
then uniform ones (solution families)."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import mpmath
import numpy as np

from .expr import Expr
from .shape import Shape

DTYPES: dict[str, tuple[Any, Any, int, int]] = {  # float type, int type, precision, width
    "float64": (np.float64, np.int64, 53, 64), "float32": (np.float32, np.int32, 24, 32)}

SPREAD_SPECIAL = (0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0)
FAMILY_SPECIAL = (0, 1, -1, 2, -2, 0.5, -0.5)  # where domains and sign conditions change
MODERATE = (1e-4, 1e4)  # the magnitudes inputs mostly have


def float_ordinals(values: np.ndarray, dtype: str) -> list[int]:
    """Floats as integers in their order, so that adjacent floats differ by 1."""
    return [int(o) for o in ordinal_array(values, dtype)]


def ordinal_array(values: np.ndarray, dtype: str) -> np.ndarray:
    """float_ordinals as an int64 array (-0.0 and 0.0 both 0)."""
    float_type, int_type, _, width = DTYPES[dtype]
    bits = np.asarray(values, dtype=float_type).view(int_type).astype(np.int64)
    ordinals: np.ndarray = np.where(bits >= 0, bits, -(bits & ((1 << (width - 1)) - 1)))
    return ordinals


def float_from_ordinals(ordinals: Sequence[int] | np.ndarray, dtype: str) -> np.ndarray:
    """The floats of these ordinals (float_ordinals backwards)."""
    float_type, int_type, _, width = DTYPES[dtype]
    unsigned = np.uint64 if width == 64 else np.uint32
    signed = np.asarray(ordinals, dtype=np.int64)
    magnitude = np.abs(signed).astype(unsigned)
    raw = np.where(signed >= 0, magnitude, np.bitwise_or(magnitude, unsigned(1 << (width - 1))))
    floats: np.ndarray = raw.astype(unsigned).view(int_type).view(float_type)
    return floats


def float_at(ordinal: int, dtype: str) -> float:
    """The float of one ordinal."""
    return float(float_from_ordinals([ordinal], dtype)[0])


def _ordinal_range(low: float, high: float, dtype: str) -> tuple[int, int]:
    """The ordinals of the finite floats from low to high (infinite ends: the largest)."""
    largest = float(np.finfo(DTYPES[dtype][0]).max)
    start, stop = float_ordinals(np.array([max(low, -largest), min(high, largest)]), dtype)
    return start, stop


def float_bits(rng: random.Random, low: float, high: float, count: int, dtype: str) -> np.ndarray:
    """Floats drawn uniformly among the float bit patterns between low and high."""
    start, stop = _ordinal_range(low, high, dtype)
    return float_from_ordinals([rng.randint(start, stop) for _ in range(count)], dtype)


def extreme_bands(dtype: str) -> tuple[tuple[float, float], ...]:
    """MODERATE, the tenth of the exponents at each end of the float type's (subnormals
    included), and the six binades below the largest float and about the smallest normal
    one: where one variable is moderate and others tiny or huge, an intermediate of one form
    over- or underflows where another's does not, and near the edges a factor of 2 does
    (2*c overflows where c does not)."""
    info = np.finfo(DTYPES[dtype][0])
    largest, least = float(info.max), float(info.smallest_normal)
    return (MODERATE, (float(info.smallest_subnormal), least ** 0.9),
            (largest ** 0.9, largest), (largest / 64, largest), (least / 8, least * 8))


def magnitude_floats(rng: random.Random, low: float, high: float, count: int, dtype: str,
                     bands: Sequence[tuple[float, float]]) -> np.ndarray | None:
    """count floats within [low, high], each of either sign with its magnitude log-uniform in
    one of the bands (one picked at each draw, among those the range meets); None where the
    range meets none of them."""
    sides = np.array([(sign, math.log(lo), math.log(hi)) for least, most in bands
                      for sign, lo, hi in ((1.0, max(low, least), min(high, most)),
                                           (-1.0, max(-high, least), min(-low, most)))
                      if lo <= hi])
    if not len(sides):
        return None
    generator = np.random.default_rng(rng.getrandbits(64))
    sign, lo, hi = sides[generator.integers(len(sides), size=count)].T
    return np.asarray(sign * np.exp(generator.uniform(lo, hi)), dtype=DTYPES[dtype][0])


def banded_floats(rng: random.Random, low: float, high: float, count: int, dtype: str,
                  bands: Sequence[tuple[float, float]]) -> np.ndarray:
    """magnitude_floats, or float_bits where the range meets none of the bands."""
    found = magnitude_floats(rng, low, high, count, dtype, bands)
    return float_bits(rng, low, high, count, dtype) if found is None else found


def zero_points(ranges: Mapping[str, tuple[float, float]], count: int, dtype: str,
                seed: int) -> dict[str, np.ndarray]:
    """count points for each variable whose range holds 0, that variable exactly 0 and the
    others drawn in extreme_bands (moderate, tiny, huge): where a form has a singularity the
    input has not (x/x*y, or a quotient divided through by x), which draws over the floats
    never meet."""
    names, bands = sorted(ranges), extreme_bands(dtype)
    rng = random.Random(seed)
    blocks = [{name: np.zeros(count, dtype=DTYPES[dtype][0]) if name == zero else
               banded_floats(rng, *ranges[name], count, dtype, bands)
               for name in names}
              for zero in names if ranges[zero][0] <= 0 <= ranges[zero][1]]
    return {name: np.concatenate([block[name] for block in blocks]) for name in names} \
        if blocks else {}


def stratified(ranges: Mapping[str, tuple[float, float]], count: int, dtype: str,
               seed: int = 0) -> dict[str, np.ndarray]:
    """count points without true values: each variable's float bit patterns within its range
    cut into count equal strata, one float drawn in each, in an order shuffled per variable.
    Every binade is met where count is at least their number (about 4,200 for float64), as
    uniform draws would not: the binade where exp(x + x) overflows and exp(x) does not is one
    of 2,100 positive ones."""
    rng = random.Random(seed)
    found = {}
    for name, (low, high) in sorted(ranges.items()):
        start, stop = _ordinal_range(low, high, dtype)
        cuts = [start + (stop + 1 - start) * k // count for k in range(count + 1)]
        ordinals = [rng.randint(a, max(a, b - 1)) for a, b in itertools.pairwise(cuts)]
        rng.shuffle(ordinals)
        found[name] = float_from_ordinals(ordinals, dtype)
    return found


def spread(rng: random.Random, integer: bool, zero: bool) -> float:
    """A value for a rule's variable: 0 half the time where it may be 0, a small integer
    for an integer one, else a special value, a uniform one, or a magnitude from 1e-4 to 1e4."""
    if zero and rng.random() < 0.5:
        return 0.0
    if integer:
        return float(rng.randint(-6, 6))
    pick = rng.random()
    if pick < 0.25:
        return rng.choice(SPREAD_SPECIAL)
    if pick < 0.55:
        return rng.uniform(-2, 2)
    if pick < 0.8:
        return rng.uniform(-10, 10)
    return rng.choice((-1, 1)) * 10 ** rng.uniform(-4, 4)


def within_assumptions(symbols: Iterable[Expr], points: int,
                       seed: int = 0) -> dict[str, np.ndarray]:
    """Values for each symbol within its assumptions (positive, negative, integer...)."""
    generator = np.random.default_rng(seed)
    values = {}
    for symbol in sorted(symbols, key=lambda s: s.name):
        low, high = -3.0, 3.0
        if symbol.assumptions & {"positive", "nonnegative"}:
            low = 0.05
        if "negative" in symbol.assumptions:
            high = -0.05
        drawn = generator.uniform(low, high, points)
        if "integer" in symbol.assumptions:
            drawn = np.round(drawn * 2)
        values[symbol.name] = drawn
    return values


def uniform_array(rng: random.Random, shape: Shape) -> np.ndarray:
    """An array of this shape, uniform in [-2, 2], seeded from rng."""
    seed = rng.getrandbits(32)
    dims = tuple(int(d) for d in shape)
    return np.random.default_rng(seed).uniform(-2, 2, size=dims)


def special_then_uniform(names: Sequence[str], count: int) -> list[dict[str, mpmath.mpf]]:
    """Special values (each symbol's at 0, +-1, ...), then random ones in [-5, 5]."""
    rng = random.Random(0)
    points = [{n: mpmath.mpf(v) for n in names} for v in FAMILY_SPECIAL]
    while len(points) < count:
        points.append({n: mpmath.mpf(rng.choice(FAMILY_SPECIAL) if rng.random() < 0.3
                                     else rng.uniform(-5, 5)) for n in names})
    return points if names else points[:1]
