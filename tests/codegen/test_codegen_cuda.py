"""The CUDA backend without a GPU: nvcc compiles the kernels for every op (float and
double); the per-element body, compiled with g++, runs on the CPU and matches NumPy."""

from __future__ import annotations

import ctypes
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import eqsat
from eqsat.term.ops import ROWS
from eqsat.term.shape import ELEMENTWISE

VALUE_OPS = [op for op in ROWS if op.name in ELEMENTWISE]
NAMES = ["a", "b", "c"]
POWERS = [eqsat.parse(f"a^({n})") for n in (2, 3, 4, -1, 5)]  # multiplied out, but a^5
ALL_OPS = [eqsat.call(op.name, *(eqsat.symbol(n) for n in NAMES[: op.arity]))
           for op in VALUE_OPS] + POWERS
DTYPES = {"float32": (np.float32, ctypes.c_float), "float64": (np.float64, ctypes.c_double)}

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")


def _all_ops_kernel(dtype: str) -> eqsat.Kernel:
    """One kernel whose outputs are every op of the table applied to a, b, c."""
    return eqsat.compile(ALL_OPS, NAMES, target="cupy", dtype=dtype, optimize=None)


def _body_on_the_cpu(kernel: eqsat.Kernel, folder: Path) -> Any:
    """The kernel's per-element body compiled as C++ by g++, loaded: kernel_body."""
    source = folder / "body.cpp"
    source.write_text(kernel.source)
    library = folder / "body.so"
    done = subprocess.run(["g++", "-x", "c++", "-O1", "-shared", "-fPIC", str(source), "-o",
                           str(library)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return ctypes.CDLL(str(library)).kernel_body


@needs_nvcc
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nvcc_compiles_every_op(dtype: str, tmp_path: Path) -> None:
    source = _all_ops_kernel(dtype).save(tmp_path / "kernel.cu")
    done = subprocess.run(["nvcc", "-arch=sm_90", "-c", str(source), "-o",
                           str(tmp_path / "kernel.o")], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr


@needs_gxx
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_body_runs_on_the_cpu_and_matches_numpy(dtype: str, tmp_path: Path) -> None:
    kernel = _all_ops_kernel(dtype)
    numpy_type, c_type = DTYPES[dtype]
    body = _body_on_the_cpu(kernel, tmp_path)
    body.restype = None
    outputs = [c_type() for _ in ALL_OPS]
    body.argtypes = [c_type] * 3 + [ctypes.POINTER(c_type)] * len(ALL_OPS)
    rng = np.random.default_rng(3)
    points = rng.uniform(-0.9, 0.9, (8, 3)).astype(numpy_type)
    for a, b, c in points:
        body(a, b, c, *(ctypes.byref(o) for o in outputs))
        for expr, out in zip(ALL_OPS, outputs, strict=True):
            want = eqsat.evaluate(expr, {"a": a, "b": b, "c": c})
            got = numpy_type(out.value)
            tolerance = 1e-5 if dtype == "float32" else 1e-12
            assert np.isclose(got, want, rtol=tolerance, atol=tolerance, equal_nan=True), (
                f"{expr} at {(a, b, c)}: CUDA body {got}, NumPy {want}")


def test_source_shape_float_and_double() -> None:
    single = eqsat.compile("exp(x) * 2 + y^2", ["x", "y"], target="cupy", optimize=None)
    assert "typedef float T;" in single.source
    assert "expf(x)" in single.source and "2.0f" in single.source
    assert "const T* __restrict__ x, long long x_step" in single.source
    assert "long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x" in single.source
    assert "reinterpret_cast<const eqsat_vec*>(x)[q]" in single.source  # 16 bytes a load
    assert "void kernel_arrays(const T* __restrict__ x, const T* __restrict__ y," in single.source
    assert "y * y" in single.source and "pow" not in single.source
    powers = eqsat.compile("x^3 + x^4 - x^(-1) + x^5", target="cupy", optimize=None).source
    assert "x * x * x" in powers and "(x * x) * (x * x)" in powers and "(T)1 / x" in powers
    assert "powf(x, 5.0f)" in powers
    double = eqsat.compile("exp(x) * 2", ["x"], target="cupy", dtype="float64", optimize=None)
    assert "typedef double T;" in double.source and "exp(x)" in double.source
    assert "2.0f" not in double.source and "--use_fast_math" not in double.module


def test_shared_subterms_once_per_element_and_outputs_fused() -> None:
    kernel = eqsat.compile(["sin(x*y) + x*y", "exp(x*y)"], ["x", "y"], target="cupy",
                           optimize=None)
    assert kernel.source.count("x * y") == 1
    assert "T* out0, T* out1" in kernel.source


def test_saved_launcher_and_source(tmp_path: Path) -> None:
    kernel = eqsat.compile("exp(x) - 1", target="cupy")
    cuda = kernel.save(tmp_path / "kernel.cu").read_text()
    launcher = kernel.save(tmp_path / "kernel.py").read_text()
    assert cuda == kernel.source
    assert "cp.RawKernel(SOURCE, name)" in launcher
    imports = {line for line in launcher.splitlines() if line.startswith("import ")}
    assert imports == {"import cupy as cp", "import numpy as np"}
    compile(launcher, "kernel.py", "exec")  # valid Python
    assert "_launch_elementwise('kernel', params, results, size)" in launcher


def test_without_cupy_calling_is_a_clear_error() -> None:
    try:
        import cupy  # noqa: F401
    except ImportError:
        kernel = eqsat.compile("x + 1", target="cupy")
        with pytest.raises(eqsat.EqsatError, match="needs cupy"):
            kernel(np.ones(3, np.float32))
    else:
        pytest.skip("CuPy is installed here: the GPU tests cover calls")


@pytest.mark.parametrize("name", ["out0", "x_step", "i", "n", "expf", "int", "kernel_body"])
def test_names_that_clash_in_c_are_refused(name: str) -> None:
    with pytest.raises(eqsat.EqsatError, match="not usable in CUDA C"):
        eqsat.compile(f"{name} + 1", [name], target="cupy")


def test_cli_compile_cupy(tmp_path: Path) -> None:
    target = tmp_path / "k.cu"
    done = subprocess.run([sys.executable, "-m", "eqsat.cli", "compile", "exp(x) - 1",
                           "--target", "cupy", "-o", str(target)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "expm1f(x)" in target.read_text()


@needs_gxx
def test_regimes_become_branches_and_each_element_takes_one(tmp_path: Path) -> None:
    # a stabilized regime: a series near 0, the exact form elsewhere
    kernel = eqsat.compile("1/x - 1/tan(x)", ["x"], target="cupy", dtype="float64",
                           optimize="stabilize", limits=eqsat.Limits(seconds=60))
    assert kernel.outputs[0].op == "where"
    body = kernel.source.split("kernel_body(")[1].split("\n}\n")[0]
    body = re.sub(r"/\*.*?\*/", "", body)  # (each line's comment shows its term)
    branch, other = body.split("} else {")
    assert "if (" in branch and "tan(x)" not in branch  # the series alone
    assert "tan(x)" in other  # the exact form alone
    run = _body_on_the_cpu(kernel, tmp_path)
    run.restype = None
    run.argtypes = [ctypes.c_double, ctypes.POINTER(ctypes.c_double)]
    for x in (1e-300, -1e-9, 3e-3, -0.5, 2.0, 1e10):
        out = ctypes.c_double()
        run(x, ctypes.byref(out))
        want = float(eqsat.evaluate(kernel.outputs[0], x=np.float64(x)))
        assert np.isclose(out.value, want, rtol=1e-14, atol=0), (x, out.value, want)
