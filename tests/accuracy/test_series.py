"""Series expansions: exact coefficients at 0 and at +-infinity, truncations that agree with
the expression near their point, and stabilize using one only inside the radius where it was
measured to agree (the exact form elsewhere)."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy

import eqsat
from eqsat.accuracy.measure import mean_bits, sample, true_value
from eqsat.accuracy.regimes import best_regimes
from eqsat.accuracy.series import NoSeries, candidates, expand
from eqsat.limits.budget import Backstop
from eqsat.term import arguments
from eqsat.term.inputs import to_expr
from eqsat.term.reference import reference

F = Fraction


@pytest.mark.parametrize(("text", "at", "expected"), [
    ("1/x - 1/tan(x)", "0", {F(1): F(1, 3), F(3): F(1, 45), F(5): F(2, 945)}),
    ("exp(x) - 1", "0", {F(1): 1, F(2): F(1, 2), F(3): F(1, 6), F(4): F(1, 24)}),
    # t = 1/x at +inf, t = -1/x at -inf
    ("sqrt(x^2 + 1) - x", "+inf", {F(1): F(1, 2), F(3): F(-1, 8), F(5): F(1, 16)}),
    ("sqrt(x^2 + 1) - x", "-inf", {F(-1): 2, F(1): F(1, 2), F(3): F(-1, 8)}),
    ("sqrt(x + 1) - sqrt(x)", "+inf", {F(1, 2): F(1, 2), F(3, 2): F(-1, 8)}),
    ("log(1 + exp(x))", "0", {F(0): sympy.log(2), F(1): F(1, 2), F(2): F(1, 8)}),
])
def test_the_first_terms_are_exact(text: str, at: str, expected: dict[Fraction, object]) -> None:
    series = expand(eqsat.parse(text), "x", at)
    first = sorted(series.coefficients)[:len(expected)]
    assert first == sorted(expected)
    for power, value in expected.items():
        assert sympy.simplify(series.coefficients[power] - sympy.nsimplify(value)) == 0


@pytest.mark.parametrize("text", ["abs(x) + 1", "where(x < 0, x, 1)", "exp(1/x)",
                                  "log(x)"])
def test_no_series_where_there_is_none_at_zero(text: str) -> None:
    with pytest.raises(NoSeries):
        expand(eqsat.parse(text), "x", "0")


@pytest.mark.parametrize("text", [
    "1/x - 1/tan(x)", "exp(x) - 1 - x", "sqrt(x^2 + 1) - x", "log(1 + x) - x",
    "(1 - cos(x))/x^2", "tan(x + eps) - tan(x)", "atan(N + 1) - atan(N)",
    "sqrt(x + 1) - sqrt(x)", "sigmoid(x) - 1/2", "x - sqrt(x*x - eps)",
    "sqrt(abs(x) + 1) - 1", "exp(-abs(x))*x^2 - x^2", "1/(1 + abs(x)) - 1 + abs(x)",
])
def test_every_truncation_agrees_near_its_point(text: str) -> None:
    expr = eqsat.parse(text)
    found = candidates(expr)
    assert found
    # (x < 0: x - sqrt(x*x - eps) has the leading term x - |x|, which is 0 where x > 0)
    others = {"eps": mpmath.mpf("0.3"), "N": mpmath.mpf("0.7"), "x": mpmath.mpf("-0.6")}
    for approximation in found:
        name = approximation.variable.name
        for near in ("1e-12", "-1e-12") if approximation.at == "0" else \
                (("1e12",) if approximation.at == "+inf" else ("-1e12",)):
            point = {s.name: others[s.name] for s in expr.free_symbols()}
            point[name] = mpmath.mpf(near)
            exact = reference(expr, point, 60)
            approx = reference(approximation.expr, point, 60)
            if exact is None or approx is None:  # undefined there (sqrt of a negative)
                continue
            # the first omitted term is at least a factor 1e-6 below the leading one (powers
            # go up by 1/2 at least)
            scale = max(abs(exact), mpmath.mpf("1e-60"))
            assert abs(approx - exact) / scale < 1e-4, (approximation, near)


def test_a_variable_only_in_its_magnitude_is_expanded_in_it() -> None:
    """abs(x) has no series at 0, but a function of abs(x) (and of even powers of x) is one
    of u = abs(x) >= 0 there, from either side."""
    found = {str(a.expr) for a in candidates(eqsat.parse("sqrt(abs(x) + 1) - 1"))
             if a.at == "0"}
    assert {"1/2*abs(x)", "1/2*abs(x) + (-1/8*x^2)"} <= found


def test_a_polynomial_in_a_magnitude_that_nearly_cancels_near_zero() -> None:
    """A rational approximation in t = 1/(1 + abs(x)/2) whose coefficients sum to 1 - 1e-7:
    near 0, 1 - p(t)*exp(-x^2) is 1e-7 plus a multiple of abs(x), 1 less a value near 1 in
    floats; only its series in abs(x) computes it there (13.5 bits without)."""
    t = "(1/(1 + 0.5*abs(x)))"
    given = (f"1 - {t}*(0.3 + {t}*(-0.2 + {t}*(1.1 + {t}*(-1 + {t}*0.7999999))))"
             "*exp(-abs(x)*abs(x))")
    result = eqsat.stabilize_report(given, limits=eqsat.Limits(seconds=60))
    assert result.bits_before > 10 and result.bits_after < 1
    for value in np.concatenate([np.logspace(-300, 1, 60), -np.logspace(-300, 1, 60)]):
        truth = true_value(result.original, {"x": float(value)}, "float64")
        got = float(eqsat.evaluate(result.expr, x=np.float64(value)))
        assert truth is not None and abs(got - truth) <= 1e-12 * abs(truth), value


def test_stabilize_uses_a_series_only_inside_its_radius() -> None:
    # the work budgets decide; the time backstop is raised for a busy 2-core machine
    result = eqsat.stabilize_report("exp(x) - 1 - x", limits=eqsat.Limits(seconds=60))
    assert result.bits_after < 2 < 20 < result.bits_before
    assert any(n.op == "where" for n in eqsat.term.expr.postorder(result.expr))
    # equal to the input to rounding at every magnitude, far from 0 too (x^2/2 is not)
    for sign in (1.0, -1.0):
        for value in sign * np.logspace(-300, 2.8, 200):
            truth = true_value(result.original, {"x": float(value)}, "float64")
            got = float(eqsat.evaluate(result.expr, x=np.float64(value)))
            assert truth is not None
            assert abs(got - truth) <= max(1e-12 * abs(truth), 1e-320), value


def test_a_series_far_off_where_the_exact_form_overflows_too_is_no_branch() -> None:
    """exp(2*x)*y^4 at x near 650, y near 1e-135: the product is finite, y^4 underflows and
    exp(2*x) overflows. The series y^4 (at x = 0) agrees with it wherever both round to 0
    (x < 0), and on the domain it is 62 bits off where the exact form is 64: no closer than
    LOOSE_BITS, it must not stand in for the exact form (it did: where(abs(x) < 4.7e307, y^4,
    ...), not equal to the input anywhere in the domain)."""
    ranges = {"x": (600.0, 700.0), "y": (1e-150, 1e-120)}
    given = to_expr("exp(2*x)*y^4", {"x": "positive", "y": "positive"})
    domain = arguments.domain(ranges)
    points = sample(given, domain, 256, "float64", 0)
    expansions = candidates(given, Backstop(math.inf))
    assert "y^4" in [str(a.expr) for a in expansions]
    assert mean_bits(given, points) > 60
    assert best_regimes([given], points, expansions, given, domain, 2) is None


def test_the_series_of_the_cotangent_difference_near_zero() -> None:
    result = eqsat.stabilize_report("1/x - 1/tan(x)", "x != 0", limits=eqsat.Limits(seconds=60))
    assert result.bits_before > 20 and result.bits_after < 1
    values = np.concatenate([np.logspace(-200, 1, 100), -np.logspace(-200, 1, 100)])
    for value in values:
        truth = true_value(result.original, {"x": float(value)}, "float64")
        got = float(eqsat.evaluate(result.expr, x=np.float64(value)))
        assert truth is not None and abs(got - truth) <= 1e-9 * abs(truth), value


def test_expanding_pays_for_what_it_expands(monkeypatch: pytest.MonkeyPatch) -> None:
    """sympy.expand's time follows the size of what it is given: every node it is handed is
    paid for from the allowance, so the work budget bounds the time (the sigmoid of x + y
    once spent 1.2 s expanding 10,000s of nodes against 2,878 units)."""
    from eqsat.algebra import series as algebra_series

    handed = [0]
    plain = algebra_series.sympy.expand

    def counted(value: object, *args: object, **options: object) -> object:
        handed[0] += algebra_series._nodes(value, 10**9)
        return plain(value, *args, **options)

    monkeypatch.setattr(algebra_series.sympy, "expand", counted)
    allowance = algebra_series.Allowance(5_000, None)
    with algebra_series.allowance(allowance), pytest.raises(NoSeries):
        expand(eqsat.parse("1/(1 + exp(-(x + y)))"), "x", "0")
    assert handed[0] <= 5_000 - allowance.work
