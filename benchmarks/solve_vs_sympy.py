"""eqsat.solve against sympy.solve, side by side in one run: time and correctness.

Cases: the `solve` records of ../shared/corpora/sympy_cases.jsonl, the equations of the
solve issue (linear, symbolic, reducible by a rewrite, quadratic), and random integer linear
systems of 2 to 20 unknowns. An answer is correct when it has the expected solutions (the
corpus's, checked at random parameter values) and reports "no solution" / "every value"
where those are expected. eqsat runs with method "auto" (polynomial elimination, rules
otherwise) and, for single equations, "rules" (the [solve] rules in the e-graph first).
SymPy runs in a worker process (warmed up by one solve) with a time limit.

    python benchmarks/solve_vs_sympy.py [--sympy-timeout 60]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import mpmath
import sympy
from common import corpus, in_worker

import eqsat
from eqsat.term.reference import reference

Expected = dict[str, str] | list[dict[str, str]] | str  # one solution, several, "NONE"/"ALL"

ISSUE_CASES: list[tuple[list[str], list[str], Expected]] = [
    (["3*x + 1 == 2*(2*x - 6)"], ["x"], {"x": "13"}),
    (["x/3 + 1/2 == 1"], ["x"], {"x": "3/2"}),
    (["a*x == b"], ["x"], {"x": "b/a"}),
    (["x/(x - 1) == 2"], ["x"], {"x": "2"}),
    (["sqrt(x) == 3"], ["x"], {"x": "9"}),
    (["exp(x) == 5"], ["x"], {"x": "log(5)"}),
    (["log(x) == 2"], ["x"], {"x": "exp(2)"}),
    (["exp(2*x + 1) == 5"], ["x"], {"x": "(log(5) - 1)/2"}),
    (["x**2 - 5*x + 6"], ["x"], [{"x": "2"}, {"x": "3"}]),
    (["a*x**2 + b*x + c"], ["x"], [{"x": "(-b + sqrt(b**2 - 4*a*c))/(2*a)"},
                                   {"x": "(-b - sqrt(b**2 - 4*a*c))/(2*a)"}]),
    (["sqrt(x) == x - 2"], ["x"], {"x": "4"}),
    (["x**3 - 6*x**2 + 11*x - 6"], ["x"], [{"x": "1"}, {"x": "2"}, {"x": "3"}]),
    (["x + 1 == x + 2"], ["x"], "NONE"),
]


def corpus_cases() -> list[tuple[list[str], list[str], Expected]]:
    found: list[tuple[list[str], list[str], Expected]] = []
    for r in corpus("solve"):
        expected = "NONE" if r.get("no_solution") else r["expect"]
        found.append((r["input"], r["unknowns"], expected))
    return found


def random_system(n: int, rng: random.Random) -> tuple[list[str], list[str], Expected]:
    names = [f"x{i}" for i in range(1, n + 1)]
    answer = {name: rng.randint(-9, 9) for name in names}
    equations = []
    for _ in range(n):
        coefficients = {name: rng.randint(-9, 9) or 1 for name in names}
        rhs = sum(c * answer[name] for name, c in coefficients.items())
        lhs = " + ".join(f"{c}*{name}" for name, c in coefficients.items())
        equations.append(f"{lhs} == {rhs}")
    return equations, names, {k: str(v) for k, v in answer.items()}


# --- correctness ----------------------------------------------------------------------------

def _agrees(found: dict[str, eqsat.Expr], wanted: dict[str, str], points: int = 6) -> bool:
    rng = random.Random(1)
    expected = {k: eqsat.parse(v) for k, v in wanted.items()}
    if not set(expected) <= set(found):
        return False
    symbols = sorted({s.name for e in [*expected.values(), *found.values()]
                      for s in e.free_symbols()})
    compared = 0
    for _ in range(points * 4):
        point = {s: mpmath.mpf(rng.uniform(0.5, 4)) for s in symbols}
        for name, value in expected.items():
            theirs, ours = reference(value, point), reference(found[name], point)
            if theirs is None or ours is None:
                break
            if abs(theirs - ours) > 1e-20 * max(1, abs(theirs)):
                return False
        else:
            compared += 1
            if compared == points:
                return True
    return compared > 0


def correct(solutions: list[dict[str, eqsat.Expr]] | str, expected: Expected,
            unknowns: list[str]) -> bool:
    """Whether a tool's answer (solutions, or "NONE"/"ALL") is the expected one."""
    if isinstance(expected, str):
        return solutions == expected
    if isinstance(solutions, str):
        return False
    wanted = [expected] if isinstance(expected, dict) else expected
    if len(solutions) != len(wanted):
        return False
    return all(any(_agrees(s, w) for s in solutions) for w in wanted)


def eqsat_answer(equations: list[str], unknowns: list[str],
                 method: str) -> list[dict[str, eqsat.Expr]] | str:
    solution = eqsat.solve(equations, unknowns, method=method)
    if solution.kind == "none":
        return "NONE"
    if solution.kind == "infinite" and set(solution.free) == set(unknowns):
        return "ALL"
    return [dict(s) for s in solution.solutions]


def _sympy_solve(equations: list[str], unknowns: list[str]
                 ) -> tuple[float, list[dict[str, str]]]:
    x = sympy.Symbol("x")
    sympy.solve([x - 1], [x], dict=True)  # warm up
    start = time.perf_counter()
    parsed = []
    for text in equations:
        left, _, right = text.partition("==")
        parsed.append(sympy.sympify(left) - (sympy.sympify(right) if right else 0))
    result = sympy.solve(parsed, [sympy.Symbol(u) for u in unknowns], dict=True)
    elapsed = time.perf_counter() - start
    return elapsed, [{str(k): str(v) for k, v in s.items()} for s in result]


def sympy_answer(equations: list[str], unknowns: list[str], timeout: float
                 ) -> tuple[float, list[dict[str, eqsat.Expr]] | str] | None:
    found = in_worker(_sympy_solve, (equations, unknowns), timeout)
    if found is None:
        return None  # past the time limit, or SymPy raised
    seconds, result = found
    if not result:
        return seconds, "NONE"
    if result == [{}]:
        return seconds, "ALL"
    try:
        return seconds, [{k: eqsat.from_sympy(sympy.sympify(v)) for k, v in s.items()}
                         for s in result]
    except eqsat.EqsatError:  # an answer eqsat cannot represent (complex roots, ...)
        return seconds, [{}]


def timed(equations: list[str], unknowns: list[str], method: str
          ) -> tuple[float, list[dict[str, eqsat.Expr]] | str]:
    start = time.perf_counter()
    try:
        answer = eqsat_answer(equations, unknowns, method)
    except eqsat.SolveError:
        answer = "ERROR"
    return time.perf_counter() - start, answer


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--sympy-timeout", type=float, default=60.0)
    args = options.parse_args()
    eqsat.solve("x/(x - 1) = 2", "x")  # compile the engine before timing
    rng = random.Random(2026)
    groups = [("equations (corpus and issue)", ISSUE_CASES + corpus_cases()),
              ("random linear systems", [random_system(n, rng)
                                         for n in (2, 3, 5, 8, 12, 16, 20)])]
    mark = {True: "ok", False: "WRONG"}
    for title, cases in groups:
        print(f"\n{title}")
        print(f"{'case':44} {'eqsat ms':>9} {'':5} {'rules ms':>9} {'':5} {'sympy ms':>9} "
              f"{'':5} {'ratio':>6}")
        ours_ms, rules_ms, theirs_ms, ratios = [], [], [], []
        ours_ok = rules_ok = theirs_ok = 0
        single = []
        for equations, unknowns, expected in cases:
            name = "; ".join(equations)
            name = name if len(name) <= 44 else name[:41] + "..."
            seconds, answer = timed(equations, unknowns, "auto")
            ok = correct(answer, expected, unknowns)
            ours_ok += ok
            ours_ms.append(seconds * 1000)
            rules_cell = ("", "")
            if len(equations) == 1 and len(unknowns) == 1:
                rule_seconds, rule_answer = timed(equations, unknowns, "rules")
                rule_ok = correct(rule_answer, expected, unknowns)
                rules_ok += rule_ok
                rules_ms.append(rule_seconds * 1000)
                rules_cell = (f"{rule_seconds * 1000:9.1f}", mark[rule_ok])
            measured = sympy_answer(equations, unknowns, args.sympy_timeout)
            if measured is None:
                print(f"{name:44} {seconds * 1000:9.1f} {mark[ok]:5} {rules_cell[0]:>9} "
                      f"{rules_cell[1]:5} {'failed':>9}")
                continue
            their_seconds, their_answer = measured
            their_ok = correct(their_answer, expected, unknowns)
            theirs_ok += their_ok
            theirs_ms.append(their_seconds * 1000)
            ratio = seconds / max(their_seconds, 1e-6)
            ratios.append(ratio)
            if len(equations) == 1:
                single.append((seconds * 1000, their_seconds * 1000))
            print(f"{name:44} {seconds * 1000:9.1f} {mark[ok]:5} {rules_cell[0]:>9} "
                  f"{rules_cell[1]:5} {their_seconds * 1000:9.1f} {mark[their_ok]:5} "
                  f"{ratio:6.2f}")
        print(f"correct: eqsat {ours_ok}/{len(cases)}, SymPy {theirs_ok}/{len(cases)}"
              + (f", eqsat rules-first {rules_ok}/{len(rules_ms)} single equations"
                 if rules_ms else ""))
        print(f"median time: eqsat {statistics.median(ours_ms):.2f} ms, "
              f"SymPy {statistics.median(theirs_ms):.2f} ms, median of per-case ratios "
              f"{statistics.median(ratios):.3f}"
              + (f"; rules-first {statistics.median(rules_ms):.1f} ms" if rules_ms else ""))
        if single:
            ours_single = statistics.median(s[0] for s in single)
            theirs_single = statistics.median(s[1] for s in single)
            print(f"single equations ({len(single)}): median eqsat {ours_single:.2f} ms, "
                  f"SymPy {theirs_single:.2f} ms, ratio of medians "
                  f"{ours_single / theirs_single:.3f} (target <= 0.2)")


if __name__ == "__main__":
    main()
