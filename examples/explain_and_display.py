"""See results: a derivation step by step, LaTeX and Unicode, a picture of the e-graph."""

import tempfile
from pathlib import Path

import eqsat

derivation = eqsat.explain("(x + 1)^2 - (x^2 + 2x + 1)")
print(derivation)                                    # each step: the term, the rule, what it rewrote
print("steps:", len(derivation.steps), "checked at", min(derivation.checked), "points or more")

e = eqsat.parse("sqrt(x^2 + 1)/(2*y) <= pi")
print(eqsat.pretty(e))                               # √(x² + 1)/(2·y) ≤ π
print(eqsat.latex(e))                                # what a notebook typesets

solution = eqsat.solve("a*x = b", "x")
print(solution.format(pretty_print=True).splitlines()[0])   # x = b/a, if a ≠ 0

with tempfile.TemporaryDirectory() as folder:
    dot = eqsat.egraph_dot("x*1 + 0", limits=eqsat.Limits(iterations=3))
    written = eqsat.save_dot(dot, Path(folder) / "egraph.svg")   # .dot without Graphviz
    print("filled:", dot.count("fillcolor"), "e-node(s), the result; picture:", written.suffix)
