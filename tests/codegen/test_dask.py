"""The Dask target on a real dask.distributed cluster of two worker processes: the same
results as the NumPy target, one task per chunk and output, and arrays larger than the
workers' memory (spilled to disk) computed right, chunk by chunk."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dask
import dask.array as da
import numpy as np
import pytest
from distributed import Client, LocalCluster, wait

import eqsat

WORKER_MEMORY = 256 * 2**20


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Client]:
    """Two worker processes of one thread and 256 MiB each, spilling into a temporary
    folder; started for these tests and closed after them."""
    folder = tmp_path_factory.mktemp("dask-workers")
    with dask.config.set({"temporary-directory": str(folder)}), \
            LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                         memory_limit=WORKER_MEMORY, dashboard_address=None,
                         local_directory=str(folder)) as cluster, Client(cluster) as client:
        yield client


ELEMENTWISE = [
    (["exp(x) - 1 + sin(x)*y", "sin(x)^2*y"], {}),
    (["sigmoid(x)*erf(y) + x^3"], {}),
    (["where(x > y, x*y, x - y)"], {}),
]


@pytest.mark.parametrize(("texts", "shapes"), ELEMENTWISE)
def test_elementwise_programs_equal_the_numpy_targets_with_a_task_per_chunk(
        client: Client, texts: list[str], shapes: dict[str, Any]) -> None:
    rng = np.random.default_rng(3)
    x, y = rng.uniform(-2, 2, (2, 100_000))
    chunked = [da.from_array(v, chunks=25_000) for v in (x, y)]
    ours = eqsat.compile(texts, ["x", "y"], target="dask")
    expected = eqsat.compile(texts, ["x", "y"])(x, y)
    found = ours(*chunked)
    found = found if isinstance(found, tuple) else (found,)
    expected = expected if isinstance(expected, tuple) else (expected,)
    for lazy, wanted in zip(found, expected, strict=True):
        layers = {name: len(layer) for name, layer in lazy.__dask_graph__().layers.items()
                  if name.startswith("kernel_chunk")}
        assert list(layers.values()) == [4]  # one task for each of the four chunks
        np.testing.assert_array_equal(client.compute(lazy).result(), wanted)


def test_numbers_broadcasting_and_float32(client: Client) -> None:
    rng = np.random.default_rng(4)
    grid, row = rng.uniform(-1, 1, (300, 200)), rng.uniform(-1, 1, 200)
    kernel = eqsat.compile("x*y + exp(x)", ["x", "y"], target="dask")
    lazy = kernel(da.from_array(grid, chunks=(100, 50)), da.from_array(row, chunks=50))
    np.testing.assert_allclose(client.compute(lazy).result(), grid * row + np.exp(grid),
                               rtol=1e-15)
    lazy = kernel(da.from_array(grid, chunks=100), 2.0)
    np.testing.assert_allclose(client.compute(lazy).result(), grid * 2 + np.exp(grid),
                               rtol=1e-15)
    single = eqsat.compile("x*y + exp(x)", ["x", "y"], target="dask", dtype="float32")
    lazy = single(da.from_array(grid, chunks=100), 2.0)
    assert lazy.dtype == np.float32 and client.compute(lazy).result().dtype == np.float32


@pytest.mark.parametrize("text", ["tanh(1)", "y^0", "(x - x)^0", "tanh(1) + 0*x"])
def test_a_constant_output_has_the_arguments_shape(client: Client, text: str) -> None:
    # each was one value per chunk: shape (30,) said, (5,) computed
    x, y = np.zeros(30), np.linspace(1, 2, 30)
    kernel = eqsat.compile([text, "x + y"], ["x", "y"], target="dask")
    constant, varying = kernel(da.from_array(x, chunks=7), da.from_array(y, chunks=7))
    computed = client.compute(constant).result()
    expected = eqsat.compile(text, ["x", "y"], optimize=None)(x, y)
    assert constant.shape == computed.shape == (30,)
    np.testing.assert_array_equal(computed, expected)
    np.testing.assert_array_equal(client.compute(varying).result(), x + y)


def test_a_swapped_call_names_the_argument() -> None:
    kernel = eqsat.compile("sum(W@X, axis=0)", shapes={"W": ("n", "m"), "X": ("m", "k")},
                           target="dask")
    assert kernel.args == ["W", "X"]
    w, x = da.ones((3, 4)), da.ones((4, 5))
    assert kernel(w, x).shape == (5,)
    with pytest.raises(ValueError, match=r"argument X has shape \(3, 4\): its m is 3, "
                                         r"where W's is 5"):
        kernel(x, w)


def test_reductions_softmax_and_matrix_products_go_through_dask(client: Client) -> None:
    texts = ["logsumexp(A, axis=1)", "sum(A@A.T, axis=0)", "softmax(A, axis=1)",
             "sum(exp(A)*A)"]
    shapes = {"A": ("n", "m")}
    ours = eqsat.compile(texts, ["A"], target="dask", shapes=shapes)
    expected = eqsat.compile(texts, ["A"], shapes=shapes)(np.linspace(-3, 3, 200 * 150)
                                                         .reshape(200, 150))
    matrix = da.from_array(np.linspace(-3, 3, 200 * 150).reshape(200, 150), chunks=50)
    found = client.gather(client.compute(list(ours(matrix))))
    for got, wanted in zip(found, expected, strict=True):  # blocked sums round otherwise
        np.testing.assert_allclose(got, wanted, rtol=1e-9)
    assert "da.matmul" in ours.source and "logsumexp(A, axis=1)" in ours.source


def test_an_array_larger_than_the_workers_memory_spills_and_is_right_by_chunks(
        client: Client, tmp_path: Path) -> None:
    size, chunk = 60_000_000, 2_000_000  # 480 MB of float64 against 2 x 256 MiB
    kernel = eqsat.compile("sin(x)*x + 1", ["x"], target="dask")
    x = da.arange(size, chunks=chunk, dtype=np.float64) * 1e-7
    result = client.persist(kernel(x))
    wait(result)
    spilled = client.run(lambda dask_worker: len(getattr(dask_worker.data, "slow", {})))
    assert sum(spilled.values()) > 0, spilled  # some chunks live on disk
    for index in range(result.numblocks[0]):
        values = np.arange(index * chunk, (index + 1) * chunk, dtype=np.float64) * 1e-7
        np.testing.assert_allclose(result.blocks[index].compute(), np.sin(values) * values + 1,
                                   rtol=1e-15)


def test_erf_in_a_program_with_reductions(client: Client) -> None:
    shapes = {"A": ("n", "m")}
    matrix = np.linspace(-2, 2, 60).reshape(6, 10)
    ours = eqsat.compile("sum(erf(A), axis=0)", ["A"], target="dask", shapes=shapes)
    expected = eqsat.compile("sum(erf(A), axis=0)", ["A"], shapes=shapes)(matrix)
    found = client.compute(ours(da.from_array(matrix, chunks=3))).result()
    np.testing.assert_allclose(found, expected, rtol=1e-12)
