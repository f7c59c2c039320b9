"""Independent parts of sums and products (term.independent), and simplify taking them as
problems of their own."""

from __future__ import annotations

import pytest

import eqsat
from eqsat.term.independent import independent_parts


def _parts(text: str) -> tuple[str, list[str]] | None:
    found = independent_parts(eqsat.parse(text))
    return None if found is None else (found[0], [str(p) for p in found[1]])


def test_operands_that_share_no_symbol_are_parts_in_the_order_written() -> None:
    assert _parts("tan(x)*cos(x) + y^2 - sin(x) + 3") == ("add", ["tan(x)*cos(x) - sin(x) + 3",
                                                                    "y^2"])
    assert _parts("exp(a)*b*sin(a)*c*b") == ("mul", ["exp(a)*sin(a)", "b*b", "c"])
    assert _parts("-x - y") == ("add", ["-x", "-y"])


def test_a_term_of_one_part_or_of_no_sum_or_product_has_none() -> None:
    for text in ["x*y + y*z + z", "sin(x + y)", "x", "2 + 3", "x/y"]:
        assert _parts(text) is None, text


def test_keys_tie_operands_that_share_no_symbol() -> None:
    found = independent_parts(eqsat.parse("log(x) + sin(z) + log(y)"),
                              lambda context, operand: ["logs"] if operand.op == "log" else [])
    assert found is not None and [str(p) for p in found[1]] == ["log(x) + log(y)", "sin(z)"]


N = 20


def test_a_sum_of_independent_identities_simplifies_each() -> None:
    text = " + ".join(f"tan(x{i})*cos(x{i})" for i in range(N))
    report = eqsat.simplify_report(text)
    assert str(report.expr) == " + ".join(f"sin(x{i})" for i in range(N))
    one = eqsat.simplify_report("tan(x0)*cos(x0)")
    # each part its own query: the e-graph no larger than one part's, the work N times one's
    assert report.report.nodes == one.report.nodes
    assert report.report.iterations == N * one.report.iterations
    assert report.report.stop_reason == one.report.stop_reason


@pytest.mark.parametrize(("text", "expected", "assume"), [
    ("exp(x)*exp(y)", "exp(x + y)", None),
    ("2^x*2^y", "2^(x + y)", None),
    ("log(x) + log(y) + tan(z)*cos(z)", "log(x*y) + sin(z)", {"x": "positive", "y": "positive"}),
    ("2*sin(x)*cos(x)*tan(y)*cos(y)", "sin(2*x)*sin(y)", None),
    ("x^2 + x + 1 + tan(y)*cos(y)", "x^2 + x + 1 + sin(y)", None),
    ("sqrt(x^2) + tan(y)*cos(y)", "x + sin(y)", {"x": "positive"}),
])
def test_operands_a_rule_combines_stay_together(text: str, expected: str,
                                                assume: dict[str, str] | None) -> None:
    assert str(eqsat.simplify(text, assume=assume)) == expected


def test_the_time_limit_covers_every_part() -> None:
    text = " + ".join(f"abs(a{i}*b{i})/abs(b{i})" for i in range(60))
    report = eqsat.simplify_report(text, limits=eqsat.Limits(seconds=0.3))
    assert report.report.stop_reason == "time"
    assert eqsat.evaluate(report.expr - eqsat.parse(text), **{
        f"{n}{i}": 1.5 + i for n in "ab" for i in range(60)}) == pytest.approx(0, abs=1e-9)
