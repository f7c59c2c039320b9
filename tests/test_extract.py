"""Extraction: tree and DAG cost, the DAG extractor, and display order."""

from __future__ import annotations

import eqsat
from eqsat.extract import CostModel, display_order
from eqsat.parse import parse
from tests.conftest import assert_equivalent


def test_tree_cost_counts_every_use_dag_cost_counts_once() -> None:
    model = CostModel()
    shared = parse("exp(x + y)")
    both = eqsat.expr.make("mul", shared, shared)
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
    two = eqsat.expr.number(2)
    assert str(display_order(x * two + two)) == "2*x + 2"
    assert str(display_order(x + eqsat.expr.number(-4) * y)) == "x - 4*y"
    assert str(display_order(x - eqsat.expr.number(-1) * y)) == "x + y"
    assert str(display_order(eqsat.parse("-(x^(-1/2)) + y^(1/2) + x*(3*y) + y^(-2)"))) \
        == "-1/sqrt(x) + sqrt(y) + 3*x*y + 1/y^2"
