"""CUDA kernels launched on a GPU against NumPy: every op, float and double, broadcast
shapes. Skipped where CuPy or a GPU is missing (CI has neither)."""

from __future__ import annotations

import numpy as np
import pytest

import eqsat
from eqsat.term.ops import ROWS
from eqsat.term.shape import ELEMENTWISE

cupy = pytest.importorskip("cupy")
try:
    if cupy.cuda.runtime.getDeviceCount() < 1:
        pytest.skip("no CUDA device", allow_module_level=True)
except cupy.cuda.runtime.CUDARuntimeError:
    pytest.skip("no CUDA device", allow_module_level=True)

VALUE_OPS = [op for op in ROWS if op.name in ELEMENTWISE]
NAMES = ["a", "b", "c"]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_every_op_on_the_gpu_matches_numpy(dtype: str) -> None:
    exprs = [eqsat.call(op.name, *(eqsat.symbol(n) for n in NAMES[: op.arity]))
             for op in VALUE_OPS] + [eqsat.parse(f"a^({n})") for n in (2, 3, 4, -1, 5)]
    kernel = eqsat.compile(exprs, NAMES, target="cupy", dtype=dtype, optimize=None)
    rng = np.random.default_rng(5)
    values = [rng.uniform(-0.9, 0.9, 1000).astype(dtype) for _ in NAMES]
    results = kernel(*(cupy.asarray(v) for v in values))
    tolerance = 1e-5 if dtype == "float32" else 1e-12
    for expr, got in zip(exprs, results, strict=True):
        want = eqsat.evaluate(expr, dict(zip(NAMES, values, strict=True)))
        np.testing.assert_allclose(cupy.asnumpy(got), want, rtol=tolerance, atol=tolerance,
                                   equal_nan=True, err_msg=str(expr))


@pytest.mark.parametrize("shapes", [((1000,), ()), ((64, 1), (1, 48)), ((3, 4, 5), (5,))])
def test_broadcast_shapes_and_scalars(shapes: tuple[tuple[int, ...], ...]) -> None:
    text = "exp(x) * y + sin(x) / (1 + y^2)"
    kernel = eqsat.compile(text, ["x", "y"], target="cupy", dtype="float64")
    rng = np.random.default_rng(6)
    x, y = (rng.uniform(-1, 1, s) for s in shapes)
    got = kernel(cupy.asarray(x), cupy.asarray(y) if y.shape else float(y))
    assert got.shape == np.broadcast_shapes(*shapes)
    np.testing.assert_allclose(cupy.asnumpy(got), eqsat.evaluate(text, x=x, y=y), rtol=1e-12)


def test_a_dtype_mismatch_is_a_clear_error() -> None:
    kernel = eqsat.compile("x + 1", target="cupy", dtype="float32")
    with pytest.raises(TypeError, match="compiled for float32"):
        kernel(cupy.ones(4, dtype=cupy.float64))


TENSOR_PROGRAMS = ["sum(exp(A) * 2)", "mean(A*A) + max(v) - min(w)", "logsumexp(3*v)",
                   "sum((A @ B) * 2)", "A @ B + 1", "softmax(w) * 2", "log_softmax(A, axis=1)",
                   "softmax(A, axis=1) - 1", "logsumexp(A, axis=0) + v",
                   "sum(A, axis=0) + v", "outer(w, v) - A", "prod(1 + v/1000)"]


@pytest.mark.parametrize("text", TENSOR_PROGRAMS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_tensor_programs_on_the_gpu_match_numpy(text: str, dtype: str) -> None:
    shapes = {"A": ("n", "m"), "B": ("m", "k"), "v": ("m",), "w": ("n",)}
    sizes = {"n": 300, "m": 2000, "k": 40}  # reductions over more elements than one block
    expr = eqsat.to_expr(text, shapes=shapes)
    names = sorted(s.name for s in expr.free_symbols())
    kernel = eqsat.compile(expr, names, target="cupy", dtype=dtype)
    rng = np.random.default_rng(8)
    values = {n: rng.uniform(-1, 1, tuple(sizes[d] for d in shapes[n])).astype(dtype)
              for n in names}
    got = cupy.asnumpy(kernel(*(cupy.asarray(values[n]) for n in names)))
    tolerance = 1e-3 if dtype == "float32" else 1e-9
    np.testing.assert_allclose(got, eqsat.evaluate(expr, values), rtol=tolerance,
                               atol=tolerance, err_msg=text)


@pytest.mark.parametrize("text", ["softmax(A, axis=1)", "log_softmax(A, axis=1)",
                                  "logsumexp(A, axis=1)"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_row_kernels_at_infinities_nans_and_large_values(text: str, dtype: str) -> None:
    rows = np.array([[1, 2, 3], [-np.inf] * 3, [np.nan, 1, 2], [np.inf, 1, 2], [-np.inf, 0, 1],
                     [1e30, 1e30, 0]], dtype=dtype)
    values = np.tile(rows, (400, 1))  # rows enough for one block per row on any GPU
    expr = eqsat.to_expr(text, shapes={"A": ("n", "m")})
    kernel = eqsat.compile(expr, ["A"], target="cupy", dtype=dtype, optimize=None)
    with np.errstate(all="ignore"):
        want = eqsat.evaluate(expr, {"A": values})
    np.testing.assert_allclose(cupy.asnumpy(kernel(cupy.asarray(values))), want, rtol=1e-6,
                               equal_nan=True, err_msg=text)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_odd_lengths_unaligned_views_and_several_outputs(dtype: str) -> None:
    texts = ["exp(x) * y + 1", "x - y", "tanh(1) + 0*x"]
    kernel = eqsat.compile(texts, ["x", "y"], target="cupy", dtype=dtype, optimize=None)
    rng = np.random.default_rng(9)
    first, second = (cupy.asarray(rng.uniform(-1, 1, 1004).astype(dtype)) for _ in range(2))
    for start, stop in [(0, 1003), (1, 1004), (3, 1000)]:  # 16-byte loads, the tail, neither
        x, y = first[start:stop], second[: stop - start]
        values = {"x": cupy.asnumpy(x), "y": cupy.asnumpy(y)}
        tolerance = 1e-5 if dtype == "float32" else 1e-12  # exp(x)*y + 1 may fuse (fma)
        for text, got in zip(texts, kernel(x, y), strict=True):
            np.testing.assert_allclose(cupy.asnumpy(got), eqsat.evaluate(text, values),
                                       rtol=tolerance, atol=tolerance,
                                       err_msg=f"{text} on [{start}:{stop}]")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("grid", [(1, 32), (3, 128), (1000, 128)])
def test_any_grid_covers_every_element(dtype: str, grid: tuple[int, int]) -> None:
    """The source launched by hand with grids smaller and larger than the launcher's: the
    elements its groups-a-thread path leaves go through the grid-stride loop."""
    kernel = eqsat.compile("exp(x) * y - x", ["x", "y"], target="cupy", dtype=dtype)
    raw = cupy.RawKernel(kernel.source, "kernel")
    rng = np.random.default_rng(8)
    for size in (0, 1, 3, 1001, 100_003):
        x, y = (rng.uniform(-1, 1, size).astype(dtype) for _ in range(2))
        out = cupy.full(size, np.nan, dtype=dtype)
        raw((grid[0],), (grid[1],), (cupy.asarray(x), np.int64(1), cupy.asarray(y), np.int64(1),
                                     out, np.int64(size)))
        tolerance = 1e-5 if dtype == "float32" else 1e-12  # exp(x)*y may fuse (fma)
        np.testing.assert_allclose(cupy.asnumpy(out), np.exp(x) * y - x, rtol=tolerance,
                                   atol=tolerance)


WIDE = np.concatenate([-np.logspace(-30, 30, 300), np.logspace(-30, 30, 300),
                       np.arange(-40, 40) / 2, np.linspace(25.5, 26.5, 41), [0.0, 1e200, -1e200]])


@pytest.mark.parametrize("text", ["sinpi(x)", "cospi(x)", "fmod(x, y)", "erfcx(x)"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_helpers_that_reduce_or_switch_forms_match_numpy_over_wide_arguments(
        text: str, dtype: str) -> None:
    """The CUDA helpers with a range reduction (sinpi, cospi), an exact remainder (fmod) or
    a form for each range (erfcx: exp(x^2) split exactly, its series past 26) against the
    NumPy target's, at halves and integers, up to 1e30 and through each switch."""
    with np.errstate(over="ignore"):
        x = WIDE.astype(dtype)
    y = np.resize(np.array([3, -0.7, 360, 1e-3, 2.5e7], dtype=dtype), x.shape)
    kernel = eqsat.compile(text, ["x", "y"], target="cupy", dtype=dtype, optimize=None)
    with np.errstate(all="ignore"):
        want = eqsat.evaluate(text, x=x, y=y)
    tolerance = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(cupy.asnumpy(kernel(cupy.asarray(x), cupy.asarray(y))), want,
                               rtol=tolerance, atol=tolerance * 1e-3, equal_nan=True,
                               err_msg=text)
