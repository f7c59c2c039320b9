"""eqsat.simplify against sympy.simplify, side by side in one run: time and result size.

Cases: the `simplify` records of ../shared/corpora/sympy_cases.jsonl, plus generated
expressions of growing size (10 to 2000 nodes). Size is SymPy's count_ops of each result,
so both are measured the same way. SymPy runs in a worker process with its own time limit.

    python benchmarks/simplify_vs_sympy.py [--sympy-timeout 60] [--quick]
"""

from __future__ import annotations

from functools import partial
from typing import Any

import sympy
from common import compare, corpus, sized_sums, sympy_options

import eqsat

# a block of 14 nodes that simplifies to y_i + 1; blocks use their own variables
BLOCK = "x{i}*y{i}/x{i} + sin(z{i})^2 + cos(z{i})^2"


def sympy_simplify(text: str) -> Any:
    return sympy.simplify(sympy.sympify(text.replace("^", "**")))


def texts(sizes: list[int]) -> list[tuple[str, str]]:
    found = [(f"corpus: {r['input'][:40]}", r["input"]) for r in corpus("simplify")
             if "I" not in r["input"]]
    return found + sized_sums(lambda i: BLOCK.format(i=i), sizes)


def main() -> None:
    timeout, sizes = sympy_options(__doc__.splitlines()[0])
    eqsat.simplify("sin(x)*y/sin(x) + sin(x)")  # compile the engine, load flint, before timing
    sympy_simplify("x + 1")
    compare([(name, partial(eqsat.simplify_report, text), sympy_simplify, (text,))
             for name, text in texts(sizes)], timeout)


if __name__ == "__main__":
    main()
