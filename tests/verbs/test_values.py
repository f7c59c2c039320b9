"""subs and N: symbols replaced all at once, and values to the digits asked for."""

from __future__ import annotations

from decimal import Decimal

import mpmath
import pytest
import sympy

import eqsat
from eqsat import EvaluationError
from eqsat.term.expr import make, number


def test_n_gives_the_digits_asked_for() -> None:
    with mpmath.workdps(60):
        truth = mpmath.sqrt(2) * mpmath.pi
    assert eqsat.N("sqrt(2)*pi", 30) == Decimal(mpmath.nstr(truth, 30))
    assert str(eqsat.N("sqrt(2)*pi", 30)) == "4.44288293815836624701588099006"
    # Ramanujan's near-integer: 12 nines after the point, seen only with enough digits
    assert str(eqsat.N("exp(pi*sqrt(163))", 30)) == "262537412640768743.999999999999"
    assert str(eqsat.N("pi", 5)) == "3.1416"


def test_n_sees_through_cancellation() -> None:
    # at the 15 + 10 digits first tried, 1 + 1e-40 is 1: the precision rises with what
    # the difference hides
    assert eqsat.N("(1 + 1e-40) - 1", 5) == Decimal("1e-40")
    assert eqsat.N("exp(1e-30) - 1", 10) == Decimal("1.000000000e-30")
    assert eqsat.N("x - x", x=2) == 0
    assert eqsat.N("sin(pi)") == 0  # about 10^-k at k digits: below what any resolves
    assert eqsat.N("sin(pi) + 1e-30", 5) == Decimal("1e-30")


@pytest.mark.parametrize(("text", "values", "digits"), [
    # cos of 4.7e25 needs its argument's 26 integer digits (was -0.473799088232859)
    ("atan2(cos(sinh(logaddexp(1, x)*hypot(x, x))), sigmoid(x))", {"x": "13/2"},
     "0.398115358405866"),
    ("cos(exp(exp(5)))", {}, "-0.288304742429084"),
    # erf(-9) = -1 + 4e-37: at 25 digits -1, and atanh(-1) is not finite (was an error)
    ("atan(1 - atanh(erf(x)))", {"x": -9}, "1.54767072468429"),
])
def test_n_raises_the_precision_until_the_digits_settle(text: str, values: dict[str, object],
                                                        digits: str) -> None:
    """Found by fuzzing N: a subterm whose error the spreads do not see (a periodic function
    of a large argument, a pole reached by rounding) is caught by a second precision."""
    assert str(eqsat.N(text, 15, values)) == digits


@pytest.mark.parametrize("text", ["exp(pi) - pi", "atan(1)*4 - pi + 1", "log(10)/log(2)",
                                  "sinh(1)^2 - cosh(1)^2 + 2", "erf(1/2) + erfc(1/2)"])
def test_n_agrees_with_sympy(text: str) -> None:
    theirs = sympy.N(sympy.sympify(text), 40)
    assert eqsat.N(text, 40) == Decimal(str(theirs))


def test_subs_replaces_all_at_once_and_exactly() -> None:
    x, y = eqsat.symbols("x y")
    assert eqsat.subs("x^2 + y", {"x": 3}, evaluate=False) is \
        make("add", make("pow", number(3), number(2)), y)
    assert str(eqsat.subs(x + y, x=y, y=x)) == "y + x"  # a swap: not one after the other
    assert eqsat.subs("10*x", x=0.1, evaluate=False) == \
        make("mul", number(10), number(Decimal("0.1")))
    assert eqsat.subs("10*x", x=0.1) is number(1)  # 0.1 is 1/10


@pytest.mark.parametrize(("text", "values", "expected"), [
    ("x^2 + y", {"x": 3}, "y + 9"),  # as SymPy's subs: the constants made are folded
    ("x*y + z", {"x": 2, "y": 3}, "z + 6"),
    ("sqrt(x) + 2^3*y", {"x": 2}, "sqrt(2) + 2^3*y"),  # no exact value; 2^3 was not made
    ("1/x + y", {"x": 0}, "1/0 + y"),  # undefined: kept as made, for simplify to refuse
    ("(x > 1) + 1", {"x": 2}, "2"),
    ("x + y", {"x": "y - 1"}, "y - 1 + y"),  # nothing else is simplified
])
def test_subs_folds_the_constants_it_makes(text: str, values: dict[str, object],
                                           expected: str) -> None:
    assert str(eqsat.subs(text, values)) == expected
    assert eqsat.N("10*x", x=0.1) == 1  # 0.1 is 1/10, not the float
    assert eqsat.N("x^2 + y", 10, {"x": 3}, y="1/3") == Decimal("9.333333333")


@pytest.mark.parametrize(("call", "message"), [
    (lambda: eqsat.N("log(x)", x=-1), "log\\(-1\\) is undefined"),
    (lambda: eqsat.N("sin(x)"), "needs a value for 'x'"),
    (lambda: eqsat.subs("z", x=1), "no symbol named 'x'"),
    (lambda: eqsat.N("1/0"), "undefined or not finite"),
])
def test_values_that_cannot_be_given_say_why(call: object, message: str) -> None:
    with pytest.raises(EvaluationError, match=message):
        call()  # type: ignore[operator]


@pytest.mark.parametrize("digits", [0, -3, 2.5, True, 10**6])
def test_n_refuses_a_bad_digit_count(digits: object) -> None:
    with pytest.raises(eqsat.EqsatError, match="digits"):
        eqsat.N("pi", digits)  # type: ignore[arg-type]


def test_n_takes_scalars() -> None:
    with pytest.raises(EvaluationError, match="scalar"):
        eqsat.N("sum(v)", v=eqsat.tensor("v", (3,)))
