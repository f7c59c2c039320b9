"""The polynomial library under the normal forms: python-flint against SymPy's polys on the
same work, in one run.

Each case's rational part is reduced by eqsat (normal.py, flint), which yields its
numerator and denominator; the same two polynomials are then handed to both libraries for
what a normal form needs: the gcd, the exact divisions by it, and the factorisation of the
result (median of --repeat timings each). Cases: the corpus's simplify records that have a
rational part, and products of growing size, ((x + y)^k - (x - y)^k) / (x^2 - y^2) * ...

    python benchmarks/polynomials.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import sympy
from common import corpus

import eqsat
from eqsat.algebra.normal import _Fraction, is_rational_node
from eqsat.term.walks import postorder


def parts() -> list[tuple[str, Any, Any, int]]:
    """(name, numerator, denominator, variables) of each case's reduced rational part."""
    texts = [(r["input"][:40], r["input"].replace("**", "^")) for r in corpus("simplify")]
    texts += [(f"sized k={k}", f"((x + y)^{k} - (x - y)^{k})*(x^{k} - z^{k})/((x^2 - y^2)*(x - z))")
              for k in (4, 8, 12)]  # SymPy: 7 s at k = 16
    found = []
    for name, text in texts:
        try:
            term = eqsat.to_expr(text)
        except eqsat.EqsatError:  # the imaginary unit, say
            continue
        if not is_rational_node(term) or not term.args:
            continue
        nodes = postorder(term, into=is_rational_node)
        try:
            fraction = _Fraction.of(nodes, term, {}, {})
        except Exception:  # divides by zero everywhere, or too large: not a normal form case
            continue
        if not fraction.atoms:  # a number
            continue
        # the unreduced numerator and denominator: multiply back the gcd's cofactor
        found.append((name, fraction.num * fraction.den, fraction.den * fraction.den,
                      len(fraction.atoms)))
    return found


def timed(work: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        work()
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def with_flint(num: Any, den: Any) -> None:
    common = num.gcd(den)
    top, bottom = num / common, den / common
    top.factor()
    bottom.factor()


def to_sympy(poly: Any, variables: int) -> sympy.Poly:
    gens = sympy.symbols(f"v0:{variables}")
    terms = {tuple(map(int, m)): sympy.Rational(int(c.p), int(c.q))
             for m, c in zip(poly.monoms(), poly.coeffs(), strict=True)}
    return sympy.Poly.from_dict(terms, *gens, domain="QQ")


def with_sympy(num: sympy.Poly, den: sympy.Poly) -> None:
    common = num.gcd(den)
    top, bottom = num.exquo(common), den.exquo(common)
    top.factor_list()
    bottom.factor_list()


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--repeat", type=int, default=5)
    repeat = options.parse_args().repeat
    print(f"{'case':42} {'terms':>6} {'flint ms':>9} {'sympy ms':>9} {'ratio':>7}")
    ratios = []
    for name, num, den, variables in parts():
        flint_s = timed(lambda n=num, d=den: with_flint(n, d), repeat)
        top, bottom = to_sympy(num, variables), to_sympy(den, variables)
        sympy_s = timed(lambda n=top, d=bottom: with_sympy(n, d), repeat)
        ratios.append(flint_s / sympy_s)
        print(f"{name:42} {len(num) + len(den):6} {flint_s * 1000:9.3f} {sympy_s * 1000:9.3f} "
              f"{flint_s / sympy_s:7.3f}")
    print(f"\ncases: {len(ratios)}; median of per-case ratios flint/SymPy "
          f"{statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
