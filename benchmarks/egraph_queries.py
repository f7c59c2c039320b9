"""The queries that reach an e-graph: eqsat.simplify against sympy.simplify, side by side in
one run, on the four probes and every case of benchmarks/simplify_vs_sympy.py (sizes up to
300 nodes) whose simplify builds an e-graph; the totals and eqsat's median at the end.

    python benchmarks/egraph_queries.py [--sympy-timeout 60]

Timing rule of benchmarks/peers.py (parsed input, warm, caches cleared, best of 3).
"""

from __future__ import annotations

import argparse
import statistics

import simplify_vs_sympy
from peers import Case, Outcome, Worker

PROBES = ["abs(x)/abs(x^2) + log(y)", "sqrt(x^2*y^2)/abs(x)",
          "sin(x)^2 + cos(x)^2 + tan(x)*cos(x)", "exp(x)*exp(y)/exp(x + y)"]


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--sympy-timeout", type=float, default=60.0)
    timeout = options.parse_args().sympy_timeout
    cases = [Case(f"probe: {text}", "simplify", text) for text in PROBES]
    cases += simplify_vs_sympy.cases([10, 30, 100, 300])
    ours, theirs = Worker("eqsat"), Worker("SymPy")
    print(f"{'case':46} {'eqsat ms':>9} {'SymPy ms':>9} {'ratio':>6} {'e-nodes':>8}  stop")
    rows: list[tuple[Outcome, Outcome]] = []
    for case in cases:
        found = ours.run(case, timeout)
        if found.nodes == 0 and not case.label.startswith("probe"):
            continue  # answered without an e-graph
        other = theirs.run(case, timeout)
        rows.append((found, other))
        ratio = "-" if found.seconds is None or other.seconds is None else \
            f"{found.seconds / other.seconds:.2f}"
        print(f"{case.label[:46]:46} {_ms(found):>9} {_ms(other):>9} {ratio:>6} "
              f"{found.nodes:8d}  {found.note}")
    ours.close()
    theirs.close()
    both = [(a.seconds, b.seconds) for a, b in rows
            if a.seconds is not None and b.seconds is not None]
    total_ours, total_theirs = sum(a for a, _ in both), sum(b for _, b in both)
    print(f"\n{len(rows)} queries that reach an e-graph; {len(both)} taken by both")
    print(f"total: eqsat {total_ours * 1000:.1f} ms, SymPy {total_theirs * 1000:.1f} ms, "
          f"ratio {total_ours / total_theirs:.2f} (target at most 0.25)")
    median = statistics.median(a for a, _ in both) * 1000
    print(f"eqsat's median e-graph query: {median:.2f} ms (target under 10 ms)")


def _ms(outcome: Outcome) -> str:
    return "-" if outcome.seconds is None else f"{outcome.seconds * 1000:.2f}"


if __name__ == "__main__":
    main()
