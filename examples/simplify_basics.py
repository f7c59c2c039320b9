"""Simplify expressions from text and from Python operators, with and without assumptions."""

import eqsat

x, y = eqsat.symbols("x y")
print(eqsat.simplify("x*y/x"))                       # y
print(eqsat.simplify((x + 1) ** 2 - (x**2 + 2 * x + 1)))  # 0
print(eqsat.simplify("sqrt(x^2)"))                   # abs(x): x could be < 0
print(eqsat.simplify("sqrt(x^2)", assume={"x": "nonnegative"}))  # x

result = eqsat.simplify_report("sin(x)^2 + cos(x)^2")
print(result.expr, "--", result.report.stop_reason, f"in {result.report.iterations} iterations")
print(eqsat.evaluate("x*y/x", x=2.0, y=3.0))          # 3.0
