"""Does a query cost more as the process ages? Five passes over the diff cases of
../shared/corpora/sympy_cases.jsonl in one process (the time of each pass), two probe
queries timed before and after 600 queries with fresh symbol names, with the process's peak
memory: a diff (most need no e-graph) and a simplify that builds an e-graph each time; an
aged engine against a fresh one; and the resident memory every 1,000 of 20,000 e-graph
queries with fresh names (after collecting garbage and trimming the allocator).

    python benchmarks/aging.py
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import resource
import statistics
import time
from collections.abc import Callable

from common import corpus

import eqsat
from eqsat.egraph.per_thread import engine


def _median_ms(query: Callable[[], object], repeats: int = 15) -> float:
    """The query's median time, eqsat's memos cleared before each call (not timed)."""
    times = []
    for _ in range(repeats):
        eqsat.clear_cache()
        start = time.perf_counter()
        query()
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

    def egraph_probe() -> object:
        return eqsat.simplify("abs(x)/abs(x^2) + log(y)")

    for name, query, made in [
            ("diff(sin(x)*exp(x*y) + x/y)", probe,
             lambda i: eqsat.diff(f"sin(a{i})*exp(b{i}*a{i}) + c{i}/a{i}", f"a{i}")),
            ("simplify(abs(x)/abs(x^2) + log(y)), an e-graph", egraph_probe,
             lambda i: eqsat.simplify(f"abs(u{i})/abs(u{i}^2) + log(v{i})"))]:
        before, peak = _median_ms(query), _peak_mib()
        for i in range(600):
            made(i)
        after = _median_ms(query)
        print(f"probe {name}: {before:.2f} ms, after 600 queries with fresh names "
              f"{after:.2f} ms ({after / before:.2f}); peak memory {peak:.0f} -> "
              f"{_peak_mib():.0f} MiB; e-graphs compiled {engine().compiled}")

    _aged_against_fresh()
    _resident_over()


def _aged_against_fresh(sessions: int = 1_500, probes: int = 100) -> None:
    """One engine after many small sessions against a fresh one, their probes interleaved
    (the machine's noise falls on both alike)."""
    from eqsat.egraph.engine import Engine

    expr = eqsat.parse("log(x) + 2*log(y)")

    def session(on: Engine) -> float:
        start = time.perf_counter()
        with on.session(rulesets=["simplify"]) as opened:
            handle = opened.add(expr)
            opened.run(["simplify"])
            opened.extract(handle)
        return time.perf_counter() - start

    aged, fresh = Engine(), Engine()
    for _ in range(sessions):
        session(aged)
    session(fresh)
    pairs = [(session(aged), session(fresh)) for _ in range(probes)]
    old, new = (statistics.median(p[i] for p in pairs) * 1000 for i in (0, 1))
    print(f"an engine after {sessions:,} sessions of simplify(log(x) + 2*log(y)): {old:.2f} ms "
          f"a session, a fresh one {new:.2f} ms ({old / new:.2f}); it compiled its e-graph "
          f"{aged.compiled} times")


def _resident_mib() -> float:
    """The process's resident memory, its garbage collected and freed memory given back."""
    gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status
                    if line.startswith("VmRSS")) / 1024


def _resident_over(queries: int = 20_000, every: int = 1_000) -> None:
    """Resident memory every `every` of `queries` e-graph queries with fresh names."""
    def query(i: int) -> None:
        eqsat.simplify(f"abs(a{i}*b{i})/abs(b{i})")
        eqsat.clear_cache()

    for i in range(every):
        query(i)
    first = _resident_mib()
    print(f"resident memory, simplify(abs(a_i*b_i)/abs(b_i)) with fresh names: "
          f"{first:.1f} MiB after {every:,}")
    start = time.perf_counter()
    for i in range(every, queries):
        query(i)
        if (i + 1) % every == 0:
            print(f"  {i + 1:6,} queries: {_resident_mib():7.1f} MiB "
                  f"({_resident_mib() - first:+.1f}), {time.perf_counter() - start:5.0f} s",
                  flush=True)


if __name__ == "__main__":
    main()
