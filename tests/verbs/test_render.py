"""latex() and pretty() take an Expr or text, and name a wrong argument."""

from __future__ import annotations

import pytest

import eqsat


def test_text_renders_as_its_parse() -> None:
    assert eqsat.latex("sqrt(x)/2") == eqsat.latex(eqsat.parse("sqrt(x)/2")) == \
        "\\frac{\\sqrt{x}}{2}"
    assert eqsat.pretty("x^2*y") == "x²·y"


@pytest.mark.parametrize("render", [eqsat.latex, eqsat.pretty])
def test_a_wrong_argument_is_named(render: object) -> None:
    with pytest.raises(eqsat.ArgumentError, match="text or an eqsat Expr"):
        render(None)  # type: ignore[operator]
    with pytest.raises(eqsat.ParseError):
        render("x +")  # type: ignore[operator]
