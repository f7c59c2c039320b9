"""Items per second for simplify over a batch of mixed expressions (each in its own symbols):
in this process, in threads (each with its own engine), eqsat.batch in 1 and 2 worker
processes, on a Dask LocalCluster of 2 workers, and the command line's --jobs 1 and 2; every
way's answers checked against this process's. Each way includes its start-up (spawning
workers, compiling their engines), as a user running one batch meets it.

    python benchmarks/batch.py [--items 200]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import eqsat

KINDS = ["tan(x{i})*cos(x{i})", "abs(a{i}*b{i})/abs(b{i})", "log(x{i}*y{i}) - log(y{i})",
         "sin(x{i})^2 + cos(x{i})^2", "exp(x{i})*exp(y{i})/exp(x{i} + y{i})",
         "(x{i}^2 - 1)/(x{i} - 1)", "sqrt(x{i}^2*y{i}^2)/abs(x{i})", "x{i}*y{i}/x{i}"]


def _timed(run: Callable[[], list[str]]) -> tuple[float, list[str]]:
    eqsat.clear_cache()
    start = time.perf_counter()
    answers = run()
    return time.perf_counter() - start, answers


def _threads(items: list[str]) -> list[str]:
    with ThreadPoolExecutor(2) as pool:
        return [str(r) for r in pool.map(eqsat.simplify, items)]


def _dask(items: list[str]) -> list[str]:
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        return [str(r) for r in eqsat.batch("simplify", items, client=client)]


def _command(items: list[str], jobs: int) -> list[str]:
    done = subprocess.run([sys.executable, "-m", "eqsat.cli", "simplify", "-", "--jobs",
                           str(jobs)], input="\n".join(items) + "\n", capture_output=True,
                          text=True, check=True)
    return done.stdout.splitlines()


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__)
    options.add_argument("--items", type=int, default=200)
    count = options.parse_args().items
    items = [KINDS[i % len(KINDS)].format(i=i) for i in range(count)]
    eqsat.simplify("tan(x)*cos(x)")  # this process's engine, once
    ways: list[tuple[str, Callable[[], list[str]]]] = [
        ("this process", lambda: [str(eqsat.simplify(t)) for t in items]),
        ("2 threads", lambda: _threads(items)),
        ("batch, workers=1", lambda: [str(r) for r in eqsat.batch("simplify", items,
                                                                  workers=1)]),
        ("batch, workers=2", lambda: [str(r) for r in eqsat.batch("simplify", items,
                                                                  workers=2)]),
        ("batch, Dask LocalCluster(2)", lambda: _dask(items)),
        ("command line, --jobs 1", lambda: _command(items, 1)),
        ("command line, --jobs 2", lambda: _command(items, 2)),
    ]
    print(f"{count} mixed simplify items")
    print(f"{'way':30s} {'seconds':>8s} {'items/s':>8s} {'same answers':>13s}")
    reference: list[str] | None = None
    for name, run in ways:
        took, answers = _timed(run)
        reference = answers if reference is None else reference
        print(f"{name:30s} {took:8.2f} {count / took:8.0f} {answers == reference!s:>13s}",
              flush=True)


if __name__ == "__main__":
    main()
