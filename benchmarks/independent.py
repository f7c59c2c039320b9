"""Does simplify scale with independent parts? Sums of n copies of one identity, each copy in
its own symbols (tan(x_i)*cos(x_i), a rational function, logs of positive symbols), for n = 1,
2, 5, 10, 20, 50, 100, 1,000: eqsat's and SymPy's time and answer size (tree nodes) side by
side, on parsed input, caches cleared before each timed call; "simplified" says whether the
answer is as small as n times the answer for one copy.

    python benchmarks/independent.py [--sizes 1 2 5 10 20 50 100 1000] [--sympy-timeout 60]
"""

from __future__ import annotations

import argparse
import time

import sympy
from common import in_worker

import eqsat
from eqsat.term.walks import tree_size

FAMILIES = {  # each copy's text, in its own symbols, and the assumptions eqsat and SymPy take
    "trig: tan(x)*cos(x)": ("tan(x{i})*cos(x{i})", {}),
    "rational: (x^2 - 1)/(x + 1)": ("(x{i}^2 - 1)/(x{i} + 1)", {}),
    "logs: log(x*y) - log(y)": ("log(x{i}*y{i}) - log(y{i})", {"x": "positive", "y": "positive"}),
}


def _sympy_size(text: str, positive: list[str]) -> tuple[float, int] | None:
    """SymPy's simplify on the parsed text: seconds and the answer's tree size in eqsat; None
    where it fails (its trigsimp recursed past Python's limit on 1,000 terms)."""
    symbols = {name: sympy.Symbol(name, positive=True) for name in positive}
    expr = sympy.sympify(text.replace("^", "**"), locals=symbols)
    start = time.perf_counter()
    try:
        answer = sympy.simplify(expr)
    except RecursionError:
        return None
    took = time.perf_counter() - start
    return took, tree_size(eqsat.from_sympy(answer))


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__)
    options.add_argument("--sizes", type=int, nargs="+", default=[1, 2, 5, 10, 20, 50, 100, 1000])
    options.add_argument("--sympy-timeout", type=float, default=60.0)
    args = options.parse_args()
    eqsat.simplify("tan(x)*cos(x) + log(x*y)")  # the engine and rule indexes, once
    print(f"{'family':30s} {'n':>5s} {'eqsat ms':>9s} {'size':>6s} {'simplified':>10s} "
          f"{'SymPy ms':>9s} {'size':>6s} {'eqsat/SymPy':>11s}")
    for family, (block, assumed) in FAMILIES.items():
        one = None
        for n in args.sizes:
            text = " + ".join(block.format(i=i) for i in range(n))
            assume = {f"{name}{i}": fact for name, fact in assumed.items() for i in range(n)}
            parsed = eqsat.parse(text)
            eqsat.clear_cache()
            start = time.perf_counter()
            answer = eqsat.simplify(parsed, assume=assume)
            took = time.perf_counter() - start
            size = tree_size(answer)
            one = size if one is None else one
            positive = [name for name, fact in assume.items() if fact == "positive"]
            peer = in_worker(_sympy_size, (text, positive), args.sympy_timeout)
            sympy_ms = f"{peer[0] * 1000:9.1f}" if peer else f"{'>' + str(args.sympy_timeout):>9s}"
            sympy_size = f"{peer[1]:6d}" if peer else f"{'-':>6s}"
            ratio = f"{took / peer[0]:11.3f}" if peer else f"{'-':>11s}"
            print(f"{family:30s} {n:5d} {took * 1000:9.1f} {size:6d} "
                  f"{'yes' if size <= n * one + (n - 1) else 'no':>10s} {sympy_ms} "
                  f"{sympy_size} {ratio}", flush=True)


if __name__ == "__main__":
    main()
