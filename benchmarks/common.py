"""What the benchmarks share: the corpora, sized inputs, a task in a worker with a time limit."""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import eqsat
from eqsat.accuracy.measure import Sample, ulp_bits
from eqsat.term.walks import tree_size

CORPORA = Path(os.environ.get("EQSAT_CORPORA",
                              Path(__file__).resolve().parents[2] / "shared" / "corpora"))


def kernel_bits(expr: eqsat.Expr, names: list[str], points: Sample) -> float:
    """Mean bits of error of expr's NumPy kernel (compiled as it is) on the sampled points."""
    kernel = eqsat.compile(expr, names, dtype=points.dtype, optimize=None)
    with np.errstate(all="ignore"):
        computed = np.asarray(kernel(*(points.values[n] for n in names)), dtype=np.float64)
    computed = np.broadcast_to(computed, points.truth.shape)
    return float(np.mean(ulp_bits(computed, points.truth, points.dtype)))


def corpus(kind: str) -> list[dict[str, Any]]:
    """The records of one kind in sympy_cases.jsonl."""
    path = CORPORA / "sympy_cases.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r for r in records if r["kind"] == kind]


def sympy_options(description: str) -> tuple[float, list[int]]:
    """The command line of a benchmark against SymPy: (SymPy's time limit, input sizes)."""
    options = argparse.ArgumentParser(description=description)
    options.add_argument("--sympy-timeout", type=float, default=60.0)
    options.add_argument("--quick", action="store_true", help="sizes up to 300 nodes only")
    args = options.parse_args()
    sizes = [10, 30, 100, 300] if args.quick else [10, 30, 100, 300, 1000, 2000]
    return args.sympy_timeout, sizes


def sized_sums(block: Callable[[int], str], targets: list[int]) -> list[tuple[str, str]]:
    """(label, text) for sums of block(0), block(1), ... of about each target's node count."""
    block_size = tree_size(eqsat.parse(block(0)))
    found = []
    for target in targets:
        text = " + ".join(f"({block(i)})" for i in range(max(1, round(target / block_size))))
        found.append((f"{tree_size(eqsat.parse(text))} nodes", text))
    return found


def _worker(task: Callable[..., Any], args: tuple[Any, ...], queue: Any) -> None:
    queue.put(task(*args))


def in_worker(task: Callable[..., Any], args: tuple[Any, ...], timeout: float) -> Any | None:
    """task(*args) in a worker process; None if it runs past timeout or raises."""
    queue: Any = multiprocessing.Queue()
    worker = multiprocessing.Process(target=_worker, args=(task, args, queue))
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        worker.kill()
        worker.join()
        return None
    return queue.get() if not queue.empty() else None
