"""The smallest everyday queries, eqsat against SymPy side by side in one run: the median
time of each on parsed input, engines warm, each tool's caches cleared before every timed
call (eqsat.clear_cache, SymPy's clear_cache), so that a repeat measures work, not a cache hit.

    python benchmarks/floor.py [--repeats 200]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import sympy
from sympy.core.cache import clear_cache

import eqsat

CASES: list[tuple[str, str, str | None]] = [  # (text, the variable of a diff or None)
    ("simplify(sin(x))", "sin(x)", None),
    ("simplify(x + 1)", "x + 1", None),
    ("simplify(2*x)", "2*x", None),
    ("simplify(atan(log(x)))", "atan(log(x))", None),
    ("diff(sin(x), x)", "sin(x)", "x"),
    ("diff(x^2, x)", "x^2", "x"),
    ("diff(log(x), x)", "log(x)", "x"),
    ("simplify(exp(x))", "exp(x)", None),
    ("diff(sin(x)*x, x)", "sin(x)*x", "x"),
]


def _median_ms(call: Callable[[], Any], clear: Callable[[], None], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        clear()
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--repeats", type=int, default=200)
    repeats = options.parse_args().repeats
    print(f"{'query':28} {'eqsat ms':>9} {'SymPy ms':>9} {'ratio':>6}  eqsat's answer")
    for label, text, variable in CASES:
        mine = eqsat.parse(text)
        theirs = sympy.sympify(text.replace("^", "**"))
        if variable is None:
            ours: Callable[[], Any] = lambda e=mine: eqsat.simplify(e)  # noqa: E731
            peer: Callable[[], Any] = lambda e=theirs: sympy.simplify(e)  # noqa: E731
        else:
            ours = lambda e=mine, v=variable: eqsat.diff(e, v)  # noqa: E731
            peer = lambda e=theirs, v=variable: sympy.diff(e, sympy.Symbol(v))  # noqa: E731
        answer = ours()  # warm
        peer()
        eqsat_ms = _median_ms(ours, eqsat.clear_cache, repeats)
        sympy_ms = _median_ms(peer, clear_cache, repeats)
        print(f"{label:28} {eqsat_ms:9.3f} {sympy_ms:9.3f} {eqsat_ms / sympy_ms:6.2f}  {answer}")


if __name__ == "__main__":
    main()
