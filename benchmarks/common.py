"""What the benchmarks share: the corpora, SymPy in a worker with a time limit, the table."""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import sympy

import eqsat
from eqsat.expr import tree_size

CORPORA = Path(os.environ.get("EQSAT_CORPORA",
                              Path(__file__).resolve().parents[2] / "shared" / "corpora"))


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


def _timed_size(task: Callable[..., Any], args: tuple[Any, ...]) -> tuple[float, int]:
    start = time.perf_counter()
    result = task(*args)
    return time.perf_counter() - start, int(sympy.count_ops(result))


def timed_sympy(task: Callable[..., Any], args: tuple[Any, ...],
                timeout: float) -> tuple[float, int] | None:
    """(seconds, count_ops of the result) of task(*args) in a worker, or None past timeout."""
    found: tuple[float, int] | None = in_worker(_timed_size, (task, args), timeout)
    return found


def timed_eqsat(task: Callable[[], eqsat.Simplified]) -> tuple[float, int, str, int]:
    """(seconds, count_ops of the result, stop reason, most e-nodes) of an eqsat call."""
    start = time.perf_counter()
    result = task()
    elapsed = time.perf_counter() - start
    return (elapsed, int(sympy.count_ops(eqsat.to_sympy(result.expr))),
            result.report.stop_reason, result.report.nodes)


def compare(cases: list[tuple[str, Callable[[], eqsat.Simplified], Callable[..., Any],
                               tuple[Any, ...]]], timeout: float) -> None:
    """Run each case in both tools; print a row per case, then medians and ratios."""
    limit = eqsat.Limits().seconds
    print(f"{'case':48} {'eqsat ms':>9} {'sympy ms':>9} {'ratio':>7} {'size':>5} {'sympy':>5}"
          f" {'e-nodes':>7}  stop")
    ratios, ours_ms, theirs_ms, no_larger, over_limit, compared = [], [], [], 0, 0, 0
    e_nodes: list[int] = []  # the most e-nodes of each case's runs (0: no e-graph needed)
    for name, ours, theirs, args in cases:
        seconds, size, stop, nodes = timed_eqsat(ours)
        e_nodes.append(nodes)
        measured = timed_sympy(theirs, args, timeout)
        ours_ms.append(seconds * 1000)
        over_limit += seconds > limit * 1.1
        if measured is None:  # left out of the comparisons
            print(f"{name:48} {seconds * 1000:9.1f} {'timeout':>9} {'':>7} {size:5} "
                  f"{'':>5} {nodes:7}  {stop}")
            continue
        their_seconds, their_size = measured
        compared += 1
        theirs_ms.append(their_seconds * 1000)
        ratio = seconds / max(their_seconds, 1e-6)
        ratios.append(ratio)
        no_larger += size <= their_size
        print(f"{name:48} {seconds * 1000:9.1f} {their_seconds * 1000:9.1f} {ratio:7.2f} "
              f"{size:5} {their_size:5} {nodes:7}  {stop}")
    print()
    print(f"cases: {len(cases)} ({compared} finished by SymPy within {timeout:g} s)")
    print(f"median time: eqsat {statistics.median(ours_ms):.1f} ms, "
          f"SymPy {statistics.median(theirs_ms):.1f} ms; "
          f"median of per-case ratios eqsat/SymPy {statistics.median(ratios):.2f}")
    print(f"result no larger than SymPy's: {no_larger} of {compared} "
          f"({100 * no_larger / compared:.0f}%)")
    print(f"eqsat cases past the time limit ({limit:g} s + 10%): {over_limit}")
    print(f"e-nodes per case: median {statistics.median(e_nodes):g}, most {max(e_nodes)}; "
          f"{e_nodes.count(0)} of {len(e_nodes)} cases needed no e-graph")
