"""The Dask target: arrays in chunks, on one machine or a cluster. An elementwise program is
one blockwise task per chunk and output, each running the output's NumPy kernel on its chunk
(tiled, in one thread: Dask spreads the chunks); a program with reductions or matrix
products is written in Dask's own functions (its tree reductions and blocked products)."""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import EqsatError
from ..term import numeric
from ..term.expr import Expr
from ..term.ops import OPS, TENSOR_OPS
from ..term.printing import Abbreviations, abbreviated
from ..term.walks import symbol_names
from .numpy import (
    MODULE_NAMES,
    NumpyPrinter,
    check_python_names,
    computed_nodes,
    dimension_names,
    helper_source,
    literal,
    module_source,
    numpy_parts,
    tuple_text,
)
from .shapes import CHECK, shape_check

_PRINTER = NumpyPrinter("da")


def _float_type(*values: Any) -> Any:
    """The float type of a result computed from these values: float32 and float64 as they
    are, any other type as float64."""
    types = [np.dtype(getattr(value, "dtype", np.float64)) for value in values]
    return np.result_type(*(t if t.kind == "f" else np.dtype(np.float64) for t in types))


_AS_DASK_FLOAT = '''def _as_dask_float(value, dtype=None):
    """A Dask array of floats: of dtype if given; else float32 and float64 stay as they are
    and the rest become float64."""
    array = da.asarray(value)
    if dtype is not None:
        return array.astype(dtype)
    return array if array.dtype.kind == "f" else array.astype(np.float64)
'''


def print_dask(outputs: Sequence[Expr], args: Sequence[str], name: str = "kernel",
               dtype: str | None = None) -> str:
    """Python source of a module with `def name(*args)` returning Dask arrays (one per
    output), for Dask arrays, NumPy arrays or numbers as arguments."""
    chunk = f"{name}_chunk"
    chunks = {chunk, *(f"{chunk}{k}" for k in range(len(outputs)))}
    check_python_names(args, MODULE_NAMES | {"da"} | chunks, name)
    if not args:
        raise EqsatError("the dask target computes from arrays: give the kernel an argument")
    order = computed_nodes(outputs)
    if all(node.op not in TENSOR_OPS for node in order):
        return _blockwise(outputs, args, name, dtype, chunk)
    return _dask_program(outputs, args, name, dtype, order)


_BLOCKWISE = '''def _blockwise(function, values, dtype):
    """function over the chunks of the values, one task per chunk, broadcast as NumPy
    broadcasts (numbers go to every task as they are)."""
    ndim = max(getattr(value, "ndim", 0) for value in values)
    if ndim == 0:
        return da.asarray(function(*values))
    pairs = []
    for value in values:
        if getattr(value, "ndim", 0) == 0:
            pairs += [value, None]
        else:
            array = da.asarray(value)
            pairs += [array, tuple(range(ndim - array.ndim, ndim))]
    return da.blockwise(function, tuple(range(ndim)), *pairs, dtype=dtype, concatenate=True)
'''


def _blockwise(outputs: Sequence[Expr], args: Sequence[str], name: str, dtype: str | None,
               chunk: str) -> str:
    """`name(*args)`: for each output, da.blockwise of its own NumPy kernel over the chunks
    (one task per chunk and output; outputs that share subterms compute them each)."""
    definitions: list[str] = []
    lines: list[str] = []
    kernels = []
    for k, output in enumerate(outputs):
        kernel = chunk if len(outputs) == 1 else f"{chunk}{k}"
        made, functions = numpy_parts([output], args, kernel, dtype, threads=1)
        definitions += [d for d in made if not d or d not in definitions]
        lines += [*functions, "", ""]
        kernels.append(kernel)
    kind = f"np.{dtype}" if dtype is not None else f"_float_type({', '.join(args)})"
    calls = [f"_blockwise({kernel}, {tuple_text(list(args))}, {kind})" for kernel in kernels]
    shown = abbreviated(*outputs, width=200)
    wrapper = [f"def {name}({', '.join(args)}):",
               f'    """{shown} (Dask: a task per chunk and output)"""',
               f"    return {', '.join(calls)}"]
    helpers = [inspect.getsource(_float_type).rstrip(), "", "", _BLOCKWISE, ""]
    return module_source(outputs, definitions + helpers, lines + wrapper)


def _dask_program(outputs: Sequence[Expr], args: Sequence[str], name: str,
                  dtype: str | None, order: list[Expr]) -> str:
    """`name(*args)` in Dask's functions, one line per node (Dask builds a graph of it)."""
    inputs = symbol_names(outputs)
    dims = dimension_names(args, outputs)
    cast = "" if dtype is None else f", np.{dtype}"
    checked = shape_check(args, outputs)
    lines = [f"def {name}({', '.join(args)}):",
             f'    """{abbreviated(*outputs, width=200)} (Dask)"""', *checked,
             *(f"    {arg} = _as_dask_float({arg}{cast})" for arg in args)]
    names: dict[Expr, str] = {}
    helpers: set[str] = set()
    comment = Abbreviations()
    for node in order:
        if node.is_symbol:
            names[node] = node.name
            continue
        if not inputs[node]:
            names[node] = literal(numeric.evaluate(node, {}))
            continue
        arguments = [names.get(a, "") for a in node.args]  # (an axis is no value)
        names[node] = f"_t{len(names)}"
        if not OPS[node.op].numpy.startswith("np."):  # a helper of eqsat.numeric
            helpers.add(OPS[node.op].numpy)
        lines.append(f"    {names[node]} = {_PRINTER.tensor_call(node, arguments, dims)}"
                     f"  # {comment(node)}")
    lines.append(f"    return {', '.join(names[o] for o in outputs)}")
    definitions = ["", _AS_DASK_FLOAT, ""]
    if checked:
        definitions += [inspect.getsource(CHECK).rstrip(), "", ""]
    for helper in sorted(helpers):
        definitions += [helper_source(getattr(numeric, helper), "da").rstrip(), "", ""]
    return module_source(outputs, definitions, lines)
