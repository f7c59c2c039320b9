"""Every script in examples/ runs and prints what its comments promise."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.py"))
PROMISED = {
    "simplify_basics.py": ["y", "0", "abs(x)", "x", "1 -- optimal", "3.0"],
    "solve_equations.py": ["x = 13", "x = 2, y = 1", "x = 1/2 - z/2, y = 1/2 - z/2 for every z",
                           "m = 2*K/v^2, if v != 0", "where v == 0 -> no solution",
                           "several [", "x = 4", "discarded x = 1"],
    "stabilize_accuracy.py": ["True", "expm1(x)", "1/(sqrt(x + 1) + sqrt(x))", "2",
                              "['", "log1p(x)"],
    "tensor_gradients.py": ["<input>:1:1: matmul: shapes (500, 10) and (500, 3)", "A@(B@C)",
                            "X.T@softmax(X@W, axis=1)", "True"],
    "explain_and_display.py": ["  (x + 1)^2 - (x^2 + 2*x + 1)", "= 0 ", "steps: ",
                               "√(x² + 1)/(2·y) ≤ π", "\\frac{\\sqrt{x^{2} + 1}}{2 y} \\leq \\pi",
                               "x = b/a, if a ≠ 0", "filled: 1 e-node(s), the result; picture: ."],
    "custom_rules.py": ["ok    cos-double-angle", "ok    tan-half", "cos(2*t)", "tan(u/2)"],
}


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(script: Path) -> None:
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    for promised in PROMISED[script.name]:
        assert any(line.startswith(promised) for line in lines), (promised, lines)
