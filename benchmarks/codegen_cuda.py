"""eqsat's fused CUDA kernels against CuPy op by op, jax.jit and a device copy, on a GPU.

N = 2^26 elements, float32 and float64, expressions of 3 to 20 operations, in one run:
the eqsat kernel (eqsat.compile(..., target="cupy")), CuPy evaluating the original one
operation at a time, jax.jit of the same expression (when JAX is installed), and a
device-to-device copy as the bandwidth bound. Times are medians of 20 batches after a
warm-up; each tool's time is the wall clock of 10 calls in a row and a wait for the device,
divided by 10, so launch costs count where they are not hidden behind the device's work, the
same way for every tool. JAX runs with 64-bit floats enabled (its float64 column computes in
float64) and without preallocating the device's memory. Needs CuPy and an NVIDIA GPU.

    python benchmarks/codegen_cuda.py [--n 67108864]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import eqsat
from eqsat.term.ops import OPS

CASES = [
    ("3 ops: exp(x)*y + 1", "exp(x)*y + 1"),
    ("5 ops: softplus by hand", "log(1 + exp(x)) * y - x"),
    ("7 ops: Gaussian", "exp(-(x - y)^2 / 2) / sqrt(2*pi) * y"),
    ("10 ops: polynomial", "((((x*y + 1)*x + 2)*x + 3)*x + 4)*y"),
    ("10 ops: mixed", "sin(x)*cos(y) + tanh(x*y) - sqrt(x*x + y*y)"),
    ("20 ops: long chain", "exp(-x)*(1 + x + x^2/2 + x^3/6 + x^4/24) * y + log(1 + x*y) "
                           "- x/(1 + y*y) + tanh(x - y)*cos(x)"),
]


def _count_ops(expr: eqsat.Expr) -> int:
    return expr.count_ops()


def timed(call: Callable[[], Any], wait: Callable[[Any], None], repeats: int = 20,
          batch: int = 10) -> float:
    """Median seconds per call over `repeats` batches of `batch` calls, each batch ended by
    waiting for the device (wait takes the last call's result), after one warm-up call."""
    wait(call())
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(batch - 1):
            call()
        wait(call())
        times.append((time.perf_counter() - start) / batch)
    return statistics.median(times)


def op_by_op(xp: Any, expr: eqsat.Expr, values: dict[str, Any]) -> Any:
    """The expression evaluated one operation at a time with an array module (CuPy, or
    jax.numpy under jax.jit)."""
    done: dict[eqsat.Expr, Any] = {}
    for node in eqsat.term.expr.postorder(expr):
        if node.is_symbol:
            done[node] = values[node.name]
        elif node.is_number or not node.args:
            done[node] = float(eqsat.evaluate(node, {}))
        else:
            name = OPS[node.op].numpy
            function = getattr(xp, name[3:]) if name.startswith("np.") else None
            if function is None:
                raise SystemExit(f"no {xp.__name__} function for {node.op} in this benchmark")
            done[node] = function(*(done[a] for a in node.args))
    return done[expr]


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--n", type=int, default=2**26)
    args = options.parse_args()
    try:
        import cupy as cp
    except ImportError:
        raise SystemExit("this benchmark needs CuPy and an NVIDIA GPU") from None
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # CuPy shares the device
    try:
        import jax
        import jax.numpy as jnp

        jax.config.update("jax_enable_x64", True)
    except ImportError:
        jax = None
    device = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(device.id)
    driver, runtime = cp.cuda.runtime.driverGetVersion(), cp.cuda.runtime.runtimeGetVersion()
    print(f"device: {props['name'].decode()}, CUDA driver API {driver}, runtime {runtime}, "
          f"CuPy {cp.__version__}, JAX {jax.__version__ if jax else 'absent'}, N = {args.n}")

    def sync(_: Any) -> None:
        device.synchronize()

    def ready(result: Any) -> None:
        result.block_until_ready()

    bounds: list[tuple[str, float]] = []  # (case, percent of the copy bound)
    against_jax: list[tuple[str, float]] = []  # (case, jax time / eqsat time)
    print(f"{'case':28} {'dtype':8} {'ops':>4} {'eqsat ms':>9} {'cupy ms':>9} {'jax ms':>9} "
          f"{'copy ms':>8} {'bound %':>8} {'vs cupy':>8} {'vs jax':>7}")
    for dtype in ("float32", "float64"):
        rng = cp.random.default_rng(0)
        x = rng.uniform(0.5, 1.5, args.n, dtype=dtype)
        y = rng.uniform(0.5, 1.5, args.n, dtype=dtype)
        scratch = cp.empty_like(x)
        if jax is not None:
            jx, jy = jnp.asarray(cp.asnumpy(x)), jnp.asarray(cp.asnumpy(y))
            assert jx.dtype == x.dtype
        copy_s = timed(lambda: cp.copyto(scratch, x), sync)  # noqa: B023
        for label, text in CASES:
            expr = eqsat.parse(text)
            kernel = eqsat.compile(expr, ["x", "y"], target="cupy", dtype=dtype, optimize=None)
            ours = timed(lambda: kernel(x, y), sync)  # noqa: B023
            theirs = timed(lambda: op_by_op(cp, expr, {"x": x, "y": y}), sync)  # noqa: B023
            jax_s = float("nan")
            if jax is not None:
                jitted = jax.jit(lambda a, b: op_by_op(jnp, expr, {"x": a, "y": b}))  # noqa: B023
                jax_s = timed(lambda: jitted(jx, jy), ready)  # noqa: B023
            bound = copy_s * 3 / 2  # two arrays read, one written; the copy moves two
            bounds.append((f"{label} {dtype}", 100 * bound / ours))
            if jax is not None:
                against_jax.append((f"{label} {dtype}", jax_s / ours))
            print(f"{label:28} {dtype:8} {_count_ops(expr):4} {ours * 1e3:9.3f} "
                  f"{theirs * 1e3:9.3f} {jax_s * 1e3:9.3f} {copy_s * 1e3:8.3f} "
                  f"{100 * bound / ours:7.0f}% {theirs / ours:7.2f}x {jax_s / ours:6.2f}x")
    under = [f"{case} ({percent:.0f}%)" for case, percent in bounds if percent < 85]
    print(f"at least 85% of the copy bound: {len(bounds) - len(under)} of {len(bounds)} cases"
          + (f"; under: {', '.join(under)}" if under else ""))
    if against_jax:
        slower = [f"{case} ({ratio:.2f}x)" for case, ratio in against_jax if ratio < 1]
        print(f"at least as fast as jax.jit: {len(against_jax) - len(slower)} of "
              f"{len(against_jax)} cases" + (f"; slower: {', '.join(slower)}" if slower else ""))


if __name__ == "__main__":
    main()
