"""The NumPy printer: one line per DAG node, shared subterms once, dead buffers reused."""

from __future__ import annotations

import ast
import inspect
import keyword
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import EqsatError
from ..term import numeric
from ..term.expr import Expr
from ..term.ops import OPS, ROWS, SCALAR_KINDS, TENSOR_OPS
from ..term.printing import Abbreviations, Printer, abbreviated
from ..term.shape import ALL_AXES, AXIS_OPS, Shape, shape_of
from ..term.walks import postorder, symbol_names
from .shapes import CHECK, shape_check
from .tiling import CONSTANTS, RUNTIME

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
    """Python source of a module with `def name(*args)` computing the outputs (see
    numpy_parts)."""
    return module_source(outputs, *numpy_parts(outputs, args, name, dtype))


def numpy_parts(outputs: Sequence[Expr], args: Sequence[str], name: str = "kernel",
                dtype: str | None = None, threads: int = 0
                ) -> tuple[list[str], list[str]]:
    """The definitions (helpers, run time) and the functions of a NumPy module computing the
    outputs in `def name(*args)`.

    Inputs become arrays (integers as float64; float32 stays float32; all of `dtype` if
    given). Nodes free of the inputs are folded into literals. An elementwise program is a
    tile function, one line per node writing into temporaries and the outputs (out=, which
    `name` takes too), run over cache-sized tiles in threads for large same-shape inputs and
    over whole arrays otherwise (see tiling.py); a program with reductions or matrix
    products runs over whole arrays, every node depending on the same inputs having their
    broadcast shape and dtype, so that a temporary whose value is dead is written again.
    threads: how many a tiled call runs in (0: one per core).
    """
    check_python_names(args, MODULE_NAMES, name)
    missing = sorted({s.name for e in outputs for s in e.free_symbols()} - set(args))
    if missing:
        raise EqsatError(f"the expression uses {', '.join(missing)}, not among the "
                         f"arguments {list(args)}")
    order = computed_nodes(outputs)
    inputs = symbol_names(outputs)  # each subterm's symbols, in one pass over the DAG
    helpers = sorted({OPS[n.op].numpy for n in order
                      if n.args and inputs[n] and not OPS[n.op].numpy.startswith("np.")})
    cast = "" if dtype is None else f", np.{dtype}"
    checked = shape_check(args, outputs)
    head = [*checked, *(f"    {arg} = _as_float({arg}{cast})" for arg in args)]
    elementwise = _elementwise_nodes(order)
    if all(node in elementwise for node in order):
        lines = _tiled_program(order, outputs, args, name, inputs, head)
        runtime = list(RUNTIME)
    else:
        lines = _whole_program(order, outputs, args, name, inputs, head, elementwise)
        runtime = []
    if any(node.op == "where" for node in order):
        lines = _quiet_branches(lines, f"def {name}(", len(head))
    definitions = ["", _AS_FLOAT, ""]
    if runtime:
        constants = {**CONSTANTS, "_THREADS": threads}
        definitions += [*(f"{key} = {value}" for key, value in constants.items()), ""]
    checks = [CHECK] if checked else []
    for function in [*(getattr(numeric, helper) for helper in helpers), *runtime, *checks]:
        definitions += [inspect.getsource(function).rstrip(), "", ""]
    return definitions, lines


def module_source(outputs: Sequence[Expr], definitions: list[str], lines: list[str]) -> str:
    """A module from its definitions and functions, importing what they use and nothing
    else (so that nothing goes unused or missing, and annotations resolve)."""
    body = "\n".join(definitions + lines)
    source = [f'"""Generated by eqsat: {abbreviated(*outputs)}."""', "", *_imports(body)]
    return "\n".join(source + definitions + lines) + "\n"


def _imports(body: str) -> list[str]:
    """The imports a module's body uses, and nothing else."""
    abc = [name for name in ("Callable", "Sequence") if f"{name}[" in body]
    typed = bool(abc) or "Any" in body
    plain = [f"import {module}" for module in ("contextvars", "math", "os")
             if re.search(rf"\b{module}\.", body)]
    froms = [*(["from collections.abc import " + ", ".join(abc)] if abc else []),
             *(["from concurrent.futures import ThreadPoolExecutor"]
               if "ThreadPoolExecutor" in body else []),
             *(["from typing import Any"] if "Any" in body else [])]
    head = ["from __future__ import annotations", ""] if typed else []
    standard = plain + froms
    arrays = ["import dask.array as da"] if re.search(r"\bda\.", body) else []
    return head + standard + ([""] if standard else []) + arrays + ["import numpy as np", ""]


def _statement(node: Expr, target: str, arguments: list[str], comment: str,
               buffer: bool = False) -> str:
    """The line computing a node into target: out= for a ufunc; else its value written into
    the elements of an output or of a buffer given (a helper gives a NumPy scalar for 0-d
    arrays, which a later out= could not take), or assigned as the temporary's new value."""
    call = _PRINTER.node(node, arguments)
    if node.op in _UFUNC_OUT:
        return f"    {call[:-1]}, out={target})  # {comment}"
    written = f"{target}[...]" if buffer or target.startswith("_out") else target
    return f"    {written} = {call}  # {comment}"


def _tiled_program(order: list[Expr], outputs: Sequence[Expr], args: Sequence[str],
                   name: str, inputs: dict[Expr, frozenset[str]], head: list[str]
                   ) -> list[str]:
    """`_name_tile(*args, *outs, *temporaries)`, and `name(*args, out=None)` running it."""
    last = _last_uses(order)
    targets: dict[Expr, str] = {}  # an output node: the array it is written into (first)
    for k, output in enumerate(outputs):
        if output.args and inputs[output]:
            targets.setdefault(output, f"_out{k}")
    buffers = _Buffers()
    comment = Abbreviations()
    made: list[frozenset[str]] = []  # each temporary's inputs, in the order made
    names: dict[Expr, str] = {}
    body: list[str] = []
    for index, node in enumerate(order):
        if node.is_symbol or not inputs[node]:
            names[node] = node.name if node.is_symbol else _constant(node)
            continue
        for child in set(node.args):  # dead after this node: its buffer is free again
            if last.get(child) == index and names.get(child, "").startswith("_t"):
                buffers.give(inputs[child], names[child])
        target = targets.get(node)
        if target is None:
            target, reused = buffers.take(inputs[node])
            if not reused:
                made.append(inputs[node])
        names[node] = target
        body.append(_statement(node, target, [names[a] for a in node.args], comment(node),
                               buffer=True))
    for k, output in enumerate(outputs):  # a symbol, a constant, or an output named twice
        if names[output] != f"_out{k}":
            body.append(f"    _out{k}[...] = {names[output]}")
    position = {arg: i for i, arg in enumerate(args)}

    def members(key: frozenset[str]) -> str:
        return tuple_text([str(position[n]) for n in sorted(key, key=position.__getitem__)])

    outs = [f"_out{k}" for k in range(len(outputs))]
    temporaries = [f"_t{k}" for k in range(len(made))]
    parameters = ", ".join([*args, *outs, *temporaries])
    shown = abbreviated(*outputs, width=200)
    tile = [f"def _{name}_tile({parameters}):",
            f'    """One tile of {name}: {shown}, into {", ".join(outs)}."""', *body, "", ""]
    kernel = [f"def {name}({', '.join([*args, 'out=None'])}):", f'    """{shown}"""', *head,
              f"    return _run(_{name}_tile, {tuple_text(list(args))}, out, "
              f"{tuple_text([members(frozenset(args))] * len(outputs))}, "
              f"{tuple_text([members(key) for key in made])})"]
    return tile + kernel


def _quiet_branches(lines: list[str], function: str, head: int) -> list[str]:
    """The function's body after its docstring and `head` lines under np.errstate ignoring
    invalid values, division by 0 and overflow: np.where computes both branches of a where,
    and the one not taken may be undefined where it is not taken (log(x) where x <= 0, in
    where(x > 0, expm1(y*log(x)), x^y - 1)), which the where's value is not."""
    start = next(i for i, line in enumerate(lines) if line.startswith(function)) + 2 + head
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("    ")),
               len(lines))
    quiet = '    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):'
    return [*lines[:start], quiet, *("    " + line for line in lines[start:end]),
            *lines[end:]]


def tuple_text(items: list[str]) -> str:
    """A Python tuple's text ("(a,)" for one item)."""
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def _last_uses(order: list[Expr]) -> dict[Expr, int]:
    """Where each value is used for the last time."""
    last: dict[Expr, int] = {}
    for index, node in enumerate(order):
        for child in node.args:
            last[child] = index
    return last


def _whole_program(order: list[Expr], outputs: Sequence[Expr], args: Sequence[str],
                   name: str, inputs: dict[Expr, frozenset[str]], head: list[str],
                   elementwise: set[Expr]) -> list[str]:
    """`name(*args)` over whole arrays: a program with reductions or matrix products."""
    last = _last_uses(order)
    dims = dimension_names(args, outputs)
    lines = [f"def {name}({', '.join(args)}):",
             f'    """{abbreviated(*outputs, width=200)}"""', *head]
    comment = Abbreviations()
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
            lines.append(f"    {names[node]} = {_PRINTER.tensor_call(node, arguments, dims)}"
                         f"  # {comment(node)}")
            continue
        target, reused = buffers.take(inputs[node])
        names[node] = target
        if node.op in _UFUNC_OUT and not reused:
            shape = _shape_of(inputs[node], shapes)
            dtype = _dtype_of(inputs[node])  # comparisons too: 1.0 where true
            lines.append(f"    {target} = np.empty({shape}, {dtype})")
        lines.append(_statement(node, target, arguments, comment(node)))
    lines.append(f"    return {', '.join(names[o] for o in outputs)}")
    return lines


class _Plain(ast.NodeTransformer):
    """A helper's syntax tree without annotations (they would name typing's and
    collections.abc's names, which a generated module does not import), its array module
    renamed."""

    def __init__(self, array_module: str) -> None:
        self.array_module = array_module

    def visit_Name(self, node: ast.Name) -> ast.Name:
        return ast.Name(self.array_module, node.ctx) if node.id == "np" else node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        node.returns = None
        for argument in [*node.args.args, *node.args.kwonlyargs]:
            argument.annotation = None
        self.generic_visit(node)
        return node


def helper_source(helper: Callable[..., Any], array_module: str = "np") -> str:
    """A helper's source for a generated module: without annotations, and with NumPy's name
    np made array_module (cp: CuPy mirrors NumPy's API) in its syntax tree, not its text."""
    tree = _Plain(array_module).visit(ast.parse(inspect.getsource(helper)))
    return ast.unparse(tree) + "\n"


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
MODULE_NAMES = frozenset({"np", "math", "float", "out"}) | {
    op.numpy for op in OPS.values() if op.numpy and not op.numpy.startswith("np.")} | {
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


SMALL_POWERS = (2, 3, 4, -1)  # the integer powers every printer writes by multiplying
_NUMPY_POWERS = {2: "{m}.square({b})", 3: "{m}.multiply({m}.square({b}), {b})",
                 4: "{m}.square({m}.square({b}))", -1: "{m}.reciprocal({b})"}


def small_power(node: Expr) -> int | None:
    """The exponent of a power that the printers multiply out (SMALL_POWERS), else None."""
    exponent = node.args[1].number if node.args[1].is_number else None
    return int(exponent) if exponent in SMALL_POWERS else None


class NumpyPrinter(Printer[str]):
    """The NumPy call computing a node from its arguments' names: the op table's function
    (np.<ufunc> or a helper of eqsat.numeric), but for the special cases below. module: the
    name the array library goes by (da: Dask's arrays mirror NumPy's functions)."""

    def __init__(self, module: str = "np") -> None:
        self.module = module

    def function(self, numpy: str) -> str:
        """The op table's NumPy name in this module (a helper keeps its name)."""
        return f"{self.module}.{numpy.removeprefix('np.')}" if numpy.startswith("np.") \
            else numpy

    def default(self, node: Expr, args: list[str]) -> str:
        return f"{self.function(OPS[node.op].numpy)}({', '.join(args)})"

    def _print_pow(self, node: Expr, args: list[str]) -> str:
        """Small integer powers by multiplying (np.power runs the general pow, some 20 adds'
        time, for x^3); others by np.power."""
        power = small_power(node)
        if power is None:
            return f"{self.module}.power({args[0]}, {args[1]})"
        return _NUMPY_POWERS[power].format(m=self.module, b=args[0])

    def _print_where(self, node: Expr, args: list[str]) -> str:
        return f"{self.module}.where({args[0]} != 0, {args[1]}, {args[2]})"

    def tensor_call(self, node: Expr, arguments: list[str], dims: dict[str, str]) -> str:
        """The line of an op that is not elementwise (a reduction, a matrix product, ...)."""
        if node.op in ("expand", "sum_to"):
            shape = shape_text(shape_of(node.args[1]), dims)
            if node.op == "sum_to":
                return f"sum_to({arguments[0]}, {shape})"
            return f"expand({arguments[0]}, {shape}, {_axis_text(node)})"
        function = self.function(OPS[node.op].numpy)
        if node.op in AXIS_OPS:
            return f"{function}({arguments[0]}, axis={_axis_text(node)})"
        if node.op in TENSOR_OPS:
            return f"{function}({', '.join(arguments)})"
        return self.node(node, arguments)


_PRINTER = NumpyPrinter()
