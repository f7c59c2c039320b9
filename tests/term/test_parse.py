"""The parser: precedence, implicit multiplication, round trips and located errors."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eqsat
from eqsat.limits.budget import MAX_INPUT_CHARACTERS
from eqsat.term.expr import make, number
from eqsat.term.parse import MAX_NESTING, parse

# (text, the fully parenthesised form it must parse to)
CASES = [
    ("3x + 1 = 2(2x - 6)", "3*x + 1 = 2*(2*x - 6)"),
    ("-x^2", "-(x^2)"),
    ("-x**2", "-(x^2)"),
    ("2^3^2", "2^(3^2)"),
    ("x^-1", "x^(-1)"),
    ("(a+b)(a-b)", "(a + b)*(a - b)"),
    ("3x^2", "3*(x^2)"),
    ("2 sin(x)", "2*sin(x)"),
    ("x y z", "(x*y)*z"),
    ("a - b - c", "(a - b) - c"),
    ("a / b / c", "(a/b)/c"),
    ("-a*b", "(-a)*b"),
    ("1.5e3x", "1500*x"),
    ("0.1", "1/10"),
    ("-3/4", "-3/4"),
    ("where(x > 0, x, 0)", "where(x > 0, x, 0)"),
    ("fabs(x) + switch(x < 1, 1, 2)", "abs(x) + where(x < 1, 1, 2)"),
    ("pi*E", "pi*E"),
    ("x <= y", "x <= y"),
    ("2exp(x) + 1e-2y", "2*exp(x) + 1/100*y"),  # a name after a number still multiplies
    ("x + 1.", "x + 1"),
    ("A.T + 0*x", "A.T + 0*x"),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_parses_as(text: str, expected: str) -> None:
    assert parse(text) is parse(expected)


@pytest.mark.parametrize("text", [c[0] for c in CASES] + ["x - (y - z)", "(x^2)^3", "(-x)^2",
                                                          "a - -b", "x*(3/4)", "-(x + y)"])
def test_printed_text_reads_back_to_the_same_term(text: str) -> None:
    e = parse(text)
    assert parse(str(e)) is e


fractions = st.fractions(min_value=-50, max_value=50, max_denominator=7)
leaves = st.one_of(st.sampled_from(["x", "y", "pi"]).map(parse), fractions.map(number))
binary = st.sampled_from(["add", "sub", "mul", "div", "pow", "lt", "max", "atan2"])
unary = st.sampled_from(["neg", "sin", "exp", "sqrt", "abs"])
terms = st.recursive(leaves, lambda kids: st.one_of(
    st.builds(lambda op, a, b: make(op, a, b), binary, kids, kids),
    st.builds(lambda op, a: make(op, a), unary, kids)), max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(terms)
def test_round_trip_property(term: eqsat.Expr) -> None:
    assert parse(str(term)) is term


# (text, message fragment, column of the caret)
ERRORS = [
    ("3x +", "unexpected end of input", 5),
    ("f(x)", "unknown function 'f'", 1),
    ("2 + g(x, y)", "unknown function 'g'", 5),
    ("sin", "is a function", 1),
    ("x $ y", "unexpected character '$'", 3),
    ("sin(x, y)", "takes 1 argument(s), got 2", 1),
    ("(x + 1", "unexpected end of input", 7),
    ("x + )", "unexpected ')'", 5),
    ("1e99999", "too large", 1),
    ("(x = 1) + 2", "equation cannot be an operand", 1),
    # numbers a reader takes for one number, that would lex as a number and something else
    ("1.2.3", "one decimal point", 1),  # not 1.2*0.3
    ("y + 0x10", "no 0x, 0b or 0o", 5),  # not 0*x10
    ("0b101", "no 0x, 0b or 0o", 1),
    ("1_000", "grouped with '_'", 1),  # not 1*_000
    ("2*1e", "exponent needs digits", 3),  # not 1*e
    ("2e+x", "exponent needs digits", 1),
    ("x1.5", "decimal point right after a name", 3),  # not x1*0.5
    ("sin(x).5", "decimal point right after a name or ')'", 7),
    ("x + inf", "'inf' is not a real number", 5),  # never a symbol named inf
    ("nan*x", "'nan' is not a real number", 1),
]


@pytest.mark.parametrize(("text", "fragment", "column"), ERRORS)
def test_errors_name_the_problem_and_point_at_it(text: str, fragment: str, column: int) -> None:
    with pytest.raises(eqsat.ParseError) as caught:
        parse(text)
    error = caught.value
    assert fragment in str(error)
    assert error.column == column
    assert str(error).splitlines()[-1].index("^") - 2 == column - 1


@pytest.mark.parametrize(("text", "fragment", "column"), [
    ("x\ny", "a line break inside an expression", 2),  # was x*y: one expression a line
    ("x +\n* 2", "a line break inside an expression", 4),
    ("1 000", "a number right after another operand", 3),  # was 1*0
    ("2 3", "a number right after another operand", 3),  # was 6
    ("(x + 1) 2", "a number right after another operand", 9),
    ("1j", "an imaginary number", 1),  # was the symbol j
    ("exp(x=1)", "an equation cannot be an argument of exp()", 1),
    ("2*I*x", "'I' is the imaginary unit in SymPy", 3),  # was a symbol named I
    ("x + zoo", "complex infinity", 5),
    ("Pi/2", "'Pi' is pi in eqsat", 1),
    ("1 - Infinity", "'Infinity' is oo in eqsat", 5),
])
def test_text_that_means_something_else_is_refused(text: str, fragment: str, column: int
                                                   ) -> None:
    with pytest.raises(eqsat.ParseError, match=re.escape(fragment)) as caught:
        parse(text)
    assert (caught.value.line, caught.value.column) == (1, column)


def test_a_name_another_system_reserves_is_a_symbol_where_declared() -> None:
    assert str(parse("2*I*x", [eqsat.symbol("I")])) == "2*I*x"
    assert str(eqsat.simplify("I*x/x", assume={"I": "real"})) == "I"


def test_juxtaposition_still_multiplies_by_names_and_parentheses() -> None:
    assert str(parse("3x + 2(x - 1) + (a + b)(a - b) + 2 y")) == \
        "3*x + 2*(x - 1) + (a + b)*(a - b) + 2*y"
    assert str(parse("  x + y\n")) == "x + y"  # a file's last line break is no line break
    assert str(parse("solve(x = 1, x)")) == "solve(x = 1, x)"


def test_empty_and_oversized_inputs() -> None:
    with pytest.raises(eqsat.ParseError, match="empty"):
        parse("  ")
    with pytest.raises(eqsat.ParseError, match="nested deeper"):
        parse("(" * (MAX_NESTING + 1) + "x" + ")" * (MAX_NESTING + 1))
    with pytest.raises(eqsat.ParseError, match="longer than the limit"):
        parse("x" * (MAX_INPUT_CHARACTERS + 1))


def test_long_flat_input_parses() -> None:
    e = parse(" + ".join(f"x{i}" for i in range(3000)))
    assert e.count_ops() == 2999


def test_known_symbols_carry_their_assumptions() -> None:
    x = eqsat.symbol("x", positive=True)
    assert parse("log(x) + y", [x]).args[0].args[0] is x


def test_text_is_never_evaluated() -> None:
    with pytest.raises(eqsat.ParseError):
        parse("__import__('os').system('echo pwned')")


def test_a_long_read_stops_at_its_deadline() -> None:
    import time

    from eqsat.term.parse import reading_by

    chain = "-" * 99_990 + "x"  # read as 99,990 tokens first, then built: both are counted
    power = "x^" * 33_000 + "x"
    for text in (chain, power, "+".join(["x"] * 30_000)):
        with reading_by(time.perf_counter(), 2.0), \
                pytest.raises(eqsat.LimitError, match=r"time limit of 2 s .* reading the input"):
            parse(text)
    with reading_by(time.perf_counter(), 2.0):  # a short input is no work to stop
        assert str(parse("x + 1")) == "x + 1"


def test_a_node_refused_is_found_where_it_is_written() -> None:
    # the tree is built without positions, and again with them only to place an error
    with pytest.raises(eqsat.ParseError) as raised:
        parse("y + sin(x, y)")
    assert (raised.value.line, raised.value.column) == (1, 5)
