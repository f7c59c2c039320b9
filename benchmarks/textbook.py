"""Everyday cases, 30 per verb, of the kind a textbook or a first session asks: the sets
beside the corpus cases in the simplify and diff benchmarks (written here, not taken from
the corpora, so that a gain on the corpus alone shows as such)."""

from __future__ import annotations

FLOOR_SIMPLIFY = ["x", "x + 1", "sin(x)"]
FLOOR_DIFF = [("sin(x)", ["x"])]

SIMPLIFY = [
    "x + x", "x*x", "2*x + 3*x - x", "x*y/x", "(x^2 - 1)/(x - 1)", "(x + 1)^2 - x^2",
    "x/2 + x/3", "1/x + 1/x", "(a + b)*(a - b)", "(x^2 + 2*x + 1)/(x + 1)",
    "sin(x)^2 + cos(x)^2", "1 - sin(x)^2", "sin(x)/cos(x)", "2*sin(x)*cos(x)",
    "cos(x)^2 - sin(x)^2", "cosh(x)^2 - sinh(x)^2", "log(exp(x))", "exp(log(x))",
    "exp(x)*exp(y)", "exp(2*x)/exp(x)", "log(x) + log(y)", "sqrt(x)*sqrt(x)",
    "sqrt(x^2)", "abs(-x)", "x^2*x^3", "(x^3)^2", "x^a*x^b", "y*x - x*y + 1",
    "(a*b + a*c)/a", "tan(-x) + tan(x)",
]

DIFF = [
    ("x^3", ["x"]), ("5*x^4 - 3*x + 7", ["x"]), ("sin(2*x)", ["x"]), ("cos(x^2)", ["x"]),
    ("exp(3*x)", ["x"]), ("exp(x^2)", ["x"]), ("x*exp(x)", ["x"]), ("x^2*sin(x)", ["x"]),
    ("log(x)", ["x"]), ("log(x^2 + 1)", ["x"]), ("1/x", ["x"]), ("sqrt(x)", ["x"]),
    ("1/(1 + x^2)", ["x"]), ("sin(x)*cos(x)", ["x"]), ("tan(x)", ["x"]),
    ("atan(x)", ["x"]), ("asin(x)", ["x"]), ("x/(x + 1)", ["x"]), ("sin(x)/x", ["x"]),
    ("exp(x)*cos(x)", ["x"]), ("log(sin(x))", ["x"]), ("sqrt(1 - x^2)", ["x"]),
    ("(x^2 + 1)^3", ["x"]), ("tanh(x)", ["x"]), ("x^2*y + y^3", ["y"]),
    ("x*y*z", ["x", "y"]), ("sin(x)", ["x", "x"]), ("x^4", ["x", "x", "x"]),
    ("exp(-x^2/2)", ["x"]), ("x*log(x) - x", ["x"]),
]
