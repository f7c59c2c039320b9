"""diff: derivatives by rewrite rules, complete, simplified, and checked numerically."""

from __future__ import annotations

import time
from pathlib import Path

import mpmath
import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import eqsat
from eqsat.rules import shipped_rules
from eqsat.term.expr import make, number
from eqsat.term.ops import ROWS
from eqsat.term.parse import parse
from eqsat.term.reference import reference
from eqsat.term.walks import postorder, tree_size
from tests.conftest import CORPORA, assert_equivalent, corpus

CASES = [
    ("2*x^3 + 8", "x", 1, "6*x^2"),
    ("2*x^3 + 8", "x", 2, "12*x"),
    ("x^2", "x", 1, "2*x"),
    ("sin(x)", "x", 1, "cos(x)"),
    ("cos(x)", "x", 2, "-cos(x)"),
    ("exp(2*x)", "x", 1, "2*exp(2*x)"),
    ("log(x)", "x", 1, "1/x"),
    ("a*x + b", "x", 1, "a"),
    ("x*y", "y", 1, "x"),
    ("tan(x)", "x", 1, "tan(x)^2 + 1"),
    ("c*log(c) - c", "c", 1, "log(c)"),
    ("2^a/log(2)", "a", 1, "2^a"),
    ("sinh(x)", "x", 2, "sinh(x)"),
    ("softplus(x)", "x", 1, "sigmoid(x)"),
    ("5", "x", 1, "0"),
    ("y^2", "x", 1, "0"),
]


@pytest.mark.parametrize(("start", "wrt", "order", "goal"), CASES)
def test_derivative_is(start: str, wrt: str, order: int, goal: str) -> None:
    assert eqsat.diff(start, wrt, order) is parse(goal)


def test_sin_squared_is_no_larger_than_sympys() -> None:
    result = eqsat.diff("sin(x)^2", "x")
    assert sympy.count_ops(eqsat.to_sympy(result)) <= sympy.count_ops(
        sympy.sympify("2*sin(x)*cos(x)"))


def test_mixed_partials_in_order() -> None:
    assert eqsat.diff("x^2*y + y^3", ["x", "y"]) is parse("2*x")
    assert eqsat.grad("x*y + y", ["x", "y"]) == [parse("y"), parse("x + 1")]


def test_classic_toolkit_examples() -> None:
    a, b = eqsat.symbols("a b")
    theano = eqsat.function([a, b], eqsat.grad(a * b, [a])[0])
    assert theano(1.5, 2.5) == 2.5
    x, y = eqsat.symbols("x y")
    jax_grad_mul = eqsat.function([x, y], eqsat.grad(x * y, [x])[0])
    assert jax_grad_mul(2.0, 3.0) == 3.0
    first = eqsat.function(["x"], eqsat.diff("2*x^3 + 8", "x"))
    second = eqsat.function(["x"], eqsat.diff("2*x^3 + 8", "x", 2))
    assert (first(1.0), second(1.0)) == (6.0, 12.0)


def test_a_varying_exponent_needs_no_assumption() -> None:
    """x^x is differentiable only where x > 0 (elsewhere it is defined at isolated points
    alone): the derivative holds there, as SymPy's does, with or without x declared so."""
    assert str(eqsat.diff("x^x", "x")) == "x^x*(log(x) + 1)"
    assert str(eqsat.diff("x^x", "x", assume={"x": "positive"})) == "x^x*(log(x) + 1)"
    assert str(eqsat.diff("x^sin(x)", "x")) == "x^sin(x)*(cos(x)*log(x) + sin(x)/x)"
    for text in ("x^x", "x^sin(x)", "(x^2 + 1)^x", "(1 - x)^(x^2)"):
        given = parse(text)
        assert_equivalent(make("diff", given, eqsat.symbol("x")), eqsat.diff(given, "x"),
                          points=20, needed=5)


@pytest.mark.parametrize(("call", "message"), [
    (lambda: eqsat.diff("x", "x", 0), "positive integer"),
    (lambda: eqsat.diff("x", parse("x + 1")), "only differentiate in a symbol"),
    (lambda: eqsat.function(["a"], "a*b"), "uses b, not among the arguments"),
    (lambda: eqsat.function(["a"], "a")(1.0, 2.0), "expected 1 argument"),
])
def test_errors_say_what_is_wrong(call: object, message: str) -> None:
    with pytest.raises(eqsat.EqsatError, match=message):
        call()  # type: ignore[operator]


DIFF_RULES = shipped_rules().in_ruleset("diff")  # diff.rules' and the op table's
DIFFERENTIABLE = [op for op in ROWS if op.reference is not None and op.arity > 0]


@pytest.mark.parametrize("op", DIFFERENTIABLE, ids=lambda op: op.name)
def test_every_op_has_a_derivative_rule(op: eqsat.term.ops.Op) -> None:
    heads = {rule.lhs.args[0].op for rule in DIFF_RULES if rule.lhs.op == "diff"}
    assert op.name in heads, f"no derivative rule for diff({op.name}(...), x)"


DIFF_CASES = corpus("sympy_cases.jsonl", "diff")


@pytest.mark.parametrize("record", DIFF_CASES,
                         ids=lambda r: f"{r['input']} d{r['var']}^{r.get('order', 1)}")
def test_corpus_derivatives_equal_sympys(record: dict[str, object]) -> None:
    wrt = record["var"]
    result = eqsat.diff(str(record["input"]), wrt, int(record.get("order", 1)))  # type: ignore[arg-type]
    assert_equivalent(parse(str(record["expect"])), result, needed=1)


def test_corpus_derivatives_are_as_small_as_sympys() -> None:
    """How many corpus derivatives are no larger (count_ops) than SymPy's simplified one."""
    if not DIFF_CASES:
        pytest.skip(f"reference corpora not found at {CORPORA} (set EQSAT_CORPORA)")
    reached, sizes = 0, []
    for record in DIFF_CASES:
        result = eqsat.diff(str(record["input"]), record["var"],  # type: ignore[arg-type]
                            int(record.get("order", 1)))  # type: ignore[call-overload]
        ours = sympy.count_ops(eqsat.to_sympy(result))
        theirs = sympy.count_ops(sympy.simplify(sympy.sympify(str(record["expect"]))))
        sizes.append((record["input"], str(result), ours, theirs))
        reached += ours <= theirs
    print(f"\n{reached} of {len(DIFF_CASES)} corpus derivatives no larger than SymPy's")
    assert reached >= len(DIFF_CASES) - 3, sizes


def test_a_2000_node_input_gets_a_complete_correct_derivative() -> None:
    x = eqsat.symbol("x")
    terms = [number(i % 7 + 1) * make("sin", number(i % 5 + 1) * x) * x ** number(i % 3 + 1)
             + make("exp", x / number(i + 1)) for i in range(150)]
    big = terms[0]
    for term in terms[1:]:
        big = big + term
    assert tree_size(big) >= 2000
    start = time.perf_counter()
    result = eqsat.diff_report(big, "x")
    assert time.perf_counter() - start < eqsat.Limits().seconds * 3  # a busy machine: slack
    assert not any(node.op == "diff" for node in postorder(result.expr))
    numeric = make("diff", big, x)  # evaluated by mpmath's differentiation, at 60 digits
    for point in (0.3, -1.1, 2.0):
        exact = reference(numeric, {"x": mpmath.mpf(point)})
        got = reference(result.expr, {"x": mpmath.mpf(point)})
        assert exact is not None
        assert got is not None and abs(got - exact) <= 1e-20 * max(1, abs(exact))


OPS = ["add", "sub", "mul", "div", "neg", "sin", "cos", "exp", "log", "sqrt", "tanh", "atan",
       "sigmoid", "softplus", "erf", "pow"]


@st.composite
def terms(draw: st.DrawFn, depth: int = 3) -> eqsat.Expr:
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from([eqsat.symbol("x"), eqsat.symbol("x"), number(2),
                                     number(-1), eqsat.symbol("y")]))
    op = draw(st.sampled_from(OPS))
    if op == "pow":
        return make("pow", draw(terms(depth - 1)), number(draw(st.integers(-2, 3))))
    return make(op, *(draw(terms(depth - 1)) for _ in range(eqsat.OPS[op].arity)))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(terms())
def test_property_diff_agrees_with_finite_differences(term: eqsat.Expr) -> None:
    result = eqsat.diff(term, "x", limits=eqsat.Limits(nodes=600))
    numeric = make("diff", term, eqsat.symbol("x"))  # evaluated by mpmath's differentiation
    assert_equivalent(numeric, result, points=20, needed=0, max_magnitude=15)


def test_diff_inside_an_expression_is_expanded_by_simplify() -> None:
    assert eqsat.simplify("diff(sin(x)^2, x) - sin(2*x)") is parse("0")
    with pytest.raises(eqsat.EqsatError, match="run to completion"):
        eqsat.simplify("x", rulesets=["diff"])


@pytest.mark.parametrize(("text", "expected"), [
    ("abs(x)", "sign(x)"),  # x/abs(x) once: undefined at 0, where SymPy's sign(x) is 0
    ("sqrt(x^2)", "sign(x)"),
    ("sign(x)", "0"),
])
def test_derivatives_of_abs_are_defined_where_the_function_is_differentiable(
        text: str, expected: str) -> None:
    derivative = eqsat.diff(text, "x")
    assert str(derivative) == expected
    assert eqsat.evaluate(derivative, x=0.0) == 0.0  # defined at 0


@pytest.mark.parametrize("text", ["0^(x^2 + 1)", "(x - x)^x", "0^(sin(x) + 2)*y"])
def test_a_power_of_0_has_the_derivative_0(text: str) -> None:
    """0^b is 0 wherever it is defined (b > 0): d-pow's a^b*(b'*log(a) + b*a'/a) took log(0)
    and divided by 0 there, a derivative defined nowhere (found by the fuzz test)."""
    assert str(eqsat.diff(text, "x")) == "0"
    assert eqsat.grad(text, ["x"]) == [parse("0")]
    assert str(eqsat.simplify("0^(x^2 + 1)")) == "0"  # zero-pow: its exponent is positive


@pytest.mark.parametrize(("text", "flat", "sloped", "slope"), [
    ("sqrt(max(0, x))", -1.0, 4.0, 0.25),  # sqrt of a ReLU
    ("asin(min(1, x))", 2.0, 0.0, 1.0),
    ("acos(max(-1, min(1, x)))", -3.0, 0.0, -1.0),  # a clamped cosine
    ("max(0, x)^(3/2)", -2.0, 4.0, 3.0),
    ("sqrt(min(x > y, erf(x)))", 0.2, None, None),  # the fuzz test's seed 8088 (y = 0.5)
    ("hypot(max(0, x), min(0, y))", -1.0, 3.0, 1.0),
])
def test_a_steep_op_is_flat_where_its_operand_is(text: str, flat: float,
                                                  sloped: float | None,
                                                  slope: float | None) -> None:
    """sqrt's derivative 1/(2*sqrt(a)) is unbounded at a = 0: where a is 0 on a region
    (a clamped operand), the chain rule's inf*0 was undefined where the derivative is 0
    (as SymPy's and JAX's gradients are)."""
    derivative = eqsat.diff(text, "x")
    assert eqsat.evaluate(derivative, x=flat, y=0.5) == 0.0
    if sloped is not None:
        assert eqsat.evaluate(derivative, x=sloped, y=0.5) == pytest.approx(slope)


def test_a_steep_op_of_a_smooth_operand_keeps_the_chain_rule() -> None:
    assert str(eqsat.diff("sqrt(x^2 + 1)", "x")) == "x/sqrt(x^2 + 1)"
    assert str(eqsat.diff("asin(x/2)", "x")) == "1/(2*sqrt(1 - (x/2)^2))"


DIRECT_CASES = [f"{op.name}({', '.join(['sin(x)/2', 'y*x', 'x - y'][:op.arity])})"
                for op in DIFFERENTIABLE if op.name not in ("pow", "acosh")] + [
    "acosh(x^2 + 2)",
    "x^x", "2^(x*y)", "x*y/(x - y)", "-x^3 + 4", "sin(x)^2*cos(x)", "(x^2 + 1/x)^3"]


@pytest.mark.parametrize("text", DIRECT_CASES)
def test_the_direct_derivative_equals_the_e_graphs(text: str) -> None:
    """The [diff] rules applied to the term equal the same rules saturated in an e-graph."""
    from eqsat.egraph.per_thread import engine
    from eqsat.rules.derivative import derivative
    from eqsat.verbs.derivatives import saturated_derivative

    term, x = parse(text), eqsat.symbol("x")
    rules = engine().rules.in_ruleset("diff")
    direct = derivative(term, x, rules)
    assert direct is not None, f"{text}: the direct rewriter gave up"
    saturated, _ = saturated_derivative(term, x, engine())
    assert_equivalent(saturated, direct[0], points=30, needed=5)


def test_a_varying_exponent_is_decided_on_the_term() -> None:
    from eqsat.egraph.per_thread import engine
    from eqsat.rules.derivative import derivative

    # d/dy (x^2 + 1)^y and d/dx x^x: d-pow's guard is the exponent's dependence alone
    for text, name in (("(x^2 + 1)^y", "y"), ("x^x", "x")):
        found = derivative(parse(text), eqsat.symbol(name), engine().rules.in_ruleset("diff"))
        assert found is not None and found[1].get("d-pow") == 1, text
        assert_equivalent(make("diff", parse(text), eqsat.symbol(name)), found[0], points=20,
                          needed=5)


def test_the_direct_derivative_takes_one_rule_per_shared_subterm() -> None:
    """A DAG with 81 distinct nodes (2^40 as a tree): one rule application per subterm
    that mentions x, and a derivative of linear size."""
    from eqsat.egraph.per_thread import engine
    from eqsat.rules.derivative import derivative

    x = eqsat.symbol("x")
    e = x
    for _ in range(40):
        e = make("sin", e) * e
    found = derivative(e, x, engine().rules.in_ruleset("diff"))
    assert found is not None
    result, applied = found
    assert sum(applied.values()) == len(postorder(e))  # every subterm here mentions x
    assert len(postorder(result)) <= 8 * len(postorder(e))


def test_the_chain_rule_leaves_no_identity_element() -> None:
    # cos(x)*diff(x, x) is cos(x), not cos(x)*1: the derivative is settled without an e-graph
    from eqsat.rules import shipped_rules
    from eqsat.rules.derivative import derivative

    rules = [r for r in shipped_rules().rules if r.ruleset == "diff"]
    x = eqsat.parse("x")
    found = derivative(eqsat.parse("sin(x) + exp(x)"), x, rules)
    assert found is not None and str(found[0]) == "cos(x) + exp(x)"


def test_a_settled_input_and_derivative_run_no_simplify(monkeypatch: pytest.MonkeyPatch) -> None:
    """diff(sin(x), x): sin(x) and cos(x) are settled at a symbol (the shipped index), so
    neither is simplified again; a derivative that is not, is."""
    import eqsat.verbs.diff as module

    calls: list[str] = []
    original = module.simplify_report

    def counted(expr: object, **options: object) -> object:
        calls.append(str(expr))
        return original(expr, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(module, "simplify_report", counted)
    assert str(eqsat.diff("sin(x)", "x")) == "cos(x)"
    assert calls == []
    assert str(eqsat.diff("tan(x)", "x")) == "tan(x)^2 + 1"
    assert calls == ["1 + tan(x)^2"]
    calls.clear()  # a derivative that another follows, and that cleaning would not change
    assert str(eqsat.diff("a*b + b^5", ["b", "a"])) == "1"  # (a + 5*b^4, differentiated
    assert str(eqsat.diff("x^4", "x", 3)) == "24*x"  # as it is)
    assert calls == ["4*(3*(2*x))"]  # only the last


@pytest.mark.parametrize(("text", "cleaned", "expected"), [
    ("5*x^4 - 3*x + 7", False, "20*x^3 - 3"),
    ("x*log(x) - x", False, "log(x)"),
    ("exp(3*x)*sin(x^2)", False, "exp(3*x)*(2*cos(x^2)*x + 3*sin(x^2))"),
    ("sqrt(x - x)", True, "0"),  # constant as written: the chain rule would give 0/0
    ("sin(x*x + x - x^2)", True, "cos(x)"),  # an argument not in lowest terms
    ("abs(acos(x))", True, "-1/sqrt(1 - x^2)"),  # abs(a) => a if a >= 0 matches as written
    ("sqrt(4)*x", True, "2"),  # an op of numbers alone
])
def test_an_input_is_cleaned_before_differentiating_only_where_it_matters(
        monkeypatch: pytest.MonkeyPatch, text: str, cleaned: bool, expected: str) -> None:
    import eqsat.verbs.diff as module

    quick: list[str] = []
    original = module.simplify_report

    def counted(expr: object, **options: object) -> object:
        if options.get("quick"):
            quick.append(str(expr))
        return original(expr, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(module, "simplify_report", counted)
    assert str(eqsat.diff(text, "x")) == expected
    assert bool(quick) == cleaned


def test_a_users_shrinking_rule_decides_the_cleanup_too(tmp_path: Path) -> None:
    from eqsat.verbs.simplify import nothing_to_clean

    mine = tmp_path / "mine.rules"
    mine.write_text("[simplify]\nmy-exp: sinh(a) + cosh(a) => exp(a)\n")
    assert not nothing_to_clean(parse("sinh(x) + cosh(x)"), [mine])  # it matches as written
    assert nothing_to_clean(parse("exp(3*x)*sin(x)"), [mine])
    assert str(eqsat.diff("sinh(x) + cosh(x)", "x", rules=[mine])) == "exp(x)"


def test_a_mixed_partial_in_a_symbol_the_derivative_lacks_is_0_unsimplified(
        egglog_calls: list[object]) -> None:
    """d/dy of d/dx(sin(x)/x) is 0: the first derivative is not cleaned up (an e-graph of
    694 nodes) on the way to a derivative in a symbol it has none of."""
    assert str(eqsat.diff("sin(x)/x", ["x", "y"])) == "0"
    assert str(eqsat.diff("sin(x)/x*y", ["y", "y", "x"])) == "0"
    assert egglog_calls == []


def test_a_derivative_in_a_symbol_the_input_lacks_is_0_before_any_derivative_is_taken(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """d/dx d/dy x^2 is 0 at once, whatever comes before the derivative in y."""
    import eqsat.verbs.diff as diff_module

    taken: list[object] = []
    original = diff_module.differentiate
    monkeypatch.setattr(diff_module, "differentiate",
                        lambda *args: taken.append(args) or original(*args))
    assert str(eqsat.diff("x^2", ["x", "y"])) == "0"
    assert str(eqsat.diff("sin(x)/x", ["y", "x"])) == "0"
    assert str(eqsat.diff("sin(x)", "y", 3)) == "0"
    assert taken == []
    assert str(eqsat.diff("x^2*y", ["x", "y"])) == "2*x"
    assert len(taken) == 2
