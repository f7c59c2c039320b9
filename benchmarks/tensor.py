"""Tensor programs: a matrix chain in eqsat's order against NumPy's left-to-right order, and
the gradient of a batched logsumexp (eqsat's kernel against naive NumPy), in one run;
with a GPU (CuPy), the same gradient on the device in float32, beside naive CuPy and jax.jit
(float32 matrix products at full precision, no TF32, for both peers).

    python benchmarks/tensor.py [--repeats 20]

Times are medians after a warm-up. The ratios compare timings taken in this run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import eqsat
from eqsat import tensor

CHAINS = [  # name -> shapes of the factors, multiplied left to right
    ("wide-narrow-wide", [(2000, 40), (40, 2000), (2000, 40), (40, 1)]),
    ("textbook (10, 100, 5, 50)", [(10, 100), (100, 5), (5, 50)]),
    ("vector at the end", [(1000, 1000), (1000, 1000), (1000,)]),
    ("five factors", [(30, 35), (35, 15), (15, 5), (5, 10), (10, 20)]),
]


def median_seconds(call: Callable[[], Any], repeats: int, sync: Callable[[], None] = lambda: None
                   ) -> float:
    call()
    sync()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        sync()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def matrix_chains(repeats: int) -> None:
    print("matrix chain: eqsat's order vs NumPy left to right (float64)")
    print(f"{'chain':28} {'eqsat order':34} {'eqsat ms':>9} {'numpy ms':>9} {'speedup':>8}")
    rng = np.random.default_rng(0)
    for label, shapes in CHAINS:
        factors = [tensor(f"M{k}", shape) for k, shape in enumerate(shapes)]
        chain = factors[0]
        for factor in factors[1:]:
            chain = chain @ factor
        names = [f.name for f in factors]
        kernel = eqsat.compile(chain, names)
        values = [rng.normal(size=shape) for shape in shapes]

        def left_to_right(values: list[np.ndarray] = values) -> np.ndarray:
            result = values[0]
            for value in values[1:]:
                result = result @ value
            return result

        assert np.allclose(kernel(*values), left_to_right())
        ours = median_seconds(lambda values=values, kernel=kernel: kernel(*values), repeats)
        theirs = median_seconds(left_to_right, repeats)
        order = str(kernel.outputs[0])
        print(f"{label:28} {order:34} {ours * 1e3:9.3f} {theirs * 1e3:9.3f} "
              f"{theirs / ours:7.1f}x")


def logsumexp_gradient(repeats: int) -> None:
    batch, features, classes = 4096, 256, 1000
    x, w = tensor("X", ("b", "d")), tensor("W", ("d", "c"))
    loss = eqsat.parse("sum(log(sum(exp(X @ W), axis=1)))", [x, w])
    gradient = eqsat.grad(loss, w)
    print(f"\ngradient of {loss} in W: {gradient}")
    kernel = eqsat.compile(gradient, ["X", "W"])
    rng = np.random.default_rng(1)
    xs, ws = rng.normal(size=(batch, features)), rng.normal(size=(features, classes)) / 10

    def naive(xs: np.ndarray = xs, ws: np.ndarray = ws) -> np.ndarray:
        e = np.exp(xs @ ws)
        return xs.T @ (e / e.sum(axis=1, keepdims=True))

    assert np.allclose(kernel(xs, ws), naive())
    ours = median_seconds(lambda: kernel(xs, ws), repeats)
    theirs = median_seconds(naive, repeats)
    print(f"{'CPU, NumPy':28} eqsat {ours * 1e3:8.2f} ms   naive NumPy {theirs * 1e3:8.2f} ms   "
          f"ratio {theirs / ours:5.2f}x   (batch {batch}, {features} -> {classes})")
    large = ws * 100  # logits in the thousands: exp overflows in the naive form
    with np.errstate(all="ignore"):
        naive_finite = bool(np.all(np.isfinite(naive(xs, large))))
    print(f"{'':28} logits x100: eqsat finite {bool(np.all(np.isfinite(kernel(xs, large))))}, "
          f"naive finite {naive_finite}")
    gpu_row(gradient, xs, ws, repeats)
    vector_softmax(repeats)


def vector_softmax(repeats: int) -> None:
    n = 10**7
    x = tensor("x", ("n",))
    gradient = eqsat.grad(eqsat.parse("log(sum(exp(x)))", [x]), x)
    kernel = eqsat.compile(gradient, ["x"])
    values = np.random.default_rng(2).normal(size=n)

    def naive() -> np.ndarray:
        e = np.exp(values)
        return e / e.sum()

    assert np.allclose(kernel(values), naive())
    ours = median_seconds(lambda: kernel(values), repeats)
    theirs = median_seconds(naive, repeats)
    print(f"\ngradient of log(sum(exp(x))), x of 10^7: {gradient}")
    print(f"{'CPU, NumPy':28} eqsat {ours * 1e3:8.2f} ms   naive NumPy {theirs * 1e3:8.2f} ms   "
          f"ratio {theirs / ours:5.2f}x   (the stable form subtracts the maximum: one more pass)")


def gpu_row(gradient: eqsat.Expr, xs: np.ndarray, ws: np.ndarray, repeats: int) -> None:
    try:
        import cupy as cp

        if cp.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no device")
    except Exception:  # no CuPy, no driver, no device: no GPU row
        print(f"{'GPU, CuPy':28} not measured: no GPU here")
        return
    kernel = eqsat.compile(gradient, ["X", "W"], target="cupy", dtype="float32")
    xd, wd = cp.asarray(xs, dtype=cp.float32), cp.asarray(ws, dtype=cp.float32)

    def naive() -> Any:
        e = cp.exp(xd @ wd)
        return xd.T @ (e / e.sum(axis=1, keepdims=True))

    assert cp.allclose(kernel(xd, wd), naive(), rtol=1e-4, atol=1e-4)
    sync = cp.cuda.Device().synchronize
    ours = median_seconds(lambda: kernel(xd, wd), repeats, sync)
    theirs = median_seconds(naive, repeats, sync)
    print(f"{'GPU, CuPy (float32)':28} eqsat {ours * 1e3:8.3f} ms   naive CuPy {theirs * 1e3:8.3f} "
          f"ms   ratio {theirs / ours:5.2f}x")
    jitted = jax_gradient(xs, ws)
    if jitted is not None:
        jax_s = median_seconds(lambda: jitted().block_until_ready(), repeats)
        print(f"{'':28} eqsat {ours * 1e3:8.3f} ms   jax.jit    {jax_s * 1e3:8.3f} ms   "
              f"ratio {jax_s / ours:5.2f}x")


def jax_gradient(xs: np.ndarray, ws: np.ndarray) -> Callable[[], Any] | None:
    """jax.jit of X.T @ softmax(X @ W, axis=1) on the device in float32, or None without JAX."""
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # CuPy shares the device
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        print(f"{'':28} jax.jit not measured: no JAX here")
        return None
    jax.config.update("jax_default_matmul_precision", "highest")
    xj, wj = jnp.asarray(xs, dtype=jnp.float32), jnp.asarray(ws, dtype=jnp.float32)
    gradient = jax.jit(lambda x, w: x.T @ jax.nn.softmax(x @ w, axis=1))
    return lambda: gradient(xj, wj)


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__)
    options.add_argument("--repeats", type=int, default=20)
    args = options.parse_args()
    matrix_chains(args.repeats)
    logsumexp_gradient(args.repeats)


if __name__ == "__main__":
    main()
