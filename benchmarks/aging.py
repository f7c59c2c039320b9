"""Does a query cost more as the process ages? Five passes over the diff cases of
../shared/corpora/sympy_cases.jsonl in one process (the time of each pass), and a probe
query timed before and after 600 queries with fresh symbol names, with the process's peak
memory.

    python benchmarks/aging.py
"""

from __future__ import annotations

import contextlib
import resource
import statistics
import time

from common import corpus

import eqsat
from eqsat.egraph.per_thread import engine


def _median_ms(query: object, repeats: int = 15) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        query()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    cases = [(r["input"].replace("**", "^"), r["var"], r.get("order", 1))
             for r in corpus("diff") if isinstance(r["var"], str)]

    def one_pass() -> float:
        start = time.perf_counter()
        for text, variable, order in cases:
            with contextlib.suppress(eqsat.EqsatError):
                eqsat.diff(text, variable, order)
        return time.perf_counter() - start

    one_pass()  # compile the engines
    passes = [one_pass() for _ in range(5)]
    print(f"{len(cases)} diff cases, five passes (s): "
          + ", ".join(f"{p:.3f}" for p in passes)
          + f"; last over first {passes[-1] / passes[0]:.2f}")

    def probe() -> object:
        return eqsat.diff("sin(x)*exp(x*y) + x/y", "x")

    before, peak = _median_ms(probe), _peak_mib()
    for i in range(600):
        eqsat.diff(f"sin(a{i})*exp(b{i}*a{i}) + c{i}/a{i}", f"a{i}")
    after = _median_ms(probe)
    print(f"probe diff(sin(x)*exp(x*y) + x/y): {before:.2f} ms, after 600 queries with fresh "
          f"names {after:.2f} ms ({after / before:.2f}); peak memory {peak:.0f} -> "
          f"{_peak_mib():.0f} MiB; e-graphs compiled {engine().compiled}")


if __name__ == "__main__":
    main()
