"""eqsat.diff against sympy.diff followed by sympy.simplify, side by side in one run.

Cases: the `diff` records of ../shared/corpora/sympy_cases.jsonl, plus sums of a block
(`c*sin(k*x)*x^m + exp(x/j)`) of growing size, 10 to 2000 nodes. Size is SymPy's count_ops
of each result. SymPy runs in a worker process with its own time limit.

    python benchmarks/diff_vs_sympy.py [--sympy-timeout 60] [--quick]
"""

from __future__ import annotations

from functools import partial
from typing import Any

import sympy
from common import compare, corpus, sized_sums, sympy_options

import eqsat

BLOCK = "{c}*sin({k}*x)*x^{m} + exp(x/{j})"


def sympy_diff(text: str, variables: list[str]) -> Any:
    expr = sympy.sympify(text.replace("^", "**"))
    return sympy.simplify(sympy.diff(expr, *(sympy.Symbol(v) for v in variables)))


def cases(sizes: list[int]) -> list[tuple[str, str, list[str]]]:
    found = []
    for r in corpus("diff"):
        order = int(r.get("order", 1))
        variables = [r["var"]] * order if isinstance(r["var"], str) else r["var"]
        found.append((f"corpus: d{''.join(variables)} {r['input'][:34]}", r["input"], variables))

    def block(i: int) -> str:
        return BLOCK.format(c=i % 7 + 1, k=i % 5 + 1, m=i % 3 + 1, j=i + 1)

    return found + [(name, text, ["x"]) for name, text in sized_sums(block, sizes)]


def main() -> None:
    timeout, sizes = sympy_options(__doc__.splitlines()[0])
    eqsat.diff("x^2", "x")  # compile the engine before timing
    sympy_diff("x^2", ["x"])
    compare([(name, partial(eqsat.diff_report, text, variables), sympy_diff, (text, variables))
             for name, text, variables in cases(sizes)], timeout)


if __name__ == "__main__":
    main()
