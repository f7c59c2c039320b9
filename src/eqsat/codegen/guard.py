"""Kernels no less accurate than their input: each output's chosen form is measured against the
input as written, both run as NumPy kernels in the kernel's float type: bits of error on
sampled points, overflow where the input stays finite on points in every binade, and a wrong
answer where the two are far apart there."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..accuracy.measure import (
    Domain,
    Sample,
    assumed_domain,
    domain_bounds,
    inside,
    sample,
    ulp_bits,
    where_they_differ_at,
)
from ..accuracy.regimes import FAR_BITS, wrong_where
from ..errors import EqsatError
from ..limits.budget import Backstop
from ..term.expr import Expr
from ..term.sampling import stratified
from ..term.shape import is_tensor
from .kernel import Kernel
from .numpy import print_numpy

MEASURED_POINTS = 64  # per output, drawn from every float bit pattern its symbols may take
MEASURED_TRIES = 4  # rounds of MEASURED_POINTS draws for them (where the input is undefined)
# mean bits of error (Herbie's measure) a cheaper form may add to the input's: the rounding of
# another order of operations, not a cancellation, an overflow or a lost primitive
ALLOWED_LOSS_BITS = 1.0
FINITE_POINTS = 8_192  # per output, one in each stratum of the float bit patterns (no truth)


def no_less_accurate(choices: Sequence[Sequence[Expr]], given: Sequence[Expr],
                     names: Sequence[str], dtype: str, domain: Domain,
                     accurate: Callable[[Expr], Expr], stop: Backstop) -> list[Expr]:
    """For each output, the first of its choices (cheapest first) that is no less accurate
    than the input as given on the domain (see _Yardstick), else its accurate form
    (accurate(input):
    stabilize's) where that is, else the input. Tensor outputs take their first choice. The
    measuring is counted in points, not in seconds: no machine's speed decides it; past the
    backstop, an output not yet measured is kept as given (no form is taken unmeasured)."""
    kept = []
    for options, start in zip(choices, given, strict=True):
        if is_tensor(start) or options[0] == start:
            kept.append(options[0])
            continue
        yardstick = None if stop.passed() else _Yardstick.of(start, names, dtype, domain, stop)
        if yardstick is None or stop.cut:  # (its true values not all had in time)
            kept.append(start)
            continue
        form = next((option for option in options
                     if not stop.passed() and yardstick.passes(option)), None)
        if form is None and stop.passed():
            form = start
        if form is None:
            try:
                form = accurate(start)
            except EqsatError:  # not one point where the input is defined
                form = start
            form = form if form == start or yardstick.passes(form) else start
        kept.append(form)
    return kept


@dataclass(frozen=True)
class _Yardstick:
    """An input's accuracy as a form of it must match: finite wherever the input is, on
    FINITE_POINTS points (spread over the domain's ranges; finite: where the input is and the
    domain holds); nowhere wrong (regimes.wrong_where: far off where the input is close) at
    those of them where the two are far apart in floats (measure.where_they_differ_at: an
    overflow inside a comparison, log(exp(x) + exp(y)) >= -4*x, flips it to another finite
    value at one point in twenty, seldom more than twice among the measured points); and mean
    bits of error on MEASURED_POINTS points at most ALLOWED_LOSS_BITS above the input's (no
    mean where the input is defined at no point drawn)."""

    start: Expr
    start_kernel: Kernel
    names: Sequence[str]
    dtype: str
    domain: Domain
    spread: Mapping[str, np.ndarray]
    finite: np.ndarray
    points: Sample | None
    allowed: float

    @classmethod
    def of(cls, start: Expr, names: Sequence[str], dtype: str, given: Domain,
           stop: Backstop) -> _Yardstick:
        domain = assumed_domain(given, start, dtype)
        spread = stratified(domain_bounds(domain, names), FINITE_POINTS, dtype)
        kernel = _kernel(start, names, dtype)
        finite = np.isfinite(_at(kernel, spread, FINITE_POINTS))
        if spread:  # (a number has no points to be inside or not)
            finite &= inside(domain, spread)
        try:
            points: Sample | None = sample(start, domain, MEASURED_POINTS, dtype,
                                           variables=names, tries=MEASURED_TRIES,
                                           backstop=stop)
        except EqsatError:  # defined nowhere among the floats drawn
            points = None
        allowed = math.inf if points is None else \
            _mean_bits(kernel, points) + ALLOWED_LOSS_BITS
        return cls(start, kernel, names, dtype, domain, spread, finite, points, allowed)

    def passes(self, form: Expr) -> bool:
        kernel = _kernel(form, self.names, self.dtype)
        overflows = ~np.isfinite(_at(kernel, self.spread, FINITE_POINTS))
        if (overflows & self.finite).any() or \
                (self.points is not None and _mean_bits(kernel, self.points) > self.allowed):
            return False
        apart = where_they_differ_at(self.start, form, dict(self.spread), self.domain,
                                     self.dtype, FAR_BITS)
        return apart is None or not wrong_where(_bits(kernel, apart),
                                                _bits(self.start_kernel, apart)).any()


def _kernel(expr: Expr, names: Sequence[str], dtype: str) -> Kernel:
    """expr's NumPy kernel in this float type."""
    return Kernel(print_numpy([expr], names, "measured", dtype), "measured", names, [expr],
                  "numpy")


def _at(kernel: Kernel, values: Mapping[str, np.ndarray], count: int) -> np.ndarray:
    """The kernel at count points (one array per argument), in float64."""
    with np.errstate(all="ignore"):
        computed = kernel(*(values[name] for name in kernel.args))
    return np.broadcast_to(np.asarray(computed, dtype=np.float64), (count,))


def _bits(kernel: Kernel, points: Sample) -> np.ndarray:
    """Bits of error of the kernel at each of the points, in their float type."""
    return ulp_bits(_at(kernel, points.values, points.size), points.truth, points.dtype)


def _mean_bits(kernel: Kernel, points: Sample) -> float:
    """Mean bits of error of the kernel at the points, in their float type."""
    return float(np.mean(_bits(kernel, points)))
