"""eqsat.simplify against SymPy, SymEngine, Symbolica and Alkahest, side by side in one run.

Cases: the floor queries, 30 textbook cases (benchmarks/textbook.py), the `simplify` records
of ../shared/corpora/sympy_cases.jsonl, and generated expressions of growing size (10 to 2000
nodes). Each engine runs in its own worker under the timing rule of benchmarks/peers.py.

    python benchmarks/simplify_vs_sympy.py [--sympy-timeout 60] [--quick]
"""

from __future__ import annotations

import textbook
from common import corpus, sized_sums, sympy_options
from peers import ENGINES, Case, side_by_side

# a block of 14 nodes that simplifies to y_i + 1; blocks use their own variables
BLOCK = "x{i}*y{i}/x{i} + sin(z{i})^2 + cos(z{i})^2"


def cases(sizes: list[int]) -> list[Case]:
    found = [Case(f"floor: {text}", "simplify", text) for text in textbook.FLOOR_SIMPLIFY]
    found += [Case(f"textbook: {text}", "simplify", text) for text in textbook.SIMPLIFY]
    found += [Case(f"corpus: {r['input']}", "simplify", r["input"].replace("**", "^"))
              for r in corpus("simplify") if "I" not in r["input"]]
    return found + [Case(name, "simplify", text)
                    for name, text in sized_sums(lambda i: BLOCK.format(i=i), sizes)]


def main() -> None:
    timeout, sizes = sympy_options(__doc__.splitlines()[0])
    side_by_side(cases(sizes), timeout, ENGINES)


if __name__ == "__main__":
    main()
