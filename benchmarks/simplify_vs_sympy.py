"""eqsat.simplify against sympy.simplify, side by side in one run: time and result size.

Cases: the `simplify` records of ../shared/corpora/sympy_cases.jsonl, plus generated
expressions of growing size (10 to 2000 nodes). Size is SymPy's count_ops of each result,
so both are measured the same way. SymPy runs in a worker process with its own time limit.

    python benchmarks/simplify_vs_sympy.py [--sympy-timeout 60] [--quick]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import time
from pathlib import Path

import sympy

import eqsat
from eqsat.expr import tree_size

CORPORA = Path(os.environ.get("EQSAT_CORPORA",
                              Path(__file__).resolve().parents[2] / "shared" / "corpora"))
# a block of 14 nodes that simplifies to y_i + 1; blocks use their own variables
BLOCK = "x{i}*y{i}/x{i} + sin(z{i})^2 + cos(z{i})^2"


def corpus_cases() -> list[tuple[str, str]]:
    path = CORPORA / "sympy_cases.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [(f"corpus: {r['input'][:38]}", r["input"]) for r in records
            if r["kind"] == "simplify" and "I" not in r["input"]]


def sized_cases(targets: list[int]) -> list[tuple[str, str]]:
    block_size = tree_size(eqsat.parse(BLOCK.format(i=0)))
    cases = []
    for target in targets:
        blocks = max(1, round(target / block_size))
        text = " + ".join(f"({BLOCK.format(i=i)})" for i in range(blocks))
        cases.append((f"{tree_size(eqsat.parse(text))} nodes", text))
    return cases


def _sympy_worker(text: str, queue: multiprocessing.Queue[tuple[float, int]]) -> None:
    expr = sympy.sympify(text.replace("^", "**"))
    start = time.perf_counter()
    result = sympy.simplify(expr)
    queue.put((time.perf_counter() - start, int(sympy.count_ops(result))))


def run_sympy(text: str, timeout: float) -> tuple[float | None, int | None]:
    queue: multiprocessing.Queue[tuple[float, int]] = multiprocessing.Queue()
    worker = multiprocessing.Process(target=_sympy_worker, args=(text, queue))
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        worker.kill()
        worker.join()
        return None, None
    return queue.get() if not queue.empty() else (None, None)


def run_eqsat(text: str) -> tuple[float, int, str]:
    start = time.perf_counter()
    result = eqsat.simplify_report(text)
    elapsed = time.perf_counter() - start
    return elapsed, int(sympy.count_ops(eqsat.to_sympy(result.expr))), result.report.stop_reason


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--sympy-timeout", type=float, default=60.0)
    options.add_argument("--quick", action="store_true", help="sizes up to 300 nodes only")
    args = options.parse_args()
    sizes = [10, 30, 100, 300] if args.quick else [10, 30, 100, 300, 1000, 2000]
    cases = corpus_cases() + sized_cases(sizes)
    eqsat.simplify("x")  # compile the engine before timing
    sympy.simplify(sympy.Symbol("x") + 1)
    limit = eqsat.Limits().seconds

    print(f"{'case':48} {'eqsat ms':>9} {'sympy ms':>9} {'ratio':>7} {'size':>5} {'sympy':>5}"
          f"  stop")
    ratios, ours_ms, theirs_ms, no_larger, over_limit, compared = [], [], [], 0, 0, 0
    for name, text in cases:
        seconds, size, stop = run_eqsat(text)
        their_seconds, their_size = run_sympy(text, args.sympy_timeout)
        ours_ms.append(seconds * 1000)
        over_limit += seconds > limit * 1.1
        if their_seconds is None or their_size is None:  # left out of the comparisons
            print(f"{name:48} {seconds * 1000:9.1f} {'timeout':>9} {'':>7} {size:5} "
                  f"{'':>5}  {stop}")
            continue
        compared += 1
        theirs_ms.append(their_seconds * 1000)
        ratios.append(seconds / their_seconds)
        no_larger += size <= their_size
        print(f"{name:48} {seconds * 1000:9.1f} {their_seconds * 1000:9.1f} "
              f"{seconds / their_seconds:7.2f} {size:5} {their_size:5}  {stop}")

    print()
    print(f"cases: {len(cases)} ({compared} finished by SymPy within {args.sympy_timeout:g} s)")
    print(f"median time: eqsat {statistics.median(ours_ms):.1f} ms, "
          f"SymPy {statistics.median(theirs_ms):.1f} ms; "
          f"median of per-case ratios eqsat/SymPy {statistics.median(ratios):.2f}")
    print(f"result no larger than SymPy's: {no_larger} of {compared} "
          f"({100 * no_larger / compared:.0f}%)")
    print(f"eqsat cases past the time limit ({limit:g} s + 10%): {over_limit}")


if __name__ == "__main__":
    main()
