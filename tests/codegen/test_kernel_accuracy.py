"""No kernel is less accurate than its input: on random expressions over the whole op table,
the optimized kernel's mean bits of error, on points the compiler did not measure, are at
most 2 bits above those of the input's own kernel (optimize=None) in the same dtype."""

from __future__ import annotations

import numpy as np
import pytest

import eqsat
from eqsat.accuracy.measure import Sample, assumed_domain, sample, ulp_bits
from eqsat.codegen import Kernel
from tests.verbs.test_fuzz_semantics import FAST, random_case

CASES = 250  # per dtype: 500 random expressions in all
CHUNKS = 10  # test items per dtype, so that they spread over workers
HELD_OUT_SEED = 1  # the compiler measures on seed 0's points
POINTS = 64


def _mean_bits(kernel: Kernel, names: list[str], points: Sample) -> float:
    with np.errstate(all="ignore"):
        computed = np.asarray(kernel(*(points.values[n] for n in names)), dtype=np.float64)
    computed = np.broadcast_to(computed, points.truth.shape)
    return float(np.mean(ulp_bits(computed, points.truth, points.dtype)))


def _loss(seed: int, dtype: str) -> str | None:
    """What the kernel loses against the input's own, where more than 2 bits."""
    expr, symbols = random_case(seed)
    names = [s.name for s in symbols]
    try:
        kernel = eqsat.compile(expr, names, dtype=dtype, limits=FAST)
        points = sample(expr, assumed_domain(None, expr, dtype), POINTS, dtype,
                        seed=HELD_OUT_SEED, variables=names, tries=4)
    except eqsat.EqsatError:  # defined at no float drawn
        return None
    plain = eqsat.compile(expr, names, dtype=dtype, optimize=None)
    before, after = _mean_bits(plain, names, points), _mean_bits(kernel, names, points)
    if after <= before + 2:
        return None
    return f"seed {seed}: {expr} -> {kernel.outputs[0]}: {before:.1f} -> {after:.1f} bits"


@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_no_kernel_is_less_accurate_than_its_input(dtype: str, chunk: int) -> None:
    losses = [loss for seed in range(chunk, CASES, CHUNKS) if (loss := _loss(seed, dtype))]
    assert not losses, "\n".join(losses)
