"""eqsat.diff against SymPy, SymEngine, Symbolica and Alkahest, side by side in one run.

Cases: the floor query, 30 textbook cases (benchmarks/textbook.py), the `diff` records of
../shared/corpora/sympy_cases.jsonl, and sums of a block (`c*sin(k*x)*x^m + exp(x/j)`) of
growing size, 10 to 2000 nodes. Each engine differentiates and then simplifies its result
(SymPy's bare diff is a column too), in its own worker under the timing rule of
benchmarks/peers.py.

    python benchmarks/diff_vs_sympy.py [--sympy-timeout 60] [--quick]
"""

from __future__ import annotations

import textbook
from common import corpus, sized_sums, sympy_options
from peers import ENGINES, Case, side_by_side

BLOCK = "{c}*sin({k}*x)*x^{m} + exp(x/{j})"


def _label(kind: str, text: str, variables: list[str]) -> str:
    return f"{kind}: d{''.join(variables)} {text}"


def cases(sizes: list[int]) -> list[Case]:
    listed = [("floor", text, variables) for text, variables in textbook.FLOOR_DIFF]
    listed += [("textbook", text, variables) for text, variables in textbook.DIFF]
    for r in corpus("diff"):
        order = int(r.get("order", 1))
        variables = [r["var"]] * order if isinstance(r["var"], str) else r["var"]
        listed.append(("corpus", r["input"].replace("**", "^"), variables))
    found = [Case(_label(kind, text, variables), "diff", text, tuple(variables))
             for kind, text, variables in listed]

    def block(i: int) -> str:
        return BLOCK.format(c=i % 7 + 1, k=i % 5 + 1, m=i % 3 + 1, j=i + 1)

    return found + [Case(name, "diff", text, ("x",)) for name, text in sized_sums(block, sizes)]


def main() -> None:
    timeout, sizes = sympy_options(__doc__.splitlines()[0])
    side_by_side(cases(sizes), timeout, [*ENGINES[:2], "SymPy bare diff", *ENGINES[2:]])


if __name__ == "__main__":
    main()
