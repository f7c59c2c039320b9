"""The run-time part of elementwise NumPy kernels, copied into each generated module: the
program runs over tiles small enough that its temporaries stay in cache, spread over threads
(NumPy's ufuncs let go of Python's lock), or over whole arrays where tiles do not apply."""

from __future__ import annotations

import contextvars
import math
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

# elements per tile: half a megabyte of float64 per temporary, within a core's L2 cache
# (benchmarks/codegen_numpy.py --tiles, 2 cores, 10^7 float64: median 91.8 ms over whole
# arrays; tiles of 8K 55.6 ms, 32K 32.6, 64K 29.6, 128K 31.8, 512K 31.8)
_TILE = 65536
_TILED_FROM = 1 << 18  # outputs smaller than this run whole: threads would cost more
_THREADS = 0  # threads a call runs in: 0 for one per core (1 in Dask's chunks: Dask spreads)


def _blocks(shape: tuple[int, ...], tile: int) -> list[tuple[Any, ...]]:
    """Index tuples of blocks of at most `tile` elements (at least one row of the last
    axis) that cover an array of this shape in C order: the trailing axes that fit whole,
    the axis before them in chunks, one block per index of the axes before that."""
    inner, axis = 1, len(shape)
    while axis > 0 and inner * shape[axis - 1] <= tile:
        axis -= 1
        inner *= shape[axis]
    if axis == 0:
        return [()]
    step = max(tile // inner, 1)
    return [(*index, slice(start, min(start + step, shape[axis - 1])))
            for index in np.ndindex(*shape[:axis - 1])
            for start in range(0, shape[axis - 1], step)]


def _shape_and_type(inputs: Sequence[Any], members: Sequence[int]) -> tuple[Any, Any]:
    """The broadcast shape and the float type of a value computed from these inputs."""
    chosen = [inputs[i] for i in members] or list(inputs)
    shape = np.broadcast_shapes(*(a.shape for a in chosen)) if members else ()
    return shape, np.result_type(*chosen) if chosen else np.dtype(np.float64)


def _outputs(out: Any, inputs: Sequence[Any], outputs: Sequence[Sequence[int]]
             ) -> tuple[Any, ...]:
    """The arrays the outputs are written into: those given (checked), or new ones."""
    expected = [_shape_and_type(inputs, members) for members in outputs]
    if out is None:
        return tuple(np.empty(shape, dtype) for shape, dtype in expected)
    given = (out,) if isinstance(out, np.ndarray) else tuple(out)
    if len(given) != len(expected):
        raise ValueError(f"out has {len(given)} array(s); the kernel computes "
                         f"{len(expected)}")
    for k, (array, (shape, _)) in enumerate(zip(given, expected, strict=True)):
        if not isinstance(array, np.ndarray) or array.shape != tuple(shape) or \
                array.dtype.kind != "f":
            raise ValueError(f"out[{k}] must be a float array of shape {tuple(shape)}")
    return given


def _run(tile: Callable[..., None], inputs: Sequence[Any], out: Any,
         outputs: Sequence[Sequence[int]], temporaries: Sequence[Sequence[int]]) -> Any:
    """Run a kernel's tile function: over tiles, in threads, where every input is a number
    or of the outputs' one shape and the outputs are large; else once over whole arrays.
    outputs and temporaries: the inputs each one is computed from (its shape and type)."""
    written = _outputs(out, inputs, outputs)
    shape = written[0].shape
    tiled = math.prod(shape) >= _TILED_FROM and \
        all(o.shape == shape for o in written) and \
        all(a.ndim == 0 or a.shape == shape for a in inputs)
    if tiled:
        _tiles(tile, inputs, written, temporaries, shape)
    else:
        spare = [np.empty(*_shape_and_type(inputs, members)) for members in temporaries]
        tile(*inputs, *written, *spare)
    return written[0] if len(written) == 1 else written


def _tiles(tile: Callable[..., None], inputs: Sequence[Any], written: Sequence[Any],
           temporaries: Sequence[Sequence[int]], shape: tuple[int, ...]) -> None:
    """The tile function over blocks of the outputs, the blocks dealt out to threads, each
    thread with temporaries of one tile (a temporary of numbers alone stays a number)."""
    blocks = _blocks(shape, _TILE)
    workers = min(_THREADS or os.cpu_count() or 1, len(blocks))
    kinds = [_shape_and_type(inputs, members) for members in temporaries]
    capacity = written[0][blocks[0]].size  # the first block is a largest one

    def work(part: Sequence[tuple[Any, ...]]) -> None:
        spare = [np.empty(capacity if kind_shape else (), dtype) for kind_shape, dtype in kinds]
        for block in part:
            outs = [o[block] for o in written]
            size, here = outs[0].size, outs[0].shape
            views = [a[block] if a.ndim else a for a in inputs]
            tile(*views, *outs, *(s[:size].reshape(here) if s.ndim else s for s in spare))

    if workers == 1:
        work(blocks)
        return
    # each thread in a copy of the caller's context: np.errstate holds there too
    contexts = [contextvars.copy_context() for _ in range(workers)]
    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(lambda context, part: context.run(work, part), contexts,
                      [blocks[k::workers] for k in range(workers)]))


# what a generated module copies: the values its functions read, and the functions
CONSTANTS = {"_TILE": _TILE, "_TILED_FROM": _TILED_FROM, "_THREADS": _THREADS}
RUNTIME = (_blocks, _shape_and_type, _outputs, _run, _tiles)
