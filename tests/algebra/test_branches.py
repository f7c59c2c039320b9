"""A where on the same test nested in a branch of one takes that branch."""

from __future__ import annotations

import pytest

import eqsat
from eqsat.algebra.branches import same_test_branches
from tests.conftest import assert_equivalent


@pytest.mark.parametrize(("text", "taken"), [
    ("where(0 > x, 0, where(0 > x, 0, 1)/(2*sqrt(max(0, x))))",
     "where(0 > x, 0, 1/(2*sqrt(max(0, x))))"),  # d/dx sqrt(max(0, x)) as diff gave it
    ("where(x > 1, where(x > 1, a, b)*sin(where(y > 0, where(x > 1, c, d), e)), "
     "where(x > 1, f, g))", "where(x > 1, a*sin(where(y > 0, c, e)), g)"),
    ("where(x > 1, where(x > 2, a, b), c)", "where(x > 1, where(x > 2, a, b), c)"),
])
def test_the_branch_a_nested_where_takes(text: str, taken: str) -> None:
    given = eqsat.parse(text)
    found = same_test_branches(given)
    assert str(found) == taken
    assert_equivalent(given, found)


def test_diff_of_a_root_of_a_max_has_one_where() -> None:
    assert str(eqsat.diff("sqrt(max(0, x))", "x")) == "where(0 > x, 0, 1/(2*sqrt(max(0, x))))"
