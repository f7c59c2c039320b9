"""Exponentials of multiples of one term as powers of one exponential, and back."""

from __future__ import annotations

import random

import pytest

import eqsat
from eqsat.algebra.exponentials import as_exponentials, as_powers
from eqsat.term.reference import reference


@pytest.mark.parametrize(("text", "powers"), [
    ("1/exp(2*x) + 1/(x*exp(3*x))", "1/exp(x)^2 + 1/(x*exp(x)^3)"),
    ("exp(x/2) + exp(x)", "exp(x/2) + exp(x/2)^2"),
    ("exp(-x) - exp(4*x)", "exp(x)^(-1) - exp(x)^4"),
    ("exp(6*y) + exp(-4*y)", "exp(2*y)^3 + exp(2*y)^(-2)"),
    ("exp(2*x) + exp(3)", "exp(2*x) + exp(3)"),  # one multiple of x: nothing to relate
    ("exp(2*x) + exp(2*y)", "exp(2*x) + exp(2*y)"),
])
def test_multiples_of_one_term_become_powers_of_one_exponential(text: str, powers: str) -> None:
    found = as_powers(eqsat.parse(text))
    assert str(found) == powers
    assert str(as_exponentials(found)) == text  # and back


def test_both_ways_keep_the_value() -> None:
    rng = random.Random(5)
    for _ in range(200):
        terms = [f"{rng.choice(['', '-'])}exp({rng.choice([1, 2, 3, '1/2', '3/2', -2])}*"
                 f"{rng.choice(['x', 'y', '(x + y)'])})" for _ in range(rng.randint(2, 4))]
        given = eqsat.parse(" + ".join(terms))
        point = {"x": rng.uniform(-2, 2), "y": rng.uniform(-2, 2)}
        expected = reference(given, point, 40)
        for found in (as_powers(given), as_exponentials(as_powers(given))):
            assert abs(reference(found, point, 40) - expected) <= 1e-30 * max(1, abs(expected))


def _normal(term: eqsat.Expr) -> eqsat.Expr:
    from eqsat.algebra.normal import normalise
    from eqsat.extract import CostModel

    return normalise(term, CostModel().tree_cost).forms[0]


@pytest.mark.parametrize(("text", "spread_out"), [
    ("(-exp(y) - exp(x - 5))*exp(-(x - 1))", "-exp(y - x + 1) - exp(-4)"),
    ("exp(x)*3*exp(2 - x)", "3*exp(2)"),
    ("(exp(x) + 3*exp(y))*exp(-x)*2", "(1 + 3*exp(y - x))*2"),
    ("(exp(x) + y)*exp(-x)", "1 + y*exp(-x)"),  # y keeps the factor: exp(x) overflowed
    ("(x + y)*exp(-x)", "(x + y)*exp(-x)"),  # no term has an exponential to combine
])
def test_exponentials_spread_over_a_sum_and_combine(text: str, spread_out: str) -> None:
    from eqsat.algebra.exponentials import spread

    given = eqsat.parse(text)
    found = spread(given, _normal)
    assert str(found) == spread_out
    for point in ({"x": 0.3, "y": 1.7}, {"x": -2.0, "y": 0.4}):
        expected = reference(given, point, 40)
        assert abs(reference(found, point, 40) - expected) <= 1e-30 * max(1, abs(expected))


@pytest.mark.parametrize(("verb", "text", "answer"), [
    (eqsat.together, "1/exp(2*x) + 1/(x*exp(3*x))", "(exp(x)*x + 1)/(x*exp(3*x))"),
    (eqsat.cancel, "(exp(4*x) - 1)/(exp(2*x) - 1)", "exp(2*x) + 1"),
    (eqsat.factor, "exp(x/2) + exp(x)", "exp(x/2)*(exp(x/2) + 1)"),
    (eqsat.together, "exp(-x) + exp(x)", "(exp(2*x) + 1)/exp(x)"),
])
def test_the_fraction_verbs_see_the_relation(verb: object, text: str, answer: str) -> None:
    assert str(verb(text)) == answer  # type: ignore[operator]


@pytest.mark.parametrize(("text", "sums"), [
    ("log(exp(x) - exp(y) + exp(z))", ["1 + (expm1(x) - expm1(y) + expm1(z))"]),
    ("exp(x) + 2*exp(y) - 3", ["expm1(x) + 2*expm1(y)"]),
    ("-exp(x) + exp(y)/2 + 4 + w", ["7/2 + (-expm1(x) + expm1(y)/2 + w)"]),
    ("y*(exp(x) - exp(y)) + exp(z)", ["expm1(x) - expm1(y)"]),  # one exponential outside
    ("exp(x) + y", []),
])
def test_a_sum_of_exponentials_near_one(text: str, sums: list[str]) -> None:
    from eqsat.algebra.exponentials import near_one

    found = near_one(eqsat.parse(text))
    assert [str(form) for _, form in found] == sums
    for node, form in found:
        for point in ({"x": 1e-9, "y": -2e-9, "z": 3e-9, "w": 0.5}, {"x": 2.0, "y": -1.0, "z": 0.5,
                                                                      "w": -3.0}):
            expected = reference(node, point, 40)
            assert abs(reference(form, point, 40) - expected) <= 1e-30 * max(1, abs(expected))


@pytest.mark.parametrize(("text", "form"), [
    ("log(exp(x) - exp(y) + exp(z))", "logaddexp(x, z) + log1mexp(y - logaddexp(x, z))"),
    ("log(-exp(x) - exp(y) + exp(z))", "z + log1mexp(logaddexp(x, y) - z)"),
    ("log(2*exp(x) + exp(y) + exp(z)/3)", "logaddexp(x + log(2), logaddexp(y, z + log(1/3)))"),
    ("log(exp(x) - exp(y))", None),  # two terms: the rules' (log-exp-minus)
    ("log(exp(x) - exp(y) + w)", None),  # a term that is no exponential
])
def test_the_log_of_a_signed_sum_of_exponentials(text: str, form: str | None) -> None:
    from eqsat.algebra.exponentials import log_sums

    given = eqsat.parse(text)
    found = log_sums(given)
    assert [str(f) for _, f in found] == ([form] if form else [])
    for _, made in found:  # equal where the log is defined, and no exponential overflows
        for point in ({"x": 3.0, "y": -1.0, "z": 0.5}, {"x": -2.0, "y": -3.0, "z": 1.5},
                      {"x": 800.0, "y": 799.0, "z": 700.0}):
            expected = reference(given, point, 40)
            if expected is not None:
                assert abs(reference(made, point, 40) - expected) <= 1e-30 * abs(expected)
                assert abs(float(eqsat.evaluate(made, point)) - float(expected)) <= \
                    1e-13 * abs(float(expected))


@pytest.mark.parametrize(("text", "forms"), [
    ("x^3*exp(-x^2/2)", ["x*(x*(x*exp(-x^2/2)))"]),
    ("y*x^2*exp(z)", ["y*(x*(x*exp(z)))"]),
    ("x^3*y", []),  # no exponential
    ("x^9*exp(x)", []),  # past MOST_FACTORS
    ("x^(5/2)*exp(x)", []),  # not a whole exponent
])
def test_a_power_is_multiplied_into_an_exponential_a_factor_at_a_time(
        text: str, forms: list[str]) -> None:
    from eqsat.algebra.exponentials import powers_into_exponential

    found = powers_into_exponential(eqsat.parse(text))
    assert [str(f) for _, f in found] == forms
    for node, made in found:
        for point in ({"x": 1.5, "y": -2.0, "z": 0.25}, {"x": -3.0, "y": 0.5, "z": -4.0}):
            expected = reference(node, point, 40)
            assert abs(reference(made, point, 40) - expected) <= 1e-30 * max(1, abs(expected))
        huge = {"x": 1e120, "y": 1.0, "z": -1e5}  # the power alone overflows, exp underflows
        assert float(eqsat.evaluate(made, huge)) == 0.0
