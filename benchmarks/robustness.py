"""Resource bombs under limits: for each, the time taken against the time limit, why the run
stopped, the e-nodes at most against the node limit, and the peak memory of a fresh worker.

    python benchmarks/robustness.py [--limits 1 2 5]

Each bomb runs in its own process (so peak memory is its own), after the engine is built.
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import time
from typing import Any

import eqsat

BOMBS = [
    ("10^10^10", "10^10^10"),
    ("9^9^9^9", "9^9^9^9"),
    ("a 64th power of a ratio", "(123456789/987654321)^64 * x"),
    ("(x + 1)^1000", "(x + 1)^1000"),
    ("(x+1)^30 (x-1)^30 - (x^2-1)^30", "(x + 1)^30*(x - 1)^30 - (x^2 - 1)^30"),
    ("sum of 500 terms", " + ".join(f"{i}*x^{i % 7}*y" for i in range(500))),
    ("60 exp of 60 log", "exp(" * 60 + "log(" * 60 + "x" + ")" * 120),
    ("3000 nested minus signs", "-" * 3000 + "x"),
    ("40 squares times exponentials", " + ".join(f"(x + {i})^2*exp(y - {i})"
                                                  for i in range(40))),
]


def _one(text: str, seconds: float, queue: Any) -> None:
    eqsat.simplify("x")  # build the engine first: its cost is once per process
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    result = eqsat.simplify_report(text, limits=eqsat.Limits(seconds=seconds))
    elapsed = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    report = result.report
    queue.put((elapsed, report.stop_reason, max(report.node_history or [report.nodes]),
               before / 1024, peak / 1024))


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__)
    options.add_argument("--limits", type=float, nargs="+", default=[1.0, 2.0, 5.0])
    args = options.parse_args()
    print(f"{'bomb':32} {'limit s':>7} {'took s':>7} {'ratio':>6} {'stopped':>10} "
          f"{'e-nodes':>8} {'MiB before':>10} {'MiB peak':>9}")
    worst = 0.0
    for label, text in BOMBS:
        for seconds in args.limits:
            context = multiprocessing.get_context("spawn")  # egglog's threads do not fork
            queue: Any = context.Queue()
            worker = context.Process(target=_one, args=(text, seconds, queue))
            worker.start()
            elapsed, reason, nodes, before, peak = queue.get(timeout=120)
            worker.join()
            worst = max(worst, elapsed / seconds)
            print(f"{label:32} {seconds:7.1f} {elapsed:7.2f} {elapsed / seconds:6.2f} "
                  f"{reason:>10} {nodes:8d} {before:10.0f} {peak:9.0f}")
    print(f"\nlargest time / limit: {worst:.2f}")


if __name__ == "__main__":
    main()
