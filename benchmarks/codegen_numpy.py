"""eqsat's NumPy kernels against naive NumPy, sympy.lambdify(cse=True), and numexpr, numba
and jax.jit on the CPU where installed, in one run.

Each expression is evaluated on arrays of N float64 (default 10^7): naive NumPy
(eqsat.evaluate of the original: one new array per operation, as written by hand),
`sympy.lambdify(..., "numpy", cse=True)` of the original, numexpr (lambdify's "numexpr"
printer; its virtual machine runs blocks in threads), numba (the lambdified scalar function
in a parallel njit loop), jax.jit (x64), and `eqsat.compile(original)` (simplified, shared
subterms once; elementwise programs run over cache-sized tiles in threads). Time is the best
of 3 calls, after one call that compiles. Extra memory is tracemalloc's peak during one call
above the inputs and the result (which every tool must allocate). The bandwidth bound is
the bytes an ideal fused kernel reads and writes (each input once, each output once) over the
bandwidth of np.copyto measured in the same run (into an array written before: no page
faults). Two more figures say where eqsat's time goes: its kernel writing into a given array
(out=, as the bound assumes), and its compute floor: the kernel over one tile of inputs that
sit in the cache, as many times as the arrays have tiles, over the threads the tiles are
spread on (arithmetic alone, no memory traffic, no page faults).

    python benchmarks/codegen_numpy.py [--n 10000000] [--tiles]

--tiles times eqsat's kernels over whole arrays and with tiles of 4K to 512K elements instead
(the choice of eqsat.codegen.tiling's _TILE).
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time
import tracemalloc
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
import sympy

import eqsat
from eqsat.verbs.derivatives import expand_derivatives

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
    ("20-term polynomial", " + ".join(f"{k + 1}/{k + 2}*x^{k}" for k in range(1, 20)) + " + 1/2"),
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


def _numexpr(names: list[str], expr: Any) -> Callable[..., Any] | None:
    try:
        import numexpr  # noqa: F401
    except ImportError:
        return None
    try:
        return sympy.lambdify([sympy.Symbol(n) for n in names], expr, "numexpr")
    except (TypeError, ValueError, KeyError):  # a function numexpr lacks
        return None


def _numba(names: list[str], expr: Any) -> Callable[..., Any] | None:
    try:
        import numba
    except ImportError:
        return None
    scalar = numba.njit(sympy.lambdify([sympy.Symbol(n) for n in names], expr, "math"))
    parallel = numba.njit(parallel=True)
    if len(names) == 1:
        def one(a: Any) -> Any:
            out = np.empty(a.size)
            for i in numba.prange(a.size):
                out[i] = scalar(a[i])
            return out
        return parallel(one)  # type: ignore[no-any-return]
    if len(names) == 2:
        def two(a: Any, b: Any) -> Any:
            out = np.empty(a.size)
            for i in numba.prange(a.size):
                out[i] = scalar(a[i], b[i])
            return out
        return parallel(two)  # type: ignore[no-any-return]
    if len(names) == 3:
        def three(a: Any, b: Any, c: Any) -> Any:
            out = np.empty(a.size)
            for i in numba.prange(a.size):
                out[i] = scalar(a[i], b[i], c[i])
            return out
        return parallel(three)  # type: ignore[no-any-return]
    return None


def _jax(names: list[str], expr: Any) -> Callable[..., Any] | None:
    try:
        import jax
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    compiled = jax.jit(sympy.lambdify([sympy.Symbol(n) for n in names], expr, "jax"))
    return lambda *arrays: compiled(*arrays).block_until_ready()


PEERS = {"numexpr": _numexpr, "numba": _numba, "jax": _jax}


def extra_bytes(call: Callable[[], Any], result_bytes: int) -> int:
    """Peak memory during a call above the result it returns."""
    return max(peak_bytes(call) - result_bytes, 0)


def _cases(values: dict[str, np.ndarray]) -> list[tuple[str, Any, list[str], list[np.ndarray]]]:
    found = []
    for label, text in CASES:
        original, _ = expand_derivatives(eqsat.parse(text))  # the raw chain-rule output
        names = sorted(s.name for s in original.free_symbols())
        found.append((label, original, names, [values[n] for n in names]))
    return found


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--n", type=int, default=10**7)
    options.add_argument("--tiles", action="store_true", help="time tile sizes instead")
    args = options.parse_args()
    rng = np.random.default_rng(0)
    values = {name: rng.uniform(0.5, 1.5, args.n) for name in "xyz"}
    if args.tiles:
        _tile_sizes(_cases(values))
        return
    scratch = np.empty(args.n)
    copy_seconds = best_time(lambda: np.copyto(scratch, values["x"]), 5)
    bandwidth = 2 * 8 * args.n / copy_seconds  # bytes read and written per second
    print(f"N = {args.n}, float64; np.copyto bandwidth {bandwidth / 1e9:.2f} GB/s")
    peers = [name for name, make in PEERS.items() if make(["x"], sympy.Symbol("x")) is not None]
    if "numba" in peers:  # Intel's SVML needs intel-cmplr-lib-rt and an SVML-patched llvmlite
        import numba

        print(f"numba {numba.__version__}, SVML in use: {numba.config.USING_SVML}")
    print(f"{'case':32} {'naive ms':>9} {'lambdify':>9}" + "".join(f" {p:>9}" for p in peers)
          + f" {'eqsat':>9} {'speedup':>8} {'naive MB':>9} {'eqsat MB':>9} {'bound ms':>9} "
          f"{'x bound':>8} {'out= ms':>8} {'x bound':>8} {'floor ms':>9} {'x bound':>8}")
    speedups, memory_ratios, over_bound, into_over, floor_over = [], [], [], [], []
    given = np.empty(args.n)
    given.fill(0.0)  # its pages are the process's before any clock starts
    against: dict[str, list[float]] = {p: [] for p in peers}
    for label, original, names, inputs in _cases(values):
        kernel = eqsat.compile(original, names)
        sympy_form = eqsat.to_sympy(original)
        symbols = [sympy.Symbol(n) for n in names]
        lambdified = sympy.lambdify(symbols, sympy_form, "numpy", cse=True)
        naive = partial(eqsat.evaluate, original, dict(zip(names, inputs, strict=True)))
        ours = partial(kernel, *inputs)
        expected = naive()
        np.testing.assert_allclose(ours(), expected, rtol=1e-7, atol=1e-12)
        naive_s, lamb_s, ours_s = best_time(naive), best_time(partial(lambdified, *inputs)), \
            best_time(ours)
        shown = []
        for peer in peers:
            made = PEERS[peer](names, sympy_form)
            if made is None:
                shown.append(f" {'-':>9}")
                continue
            call = partial(made, *inputs)
            np.testing.assert_allclose(np.asarray(call()), expected, rtol=1e-7, atol=1e-12)
            peer_s = best_time(call)
            against[peer].append(peer_s / ours_s)
            shown.append(f" {peer_s * 1e3:9.1f}")
        result = 8 * args.n
        naive_mb = extra_bytes(naive, result) / 1e6
        ours_mb = extra_bytes(ours, result) / 1e6
        bound = (len(inputs) + 1) * 8 * args.n / bandwidth
        into_s = best_time(partial(kernel, *inputs, out=given))
        floor_s = compute_floor(kernel, inputs)
        speedups.append(naive_s / ours_s)
        memory_ratios.append(ours_mb / naive_mb if naive_mb else 0.0)
        over_bound.append(ours_s / bound)
        into_over.append(into_s / bound)
        floor_over.append(floor_s / bound)
        print(f"{label:32} {naive_s * 1e3:9.1f} {lamb_s * 1e3:9.1f}{''.join(shown)} "
              f"{ours_s * 1e3:9.1f} {naive_s / ours_s:7.2f}x {naive_mb:9.1f} {ours_mb:9.1f} "
              f"{bound * 1e3:9.1f} {ours_s / bound:7.1f}x {into_s * 1e3:8.1f} "
              f"{into_s / bound:7.1f}x {floor_s * 1e3:9.1f} {floor_s / bound:7.1f}x")
    print()
    print(f"median speedup over naive NumPy: {statistics.median(speedups):.2f}x (target 3x)")
    for peer, ratios in against.items():
        if ratios:
            print(f"median {peer} time / eqsat time: {statistics.median(ratios):.2f} "
                  f"({len(ratios)} cases; target for numexpr: at least 1)")
    print(f"median extra memory, eqsat / naive: {statistics.median(memory_ratios):.3f} "
          f"(target at most 0.1); worst {max(memory_ratios):.3f}")
    print(f"median time over the bandwidth bound: {statistics.median(over_bound):.1f}x "
          f"(target at most 2.5x); writing into a given array (out=): "
          f"{statistics.median(into_over):.1f}x; the compute floor: "
          f"{statistics.median(floor_over):.1f}x, over 2.5x in "
          f"{sum(f > 2.5 for f in floor_over)} of {len(floor_over)} cases")


def compute_floor(kernel: Any, inputs: list[np.ndarray]) -> float:
    """Seconds of arithmetic alone: the kernel over one tile of inputs in the cache (run
    whole, into a given array), once per tile of the full arrays, over the threads."""
    names = kernel.function.__globals__
    tile, threads = names["_TILE"], names["_THREADS"] or os.cpu_count() or 1
    pieces = [a[:tile].copy() for a in inputs]
    into = np.empty(tile)
    seconds = best_time(partial(kernel, *pieces, out=into), 20)
    tiles = math.ceil(inputs[0].size / tile)
    return seconds * tiles / min(threads, tiles)


def _tile_sizes(cases: list[tuple[str, Any, list[str], list[np.ndarray]]]) -> None:
    """Median eqsat time over the cases for each tile size (the kernels' own _TILE)."""
    kernels = [(eqsat.compile(original, names), inputs) for _, original, names, inputs in cases]
    print(f"{'tile':>8} {'median ms':>10} {'sum ms':>9}")
    for tile in [None, 4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288]:
        times = []
        for kernel, inputs in kernels:
            names = kernel.function.__globals__
            if tile is None:  # whole arrays, one thread: the kernels before tiling
                names["_TILED_FROM"] = 1 << 62
            else:
                names["_TILE"], names["_TILED_FROM"] = tile, 1 << 18
            times.append(best_time(partial(kernel, *inputs)))
        shown = "whole" if tile is None else str(tile)
        print(f"{shown:>8} {statistics.median(times) * 1e3:10.1f} {sum(times) * 1e3:9.1f}")


if __name__ == "__main__":
    main()
