"""The Dask target on a dask.distributed LocalCluster: one expression over 2 x 10^8 float64
in chunks of 10^7, with one worker process and with two (one thread each), in one run.

Prints the tasks the kernel adds per chunk and output, and the time of computing the sum of
the result with each cluster (the inputs are drawn on the workers and held in their memory
before the clock starts: nothing of that size goes through this process), and the ratio.

    python benchmarks/dask_scaling.py [--n 200000000] [--chunk 10000000]
"""

from __future__ import annotations

import argparse
import time

import dask.array as da
from distributed import Client, LocalCluster, wait

import eqsat

EXPRESSION = "exp(x) - 1 + sin(x)*y + sin(x)^2*y"


def _timed(workers: int, n: int, chunk: int, kernel: eqsat.Kernel) -> tuple[float, int, int]:
    """Seconds for the sum of the kernel's result, the kernel's tasks, and the chunks."""
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        pairs = da.random.default_rng(1).random((2, n), chunks=(2, chunk))  # x and y chunks
        x, y = client.persist([pairs[0], pairs[1]])  # in the workers' memory, each chunk of
        # x with the chunk of y it meets, before the clock starts
        wait([x, y])
        result = kernel(x, y)
        tasks = sum(len(layer) for name, layer in result.__dask_graph__().layers.items()
                    if name.startswith("kernel_chunk"))
        client.compute(kernel(x[:chunk], y[:chunk]).sum()).result()  # warm the workers
        began = time.perf_counter()
        client.compute(result.sum()).result()
        return time.perf_counter() - began, tasks, x.numblocks[0]


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--n", type=int, default=200_000_000)
    options.add_argument("--chunk", type=int, default=10_000_000)
    args = options.parse_args()
    kernel = eqsat.compile(EXPRESSION, ["x", "y"], target="dask")
    print(f"{EXPRESSION}: N = {args.n:,} float64 in chunks of {args.chunk:,}")
    seconds = {}
    for workers in (1, 2):
        seconds[workers], tasks, chunks = _timed(workers, args.n, args.chunk, kernel)
        print(f"{workers} worker(s): {seconds[workers]:.2f} s; the kernel's tasks {tasks} for "
              f"{chunks} chunks ({tasks / chunks:g} per chunk and output)")
    print(f"two workers against one: {seconds[1] / seconds[2]:.2f}x faster (target 1.6x)")


if __name__ == "__main__":
    main()
