"""eqsat's NumPy kernels against naive NumPy and sympy.lambdify(cse=True), in one run.

Each expression is evaluated on arrays of N float64 (default 10^7) three ways: naive NumPy
(eqsat.evaluate of the original: one new array per operation, as written by hand),
`sympy.lambdify(..., "numpy", cse=True)` of the original, and `eqsat.compile(original)`
(simplified, shared subterms once, dead buffers reused). Time is the best of 3 calls; peak
extra memory is tracemalloc's peak during one call (the inputs exist before it). The
bandwidth bound is the bytes an ideal fused kernel reads and writes (each input once, each
output once) over the bandwidth of np.copyto measured in the same run.

    python benchmarks/codegen_numpy.py [--n 10000000]
"""

from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
import sympy

import eqsat
from eqsat.api import expand_derivatives

CASES = [
    ("shared sin", "exp(x) - 1 + sin(x)*y + sin(x)^2"),
    ("softplus + sigmoid", "log(1 + exp(x))*y + exp(x)/(1 + exp(x))"),
    ("shared norm", "sqrt(x*x + y*y) + sqrt(x*x + y*y)*z"),
    ("difference of squares", "(x + y)^2 - (x - y)^2"),
    ("cancelling ratios", "x*y/x + y*z/z + z*x/x"),
    ("derivative of sin(x*y)*exp(x)", "diff(sin(x*y)*exp(x), x)"),
    ("tanh and its derivative", "tanh(x)*(1 - tanh(x)^2) + tanh(x)"),
    ("Gaussian times polynomial", "exp(-x*x/2)/sqrt(2*pi)*(x*x - 1)"),
    ("symmetric ratios", "(x - y)/(x + y) + (x + y)/(x - y)"),
    ("logaddexp minus x", "log(exp(x) + exp(y)) - x"),
    ("sigmoid derivative", "1/(1 + exp(-x))*(1 - 1/(1 + exp(-x)))"),
    ("binomial cube", "x^3 + 3*x^2*y + 3*x*y^2 + y^3"),
]


def best_time(call: Callable[[], Any], repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)


def peak_bytes(call: Callable[[], Any]) -> int:
    tracemalloc.start()
    tracemalloc.reset_peak()
    result = call()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del result
    return peak


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--n", type=int, default=10**7)
    args = options.parse_args()
    rng = np.random.default_rng(0)
    values = {name: rng.uniform(0.5, 1.5, args.n) for name in "xyz"}
    scratch = np.empty(args.n)
    copy_seconds = best_time(lambda: np.copyto(scratch, values["x"]), 5)
    bandwidth = 2 * 8 * args.n / copy_seconds  # bytes read and written per second
    print(f"N = {args.n}, float64; np.copyto bandwidth {bandwidth / 1e9:.2f} GB/s")
    print(f"{'case':32} {'naive ms':>9} {'lambdify':>9} {'eqsat':>9} {'speedup':>8} "
          f"{'naive MB':>9} {'eqsat MB':>9} {'bound ms':>9} {'x bound':>8}")
    speedups, memory_ratios, over_bound = [], [], []
    for label, text in CASES:
        original, _ = expand_derivatives(eqsat.parse(text))  # the raw chain-rule output
        names = sorted(s.name for s in original.free_symbols())
        inputs = [values[n] for n in names]
        kernel = eqsat.compile(original, names)
        symbols = [sympy.Symbol(n) for n in names]
        lambdified = sympy.lambdify(symbols, eqsat.to_sympy(original), "numpy", cse=True)
        naive = partial(eqsat.evaluate, original, dict(zip(names, inputs, strict=True)))
        ours = partial(kernel, *inputs)
        theirs = partial(lambdified, *inputs)
        np.testing.assert_allclose(ours(), naive(), rtol=1e-7, atol=1e-12)
        naive_s, lamb_s, ours_s = best_time(naive), best_time(theirs), best_time(ours)
        naive_mb, ours_mb = peak_bytes(naive) / 1e6, peak_bytes(ours) / 1e6
        bound = (len(inputs) + 1) * 8 * args.n / bandwidth
        speedups.append(naive_s / ours_s)
        memory_ratios.append(ours_mb / naive_mb)
        over_bound.append(ours_s / bound)
        print(f"{label:32} {naive_s * 1e3:9.1f} {lamb_s * 1e3:9.1f} {ours_s * 1e3:9.1f} "
              f"{naive_s / ours_s:7.2f}x {naive_mb:9.0f} {ours_mb:9.0f} {bound * 1e3:9.1f} "
              f"{ours_s / bound:7.1f}x")
    print()
    print(f"median speedup over naive NumPy: {statistics.median(speedups):.2f}x (target 1.5x)")
    print(f"median peak extra memory, eqsat / naive: {statistics.median(memory_ratios):.2f} "
          f"(target at most 0.5); worst {max(memory_ratios):.2f}")
    print(f"median time over the bandwidth bound: {statistics.median(over_bound):.1f}x")


if __name__ == "__main__":
    main()
