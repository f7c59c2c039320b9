"""Solutions with parameters: the equations' domain in the parameters is part of the answer,
and every piece of a parameter's line is stated. The fuzz test solves random equations with
parameters and checks each answer at parameter values that satisfy each case's conditions,
the values that zero a denominator or leave a domain included."""

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

CASES = [  # equation, the answer as printed
    ("x/a = 3", "x = 3*a, if a != 0\nif a == 0:\n  no solution (equation 1 is undefined there)"),
    ("(x - a)/(a - 1) = 2",
     "x = 3*a - 2, if a != 1\nif a == 1:\n  no solution (equation 1 is undefined there)"),
    ("x/(a^2 - 1) = 1", "x = a^2 - 1, if a != -1 and a != 1\n"
     "if a == -1:\n  no solution (equation 1 is undefined there)\n"
     "if a == 1:\n  no solution (equation 1 is undefined there)"),
    ("exp(x/a) = 2",
     "x = log(2)*a, if a != 0\nif a == 0:\n  no solution (equation 1 is undefined there)"),
    ("log(a)*x = 1", "x = 1/log(a), if a > 0 and a != 1\n"
     "if a <= 0:\n  no solution (equation 1 is undefined there)\n"
     "if a == 1:\n  no solution (the equations are inconsistent (elimination leaves 0 = 1))"),
    ("sqrt(a)*x = 1", "x = 1/sqrt(a), if a > 0\n"
     "if a < 0:\n  no solution (equation 1 is undefined there)\n"
     "if a == 0:\n  no solution (the equations are inconsistent (elimination leaves 0 = 1))"),
    ("x^2/a = 1", "x = sqrt(a) or x = -sqrt(a), if a > 0\n"
     "if a < 0:\n  no solution (it needs a >= 0)\n"
     "if a == 0:\n  no solution (equation 1 is undefined there)"),
    ("sqrt(x) = a",
     "x = a^2, if a >= 0\nif a < 0:\n  no solution (x = a^2 does not solve it there)"),
    ("x^2 = a^2 - 1", "x = sqrt(a^2 - 1) or x = -sqrt(a^2 - 1), if a^2 - 1 >= 0\n"
     "if a > -1 and a < 1:\n  no solution (it needs a^2 - 1 >= 0)"),
]


@pytest.mark.parametrize(("equation", "expected"), CASES)
def test_one_parameter_answers(equation: str, expected: str) -> None:
    assert str(eqsat.solve(equation, "x")) == expected


@pytest.mark.parametrize(("equation", "needed"), [
    ("a*x + 1 = x/b", "b != 0"),  # beside a*b - 1 != 0
    ("x/a + x/b = 1", "a != 0 and b != 0"),  # beside a != -b
])
def test_two_parameters_state_the_domain(equation: str, needed: str) -> None:
    assert needed in str(eqsat.solve(equation, "x")).splitlines()[0]


# --- the fuzz test ------------------------------------------------------------------------------

FAST = eqsat.Limits(seconds=20)
a, b, x = eqsat.symbols("a b x")
KS = [-2, -1, 1, 2, 3]


def _linear_in_a(rng: random.Random) -> Expr:
    return rng.choice(KS) * a + rng.choice([0, *KS]) if rng.random() < 0.6 else \
        number(rng.choice(KS))


def random_equation(rng: random.Random) -> Expr:
    """An equation in x with the parameter a (b in some): rational in both, or with a
    function of x or of a that has a domain."""
    k = rng.choice(KS)
    pick = rng.randrange(6)
    if pick == 0:  # (c1*x + c2)/d = r, d a denominator in a
        d = rng.choice([a, a - k, a * a - k * k, a * a + 1, a * (a - k)])
        return make("equation", (_linear_in_a(rng) * x + _linear_in_a(rng)) / d,
                    _linear_in_a(rng))
    if pick == 1:  # p*x^2 + q*x + r = 0
        return make("equation", _linear_in_a(rng) * x * x + _linear_in_a(rng) * x
                    + _linear_in_a(rng), number(0))
    if pick == 2:  # a function of x over a function of a
        f = rng.choice([x, eqsat.exp(x), eqsat.log(x), eqsat.sqrt(x), x * x])
        g = rng.choice([a, a - k, eqsat.log(a), eqsat.sqrt(a), eqsat.exp(a) - 1, a * a + 1])
        return make("equation", f / g, _linear_in_a(rng))
    if pick == 3:  # a function of x equal to a function of a
        f = rng.choice([eqsat.sqrt(x), eqsat.log(x), eqsat.exp(x), x * x])
        return make("equation", f, rng.choice([a + k, a * a - k, eqsat.log(a), k * a]))
    if pick == 4:  # a coefficient with a domain
        c = rng.choice([eqsat.log(a), eqsat.sqrt(a), a - k, a * a - 1, eqsat.exp(a) - 1])
        return make("equation", c * x + _linear_in_a(rng), _linear_in_a(rng))
    return make("equation", (a * x + rng.choice(KS)) / (b - k), x)  # two parameters


def check_parameters(seed: int) -> None:
    """The answer at each parameter value: each claimed value solves the equation there, and
    the equation with the value put in has the same solutions (solved without parameters)."""
    rng = random.Random(seed)
    equation = random_equation(rng)
    try:
        solution = eqsat.solve(equation, "x", limits=FAST)
    except eqsat.SolveError:
        return  # said it cannot: not a wrong answer
    names = sorted(s.name for s in equation.free_symbols() if s.name != "x")
    specials = sorted(special_points(solution) | {Fraction(0), Fraction(1), Fraction(-1)})
    for trial in range(10):
        point = {n: (rng.choice(specials) if trial % 2 else
                     Fraction(rng.randint(-40, 40), rng.choice([1, 3, 7]))) for n in names}
        for claim in claims(solution, point):
            if claim == "unanalysed":
                assert len(names) > 1, f"{equation}: a case in one parameter left unanalysed"
                continue
            assert isinstance(claim, Solution)
            put = equation.subs({eqsat.symbol(k): number(v) for k, v in point.items()})
            try:
                direct = eqsat.solve(put, "x", limits=FAST)
            except eqsat.SolveError:
                continue
            where = f"{equation} at {point}: {claim!r} against {direct!r}"
            every = SolutionKind.INFINITE
            assert (claim.kind == every) == (direct.kind == every), where
            if claim.kind == every:
                continue
            claimed, found = distinct_values(claim, point, "x"), distinct_values(direct, {}, "x")
            assert len(claimed) == len(found), where
            assert all(abs(p - q) <= mpmath.mpf(10) ** -20 * max(1, abs(q))
                       for p, q in zip(claimed, found, strict=True)), where


@pytest.mark.parametrize("block", range(4))
def test_random_equations_with_parameters(block: int) -> None:
    assert_every_seed_holds(check_parameters, range(block * 50, block * 50 + 50))


@pytest.mark.slow
def test_many_random_equations_with_parameters() -> None:
    assert_every_seed_holds(check_parameters, range(1000))
