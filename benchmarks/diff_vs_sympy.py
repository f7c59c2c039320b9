"""eqsat.diff against sympy.diff followed by sympy.simplify, side by side in one run.

Cases: the `diff` records of ../shared/corpora/sympy_cases.jsonl, plus sums of a block
(`c*sin(k*x)*x^m + exp(x/j)`) of growing size, 10 to 2000 nodes. Size is SymPy's count_ops
of each result. SymPy runs in a worker process with its own time limit.

    python benchmarks/diff_vs_sympy.py [--sympy-timeout 60] [--quick]
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
BLOCK = "{c}*sin({k}*x)*x^{m} + exp(x/{j})"

Case = tuple[str, str, str | list[str], int]


def corpus_cases() -> list[Case]:
    path = CORPORA / "sympy_cases.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [(f"corpus: d{r['var']}^{r.get('order', 1)} {r['input'][:28]}", r["input"], r["var"],
             int(r.get("order", 1))) for r in records if r["kind"] == "diff"]


def sized_cases(targets: list[int]) -> list[Case]:
    def block(i: int) -> str:
        return BLOCK.format(c=i % 7 + 1, k=i % 5 + 1, m=i % 3 + 1, j=i + 1)

    block_size = tree_size(eqsat.parse(block(0)))
    cases: list[Case] = []
    for target in targets:
        text = " + ".join(block(i) for i in range(max(1, round(target / block_size))))
        cases.append((f"{tree_size(eqsat.parse(text))} nodes", text, "x", 1))
    return cases


def _sympy_worker(text: str, wrt: str | list[str], order: int,
                  queue: multiprocessing.Queue[tuple[float, int]]) -> None:
    expr = sympy.sympify(text.replace("^", "**"))
    variables = [sympy.Symbol(v) for v in ([wrt] * order if isinstance(wrt, str) else wrt)]
    start = time.perf_counter()
    result = sympy.simplify(sympy.diff(expr, *variables))
    queue.put((time.perf_counter() - start, int(sympy.count_ops(result))))


def run_sympy(case: Case, timeout: float) -> tuple[float | None, int | None]:
    _, text, wrt, order = case
    queue: multiprocessing.Queue[tuple[float, int]] = multiprocessing.Queue()
    worker = multiprocessing.Process(target=_sympy_worker, args=(text, wrt, order, queue))
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        worker.kill()
        worker.join()
        return None, None
    return queue.get() if not queue.empty() else (None, None)


def run_eqsat(case: Case) -> tuple[float, int, str]:
    _, text, wrt, order = case
    start = time.perf_counter()
    result = eqsat.diff_report(text, wrt, order)
    elapsed = time.perf_counter() - start
    return elapsed, int(sympy.count_ops(eqsat.to_sympy(result.expr))), result.report.stop_reason


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--sympy-timeout", type=float, default=60.0)
    options.add_argument("--quick", action="store_true", help="sizes up to 300 nodes only")
    args = options.parse_args()
    sizes = [10, 30, 100, 300] if args.quick else [10, 30, 100, 300, 1000, 2000]
    cases = corpus_cases() + sized_cases(sizes)
    eqsat.diff("x^2", "x")  # compile the engine before timing
    sympy.simplify(sympy.diff(sympy.Symbol("x") ** 2))
    limit = eqsat.Limits().seconds

    print(f"{'case':44} {'eqsat ms':>9} {'sympy ms':>9} {'ratio':>7} {'size':>5} {'sympy':>5}"
          f"  stop")
    ratios, ours_ms, theirs_ms, no_larger, over_limit, compared = [], [], [], 0, 0, 0
    for case in cases:
        name = case[0]
        seconds, size, stop = run_eqsat(case)
        their_seconds, their_size = run_sympy(case, args.sympy_timeout)
        ours_ms.append(seconds * 1000)
        over_limit += seconds > limit * 1.1
        if their_seconds is None or their_size is None:  # left out of the comparisons
            print(f"{name:44} {seconds * 1000:9.1f} {'timeout':>9} {'':>7} {size:5} "
                  f"{'':>5}  {stop}")
            continue
        compared += 1
        theirs_ms.append(their_seconds * 1000)
        ratios.append(seconds / max(their_seconds, 1e-6))
        no_larger += size <= their_size
        print(f"{name:44} {seconds * 1000:9.1f} {their_seconds * 1000:9.1f} "
              f"{seconds / max(their_seconds, 1e-6):7.2f} {size:5} {their_size:5}  {stop}")

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
