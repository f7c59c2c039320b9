"""The CUDA target for tensor programs without a GPU: nvcc compiles every kernel; the
launcher runs against a stand-in for CuPy built on NumPy, whose kernels call the
per-element bodies compiled for the CPU (g++) and fold reductions as the blocks do."""

from __future__ import annotations

import ctypes
import re
import shutil
import subprocess
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import eqsat
from eqsat import tensor

A, B = tensor("A", ("n", "m")), tensor("B", ("m", "k"))
V, W = tensor("v", ("m",)), tensor("w", ("n",))
SIZES = {"n": 5, "m": 7, "k": 3}
PROGRAMS = [
    "sum(exp(A) * 2)",                      # one reduction kernel, fused with its producer
    "mean(A*A) + max(v) - min(w)",
    "prod(1 + v/10)",
    "logsumexp(3*v)",                       # two fused passes: maximum, then sum
    "sum((A @ B) * 2)",                     # cuBLAS, then a fused reduction
    "A @ B + 1",
    "softmax(w) * 2",
    "log_softmax(A, axis=1)",               # one block per row (eqsat_rows) on a GPU
    "softmax(A, axis=0) + logsumexp(A, axis=0)",
    "sum(A, axis=0) + v",
    "outer(w, v) - A",
    "(A @ v).T + w",
]

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")


def _kernel(text: str, dtype: str) -> eqsat.Kernel:
    expr = eqsat.parse(text, [A, B, V, W])
    return eqsat.compile(expr, sorted(s.name for s in expr.free_symbols()), target="cupy",
                         dtype=dtype)


@needs_nvcc
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nvcc_compiles_tensor_programs(dtype: str, tmp_path: Path) -> None:
    for index, text in enumerate(PROGRAMS):
        source = _kernel(text, dtype).save(tmp_path / f"program{index}.cu")
        done = subprocess.run(["nvcc", "-arch=sm_90", "-c", str(source), "-o",
                               str(tmp_path / f"program{index}.o")], capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, (text, done.stderr)


class _DeviceArray(np.ndarray):
    """A NumPy array with CuPy's `.data.ptr` (the launchers check alignment by it)."""

    @property
    def data(self) -> Any:  # type: ignore[override]
        return types.SimpleNamespace(ptr=self.ctypes.data)


def _on_device(function: Callable[..., Any]) -> Callable[..., Any]:
    def made(*args: Any, **kwargs: Any) -> Any:
        result = function(*args, **kwargs)
        return result.view(_DeviceArray) if isinstance(result, np.ndarray) else result
    return made


class _StandIn:
    """Just enough of CuPy, on NumPy; RawModule and RawKernel kernels run the CPU-compiled
    bodies, and `launched` lists the kernels they ran."""

    def __init__(self, library: Callable[[str], Path], dtype: Any) -> None:
        self.library, self.dtype = library, dtype
        self.launched: list[str] = []

    def module(self) -> types.ModuleType:
        stand_in = types.ModuleType("cupy")
        for name in ("asarray", "ascontiguousarray", "broadcast_to", "empty", "where",
                     "isfinite", "log", "exp", "sum", "prod", "max", "min", "matmul", "dot",
                     "outer", "transpose", "expand_dims", "squeeze", "float32", "float64"):
            setattr(stand_in, name, getattr(np, name))
        for name in ("asarray", "ascontiguousarray", "broadcast_to", "empty"):
            setattr(stand_in, name, _on_device(getattr(np, name)))
        # as many multiprocessors as rows in SIZES: softmax over an axis takes CuPy's path,
        # since eqsat_rows (one block per row, shared memory) runs on a GPU only
        runtime = types.SimpleNamespace(getDevice=lambda: 0, getDeviceProperties=lambda device:
                                        {"multiProcessorCount": 64})
        stand_in.cuda = types.SimpleNamespace(runtime=runtime)  # type: ignore[attr-defined]
        stand_in.RawModule = self._raw_module  # type: ignore[attr-defined]
        stand_in.RawKernel = (  # type: ignore[attr-defined]
            lambda code, name: self._raw_module(code).get_function(name))
        return stand_in

    def _raw_module(self, code: str) -> Any:
        library = ctypes.CDLL(str(self.library(code)))
        folds = dict(re.findall(r"(\w+)_combine\(T a, T b\) \{ return ([^;]+);", code))
        return types.SimpleNamespace(get_function=lambda name: self._launch(library, name,
                                                                            folds.get(name)))

    def _launch(self, library: Any, name: str, fold: str | None) -> Callable[..., None]:
        c_type = ctypes.c_float if self.dtype == np.float32 else ctypes.c_double
        whole = name.endswith("_arrays")  # name_arrays: arrays only, a size in 16-byte groups
        body = getattr(library, f"{name.removesuffix('_arrays')}_body")
        body.restype = None

        def run(grid: tuple[int], block: tuple[int], params: tuple[Any, ...]) -> None:
            self.launched.append(name)
            *inputs, out, size = params
            if whole:
                size = int(size) * 16 // np.dtype(self.dtype).itemsize
                assert all(a.data.ptr % 16 == 0 for a in (*inputs, out))
                inputs = [value for array in inputs for value in (array, 1)]
            pairs = list(zip(inputs[::2], inputs[1::2], strict=True))
            body.argtypes = [c_type] * len(pairs) + [ctypes.POINTER(c_type)]
            values = np.empty(int(size), dtype=self.dtype)
            result = c_type()
            for i in range(int(size)):
                body(*(array.ravel()[i * int(step)] for array, step in pairs),
                     ctypes.byref(result))
                values[i] = result.value
            if fold is None:
                out.ravel()[:size] = values  # name_arrays: the whole groups only
                return
            start = {"a + b": 0.0, "a * b": 1.0, "fmax(a, b)": -np.inf, "fmin(a, b)": np.inf}
            out[:] = start[fold]
            combine = {"a + b": np.sum, "a * b": np.prod, "fmax(a, b)": np.max,
                       "fmin(a, b)": np.min}[fold]
            for block_index in range(len(out)):  # each block folds a grid-stride share
                share = values[block_index::len(out)]
                out[block_index] = combine(share) if share.size else start[fold]

        return run


@pytest.fixture
def compiled(tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    made: dict[str, Path] = {}

    def build(code: str) -> Path:
        if code not in made:
            source = tmp_path / f"body{len(made)}.cpp"
            source.write_text(code)
            library = tmp_path / f"body{len(made)}.so"
            done = subprocess.run(["g++", "-x", "c++", "-O1", "-shared", "-fPIC", str(source),
                                   "-o", str(library)], capture_output=True, text=True,
                                  timeout=300)
            assert done.returncode == 0, done.stderr
            made[code] = library
        return made[code]

    yield build


@needs_gxx
@pytest.mark.parametrize("text", PROGRAMS)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_launcher_and_bodies_match_numpy(text: str, dtype: str, compiled: Callable[[str], Path],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    numpy_type = np.dtype(dtype).type
    monkeypatch.setitem(sys.modules, "cupy", _StandIn(compiled, numpy_type).module())
    kernel = _kernel(text, dtype)
    rng = np.random.default_rng(11)
    expr = eqsat.parse(text, [A, B, V, W])
    values = {s.name: rng.uniform(-1, 1, tuple(SIZES[str(d)] for d in s.shape))
              .astype(numpy_type) for s in expr.free_symbols()}
    got = np.asarray(kernel(*(values[name] for name in kernel.args)))
    want = eqsat.evaluate(expr, values)
    assert got.shape == np.shape(want)
    tolerance = 1e-4 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(got, want, rtol=tolerance, atol=tolerance, err_msg=text)


@needs_gxx
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_elementwise_launcher_splits_whole_groups_from_the_rest(
        dtype: str, compiled: Callable[[str], Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """name_arrays takes the whole 16-byte groups of aligned arrays, the grid-stride kernel
    the elements past them, a scalar input or an unaligned view; every element is right."""
    numpy_type = np.dtype(dtype).type
    stand_in = _StandIn(compiled, numpy_type)
    monkeypatch.setitem(sys.modules, "cupy", stand_in.module())
    kernel = eqsat.compile("exp(x) * y - x", ["x", "y"], target="cupy", dtype=dtype)
    rng = np.random.default_rng(12)
    base = rng.uniform(-1, 1, 1004).astype(numpy_type)
    other = rng.uniform(-1, 1, 1003).astype(numpy_type)
    cases = [(base[:1003], other, ["kernel_arrays", "kernel"]),  # 1003 = whole groups + 3
             (base[:1000], other[:1000], ["kernel_arrays"]),
             (base[:1000], numpy_type(0.5), ["kernel"]),  # a scalar
             (base[1:], other, ["kernel"])]  # one element in: not 16-byte aligned
    for x, y, launched in cases:
        stand_in.launched.clear()
        got = np.asarray(kernel(x, y))
        assert stand_in.launched == launched
        tolerance = 1e-6 if dtype == "float32" else 1e-14
        np.testing.assert_allclose(got, np.exp(x) * y - x, rtol=tolerance, atol=tolerance)


def test_reductions_fuse_with_their_producer_and_matmul_goes_to_cublas() -> None:
    kernel = eqsat.compile(eqsat.parse("sum(exp(A @ B) * 2)", [A, B]), ["A", "B"],
                           target="cupy", optimize=None)
    assert "cp.matmul(A, B)" in kernel.module
    assert kernel.module.count("= _reduce(") == 1 and "= _elementwise(" not in kernel.module
    assert "matmul" not in kernel.source  # no hand-written matrix product
    body = kernel.source[kernel.source.index("kernel_0_body"):]
    assert "expf(" in body and "2.0f" in body  # exp and the product, in the reduction's body
    assert "__shared__ T cache[256]" in kernel.source
