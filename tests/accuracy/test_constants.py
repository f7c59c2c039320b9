"""Constant subterms as their correctly rounded values, where floats lose bits of them."""

from __future__ import annotations

import eqsat
from eqsat.accuracy.constants import rounded_constants


def test_a_constant_the_floats_lose_bits_of_is_its_rounded_value_and_others_stay() -> None:
    rounded = rounded_constants(eqsat.parse("x + (20 - (exp(pi) - pi))*y"), "float64")
    assert str(rounded) == "x + 0.0009000208105242328*y"
    for kept in ("x + sqrt(exp(1))", "E + 2", "x + 1/3", "sin(pi)*x"):  # (sin(pi): exactly 0,
        assert rounded_constants(eqsat.parse(kept), "float64") == eqsat.parse(kept)  # no ball
    # the largest constant that loses bits, not the parts of it
    nested = rounded_constants(eqsat.parse("(exp(pi) - pi - 20)*1000"), "float64")
    assert nested.is_number and abs(float(nested.number) + 0.9000208105242328) < 1e-15


def test_float32_rounds_to_its_own_floats() -> None:
    """(Constants are computed in double, as the measure computes them, then rounded.)"""
    rounded = rounded_constants(eqsat.parse("x*(exp(1e-20) - 1)"), "float32")
    assert str(rounded) == "x*1e-20"
    kept = eqsat.parse("20 - (exp(pi) - pi)")  # (12 bits lost of 53: none of float32's 24)
    assert rounded_constants(kept, "float32") == kept


def test_stabilize_gives_a_constant_that_cancels_as_its_value() -> None:
    result = eqsat.stabilize_report("20 - (exp(pi) - pi)")
    assert result.bits_before > 10 and result.bits_after == 0
    assert str(result.expr) == "0.0009000208105242328"
