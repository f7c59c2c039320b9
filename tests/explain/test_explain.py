"""Derivations: every step one rule application that replays, from the input to the result."""

from __future__ import annotations

import operator
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest

import eqsat
from eqsat.cli import main
from eqsat.egraph.per_thread import engine
from eqsat.explain.derivation import FOLD, Step
from eqsat.explain.replay import replace_at, subterm
from eqsat.term.expr import Expr, make, number
from eqsat.term.numeric import evaluate
from tests.verbs.test_simplify import ASSUMED, CASES

EXACT = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
         "div": operator.truediv, "neg": operator.neg}  # Python's own, to check folds by

RULES = {rule.name: rule for rule in engine().rules.rules}


def _match(pattern: Expr, term: Expr, binding: dict[Expr, Expr]) -> Iterator[dict[Expr, Expr]]:
    """Syntactic matching of a rule side against a term (written here, apart from the
    e-graph matching the search uses); negated numbers are numbers, as Exprs have them."""
    if pattern.is_symbol:
        if pattern not in binding:
            yield {**binding, pattern: term}
        elif binding[pattern] == term:
            yield binding
        return
    if pattern.is_number:
        if term.is_number and term.number == pattern.number:
            yield binding
        return
    if pattern.op == "neg" and term.is_number:  # -c is the number -c (see expr.make)
        yield from _match(pattern.args[0], number(-term.number), binding)
        return
    if term.op != pattern.op:
        return
    partial = [binding]
    for sub, arg in zip(pattern.args, term.args, strict=True):
        partial = [b for p in partial for b in _match(sub, arg, p)]
    yield from partial


def _replays(step: Step) -> bool:
    """Whether the step's rule, applied to `before`, can give `after`."""
    if step.rule == FOLD:
        if not all(a.is_number for a in step.before.args) or not step.after.is_number:
            return False
        numbers = [a.number for a in step.before.args]
        if step.before.op in EXACT:  # exactly: 9/10 - 4/5 is 1/10, in floats it is not
            return bool(EXACT[step.before.op](*numbers) == step.after.number)
        value = evaluate(step.before, {})
        return bool(float(value) == float(step.after.number))
    rule = RULES[step.rule]
    source, target = (rule.rhs, rule.lhs) if step.reverse else (rule.lhs, rule.rhs)
    return any(any(True for _ in _match(target, step.after, binding))
               for binding in _match(source, step.before, {}))


def _assert_replays(derivation: eqsat.Derivation) -> None:
    assert derivation.found, derivation.reason
    term = derivation.start
    for step in derivation.steps:
        assert subterm(term, step.path) == step.before, step
        assert _replays(step), f"{step} is not one application of its rule"
        term = replace_at(term, step.path, step.after)
        assert term == step.term
    assert term == derivation.result
    assert len(derivation.checked) == len(derivation.steps)


@pytest.mark.parametrize(("start", "goal"), CASES)
def test_one_line_cases_replay_step_by_step(start: str, goal: str) -> None:
    derivation = eqsat.explain(start)
    _assert_replays(derivation)
    assert derivation.result == eqsat.simplify(start)
    assert derivation.result == eqsat.parse(goal)
    # every step was compared at sampled points (none of these is undefined everywhere)
    assert all(points > 0 for points in derivation.checked)


@pytest.mark.parametrize(("start", "assume", "goal"), ASSUMED[:4])
def test_derivations_use_assumptions(start: str, assume: dict[str, str], goal: str) -> None:
    derivation = eqsat.explain(start, assume=assume)
    _assert_replays(derivation)
    assert derivation.result == eqsat.to_expr(goal, assume)


def test_a_derivation_names_rules_and_rewritten_subterms() -> None:
    derivation = eqsat.explain("x*y/x + 2*3")
    assert [(s.rule, str(s.before), str(s.after)) for s in derivation.steps] == [
        ("mul-div-self", "x*y/x", "y"), (FOLD, "2*3", "6")]
    assert str(derivation).splitlines() == [
        "  x*y/x + 2*3",
        "= y + 2*3       by mul-div-self: x*y/x => y",
        "= y + 6         by fold constants: 2*3 => 6"]


def test_an_explicit_result_is_derived() -> None:
    derivation = eqsat.explain("(a + b)^2", "a^2 + 2*a*b + b^2")
    _assert_replays(derivation)


def test_no_derivation_between_unequal_terms_is_invented() -> None:
    derivation = eqsat.explain("x + 1", "x + 2")
    assert not derivation.found and not derivation.steps
    assert "do not show them equal" in derivation.reason
    assert str(derivation).startswith("no derivation of x + 2 from x + 1")


def test_out_of_budget_says_so() -> None:
    # the search is bounded by work, not by the machine's speed: the same answer anywhere
    derivation = eqsat.explain("exp(x)", "exp(x) + 0*sin(y)^100",
                               limits=eqsat.Limits(seconds=60))
    assert not derivation.found and not derivation.steps
    assert "planning took more than 40,000 steps of work" in derivation.reason


def test_a_deep_term_is_no_recursion_error() -> None:
    derivation = eqsat.explain("+".join(["x"] * 3000), limits=eqsat.Limits(seconds=2))
    assert str(derivation.result) == "3000*x"


def test_tensors_are_refused_with_a_message() -> None:
    A = eqsat.tensor("A", (2, 2))
    with pytest.raises(eqsat.EqsatError, match="tensors"):
        eqsat.explain(A + 0)


def test_a_step_that_changes_the_value_is_an_error(tmp_path: Path) -> None:
    wrong = tmp_path / "wrong.rules"
    wrong.write_text("[simplify]\ndouble-it: a + 0 => a*2\n")
    eqsat.engine([wrong], trust=True)  # loaded past the soundness check on purpose
    with pytest.raises(eqsat.EqsatError, match=r"changes the value .* a rule is unsound"):
        eqsat.explain("x + 0", "x*2", rules=[wrong])


def test_folds_replay_exactly() -> None:
    step = Step(FOLD, (), make("add", number(1), number(Fraction(1, 2))),
                                 number(Fraction(3, 2)), number(Fraction(3, 2)))
    assert _replays(step)


def test_cli_explain(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simplify", "x*1 + 0", "--explain"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "x" and lines[1] == "  x*1 + 0"
    assert lines[-1].startswith("= x ") and " by " in lines[-1]


@pytest.mark.parametrize(("start", "goal", "most"), [
    ("tan(x)*cos(x)", "sin(x)", 10),
    ("(a + b)*(a - b) - a^2", "-b^2", 8),
    ("x + x + x + x", "4*x", 6),
])
def test_derivations_take_no_long_detours(start: str, goal: str, most: int) -> None:
    derivation = eqsat.explain(start)
    _assert_replays(derivation)
    assert derivation.result == eqsat.parse(goal)
    assert len(derivation.steps) <= most, str(derivation)


def test_notebooks_show_the_chain_of_equalities() -> None:
    shown = eqsat.explain("x*y/x + 2*3")._repr_latex_()
    assert shown == (r"$\begin{aligned}& \frac{x y}{x} + 2 \cdot 3 \\ "
                     r"&= y + 2 \cdot 3 && \text{mul-div-self} \\ "
                     r"&= y + 6 && \text{fold constants}\end{aligned}$")
    missing = eqsat.explain("x_1 + 1", "x_1 + 2")._repr_latex_()
    assert missing.startswith(r"$\text{no derivation of x\_1 + 2 from x\_1 + 1")
