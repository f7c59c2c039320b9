"""The CUDA target for tensor programs: each elementwise region one fused kernel, a full
reduction fused with the elementwise region that produces its operand (one pass, block
partials), matrix products through cupy.matmul (cuBLAS) and the other tensor ops through
CuPy, in the launcher."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..term import numeric
from ..term.expr import Expr, make, shaped_symbol
from ..term.ops import OPS, TENSOR_OPS
from ..term.printing import Abbreviations, abbreviated
from ..term.shape import ALL_AXES, AXIS_OPS, shape_of
from .cuda import (
    GRID,
    LAUNCH,
    OPERAND,
    check_program,
    device_body,
    elementwise_kernels,
    header,
    launch_constants,
    reduction_kernel,
)
from .numpy import NumpyPrinter, computed_nodes, dimension_names, helper_source, literal, shape_text

_CUPY = NumpyPrinter("cp")  # CuPy mirrors NumPy's function names
BLOCK = 256

# softmax, log_softmax and logsumexp over one axis: one block per row folds (maximum, sum of
# exp(x - maximum)) pairs in one pass, then writes the row from what that pass left in cache
ROW_MODES = {"softmax": 0, "log_softmax": 1, "logsumexp": 2}
ROWS = """#ifdef __CUDACC__
static __device__ void eqsat_fold(T* top, T* total, T m, T s) {{
    if (*top != *top || m != m) {{ *top = NAN; *total = NAN; return; }}
    if (m == -INFINITY) return;  /* adds exp(-inf) = 0 */
    if (m == INFINITY || *top == INFINITY) {{ *top = INFINITY; *total = 1; return; }}
    if (*top == -INFINITY) {{ *top = m; *total = s; return; }}
    const T high = fmax{S}(*top, m);
    *total = *total * exp{S}(*top - high) + s * exp{S}(m - high);
    *top = high;
}}
extern "C" __global__ void eqsat_rows(const T* __restrict__ x, T* __restrict__ out,
                                      long long m, int mode) {{
    __shared__ T tops[{block}];
    __shared__ T totals[{block}];
    const T* row = x + (long long)blockIdx.x * m;
    T top = -INFINITY, total = 0;
    for (long long j = threadIdx.x; j < m; j += blockDim.x) eqsat_fold(&top, &total, row[j], 1);
    tops[threadIdx.x] = top;
    totals[threadIdx.x] = total;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half >>= 1) {{
        if (threadIdx.x < half) {{
            eqsat_fold(&tops[threadIdx.x], &totals[threadIdx.x], tops[threadIdx.x + half],
                       totals[threadIdx.x + half]);
        }}
        __syncthreads();
    }}
    top = tops[0];
    total = totals[0];
    if (mode == 2) {{
        if (threadIdx.x == 0) out[blockIdx.x] = top + log{S}(total);
        return;
    }}
    if (top == INFINITY) total = NAN;  /* x - max is inf - inf there, as in NumPy */
    const T log_total = log{S}(total);
    T* target = out + (long long)blockIdx.x * m;
    for (long long j = threadIdx.x; j < m; j += blockDim.x) {{
        target[j] = mode == 0 ? exp{S}(row[j] - top) / total : (row[j] - top) - log_total;
    }}
}}
#endif
"""
FUSED = {"sum": "sum", "mean": "sum", "prod": "prod", "amax": "amax", "amin": "amin"}
_CUPY_HELPERS = ("logsumexp", "softmax", "log_softmax", "expand", "sum_to")


@dataclass
class _Program:
    """The kernels and launcher lines built so far, and where each value lives."""

    name: str
    dtype: str
    dims: dict[str, str]
    values: dict[Expr, str] = field(default_factory=dict)  # node -> launcher expression
    kernels: list[str] = field(default_factory=list)
    helpers: set[str] = field(default_factory=set)
    lines: list[str] = field(default_factory=list)
    count: int = 0  # kernels made
    rows: bool = False  # whether the source holds eqsat_rows
    comment: Abbreviations = field(default_factory=Abbreviations)

    def temporary(self, text: str, node: Expr) -> str:
        target = f"_t{len(self.lines)}"
        self.lines.append(f"    {target} = {text}  # {self.comment(node)}")
        return target

    def kernel_name(self) -> str:
        self.count += 1
        return f"{self.name}_{self.count - 1}"

    def region(self, root: Expr) -> tuple[Expr, list[str], list[str]]:
        """root with every value already computed standing in as an input: the region's
        expression, its kernel arguments, and their launcher values."""
        inputs = {node: shaped_symbol(f"eqsat_v{k}", shape_of(node), {})
                  for k, node in enumerate(n for n in self.values if n is not root and n.args)}
        expr = root.subs(inputs)
        names = sorted(s.name for s in expr.free_symbols())
        launcher = {s.name: self.values[node] for node, s in inputs.items()}
        launcher |= {s.name: self.values[s] for s in expr.free_symbols() if s in self.values}
        return expr, names, [launcher.get(n, n) for n in names]

    def value(self, node: Expr) -> str:
        """A node's value in the launcher: an input, a literal, or a fused kernel's result."""
        if node in self.values:
            return self.values[node]
        if node.is_symbol:
            return node.name
        if not node.free_symbols():
            return literal(numeric.evaluate(node, {}))
        expr, names, launcher = self.region(node)
        kernel = self.kernel_name()
        body, helpers = device_body([expr], names, kernel, self.dtype)
        self.kernels += body + elementwise_kernels(names, 1, kernel, self.dtype)
        self.helpers |= helpers
        shape = shape_text(shape_of(node), self.dims)
        self.values[node] = self.temporary(
            f"_elementwise({kernel!r}, [{', '.join(launcher)}], {shape})", node)
        return self.values[node]

    def fused_reduction(self, operand: Expr, how: str, node: Expr) -> str:
        """A kernel computing operand per element and folding it (sum, prod, max, min)."""
        expr, names, launcher = self.region(operand)
        kernel = self.kernel_name()
        body, helpers = device_body([expr], names, kernel, self.dtype)
        self.kernels += body + reduction_kernel(names, how, kernel, BLOCK)
        self.helpers |= helpers
        shape = shape_text(shape_of(operand), self.dims)
        return self.temporary(f"_reduce({kernel!r}, [{', '.join(launcher)}], {shape}, "
                              f"{how!r})", node)


def print_tensor_program(outputs: Sequence[Expr], args: Sequence[str], name: str,
                         dtype: str) -> tuple[str, str]:
    """The CUDA source (all kernels) and the CuPy launcher module running them in order."""
    check_program(outputs, args, name, dtype)
    program = _Program(name, dtype, dimension_names(args, outputs))
    for node in computed_nodes(outputs):
        if node.op in TENSOR_OPS:
            program.values[node] = _tensor_step(program, node)
    results = [program.value(o) for o in outputs]
    source = "\n".join(header(outputs, dtype, program.helpers) + program.kernels)
    return source, _launcher(source, program, args, results, outputs)


def _tensor_step(program: _Program, node: Expr) -> str:
    operand = node.args[0]
    axis = int(node.args[-1].number) if node.op in AXIS_OPS else None
    if node.op in FUSED and axis == ALL_AXES and operand.args and operand.op not in TENSOR_OPS:
        total = program.fused_reduction(operand, FUSED[node.op], node)
        if node.op == "mean":
            size = shape_text(shape_of(operand), program.dims)
            return program.temporary(f"{total} / _size({size})", node)
        return total
    if node.op == "logsumexp" and axis == ALL_AXES and operand.args and \
            operand.op not in TENSOR_OPS:  # two fused passes: the maximum, then the sum
        top = program.fused_reduction(operand, "amax", node)
        top = program.temporary(f"cp.where(cp.isfinite({top}), {top}, 0)", node)
        shift = shaped_symbol("eqsat_top", (), {})
        program.values[shift] = top
        total = program.fused_reduction(make("exp", make("sub", operand, shift)), "sum", node)
        return program.temporary(f"cp.log({total}) + {top}", node)
    arguments = [program.value(a) for a in node.args[:1 if node.op in AXIS_OPS else None]]
    if node.op in ROW_MODES and axis != ALL_AXES:
        if not program.rows:
            program.rows = True
            program.kernels.append(ROWS.format(S="f" if program.dtype == "float32" else "",
                                               block=BLOCK))
        return program.temporary(f"_rows({arguments[0]}, {axis}, {ROW_MODES[node.op]})", node)
    if node.op in ("expand", "sum_to"):
        program.helpers.add(node.op)
        shape = shape_text(shape_of(node.args[1]), program.dims)
        tail = f", {None if axis == ALL_AXES else axis}" if node.op == "expand" else ""
        return program.temporary(f"{node.op}({arguments[0]}, {shape}{tail})", node)
    if node.op in AXIS_OPS:
        shown = None if axis == ALL_AXES else axis
        function = _CUPY.function(OPS[node.op].numpy)
        return program.temporary(f"{function}({arguments[0]}, axis={shown})", node)
    return program.temporary(f"{_CUPY.function(OPS[node.op].numpy)}({', '.join(arguments)})",
                             node)


def _launcher(source: str, program: _Program, args: Sequence[str], results: list[str],
              outputs: Sequence[Expr]) -> str:
    helpers = [helper_source(getattr(numeric, h), "cp") for h in _CUPY_HELPERS]
    converted = "\n".join(f"    {a} = _operand({a}, {a!r})" for a in args)
    returned = results[0] if len(results) == 1 else ", ".join(results)
    return f'''"""Generated by eqsat: {abbreviated(*outputs, width=200)} (CUDA, {program.dtype})."""

from __future__ import annotations

import math

import cupy as cp
import numpy as np

SOURCE = r"""
{source}"""
DTYPE = np.{program.dtype}
BLOCK = {BLOCK}
{launch_constants(program.dtype)}
FOLD = {{"sum": cp.sum, "prod": cp.prod, "amax": cp.max, "amin": cp.min}}
_module = {{}}


def _kernel(name):
    if "module" not in _module:
        _module["module"] = cp.RawModule(code=SOURCE)
    return _module["module"].get_function(name)


{OPERAND}

def _size(shape):
    return math.prod(shape)


def _parameters(inputs, shape):
    params = []
    for value in inputs:
        array = cp.asarray(value, dtype=DTYPE)
        if array.size == 1:  # a scalar: every element reads it (step 0)
            params += [array.reshape(1), np.int64(0)]
        else:  # the kernel walks the broadcast shape
            params += [cp.ascontiguousarray(cp.broadcast_to(array, shape)), np.int64(1)]
    return params


{GRID}

{LAUNCH}

def _elementwise(name, inputs, shape):
    result = cp.empty(shape, dtype=DTYPE)
    size = _size(shape)
    if size:
        _launch_elementwise(name, _parameters(inputs, shape), [result], size)
    return result


def _rows(x, axis, mode):
    """softmax (mode 0), log_softmax (1) or logsumexp (2) over an axis: eqsat_rows, one
    block per row, where the rows are enough to give every multiprocessor one; else CuPy."""
    axis %= x.ndim
    length = x.shape[axis]
    rows = x.size // length if length else 0
    if rows < _multiprocessors():
        return (softmax, log_softmax, logsumexp)[mode](x, axis=axis)
    moved = cp.ascontiguousarray(cp.moveaxis(x, axis, -1))
    out = cp.empty(moved.shape[:-1] if mode == 2 else moved.shape, dtype=DTYPE)
    _kernel("eqsat_rows")((rows,), (BLOCK,), (moved, out, np.int64(length), np.int32(mode)))
    return out if mode == 2 else cp.moveaxis(out, -1, axis)


def _reduce(name, inputs, shape, how):
    size = _size(shape)
    grid = _grid(max(size, 1))
    partials = cp.empty(grid, dtype=DTYPE)
    _kernel(name)((grid,), (BLOCK,), (*_parameters(inputs, shape), partials, np.int64(size)))
    return FOLD[how](partials)


{chr(10).join(h + chr(10) for h in helpers)}
def {program.name}({", ".join(args)}):
    """{abbreviated(*outputs, width=200)}"""
{converted}
{chr(10).join(program.lines)}
    return {returned}
'''
