"""eqsat's algebra and calculus verbs against SymPy on SymPy's own cases, in one run.

Cases: ../shared/corpora/sympy_verbs.jsonl (expand, factor, apart, together, cancel, series,
limit, from SymPy's tests). Each case runs SymPy's call as its test makes it (`sympy_call`,
else the verb on the expression) and eqsat's verb, each on input it has already parsed, the
best of 3 calls, each tool's caches cleared before every timed call. Right: for series, the
terms equal the expected truncation exactly; for limit, the value equals the expected one;
for the others, the result equals the input in value (at random points, 60 digits) and is no
larger than SymPy's (count_ops).

    python benchmarks/verbs_vs_sympy.py [--verb series] [--verbose]
"""

from __future__ import annotations

import argparse
import inspect
import json
import random
import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import sympy
from sympy.core.cache import clear_cache
from sympy.polys.partfrac import apart_undetermined_coeffs

import eqsat
from eqsat.term.reference import reference

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "sympy_verbs.jsonl"
VERBS = ("expand", "factor", "apart", "together", "cancel", "series", "limit")
REPEATS = 3


def _best(call: Callable[[], Any], clear: Callable[[], None]) -> tuple[Any, float]:
    found, best = None, float("inf")
    for _ in range(REPEATS):
        clear()
        began = time.perf_counter()
        found = call()
        best = min(best, time.perf_counter() - began)
    return found, best


def _assume(case: dict[str, Any]) -> dict[str, str] | None:
    return {name: str(words) for name, words in (case.get("assumptions") or {}).items()} or None


def _sympy_call(case: dict[str, Any]) -> Callable[[], Any]:
    """SymPy's call on its parsed input, as the case's test makes it."""
    names = {name: sympy.Symbol(name, **dict.fromkeys(words.split(), True))
             for name, words in (_assume(case) or {}).items()}
    expr = sympy.sympify(case["input"], locals=names)
    variable = names.get(case.get("var", ""), sympy.Symbol(case.get("var") or "x"))
    if case["kind"] == "series":
        point = sympy.sympify(case.get("point", "0"))
        return lambda: sympy.series(expr, variable, point, case["n"], case.get("dir", "+"))
    if case["kind"] == "limit":
        point = sympy.sympify(case["point"])
        return lambda: sympy.limit(expr, variable, point, case.get("dir", "+"))
    written = case.get("sympy_call") or (f"{case['kind']}(expr, x)" if case.get("var")
                                         else f"{case['kind']}(expr)")
    numer, denom = sympy.fraction(sympy.together(expr))
    space = {**vars(sympy), "expr": expr, "x": variable, "numer": numer, "denom": denom,
             "apart_undetermined_coeffs": apart_undetermined_coeffs, **names}
    return lambda: eval(written, space)  # the corpus' own call, as its test wrote it


def _eqsat_call(case: dict[str, Any]) -> Callable[[], Any]:
    """eqsat's verb on its parsed input."""
    parsed = eqsat.to_expr(case["input"].replace("**", "^"), _assume(case))
    kind = case["kind"]
    if kind == "series":
        return lambda: eqsat.series(parsed, case["var"], case.get("point", "0"), case["n"],
                                    case.get("dir", "+"), order=False)
    if kind == "limit":
        return lambda: eqsat.limit(parsed, case["var"], case["point"], case.get("dir", "+"))
    if kind == "apart":
        return lambda: eqsat.apart(parsed, case.get("var"))
    verb = getattr(eqsat, kind)
    options = _options(case, verb)
    return lambda: verb(parsed, **options)


def _options(case: dict[str, Any], verb: Callable[..., Any]) -> dict[str, Any]:
    """The keywords of the case's SymPy call that eqsat's verb takes too (frac=True,
    extension=sqrt(2)): True and False as such, other values as their text."""
    accepted = inspect.signature(verb).parameters
    found = re.findall(r"(\w+)=(\{[^}]*\}|\w+\([^()]*\)|[^,)]+)", case.get("sympy_call", ""))
    return {key: {"True": True, "False": False}.get(value, value.strip("{}"))
            for key, value in found if key in accepted}


def _right(case: dict[str, Any], ours: eqsat.Expr, theirs: Any) -> bool:
    found = eqsat.to_sympy(ours)
    names = {s.name: s for s in found.free_symbols}
    if case["kind"] in ("series", "limit"):
        expected = sympy.sympify(case["expect"], locals=names)
        return bool(found == expected or sympy.simplify(found - expected) == 0)
    given = eqsat.to_expr(case["input"].replace("**", "^"), _assume(case))
    rng, checked = random.Random(0), 0
    for _ in range(24):
        point = {s.name: rng.uniform(0.2, 2.5) for s in given.free_symbols()}
        a, b = reference(given, point, 60), reference(ours, point, 60)
        if a is None:
            continue
        if b is None or abs(a - b) > 1e-35 * max(1, abs(a)):
            return False
        checked += 1
    return checked >= 6 and sympy.count_ops(found) <= sympy.count_ops(theirs)


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--verb", choices=VERBS, action="append")
    options.add_argument("--verbose", action="store_true", help="a line per case")
    args = options.parse_args()
    cases = [json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()]
    print(f"{'verb':9} {'cases':>5} {'right':>6} {'share':>6} {'eqsat ms':>9} {'SymPy ms':>9} "
          f"{'ratio':>6}   (median time per case, each tool's best of {REPEATS})")
    for verb in args.verb or VERBS:
        mine, theirs, right, listed = [], [], 0, [c for c in cases if c["kind"] == verb]
        for case in listed:
            their_result, their_s = _best(_sympy_call(case), clear_cache)
            try:
                result, my_s = _best(_eqsat_call(case), eqsat.clear_cache)
                good = _right(case, result, their_result)
            except eqsat.EqsatError as error:
                result, my_s, good = f"({type(error).__name__}: {error})", float("nan"), False
            right += good
            mine.append(my_s)
            theirs.append(their_s)
            if args.verbose:
                print(f"  {'ok ' if good else 'NO '} {my_s * 1e3:8.2f} {their_s * 1e3:9.2f}  "
                      f"{case['input'][:48]:48} {str(result)[:70]}")
        timed = [m for m in mine if m == m]  # (a refusal has no time)
        ratio = statistics.median(timed) / statistics.median(theirs) if timed else float("nan")
        print(f"{verb:9} {len(listed):5} {right:6} {right / len(listed):6.0%} "
              f"{statistics.median(timed) * 1e3 if timed else float('nan'):9.2f} "
              f"{statistics.median(theirs) * 1e3:9.2f} {ratio:6.2f}")


if __name__ == "__main__":
    main()
