"""Tiled NumPy kernels: the blocks cover an array once, and a kernel run over tiny tiles in
threads gives what it gives over whole arrays, on every op and on awkward inputs."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest

import eqsat
from eqsat.codegen.tiling import _blocks
from eqsat.term.ops import ROWS

RNG = np.random.default_rng(7)


@pytest.mark.parametrize("shape", [(1,), (10,), (3, 5, 7), (2, 1, 9), (4, 3), (1, 1, 1)])
@pytest.mark.parametrize("tile", [1, 4, 7, 100])
def test_blocks_cover_the_array_once_and_hold_at_most_a_tile(shape: tuple[int, ...],
                                                             tile: int) -> None:
    seen = np.zeros(shape, dtype=int)
    for block in _blocks(shape, tile):
        assert seen[block].size <= tile
        seen[block] += 1
    assert (seen == 1).all()


@contextmanager
def tiles_of(kernel: Any, size: int) -> Iterator[list[int]]:
    """Within: the kernel runs over tiles of `size` elements from the smallest arrays on;
    yields the worker counts of the thread pools it starts."""
    names = kernel.function.__globals__
    saved = {name: names[name] for name in ("_TILE", "_TILED_FROM", "ThreadPoolExecutor")}
    pools: list[int] = []

    def counted(workers: int) -> Any:
        pools.append(workers)
        return saved["ThreadPoolExecutor"](workers)

    names.update(_TILE=size, _TILED_FROM=1, ThreadPoolExecutor=counted)
    try:
        yield pools
    finally:
        names.update(saved)


SCALAR_OPS = [op for op in ROWS if op.reference is not None and op.kind != "constant"]


@pytest.mark.parametrize("op", SCALAR_OPS, ids=lambda op: op.name)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_every_op_gives_the_same_over_tiles(op: eqsat.term.ops.Op, dtype: type) -> None:
    args = [eqsat.parse(n) for n in "xyz"[:op.arity]]
    kernel = eqsat.compile(eqsat.term.expr.make(op.name, *args), optimize=None)
    values = [RNG.uniform(0.1, 0.9, 1000).astype(dtype) for _ in args]
    with np.errstate(all="ignore"):  # acosh and log1mexp: NaN outside their domains
        whole = kernel(*values)
        with tiles_of(kernel, 64) as pools:
            tiled = kernel(*values)
    np.testing.assert_array_equal(tiled, whole)  # the same ufuncs on the same elements
    assert tiled.dtype == whole.dtype == dtype
    assert pools and all(workers >= 1 for workers in pools)


SOURCES = ["exp(x) - 1 + sin(x)*y", "sigmoid(x)*erf(y) + x", "where(x > y, x*y, x - y)",
           "log1mexp(-x*x - 1)/(1 + y^2)"]


def _awkward_inputs() -> list[tuple[str, Any, Any]]:
    """(label, x, y): arrays that tile, and arrays that must run whole."""
    grid = RNG.uniform(-2, 2, (40, 30))
    other = RNG.uniform(-2, 2, (40, 30))
    return [
        ("same shape", grid, other),
        ("a number", grid, np.float64(0.75)),
        ("a 0-d array", np.array(0.5), other),
        ("non-contiguous", RNG.uniform(-2, 2, (40, 60))[:, ::2], other),
        ("Fortran order", np.asfortranarray(grid), np.asfortranarray(other)),
        ("length-1 axis", grid[:, :1], other),  # broadcast: runs whole
        ("row against column", grid[:1, :], grid[:, :1]),  # runs whole
        ("float32 and float64", grid.astype(np.float32), other),
    ]


@pytest.mark.parametrize("text", SOURCES)
@pytest.mark.parametrize(("label", "x", "y"), _awkward_inputs(),
                         ids=[label for label, _, _ in _awkward_inputs()])
def test_tiles_agree_with_whole_arrays_on_awkward_inputs(text: str, label: str, x: Any,
                                                         y: Any) -> None:
    kernel = eqsat.compile(text, ["x", "y"])
    expected = eqsat.evaluate(kernel.outputs[0], x=x, y=y)
    whole = kernel(x, y)
    with tiles_of(kernel, 16):
        tiled = kernel(x, y)
    np.testing.assert_array_equal(tiled, whole)
    np.testing.assert_allclose(whole, expected, rtol=1e-6 if whole.dtype == np.float32
                               else 1e-12, atol=1e-12)


def test_results_go_into_the_arrays_given_as_out() -> None:
    kernel = eqsat.compile(["exp(x)*y", "x + y", "x"], ["x", "y"])
    x, y = RNG.uniform(-1, 1, (2, 5000))
    given = (np.empty(5000), np.empty((2, 5000))[1], np.empty(5000, np.float32))
    with tiles_of(kernel, 256) as pools:
        found = kernel(x, y, out=given)
    assert all(a is b for a, b in zip(found, given, strict=True)) and pools
    np.testing.assert_allclose(given[0], np.exp(x) * y, rtol=1e-15)
    np.testing.assert_array_equal(given[1], x + y)
    np.testing.assert_array_equal(given[2], x.astype(np.float32))
    with pytest.raises(ValueError, match=r"out\[0\] must be a float array of shape \(5000,\)"):
        kernel(x, y, out=(np.empty(10), np.empty(5000), np.empty(5000)))
    with pytest.raises(ValueError, match="out has 1 array"):
        kernel(x, y, out=np.empty(5000))


def test_the_callers_floating_point_settings_hold_in_every_tile() -> None:
    kernel = eqsat.compile("log(x)", ["x"])
    x = np.concatenate([np.ones(999), [-1.0]])  # the last tile, in another thread
    with tiles_of(kernel, 10) as pools, np.errstate(invalid="raise"), \
            pytest.raises(FloatingPointError):
        kernel(x)
    assert pools


def test_large_inputs_are_tiled_and_small_ones_are_not() -> None:
    kernel = eqsat.compile("sin(x)*y + x", ["x", "y"])
    names = kernel.function.__globals__
    threshold = names["_TILED_FROM"]
    pools: list[int] = []
    started = names["ThreadPoolExecutor"]
    names["ThreadPoolExecutor"] = lambda workers: pools.append(workers) or started(workers)
    try:
        kernel(np.ones(threshold - 1), 2.0)
        assert not pools
        x = RNG.uniform(-1, 1, threshold)
        found = kernel(x, 2.0)
    finally:
        names["ThreadPoolExecutor"] = started
    np.testing.assert_allclose(found, np.sin(x) * 2 + x, rtol=1e-15)
    import os

    assert pools == ([min(os.cpu_count() or 1, threshold // names["_TILE"])]
                     if (os.cpu_count() or 1) > 1 else [])
