"""True values at random points: arb balls (what stabilize measures against) beside mpmath's
reference path, on the same points in one run: time per point, and how often they differ.

Points are drawn from every float bit pattern (as stabilize draws them without a domain), for
each expression of a list that exercises cancellation, huge arguments, domain edges and every
kind of op. Where the two differ the balls are the rigorous ones (their value is decided by a
ball that holds the true value); mpmath's path ignores cancellation it cannot resolve and
takes a point undefined at two precisions as undefined.

    python benchmarks/truth.py [--points 80]
"""

from __future__ import annotations

import argparse
import math
import random
import time

import eqsat
from eqsat.accuracy.measure import true_value, truth_by_mpmath
from eqsat.term.sampling import float_bits

CASES = [
    "(x^2 + e)^(1/3) - (x^2)^(1/3)", "tan(x + e) - tan(x)", "exp(x)*exp(x - 1)/exp(x + x - 1 - 1)",
    "1/x - 1/tan(x)", "log(1 + x) - x", "exp(x)/(exp(x) - 1)", "x^e",
    "atan2(x, e) + acosh(x) + asin(e)", "where(x < e, x, e) + sign(x - e) + max(x, e)",
    "sigmoid(x) + softplus(e) + logaddexp(x, e)", "log1mexp(-abs(x)) + erf(x) + erfc(e)",
    "hypot(x, e) - x", "sin(pi) + x", "(x - 1)^3",
]


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--points", type=int, default=80)
    args = options.parse_args()
    true_value(eqsat.parse("x"), {"x": 1.0}, "float64")  # load python-flint before timing
    print(f"{'expression':46} {'balls':>10} {'mpmath':>10} {'ratio':>6}  differ")
    ratios = []
    for text in CASES:
        expr = eqsat.parse(text)
        names = sorted(s.name for s in expr.free_symbols())
        rng = random.Random(text)
        drawn = {n: float_bits(rng, -math.inf, math.inf, args.points, "float64") for n in names}
        points = [{n: float(drawn[n][i]) for n in names} for i in range(args.points)]
        timed = {}
        found = {}
        for label, truth in (("balls", true_value), ("mpmath", truth_by_mpmath)):
            began = time.perf_counter()
            found[label] = [truth(expr, point, "float64") for point in points]
            timed[label] = (time.perf_counter() - began) / args.points * 1000
        differ = sum(a != b for a, b in zip(found["balls"], found["mpmath"], strict=True))
        ratios.append(timed["balls"] / timed["mpmath"])
        print(f"{text[:46]:46} {timed['balls']:7.3f} ms {timed['mpmath']:7.3f} ms "
              f"{ratios[-1]:6.2f}  {differ} of {args.points}")
    ratios.sort()
    print(f"per point, balls over mpmath: median ratio {ratios[len(ratios) // 2]:.2f}, "
          f"worst {ratios[-1]:.2f}")


if __name__ == "__main__":
    main()
