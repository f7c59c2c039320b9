"""Solve equations and systems: exact answers, symbolic cases, checked candidates."""

import eqsat

print(eqsat.solve("3x + 1 = 2(2x - 6)", "x"))                  # x = 13
print(eqsat.solve(["x + y = 3", "x - y = 1"], ["x", "y"]))     # x = 2, y = 1
print(eqsat.solve(["x + y + z = 1", "x - y = 0"], ["x", "y", "z"]))  # ... for every z

kinetic = eqsat.solve("K = m*v^2/2", "m")                      # m = 2*K/v^2, if v != 0
print(kinetic)
for case in kinetic.cases:                                      # v == 0: K must be 0
    print("where", *case.conditions, "->", str(case.solution).splitlines()[0])

roots = eqsat.solve("x^2 - 3x + 1 = 0", "x")
print(roots.kind, [eqsat.evaluate(r) for r in roots.values("x")])  # several [2.618..., 0.381...]
print(eqsat.solve("sqrt(x) = x - 2", "x"))                     # x = 4, and x = 1 discarded
