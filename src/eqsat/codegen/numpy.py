"""The NumPy printer: one line per DAG node, shared subterms once, dead buffers reused."""

from __future__ import annotations

import inspect
import keyword
from collections.abc import Sequence
from dataclasses import dataclass, field

from .. import numeric
from ..errors import EqsatError
from ..expr import Expr, postorder, symbol_names
from ..ops import OPS, ROWS, SCALAR_KINDS, TENSOR_OPS
from ..printing import Printer, abbreviated
from ..shape import ALL_AXES, AXIS_OPS, Shape, shape_of

# ops whose NumPy function is a ufunc that can write into a given buffer with out=
_UFUNC_OUT = {name for name, op in OPS.items() if op.numpy.startswith("np.") and
              op.kind in SCALAR_KINDS and name not in ("where", "matmul")}


# relative time per element of each op's NumPy function (add = 1, the op table's numpy_cost,
# measured with NumPy 2 on 10^6 float64): the cost model of DAG extraction for this target, so
# that simplify does not trade exp(x)/(1 + exp(x)) for a slower sigmoid
COSTS: dict[str, float] = {"sym": 0, "num": 0, **{op.name: op.numpy_cost for op in ROWS
                                                  if op.numpy_cost is not None}}


@dataclass
class _Buffers:
    """Temporaries per input set (their broadcast shape and dtype): a dead one is handed out
    again."""

    free: dict[frozenset[str], list[str]] = field(default_factory=dict)
    count: int = 0

    def take(self, key: frozenset[str]) -> tuple[str, bool]:
        pool = self.free.get(key, [])
        if pool:
            return pool.pop(), True
        self.count += 1
        return f"_t{self.count - 1}", False

    def give(self, key: frozenset[str], name: str) -> None:
        self.free.setdefault(key, []).append(name)


def literal(value: object) -> str:
    text = repr(float(value))  # type: ignore[arg-type]
    return text if text not in ("inf", "-inf", "nan") else f"float({text!r})"


def print_numpy(outputs: Sequence[Expr], args: Sequence[str], name: str = "kernel",
                dtype: str | None = None) -> str:
    """Python source of a module with `def name(*args)` computing the outputs.

    Inputs become arrays (integers as float64; float32 stays float32; all of `dtype` if
    given); every node depending
    on the same inputs has their broadcast shape and dtype, so a temporary whose value is
    dead is written again with out=. Nodes free of the inputs are folded into literals.
    """
    check_python_names(args, MODULE_NAMES, name)
    missing = sorted({s.name for e in outputs for s in e.free_symbols()} - set(args))
    if missing:
        raise EqsatError(f"the expression uses {', '.join(missing)}, not among the "
                         f"arguments {list(args)}")
    order = computed_nodes(outputs)
    last: dict[Expr, int] = {}  # where each value is used for the last time
    for index, node in enumerate(order):
        for child in node.args:
            last[child] = index
    inputs = symbol_names(outputs)  # each subterm's symbols, in one pass over the DAG
    helpers = sorted({OPS[n.op].numpy for n in order
                      if n.args and inputs[n] and not OPS[n.op].numpy.startswith("np.")})
    elementwise = _elementwise_nodes(order)
    dims = dimension_names(args, outputs)
    lines = [f"def {name}({', '.join(args)}):",
             f'    """{abbreviated(*outputs, width=200)}"""']
    cast = "" if dtype is None else f", np.{dtype}"
    for arg in args:
        lines.append(f"    {arg} = _as_float({arg}{cast})")
    shapes: dict[frozenset[str], str] = {}
    for node in order:
        key = inputs[node]
        if len(key) > 1 and key not in shapes and node.args and node in elementwise:
            shapes[key] = f"_s{len(shapes)}"
            members = ", ".join(sorted(key))
            lines.append(f"    {shapes[key]} = np.broadcast({members})")
    buffers = _Buffers()
    names: dict[Expr, str] = {}
    outputs_set = set(outputs)
    for index, node in enumerate(order):
        if node.is_symbol:
            names[node] = node.name
            continue
        if not inputs[node]:
            names[node] = _constant(node)
            continue
        arguments = [names.get(a, "") for a in node.args]
        for child in set(node.args):  # dead after this node: its buffer is free again
            if last.get(child) == index and child not in outputs_set and \
                    child in elementwise and names.get(child, "").startswith("_t"):
                buffers.give(inputs[child], names[child])
        if node not in elementwise:  # its shape is not its inputs' broadcast one
            names[node] = f"_t{buffers.count}"
            buffers.count += 1
            lines.append(f"    {names[node]} = {_tensor_call(node, arguments, dims)}"
                         f"  # {abbreviated(node)}")
            continue
        target, reused = buffers.take(inputs[node])
        names[node] = target
        call = _PRINTER.node(node, arguments)
        if node.op in _UFUNC_OUT:
            if not reused:
                shape = _shape_of(inputs[node], shapes)
                dtype = _dtype_of(inputs[node])  # comparisons too: 1.0 where true
                lines.append(f"    {target} = np.empty({shape}, {dtype})")
            lines.append(f"    {call[:-1]}, out={target})  # {abbreviated(node)}")
        else:
            lines.append(f"    {target} = {call}  # {abbreviated(node)}")
    results = [names[o] for o in outputs]
    returned = ", ".join(results)
    lines.append(f"    return {returned}")
    definitions = ["", _AS_FLOAT, ""]
    if "erf" in helpers or "erfc" in helpers:  # numeric's erf and erfc call these
        definitions[:0] = ["_erf = np.frompyfunc(math.erf, 1, 1)",
                           "_erfc = np.frompyfunc(math.erfc, 1, 1)", ""]
    for helper in helpers:
        definitions += [inspect.getsource(getattr(numeric, helper)).rstrip(), "", ""]
    body = "\n".join(definitions + lines)  # nothing imported goes unused or missing:
    typed = ": Any" in body  # helpers' annotations resolve (typing.get_type_hints)
    source = [f'"""Generated by eqsat: {abbreviated(*outputs)}."""', "",
              *(["from __future__ import annotations", ""] if typed else []),
              *(["import math"] if "math." in body else []),
              *(["from typing import Any"] if typed else []),
              *([""] if typed or "math." in body else []), "import numpy as np", ""]
    return "\n".join(source + definitions + lines) + "\n"


_AS_FLOAT = '''def _as_float(value, dtype=None):
    """An array of floats: of dtype if given; else float32 and float64 stay as they are and
    the rest become float64."""
    array = np.asarray(value)
    if dtype is not None:
        return array.astype(dtype, copy=False)
    return array if array.dtype.kind == "f" else array.astype(np.float64)
'''


# the names the generated module defines or uses besides the arguments; its own temporaries
# start with "_", which no argument may
MODULE_NAMES = frozenset({"np", "math", "float"}) | {op.numpy for op in OPS.values() if op.numpy and
                                            not op.numpy.startswith("np.")} | {
    "expand", "sum_to", "logsumexp", "softmax", "log_softmax"}


def plain_identifier(name: object) -> bool:
    """An ASCII identifier, not a keyword, without a leading underscore. Python reads other
    identifiers in NFKC form: a full-width or ligature spelling of np or fi would become that
    name in a generated module."""
    return isinstance(name, str) and name.isascii() and name.isidentifier() and \
        not keyword.iskeyword(name) and not name.startswith("_")


def check_python_names(args: Sequence[str], reserved: frozenset[str],
                       name: str = "kernel") -> None:
    """Argument and kernel names that are plain identifiers and shadow nothing the generated
    module needs (not one of `reserved`)."""
    for kind, given in [*(("argument", arg) for arg in args), ("kernel", name)]:
        if not plain_identifier(given):
            raise EqsatError(f"{kind} name {given!r} is not a plain ASCII Python identifier")
        if given in reserved:
            raise EqsatError(f"{kind} name {given!r} would hide a name the generated code "
                             "uses: rename it")


def computed_nodes(outputs: Sequence[Expr]) -> list[Expr]:
    """The nodes a program computes, children first: not the witnesses whose shape is all
    expand and sum_to take from them, nor the axis of a reduction."""
    needed: set[Expr] = set()  # reachable from an output through arguments that are values
    stack = list(outputs)
    while stack:
        current = stack.pop()
        if current not in needed:
            needed.add(current)
            stack += [current.args[k] for k in _value_arguments(current)]
    order: list[Expr] = []
    for output in outputs:
        for node in postorder(output):
            if node in needed:
                needed.discard(node)
                order.append(node)
    return order


def _value_arguments(node: Expr) -> range | tuple[int, ...]:
    if node.op in ("expand", "sum_to"):
        return (0,)
    if node.op in AXIS_OPS:
        return range(len(node.args) - 1)
    return range(len(node.args))


def _elementwise_nodes(order: list[Expr]) -> set[Expr]:
    """Nodes with only elementwise ops below them: their shape is their inputs' broadcast."""
    found: set[Expr] = set()
    for node in order:
        if node.op not in TENSOR_OPS and all(a in found or not a.args for a in node.args):
            found.add(node)
    return found


def dimension_names(args: Sequence[str], outputs: Sequence[Expr]) -> dict[str, str]:
    """Where each named dimension can be read at run time: `A.shape[0]`."""
    symbols = {s.name: s for e in outputs for s in e.free_symbols()}
    found: dict[str, str] = {}
    for arg in args:
        for axis, dim in enumerate(symbols[arg].shape if arg in symbols else ()):
            if isinstance(dim, str):
                found.setdefault(dim, f"{arg}.shape[{axis}]")
    return found


def shape_text(shape: Shape, dims: dict[str, str]) -> str:
    parts = [str(d) if isinstance(d, int) else dims[d] for d in shape]
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


def _tensor_call(node: Expr, arguments: list[str], dims: dict[str, str]) -> str:
    """The line of an op that is not elementwise (a reduction, a matrix product, ...)."""
    if node.op in ("expand", "sum_to"):
        shape = shape_text(shape_of(node.args[1]), dims)
        if node.op == "sum_to":
            return f"sum_to({arguments[0]}, {shape})"
        return f"expand({arguments[0]}, {shape}, {_axis_text(node)})"
    if node.op in AXIS_OPS:
        return f"{OPS[node.op].numpy}({arguments[0]}, axis={_axis_text(node)})"
    if node.op in TENSOR_OPS:
        return f"{OPS[node.op].numpy}({', '.join(arguments)})"
    return _PRINTER.node(node, arguments)


def _axis_text(node: Expr) -> str:
    axis = int(node.args[-1].number)
    return "None" if axis == ALL_AXES else str(axis)


def _shape_of(members: frozenset[str], shapes: dict[frozenset[str], str]) -> str:
    if len(members) == 1:
        (only,) = members
        return f"{only}.shape"
    return f"{shapes[members]}.shape"


def _dtype_of(members: frozenset[str]) -> str:
    return f"np.result_type({', '.join(sorted(members))})"


def _constant(node: Expr) -> str:
    value = numeric.evaluate(node, {})
    return literal(value)


class NumpyPrinter(Printer[str]):
    """The NumPy call computing a node from its arguments' names: the op table's function
    (np.<ufunc> or a helper of eqsat.numeric), but for the special cases below."""

    def default(self, node: Expr, args: list[str]) -> str:
        return f"{OPS[node.op].numpy}({', '.join(args)})"

    def _print_pow(self, node: Expr, args: list[str]) -> str:
        if node.args[1].is_number and node.args[1].number == 2:
            return f"np.square({args[0]})"
        return f"np.power({args[0]}, {args[1]})"

    def _print_where(self, node: Expr, args: list[str]) -> str:
        return f"np.where({args[0]} != 0, {args[1]}, {args[2]})"


_PRINTER = NumpyPrinter()
