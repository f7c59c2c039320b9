"""Guards are objects: each one's tests agree with each other, exactly on numbers."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from eqsat.rules.guards import GUARDS, SIGN_FACTS, SignGuard
from eqsat.term.expr import number, symbol

SIGN_GUARDS = [g for g in GUARDS.values() if isinstance(g, SignGuard)]
VALUES = [Fraction(-2), Fraction(-1, 2), Fraction(0), Fraction(1, 3), Fraction(3)]


@pytest.mark.parametrize("guard", SIGN_GUARDS, ids=lambda g: g.spelling)
def test_a_sign_guard_decides_numbers_as_its_numeric_test_does(guard: SignGuard) -> None:
    for value in VALUES:
        sampled = mpmath.mpf(value.numerator) / value.denominator
        assert guard.on_term(number(value), lambda e: False) == guard.holds(sampled)
    assert guard.on_snapshot([], {guard.fact}, lambda: None)  # its fact proves it
    assert not guard.on_snapshot([], set(SIGN_FACTS) - {guard.fact}, lambda: None)
    assert guard.on_term(symbol("y"), lambda e: False) is None  # the e-graph must say


def test_guards_on_terms_are_exact_and_use_assumptions() -> None:
    integer = GUARDS["is integer"]
    assert integer.on_term(number(Fraction(10**20 + 1, 10**20)), lambda e: False) is False
    assert GUARDS["> 0"].on_term(symbol("p", positive=True), lambda e: False) is True
    assert GUARDS["!= 0"].on_term(symbol("n", negative=True), lambda e: False) is True
    assert GUARDS["< 0"].on_term(symbol("p", positive=True), lambda e: False) is None
    assert GUARDS["free of"].on_term(symbol("y"), lambda e: False) is True
    assert GUARDS["depends on"].on_term(symbol("y"), lambda e: False) is False
    assert GUARDS["is const"].on_term(number(2), lambda e: False) is True
    assert GUARDS["is const"].on_snapshot([("sym", (), "y")], set(), lambda: None) is False
    assert GUARDS["free of"].on_snapshot([], set(), lambda: None) is False  # not known
