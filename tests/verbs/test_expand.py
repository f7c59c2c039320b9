"""expand: products and integer powers of sums multiplied out, equal to the input wherever it
is defined (random expressions, at points of either sign); SymPy's own cases from the corpus."""

from __future__ import annotations

import random

import pytest
import sympy

import eqsat
from eqsat import EqsatError, LimitError
from eqsat.term.reference import reference
from tests.conftest import corpus

# each SymPy call in scope, and eqsat's options that make it
CALLS: dict[object, dict[str, bool]] = {
    None: {}, "expand(expr, log=False)": {"log": False}, "expand(expr, frac=True)": {"frac": True},
    "expand(expr, numer=True)": {"numer": True}}
IN_SCOPE = [case for case in corpus("sympy_verbs.jsonl", "expand")
            if case.get("sympy_call") in CALLS]
# where SymPy's form is not equal to the input at every point where the input is defined, in
# eqsat's real semantics: x^(a + b) as x^a*x^b is undefined at x < 0 with a = b = 1/2 (where
# x^1 is defined), and log(z^c) as c*log(z) is undefined at z < 0 with c = 2
KEPT_WHOLE = {"x**(nn1 + nn2)", "x**(-nn1 - nn2)", "log(z**(x/(x + 1)))"}


def _equal_where_defined(given: eqsat.Expr, found: eqsat.Expr, rng: random.Random,
                         negative: bool = True, points: int = 8) -> bool:
    """At random points (negative ones too for symbols with no sign assumed), wherever the
    input is defined, the expansion is defined and equal."""
    symbols = sorted(given.free_symbols() | found.free_symbols(), key=lambda s: s.name)
    checked = 0
    for _ in range(points * 4):
        point = {s.name: rng.uniform(0.2, 2.5) * (-1 if negative and not s.assumptions and
                                                   rng.random() < 0.5 else 1)
                 for s in symbols}
        expected = reference(given, point, 60)
        if expected is None:
            continue
        got = reference(found, point, 60)
        if got is None or abs(got - expected) > 1e-35 * max(1, abs(expected)):
            return False
        checked += 1
        if checked == points:
            break
    return True


@pytest.mark.parametrize("case", IN_SCOPE, ids=lambda case: str(case["input"])[:40])
def test_sympys_cases(case: dict[str, object]) -> None:
    assume = case.get("assumptions") or None
    given = eqsat.to_expr(str(case["input"]).replace("**", "^"), assume)  # type: ignore[arg-type]
    found = eqsat.expand(given, **CALLS[case.get("sympy_call")])
    assert _equal_where_defined(given, found, random.Random(3), negative=False)
    if case["input"] in KEPT_WHOLE:
        assert found == given
    else:
        ours = sympy.sympify(str(found).replace("^", "**"))
        expected = sympy.sympify(str(case["expect"]))
        assert len(sympy.Add.make_args(ours)) == len(sympy.Add.make_args(expected)), \
            (str(found), case["expect"])
        assert sympy.simplify(ours - expected) == 0


def test_the_corpus_cases_are_there() -> None:
    assert len(IN_SCOPE) >= 20 or not IN_SCOPE  # none where the corpora are absent


@pytest.mark.parametrize(("text", "assume", "answer"), [
    ("(x + 1)^5", None, "x^5 + 5*x^4 + 10*x^3 + 10*x^2 + 5*x + 1"),
    ("(x - 1)^3", None, "x^3 - 3*x^2 + 3*x - 1"),
    ("-(x + y)/2", None, "-x/2 - y/2"),
    ("(x + y)^(3/2)", None, "x*sqrt(x + y) + sqrt(x + y)*y"),
    ("x*sqrt(x + y)*(1 + sqrt(x + y))", None, "x^2 + x*y + x*sqrt(x + y)"),
    ("1/(x + 1)^2", None, "1/(x^2 + 2*x + 1)"),
    ("sin((x + 1)^2)", None, "sin(x^2 + 2*x + 1)"),
    ("sqrt(2)*sqrt(2) + 8^(2/3)", None, "6"),
    ("sqrt(x^2)", None, "sqrt(x^2)"),  # |x|, not x
    ("sqrt(x^2)", {"x": "positive"}, "x"),
    ("log(x^3*y)", {"x": "positive", "y": "positive"}, "3*log(x) + log(y)"),
    ("log(x^2)", None, "log(x^2)"),  # 2*log(x) is undefined at x < 0
    ("2^(a + b)*exp(c + 1)", None, "2^a*2^b*exp(1)*exp(c)"),
    ("(2*y)^z", None, "2^z*y^z"),
    ("x^(a + b)", None, "x^(a + b)"),
    ("exp(log(2)*(1 + x) - log(2)*x)", None, "2"),
    # logs of numbers as SymPy writes them, and of roots (defined where their side is)
    ("log(9) - 2*log(3)", None, "0"),
    ("log(4)", None, "2*log(2)"),
    ("log(1/4)", None, "-2*log(2)"),
    ("log(2/3)", None, "log(2) - log(3)"),
    ("log(12)", None, "log(12)"),  # not a power: whole, as SymPy keeps it
    ("log(sqrt(z))", None, "log(z)/2"),
    ("log(8*x)", None, "3*log(2) + log(x)"),  # one factor not proven positive: both > 0
    ("log(x*y)", None, "log(x*y)"),  # two: log(x) + log(y) is undefined at x = y = -1
    ("exp(log(4))", None, "4"),
])
def test_forms(text: str, assume: dict[str, str] | None, answer: str) -> None:
    assert str(eqsat.expand(text, assume=assume)) == answer


def test_options() -> None:
    assert str(eqsat.expand("exp(2*(x + 1))*(x + 1)", deep=False)) == \
        "exp(2*(x + 1))*x + exp(2*(x + 1))"
    assert str(eqsat.expand("2^(a + b)", power=False)) == "2^(a + b)"
    assert str(eqsat.expand("log(x*y)", log=False, assume={"x": "positive", "y": "positive"})) \
        == "log(x*y)"


def test_one_fraction_multiplied_out_above_below_or_both() -> None:
    given = "(x + y)*y/x/(x + 1)"
    assert str(eqsat.expand(given, frac=True)) == "(y^2 + y*x)/(x^2 + x)"
    assert str(eqsat.expand(given, numer=True)) == "(y^2 + y*x)/(x*(x + 1))"
    assert str(eqsat.expand(given, denom=True)) == "y*(y + x)/(x^2 + x)"
    assert str(eqsat.expand("(x^2 - 1)/(x - 1) + sin((x + 1)^2)", frac=True)) == \
        "sin(x^2 + 2*x + 1) + x + 1"  # in lowest terms, arguments multiplied out
    rng = random.Random(11)
    for _ in range(60):
        term = eqsat.to_expr(_random_term(rng, 3), {"p": "positive"})
        for option in ("frac", "numer", "denom"):
            try:
                found = eqsat.expand(term, **{option: True})
            except (LimitError, EqsatError):
                continue
            assert _equal_where_defined(term, found, rng), (option, str(term), str(found))


def _random_term(rng: random.Random, depth: int) -> str:
    if depth == 0 or rng.random() < 0.25:
        return rng.choice(["x", "y", "p", "2", "1/3", "-1"])
    a, b = _random_term(rng, depth - 1), _random_term(rng, depth - 1)
    return rng.choice([f"({a}) + ({b})", f"({a}) - ({b})", f"({a})*({b})", f"({a})/({b})",
                       f"({a})^{rng.choice(['2', '3', '-1', '-2', '1/2', '3/2', '-1/2', '1/3'])}",
                       f"sqrt({a})", f"log({a})", f"exp({a})", f"({a})^({b})", f"sin({a})"])


def test_random_expansions_equal_their_input_wherever_it_is_defined() -> None:
    rng = random.Random(7)
    checked = 0
    for _ in range(300):
        given = eqsat.to_expr(_random_term(rng, 4), {"p": "positive"})
        try:
            found = eqsat.expand(given)
        except LimitError:
            continue
        assert _equal_where_defined(given, found, rng), (str(given), str(found))
        checked += 1
    assert checked > 250


def test_limits_and_wrong_input() -> None:
    with pytest.raises(LimitError, match="200,000 products of terms"):
        eqsat.expand("(x + y + z)^1000")  # counted work, not seconds: the same on any machine
    with pytest.raises(LimitError, match="10,000 terms"):
        eqsat.expand("*".join(f"({' + '.join(f'{v}{k}' for k in range(101))})" for v in "xy"))
    with pytest.raises(LimitError, match="too large"):
        eqsat.expand("(x + 1)^100000")
    with pytest.raises(EqsatError, match="scalar"):
        eqsat.expand(eqsat.tensor("A", (2, 2)) + 1)


def test_a_deep_sum_needs_no_deep_recursion() -> None:
    chain = eqsat.parse("x")
    for _ in range(3000):
        chain = chain + 1
    assert str(eqsat.expand(eqsat.sin(chain))) == "sin(x + 3000)"
