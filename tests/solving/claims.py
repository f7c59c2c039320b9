"""What a solution with parameters claims at a point of the parameters, for the fuzz tests
that check each claim against the equations solved with the point put in."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from fractions import Fraction

import mpmath

import eqsat
from eqsat import Expr
from eqsat.solving import Solution, SolutionKind
from eqsat.term.expr import number
from eqsat.term.reference import reference


def claims(solution: Solution, point: dict[str, Fraction]) -> Iterator[Solution | str]:
    """What the answer says holds at the point: the solution whose conditions hold there
    (the cases in turn where one fails), "unanalysed" for a case left unanalysed, or a
    solution of no solutions where neither the conditions nor a case holds."""
    if all(holds(c, point) for c in solution.conditions):
        yield solution
        return
    for case in solution.cases:
        if all(holds(c, point) for c in case.conditions):
            if case.solution is None:
                yield "unanalysed"
            else:
                yield from claims(case.solution, point)
            return
    yield Solution(SolutionKind.NONE, solution.unknowns)


def holds(condition: Expr, point: dict[str, Fraction]) -> bool:
    """Whether a condition holds at the point, exactly (at 60 digits)."""
    exact = condition.subs({eqsat.symbol(k): number(v) for k, v in point.items()})
    value = reference(exact, {}, 60)
    if value is None:
        value = reference(eqsat.simplify(exact), {}, 60)
    assert value is not None, f"{condition} undecided at {point}"
    return bool(value != 0)


def distinct_values(solution: Solution, point: dict[str, Fraction], name: str
                    ) -> list[mpmath.mpf]:
    """The solutions' values of one unknown at the point, sorted, a double root once."""
    mapping = {eqsat.symbol(k): number(v) for k, v in point.items()}
    found = [reference(s[name].subs(mapping), {}, 60) for s in solution.solutions]
    assert all(v is not None for v in found), f"a value is undefined at {point}"
    distinct: list[mpmath.mpf] = []  # (a double root is written twice: +-sqrt(0))
    for value in sorted(v for v in found if v is not None):
        if not distinct or abs(value - distinct[-1]) > mpmath.mpf(10) ** -20 * max(1, abs(value)):
            distinct.append(value)
    return distinct


def special_points(solution: Solution) -> set[Fraction]:
    """The constants the answer's conditions compare a parameter with, and beside them."""
    found: set[Fraction] = set()
    conditions = [*solution.conditions, *(c for case in solution.cases for c in case.conditions)]
    for condition in conditions:
        for side in condition.args:
            value = reference(side, {}, 60) if not side.free_symbols() else None
            if value is not None:  # (a constant 0 at 60 digits, such as sqrt(3)^2 - 3, is 0)
                near = Fraction(0) if abs(value) < 1e-30 else Fraction(str(mpmath.nstr(value, 12)))
                found |= {near, near + Fraction(1, 7), near - Fraction(1, 7)}
    for case in solution.cases:
        if case.solution is not None:
            found |= special_points(case.solution)
    return found


def assert_every_seed_holds(check: Callable[[int], None], seeds: Iterable[int]) -> None:
    """check on every seed, the failures gathered (the first eight shown)."""
    failures = []
    for seed in seeds:
        try:
            check(seed)
        except AssertionError as error:
            failures.append(f"seed {seed}: {str(error)[:400]}")
    assert not failures, f"{len(failures)} failing:\n" + "\n".join(failures[:8])
