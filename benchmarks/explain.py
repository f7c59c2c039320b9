"""Derivations: how many one-line and corpus simplifications eqsat.explain derives, how long
it takes, and how many steps they have."""

from __future__ import annotations

import statistics
import time

from common import corpus

import eqsat

ONE_LINE = ["x*y/x", "x + x + x + x", "2x + 3x", "(x+1)^2 - (x^2 + 2x + 1)",
            "sin(x)^2 + cos(x)^2", "log(exp(x))", "x - x", "x/x", "x*1 + 0", "-(-x)", "x^1",
            "(x + 1)/(x + 1)", "2*x - x", "x/2 + x/2", "(a + b)*(a - b)", "exp(x)*exp(-x)",
            "sqrt(x^2)", "(4 + 4*x - 2*(2 + 2*x))/(2 + 2*x)", "log(2*x) - log(2)",
            "cosh(x)^2 - sinh(x)^2", "tan(x)*cos(x)", "abs(-x)", "0.9 - 0.8 - 0.1",
            "min(x, x) + where(x > 1, y, y)", "(a + b)*(a - b) - a^2"]


def measure(name: str, inputs: list[str]) -> None:
    found, seconds, steps, missing = 0, [], [], []
    for text in inputs:
        began = time.perf_counter()
        derivation = eqsat.explain(text)
        seconds.append(time.perf_counter() - began)
        if derivation.found:
            found += 1
            steps.append(len(derivation.steps))
        else:
            missing.append(f"{text}: {derivation.reason}")
    print(f"{name:24} {found:>3}/{len(inputs):<3} {statistics.median(seconds):8.2f} "
          f"{max(seconds):8.2f} {statistics.median(steps):7.0f} {max(steps):6}")
    for line in missing:
        print(f"  not derived: {line}")


def main() -> None:
    eqsat.explain("x + 0")  # the engine compiles once, outside the figures
    print(f"{'inputs':24} {'derived':>7} {'median s':>8} {'max s':>8} {'steps':>7} {'max':>6}")
    measure("one-line cases", ONE_LINE)
    records = [r for r in corpus("simplify") if "I" not in str(r["input"])]
    measure("SymPy simplify corpus", [str(r["input"]) for r in records])


if __name__ == "__main__":
    main()
