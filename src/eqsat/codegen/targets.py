"""The compile targets: each one's printer, cost model, default float type and how its
kernels are loaded and shown."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ..errors import EqsatError
from ..term.expr import Expr
from ..term.shape import is_tensor
from .cuda import print_cuda, print_launcher
from .cuda_tensor import print_tensor_program
from .dask import print_dask
from .numpy import COSTS, print_numpy

# (program, argument names, kernel name, float type) -> (its source, the Python module that
# runs it)
Printer = Callable[[Sequence[Expr], Sequence[str], str, "str | None"], tuple[str, str]]


@dataclass(frozen=True)
class Target:
    """One target of eqsat.compile."""

    name: str
    print: Printer
    costs: Mapping[str, float]  # op costs of its extraction ({}: the op table's)
    default_dtype: str | None  # None: float inputs keep their type
    language: str  # of its source: "python" (the module itself) or "cuda"
    loads_at_once: bool  # its module is loaded when the kernel is made (else on first call)
    install: str = ""  # what to install where its module's imports are missing


def _numpy(program: Sequence[Expr], args: Sequence[str], name: str,
           dtype: str | None) -> tuple[str, str]:
    source = print_numpy(program, args, name, dtype)
    return source, source


def _dask(program: Sequence[Expr], args: Sequence[str], name: str,
          dtype: str | None) -> tuple[str, str]:
    source = print_dask(program, args, name, dtype)
    return source, source


def _cupy(program: Sequence[Expr], args: Sequence[str], name: str,
          dtype: str | None) -> tuple[str, str]:
    assert dtype is not None  # the target's default fills it in
    if any(is_tensor(e) for e in program):  # reductions and products: several kernels
        return print_tensor_program(program, args, name, dtype)
    source = print_cuda(program, args, name, dtype)  # one fused elementwise kernel
    shown = ", ".join(str(p) for p in program)
    return source, print_launcher(source, len(program), args, name, dtype, shown)


TARGETS: dict[str, Target] = {
    "numpy": Target("numpy", _numpy, COSTS, None, "python", loads_at_once=True),
    # a fused CUDA kernel launched through cupy.RawKernel; CuPy loads on the first call, so
    # a kernel can be made (and saved) on a machine without a GPU
    "cupy": Target("cupy", _cupy, {}, "float32", "cuda", loads_at_once=False,
                   install="pip install 'eqsat[gpu]' (CUDA 13 drivers) or 'eqsat[gpu-cuda12]', "
                           "and an NVIDIA GPU"),
    # chunked arrays, on this machine or a dask.distributed cluster
    "dask": Target("dask", _dask, COSTS, None, "python", loads_at_once=True,
                   install="pip install 'eqsat[dask]'"),
}


def target_named(name: object) -> Target:
    """The target of that name; an EqsatError listing them for any other."""
    if not isinstance(name, str) or name not in TARGETS:
        raise EqsatError(f"unknown target {name!r}: use one of {list(TARGETS)}")
    return TARGETS[name]
