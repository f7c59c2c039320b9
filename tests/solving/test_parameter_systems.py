"""Linear systems with parameters: every case the answer states, checked at parameter values
that satisfy its conditions (those that zero a denominator or the determinant included)
against the system solved with the values put in."""

from __future__ import annotations

import random
from fractions import Fraction

import mpmath
import pytest

import eqsat
from eqsat import Expr
from eqsat.solving import Solution, SolutionKind
from eqsat.term.expr import make, number
from tests.solving.claims import (
    assert_every_seed_holds,
    claims,
    distinct_values,
    special_points,
)

LIMITS = eqsat.Limits(seconds=20)
a, b, x, y = eqsat.symbols("a b x y")
KS = [-2, -1, 1, 2, 3]
UNKNOWNS = ["x", "y"]


def _coefficient(rng: random.Random) -> Expr:
    """A number, or a polynomial of degree one or two in a (b in some)."""
    pick = rng.randrange(5)
    if pick == 0:
        return number(rng.choice(KS))
    if pick == 1:
        return rng.choice(KS) * a * a + rng.choice([0, *KS])
    if pick == 2:
        return rng.choice(KS) * b + rng.choice(KS)
    return rng.choice(KS) * a + rng.choice([0, *KS])


def random_system(rng: random.Random) -> list[Expr]:
    """Two linear equations in x and y with coefficients in the parameters; one divided
    by a denominator in a in some."""
    equations = []
    for _ in range(2):
        lhs = _coefficient(rng) * x + _coefficient(rng) * y
        rhs = _coefficient(rng)
        if rng.random() < 0.3:
            lhs = lhs / rng.choice([a, a - rng.choice(KS), a * a - 1])
        equations.append(make("equation", lhs, rhs))
    return equations


def _points(solution: Solution, names: list[str], rng: random.Random
            ) -> list[dict[str, Fraction]]:
    specials = sorted(special_points(solution) | {Fraction(0), Fraction(1), Fraction(-1)})
    return [{n: (rng.choice(specials) if trial % 2 else
                 Fraction(rng.randint(-40, 40), rng.choice([1, 3, 7]))) for n in names}
            for trial in range(8)]


def check_system(seed: int) -> None:
    rng = random.Random(seed)
    system = random_system(rng)
    try:
        solution = eqsat.solve(system, UNKNOWNS, limits=LIMITS)
    except eqsat.SolveError:
        return  # said it cannot: not a wrong answer
    names = sorted({s.name for e in system for s in e.free_symbols()} - set(UNKNOWNS))
    for point in _points(solution, names, rng):
        for claim in claims(solution, point):
            if claim == "unanalysed":
                assert len(names) > 1, f"{system}: a case in one parameter left unanalysed"
                continue
            assert isinstance(claim, Solution)
            put = [e.subs({eqsat.symbol(k): number(v) for k, v in point.items()})
                   for e in system]
            try:
                direct = eqsat.solve(put, UNKNOWNS, limits=LIMITS)
            except eqsat.SolveError:
                continue
            where = f"{system} at {point}: {claim!r} against {direct!r}"
            assert (claim.kind == SolutionKind.NONE) == (direct.kind == SolutionKind.NONE), \
                where
            assert (claim.kind == SolutionKind.INFINITE) == \
                (direct.kind == SolutionKind.INFINITE), where
            if claim.kind != SolutionKind.UNIQUE:
                continue
            for name in UNKNOWNS:
                claimed, found = distinct_values(claim, point, name), \
                    distinct_values(direct, {}, name)
                assert len(claimed) == len(found), where
                assert all(abs(p - q) <= mpmath.mpf(10) ** -20 * max(1, abs(q))
                           for p, q in zip(claimed, found, strict=True)), where


def test_a_parameter_dividing_a_system() -> None:
    assert str(eqsat.solve(["x/a + y = 1", "x - y = 0"], UNKNOWNS)) == (
        "x = a/(a + 1), y = a/(a + 1), if a != -1 and a != 0\n"
        "if a == -1:\n  no solution (the equations are inconsistent (elimination leaves "
        "0 = 1))\n"
        "if a == 0:\n  no solution (equation 1 is undefined there)")


@pytest.mark.parametrize("block", range(2))
def test_random_systems_with_parameters(block: int) -> None:
    assert_every_seed_holds(check_system, range(block * 25, block * 25 + 25))


@pytest.mark.slow
def test_many_random_systems_with_parameters() -> None:
    assert_every_seed_holds(check_system, range(1000))
