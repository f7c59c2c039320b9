"""Extraction: tree and DAG cost, the DAG extractor, and display order."""

from __future__ import annotations

import pytest

import eqsat
from eqsat.extract import CostModel, display_order
from eqsat.extract.tree import CycleError, build_term
from eqsat.term.expr import symbol
from eqsat.term.parse import parse
from tests.conftest import assert_equivalent


def test_tree_cost_counts_every_use_dag_cost_counts_once() -> None:
    model = CostModel()
    shared = parse("exp(x + y)")
    both = eqsat.term.expr.make("mul", shared, shared)
    assert model.tree_cost(both) == 2 * model.tree_cost(shared) + model.op_cost("mul")
    assert model.dag_cost(both) == model.dag_cost(shared) + model.op_cost("mul")


def test_costs_prefer_the_forms_people_write() -> None:
    model = CostModel()
    for better, worse in [("2*x", "x + x"), ("x^2", "x*x"), ("x - y", "x + -y"),
                          ("x/y", "x*y^(-1)"), ("-x", "-1*x"), ("4*x", "x + x + x + x")]:
        assert model.tree_cost(parse(better)) < model.tree_cost(parse(worse)), (better, worse)


def test_target_overrides_change_op_costs() -> None:
    gpu = CostModel({"div": 40})
    assert gpu.tree_cost(parse("x/y")) > CostModel().tree_cost(parse("x/y"))


def test_dag_extraction_shares_subterms_and_keeps_the_value() -> None:
    start = parse("sin(x + y)^2 + 2*sin(x + y) + (x + y)*(x + y)")
    result = eqsat.simplify_report(start, cost="dag")
    assert result.cost_after <= result.cost_before
    assert_equivalent(start, result.expr)
    assert CostModel().dag_cost(result.expr) == result.cost_after


def test_display_order() -> None:
    x, y = eqsat.symbols("x y")
    two = eqsat.term.expr.number(2)
    assert str(display_order(x * two + two)) == "2*x + 2"
    assert str(display_order(x + eqsat.term.expr.number(-4) * y)) == "x - 4*y"
    assert str(display_order(x - eqsat.term.expr.number(-1) * y)) == "x + y"
    assert str(display_order(eqsat.parse("-(x^(-1/2)) + y^(1/2) + x*(3*y) + y^(-2)"))) \
        == "-1/sqrt(x) + sqrt(y) + 3*x*y + 1/y^2"


@pytest.mark.parametrize(("text", "shown"), [
    ("4*(a*b)", "4*a*b"),
    ("x/(1/2)", "2*x"),
    ("x/(2/3)", "3/2*x"),
    ("cos(x)*(6 - x^2) + (-6*sin(x)*x)", "cos(x)*(6 - x^2) - 6*sin(x)*x"),
    ("y + (-2*x)/(x^2 + 1)", "y - 2*x/(x^2 + 1)"),
    ("y + (-(c/a^2))", "y - c/a^2"), ("y - (-(x*z))", "y + x*z"),
    ("a + (b + c)", "a + b + c"),
    ("x*(y*z)*2", "2*x*y*z"),
])
def test_display_order_writes_what_people_write(text: str, shown: str) -> None:
    result = display_order(eqsat.parse(text))
    assert str(result) == shown
    assert eqsat.evaluate(result, a=1.5, b=-2.0, c=0.25, x=0.7, y=3.0, z=-1.25) == \
        pytest.approx(eqsat.evaluate(text, a=1.5, b=-2.0, c=0.25, x=0.7, y=3.0, z=-1.25))


def test_display_order_keeps_a_tensor_product_order() -> None:
    a, b, c = (eqsat.tensor(n, ("n", "n")) for n in "ABC")
    chain = a * (b * c)
    assert display_order(chain) == chain


def test_a_class_met_inside_its_own_term_takes_an_equal_term_there() -> None:
    """where(c, y, <its own class>): a choice per class cannot write it, but the class's
    other term can stand in where it recurs (where(y < 0, p, hypot(x, sqrt(y))) in the class
    of sqrt(x^2 + y), which the hypot joins)."""
    nodes = {0: ("where", (1, 2, 0), None), 1: ("sym", (), "c"), 2: ("sym", (), "y")}
    with pytest.raises(CycleError):
        build_term(0, nodes.__getitem__, symbol)
    made = build_term(0, nodes.__getitem__, symbol, within=lambda eclass: parse("z"))
    assert made == parse("where(c, y, z)")
