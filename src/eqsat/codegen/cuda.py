"""The CUDA printer: one fused elementwise kernel (grid-stride loop) per program, its
per-element body a __device__ function, float or double, and a CuPy launcher module."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from ..errors import EqsatError
from ..term import numeric
from ..term.expr import Expr
from ..term.ops import COMPARISONS, OPS
from ..term.printing import Abbreviations, Printer, abbreviated
from ..term.walks import postorder
from .numpy import MODULE_NAMES, check_python_names, small_power

C_TYPES = {"float32": "float", "float64": "double"}
# 16-byte vectors of T, the widest load a thread makes in one instruction, and their lanes
VECTORS = {"float32": ("float4", "xyzw"), "float64": ("double2", "xy")}
# 16-byte groups a thread of name_arrays takes: two in float, one in double, whose body holds
# twice the registers per element (the fastest of one, two and a loop on an H200 in each
# precision: docs/benchmarks.md)
GROUPS_PER_THREAD = {"float32": 2, "float64": 1}
_INFIX = {"add": "+", "sub": "-", "mul": "*", "div": "/"}
_COMPARE = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}
_C_POWERS = {2: "{b} * {b}", 3: "{b} * {b} * {b}", 4: "({b} * {b}) * ({b} * {b})",
             -1: "(T)1 / {b}"}  # numpy.SMALL_POWERS, multiplied out

# device helpers for the ops C's math library lacks; `T` and `S` (the suffix of the math
# functions: "f" for float) are filled in per precision
_HELPERS = {
    "sign": "static __device__ T eqsat_sign{S}(T x) {{ return x > 0 ? (T)1 : x < 0 ? (T)-1 : x; }}",
    "sigmoid": "static __device__ T eqsat_sigmoid{S}(T x) {{ return x >= 0 ? 1 / (1 + exp{S}(-x))"
               " : exp{S}(x) / (1 + exp{S}(x)); }}",
    "softplus": "static __device__ T eqsat_softplus{S}(T x) {{ return fmax{S}(x, (T)0) + "
                "log1p{S}(exp{S}(-fabs{S}(x))); }}",
    "log1mexp": "static __device__ T eqsat_log1mexp{S}(T x) {{ return x > (T)-0.6931471805599453"
                " ? log{S}(-expm1{S}(x)) : log1p{S}(-exp{S}(x)); }}",
    # (sinpi and cospi as term/numeric.py's: the host's C library may lack them)
    "sinpi": "static __device__ T eqsat_sinpi{S}(T x) {{ if (!isfinite(x)) return x - x; "
             "T r = fmod{S}(x, (T)2); T k = rint{S}(2 * r); "
             "T t = (T)3.141592653589793 * (r - k / 2); int q = ((int)k % 4 + 4) % 4; "
             "T v = q % 2 == 0 ? sin{S}(t) : cos{S}(t); return q < 2 ? v : -v; }}",
    "cospi": "static __device__ T eqsat_cospi{S}(T x) {{ if (!isfinite(x)) return x - x; "
             "T r = fmod{S}(x, (T)2); T k = rint{S}(2 * r); "
             "T t = (T)3.141592653589793 * (r - k / 2); int q = ((int)k % 4 + 4) % 4; "
             "T v = q % 2 == 0 ? cos{S}(t) : sin{S}(t); return q == 0 || q == 3 ? v : -v; }}",
    # (erfcx as term/numeric.py's, in double: x^2 split exactly, the series past 26)
    "erfcx": "static __device__ T eqsat_erfcx{S}(T x) {{ double v = x; if (v > 26) {{ "
             "double t = 1 / (2 * v * v), s = 1; for (int k = 7; k > 0; k--) "
             "s = 1 - (2 * k - 1) * t * s; return (T)(s / (v * 1.7724538509055159)); }} "
             "double q = v * v, c = 134217729.0 * v, h = c - (c - v), l = v - h; "
             "double r = ((h * h - q) + 2 * h * l) + l * l; if (!(fabs(r) < 1)) r = 0; "
             "return (T)(exp(q) * (1 + r) * erfc(v)); }}",
    "logaddexp": "static __device__ T eqsat_logaddexp{S}(T a, T b) {{ T m = fmax{S}(a, b); "
                 "return a == b ? a + (T)0.6931471805599453 : "
                 "m + log1p{S}(exp{S}(-fabs{S}(a - b))); }}",
}

PORTABLE = """#ifndef __CUDACC__  /* compiled as C++ on the host: the body runs on the CPU */
#include <math.h>
#define __device__
#endif
#ifndef INFINITY  /* NVRTC (CuPy's compiler) includes no math.h */
#define INFINITY __int_as_float(0x7f800000)
#endif
#ifndef NAN
#define NAN __int_as_float(0x7fffffff)
#endif"""


def _literal(value: float, dtype: str) -> str:
    if math.isnan(value):
        return "NAN"
    if math.isinf(value):
        return "INFINITY" if value > 0 else "-INFINITY"
    text = repr(float(value))
    if "e" not in text and "." not in text:
        text += ".0"
    return f"{text}f" if dtype == "float32" else text


# what the launcher modules define besides the arguments
LAUNCHER_NAMES = MODULE_NAMES | {"cp", "SOURCE", "DTYPE", "ARGS", "OUTPUTS", "BLOCK", "FOLD",
                                 "FLAT_BLOCK", "LANES", "GROUPS"}


def _check_names(args: Sequence[str], name: str) -> None:
    check_python_names(args, LAUNCHER_NAMES, name)
    for arg in [*args, name]:
        if arg.startswith("eqsat_") or arg in _RESERVED or \
                re.fullmatch(r"out\d+|.*_step|.*_body", arg):
            raise EqsatError(f"name {arg!r} is not usable in CUDA C (an identifier that is "
                             "not a keyword, does not start with _ and is not a math function)")


_RESERVED = frozenset({"int", "float", "double", "long", "char", "short", "void", "const",
                       "return", "if", "else", "for", "while", "do", "switch", "case", "break",
                       "continue", "goto", "static", "extern", "struct", "union", "enum",
                       "typedef", "sizeof", "signed", "unsigned", "volatile", "auto",
                       "register", "inline", "restrict", "bool", "true", "false", "n", "i",
                       "T", "NAN", "INFINITY", "main", "stride", "new", "delete", "class",
                       "template",
                       "namespace", "this", "default", "public", "private", "virtual"}) | {
    f"{f}{s}" for op in OPS.values() for f in [op.name] for s in ("", "f")} | {
    n for op in OPS.values() for n in op.cuda if n}


def print_cuda(outputs: Sequence[Expr], args: Sequence[str], name: str = "kernel",
               dtype: str = "float32") -> str:
    """CUDA C: `name_body`, a __device__ function of one element (inputs by value, outputs
    through pointers), and `name`, a __global__ grid-stride loop over n elements calling it.
    Each input comes with a step: 1 for an array, 0 for a scalar broadcast to all. With them,
    `name_arrays` for inputs that are all arrays, 16-byte aligned (see arrays_kernel)."""
    check_program(outputs, args, name, dtype)
    body, helpers = device_body(outputs, args, name, dtype)
    lines = header(outputs, dtype, helpers) + body + elementwise_kernels(args, len(outputs),
                                                                         name, dtype)
    return "\n".join(lines)


def check_program(outputs: Sequence[Expr], args: Sequence[str], name: str, dtype: str) -> None:
    """The dtype, the names, and every symbol among the arguments."""
    if dtype not in C_TYPES:
        raise EqsatError(f"dtype is 'float32' or 'float64' for CUDA, not {dtype!r}")
    _check_names(args, name)
    missing = sorted({s.name for e in outputs for s in e.free_symbols()} - set(args))
    if missing:
        raise EqsatError(f"the expression uses {', '.join(missing)}, not among the "
                         f"arguments {list(args)}")


def header(outputs: Sequence[Expr], dtype: str, helpers: set[str]) -> list[str]:
    """The opening of a source: what it computes, host portability, T, device helpers."""
    suffix = "f" if dtype == "float32" else ""
    vector, lanes = VECTORS[dtype]
    lines = [f"/* Generated by eqsat ({C_TYPES[dtype]}): {abbreviated(*outputs)} */",
             PORTABLE, f"typedef {C_TYPES[dtype]} T;", "#ifdef __CUDACC__",
             f"typedef {vector} eqsat_vec;",
             f"static __device__ eqsat_vec eqsat_splat(T s) {{ return make_{vector}("
             f"{', '.join('s' for _ in lanes)}); }}",
             "static __device__ bool eqsat_aligned(const T* p) { "
             "return ((unsigned long long)p & 15) == 0; }", "#endif", ""]
    return lines + [_HELPERS[h].format(S=suffix) for h in sorted(helpers)]


def device_body(outputs: Sequence[Expr], args: Sequence[str], name: str,
                dtype: str) -> tuple[list[str], set[str]]:
    """`name_body`: the per-element __device__ function, and the helpers it calls. A
    where(c, a, b) is an if/else: each branch computes, in its own block, what it needs that
    is not computed yet, so an element takes only its branch's work (a regime's series or
    the exact form, not both)."""
    body = _Body(CudaPrinter(dtype), dtype)
    computed: dict[Expr, str] = {}
    results = [f"    *out{k} = {body.emit(o, computed, '    ')};" for k, o in enumerate(outputs)]
    inputs = ", ".join(f"T {a}" for a in args)
    pointers = ", ".join(f"T* out{k}" for k in range(len(outputs)))
    lines = ["", f'extern "C" __device__ void {name}_body({inputs}{", " if args else ""}'
                 f"{pointers}) {{", *body.lines, *results, "}", ""]
    return lines, body.helpers


class _Body:
    """The statements of a device body, written block by block."""

    def __init__(self, printer: CudaPrinter, dtype: str) -> None:
        self.printer, self.dtype = printer, dtype
        self.comment = Abbreviations()
        self.lines: list[str] = []
        self.helpers: set[str] = set()
        self.count = 0

    def emit(self, root: Expr, computed: dict[Expr, str], indent: str) -> str:
        """Statements computing root (and what it needs that `computed` lacks) at this
        indent; returns the name of its value. A branch's own values stay in its block; what
        is needed whatever the branches decide and does not wait on one comes first, so that a
        branch finds it computed."""
        needed = _unconditional(root)
        branching: set[Expr] = set()  # a where, or a term over one
        for node in needed:
            if node.op == "where" or any(a in branching for a in node.args):
                branching.add(node)
        for node in [*(n for n in needed if n not in branching),
                     *(n for n in needed if n in branching)]:
            if node in computed:
                continue
            if node.is_symbol:
                computed[node] = node.name
            elif not node.free_symbols():
                computed[node] = _literal(float(numeric.evaluate(node, {})), self.dtype)
            elif node.op == "where":
                computed[node] = self._branches(node, computed, indent)
            else:
                computed[node] = self._fresh()
                text = self.printer.node(node, [computed[a] for a in node.args])
                if node.op in _HELPERS:
                    self.helpers.add(node.op)
                self.lines.append(f"{indent}const T {computed[node]} = {text};  "
                                  f"/* {self.comment(node)} */")
        return computed[root]

    def _branches(self, node: Expr, computed: dict[Expr, str], indent: str) -> str:
        condition, when_true, when_false = node.args
        test = self.emit(condition, computed, indent)
        name = self._fresh()
        self.lines.append(f"{indent}T {name};  /* {self.comment(node)} */")
        self.lines.append(f"{indent}if ({test} != 0) {{")
        value = self.emit(when_true, dict(computed), indent + "    ")
        self.lines += [f"{indent}    {name} = {value};", f"{indent}}} else {{"]
        value = self.emit(when_false, dict(computed), indent + "    ")
        self.lines += [f"{indent}    {name} = {value};", f"{indent}}}"]
        return name

    def _fresh(self) -> str:
        self.count += 1
        return f"_t{self.count - 1}"


def _unconditional(root: Expr) -> list[Expr]:
    """The subterms root needs whatever its branches decide, in postorder, a where a leaf
    (its condition, then each branch in its own block, are emitted with it)."""
    return postorder(root, lambda node: node.op != "where")


def _parameters(args: Sequence[str]) -> str:
    return "".join(f"const T* __restrict__ {a}, long long {a}_step, " for a in args)


def _loads(args: Sequence[str]) -> list[str]:
    return [f"{a}[i * {a}_step]" for a in args]


def elementwise_kernel(args: Sequence[str], outputs: int, name: str, dtype: str) -> list[str]:
    """`name`: a grid-stride loop calling name_body on each of n elements. Where every array
    is 16-byte aligned, a thread loads and stores 16 bytes at a time (four floats, two
    doubles): one element a load leaves the memory idle part of the time in float (measured:
    docs/benchmarks.md); the last elements, or all of them where an array is not aligned,
    go one at a time."""
    lanes = VECTORS[dtype][1]
    outs = "".join(f"T* __restrict__ out{k}, " for k in range(outputs))
    aligned = " && ".join([f"({a}_step == 0 || eqsat_aligned({a}))" for a in args] +
                          [f"eqsat_aligned(out{k})" for k in range(outputs)])
    loads = [f"        const eqsat_vec eqsat_in_{a} = {a}_step ? "
             f"reinterpret_cast<const eqsat_vec*>({a})[q] : eqsat_splat({a}[0]);" for a in args]
    calls = [f"        {name}_body(" + ", ".join([f"eqsat_in_{a}.{lane}" for a in args] +
                                                [f"&eqsat_out{k}.{lane}" for k in range(outputs)])
             + ");" for lane in lanes]
    stores = [f"        reinterpret_cast<eqsat_vec*>(out{k})[q] = eqsat_out{k};"
              for k in range(outputs)]
    scalar = ", ".join(_loads(args) + [f"&out{k}[i]" for k in range(outputs)])
    return ["#ifdef __CUDACC__",
            f'extern "C" __global__ void {name}({_parameters(args)}{outs}long long n) {{',
            "    const long long stride = (long long)blockDim.x * gridDim.x;",
            "    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;",
            f"    if ({aligned}) {{",
            f"        const long long groups = n / {len(lanes)};",
            "        for (long long q = i; q < groups; q += stride) {",
            *(f"    {line}" for line in loads),
            *(f"            eqsat_vec eqsat_out{k};" for k in range(outputs)),
            *(f"    {line}" for line in calls),
            *(f"    {line}" for line in stores),
            "        }",
            f"        i += groups * {len(lanes)};",
            "    }",
            "    for (; i < n; i += stride) {", f"        {name}_body({scalar});", "    }",
            "}", "#endif", ""]


def arrays_kernel(args: Sequence[str], outputs: int, name: str, dtype: str) -> list[str]:
    """`name_arrays`: where every input is an array and every array 16-byte aligned (the
    launcher checks), each thread takes GROUPS_PER_THREAD 16-byte groups, a block's threads
    side by side, and no thread loops: a grid-stride loop over groups with a step for each
    input holds more registers, in double up to twice as many (docs/benchmarks.md). The
    launcher gives the elements past the last whole group to `name`."""
    lanes = VECTORS[dtype][1]
    inputs = "".join(f"const T* __restrict__ {a}, " for a in args)
    outs = "".join(f"T* __restrict__ out{k}, " for k in range(outputs))
    group = [*(f"            const eqsat_vec eqsat_in_{a} = "
               f"reinterpret_cast<const eqsat_vec*>({a})[q];" for a in args),
             *(f"            eqsat_vec eqsat_out{k};" for k in range(outputs)),
             *(f"            {name}_body(" + ", ".join(
                 [f"eqsat_in_{a}.{lane}" for a in args] +
                 [f"&eqsat_out{k}.{lane}" for k in range(outputs)]) + ");" for lane in lanes),
             *(f"            reinterpret_cast<eqsat_vec*>(out{k})[q] = eqsat_out{k};"
               for k in range(outputs))]
    lines = ["#ifdef __CUDACC__",
             f'extern "C" __global__ void {name}_arrays({inputs}{outs}long long groups) {{',
             f"    const long long first = (long long)blockIdx.x * blockDim.x * "
             f"{GROUPS_PER_THREAD[dtype]} + threadIdx.x;"]
    for k in range(GROUPS_PER_THREAD[dtype]):
        lines += ["    {", f"        const long long q = first + {k} * (long long)blockDim.x;",
                  "        if (q < groups) {", *group, "        }", "    }"]
    return [*lines, "}", "#endif", ""]


def elementwise_kernels(args: Sequence[str], outputs: int, name: str, dtype: str) -> list[str]:
    """The two kernels of an elementwise region: the grid-stride `name` and `name_arrays`."""
    return (elementwise_kernel(args, outputs, name, dtype) +
            arrays_kernel(args, outputs, name, dtype))


# how a block combines two partial results of a reduction, and where it starts
COMBINE = {"sum": ("a + b", "0"), "prod": ("a * b", "1"), "amax": ("fmax(a, b)", "-INFINITY"),
           "amin": ("fmin(a, b)", "INFINITY")}


def reduction_kernel(args: Sequence[str], how: str, name: str, block: int) -> list[str]:
    """`name`: each thread folds name_body over a grid-stride range of the n elements; each
    block folds its threads' results in shared memory and writes one partial result (the
    launcher folds those few)."""
    combine, start = COMBINE[how]
    loads = ", ".join([*_loads(args), "&value"])
    return ["#ifdef __CUDACC__",
            f"static __device__ T {name}_combine(T a, T b) {{ return {combine}; }}",
            f'extern "C" __global__ void {name}({_parameters(args)}T* __restrict__ partials, '
            "long long n) {",
            f"    __shared__ T cache[{block}];",
            f"    T total = (T){start};",
            "    const long long stride = (long long)blockDim.x * gridDim.x;",
            "    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;"
            " i += stride) {",
            "        T value;",
            f"        {name}_body({loads});",
            f"        total = {name}_combine(total, value);",
            "    }",
            "    cache[threadIdx.x] = total;",
            "    __syncthreads();",
            "    for (int half = blockDim.x / 2; half > 0; half >>= 1) {",
            "        if (threadIdx.x < half) {",
            f"            cache[threadIdx.x] = {name}_combine(cache[threadIdx.x], "
            "cache[threadIdx.x + half]);",
            "        }",
            "        __syncthreads();",
            "    }",
            "    if (threadIdx.x == 0) partials[blockIdx.x] = cache[0];",
            "}", "#endif", ""]


class CudaPrinter(Printer[str]):
    """The C expression computing a node from its arguments' names, in T (float or
    double): operators inline, functions by the op table's C names for that type."""

    def __init__(self, dtype: str) -> None:
        self.dtype = dtype

    def default(self, node: Expr, args: list[str]) -> str:
        op = node.op
        if op in _INFIX:
            return f"{args[0]} {_INFIX[op]} {args[1]}"
        if op in COMPARISONS:
            return f"(T)({args[0]} {_COMPARE[op]} {args[1]})"
        function = OPS[op].cuda[0 if self.dtype == "float32" else 1]
        if not function:
            raise EqsatError(f"no CUDA function for {op}")
        return f"{function}({', '.join(args)})"

    def _print_neg(self, node: Expr, args: list[str]) -> str:
        return f"-{args[0]}"

    def _print_pow(self, node: Expr, args: list[str]) -> str:
        """Small integer powers by multiplying, as the NumPy printer does: pow is no more
        accurate than two roundings and far slower (two pow calls took half the time of the
        benchmark's 27-op chain on an H200); other powers by pow."""
        power = small_power(node)
        return self.default(node, args) if power is None else \
            _C_POWERS[power].format(b=args[0])


# the launchers' argument check: a float array of another dtype is an error, not a copy
OPERAND = '''def _operand(value, name):
    dtype = getattr(value, "dtype", None)
    if dtype is not None and dtype.kind == "f" and dtype != DTYPE:
        raise TypeError(f"argument {name} has dtype {dtype}: this kernel was compiled "
                        f"for {np.dtype(DTYPE)}")
    return cp.asarray(value, dtype=DTYPE)
'''

# the launchers' grid: blocks enough to fill every multiprocessor 32 times over, at most; the
# count is read once per device (reading Device().attributes costs about a launch)
GRID = '''_processors = {}


def _multiprocessors():
    device = cp.cuda.runtime.getDevice()
    if device not in _processors:
        _processors[device] = cp.cuda.runtime.getDeviceProperties(device)["multiProcessorCount"]
    return _processors[device]


def _grid(size):
    return max(1, min((size + BLOCK - 1) // BLOCK, _multiprocessors() * 32))
'''


# how the launchers start an elementwise kernel: name_arrays over the whole 16-byte groups where
# every input is an array and every array 16-byte aligned, the grid-stride name over the rest
LAUNCH = '''FLAT_BLOCK = 128


def _launch_elementwise(name, params, results, size):
    arrays, steps = params[0::2], params[1::2]
    whole = all(int(step) == 1 for step in steps) and all(
        array.data.ptr % 16 == 0 for array in (*arrays, *results))
    done = size // LANES * LANES if whole else 0
    if done:
        threads = FLAT_BLOCK * GROUPS
        _kernel(name + "_arrays")(((done // LANES + threads - 1) // threads,), (FLAT_BLOCK,),
                                  (*arrays, *results, np.int64(done // LANES)))
    if size > done:
        rest = [*params, *results]
        if done:  # the elements past the whole groups: views that start there
            rest = []
            for array, step in zip(arrays, steps):
                rest += [array.ravel()[done:] if int(step) else array, step]
            rest += [result.ravel()[done:] for result in results]
        _kernel(name)((_grid(size - done),), (BLOCK,), (*rest, np.int64(size - done)))
'''


def launch_constants(dtype: str) -> str:
    """The launchers' LANES (elements in 16 bytes) and GROUPS (16-byte groups a thread of
    name_arrays takes) for one precision."""
    return (f"LANES = {len(VECTORS[dtype][1])}\n"
            f"GROUPS = {GROUPS_PER_THREAD[dtype]}")


def print_launcher(cuda_source: str, outputs: int, args: Sequence[str], name: str,
                   dtype: str, description: str) -> str:
    """A self-contained Python module (cupy and numpy) that compiles the source with
    cupy.RawKernel and launches it: broadcasting in the launcher, scalars with step 0."""
    return f'''"""Generated by eqsat: {description} (CUDA, {dtype})."""

import cupy as cp
import numpy as np

SOURCE = r"""
{cuda_source}"""
DTYPE = np.{dtype}
ARGS = {list(args)!r}
OUTPUTS = {outputs}
BLOCK = 256
{launch_constants(dtype)}
_compiled = {{}}


def _kernel(name):
    if name not in _compiled:
        _compiled[name] = cp.RawKernel(SOURCE, name)
    return _compiled[name]


{OPERAND}

{GRID}

{LAUNCH}

def {name}({", ".join(args)}):
    """{description}"""
    values = ({", ".join(args)}{"," if len(args) == 1 else ""})
    arrays = [_operand(v, n) for v, n in zip(values, ARGS)]
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    size = int(np.prod(shape, dtype=np.int64))
    params = []
    for array in arrays:
        if array.size == 1:  # a scalar: every element reads it (step 0)
            params += [array.reshape(1), np.int64(0)]
        elif array.shape == shape:
            params += [cp.ascontiguousarray(array), np.int64(1)]
        else:  # a partial broadcast is expanded
            params += [cp.ascontiguousarray(cp.broadcast_to(array, shape)), np.int64(1)]
    results = [cp.empty(shape, dtype=DTYPE) for _ in range(OUTPUTS)]
    if size:
        _launch_elementwise({name!r}, params, results, size)
    return results[0] if OUTPUTS == 1 else tuple(results)
'''
