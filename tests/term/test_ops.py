"""The op table: one row per op, complete, and consistent with every other layer."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

import eqsat
from eqsat.accuracy.measure import true_value
from eqsat.term.expr import call, symbol
from eqsat.term.numeric import evaluate, numpy_function
from eqsat.term.ops import ALIASES, OPS, ROWS, lookup
from eqsat.term.parse import parse
from eqsat.term.reference import reference

CORPUS_FUNCTIONS = [
    "sqrt", "exp", "log", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh",
    "tanh", "asinh", "acosh", "atanh", "abs", "fabs", "log1p", "expm1", "hypot", "erf", "erfc",
    "sigmoid", "softplus", "log1mexp", "logaddexp", "min", "max", "where",
]


def test_names_are_unique_and_rows_complete() -> None:
    assert len(OPS) == len(ROWS)
    for spec in ROWS:
        assert spec.arity >= 0 and spec.cost > 0 and spec.domain
        if spec.kind == "function" and spec.name != "where":  # where prints as c ? a : b
            assert all(spec.cuda), f"{spec.name} has no CUDA names"
            assert spec.cuda[0] != spec.cuda[1], f"{spec.name}: float and double names agree"


@pytest.mark.parametrize("name", CORPUS_FUNCTIONS)
def test_every_corpus_function_is_an_op(name: str) -> None:
    spec = lookup(name)
    assert spec is not None, name
    args = ", ".join("x" for _ in range(spec.arity))
    assert parse(f"{name}({args})").op == spec.name


@pytest.mark.parametrize("spec", [s for s in ROWS if s.reference is not None],
                         ids=lambda s: s.name)
def test_numpy_agrees_with_mpmath_reference(spec: eqsat.term.ops.Op) -> None:
    names = ["x", "y", "z"][: spec.arity]
    expr = eqsat.call(spec.name, *(eqsat.symbol(n) for n in names))
    rng = np.random.default_rng(0)
    compared = 0
    for _ in range(40):
        point = {n: float(rng.uniform(-3, 3)) for n in names}
        exact = reference(expr, {k: mpmath.mpf(v) for k, v in point.items()})
        if exact is None:
            continue
        got = float(evaluate(expr, point))
        assert got == pytest.approx(float(exact), rel=1e-12, abs=1e-12), (spec.name, point)
        compared += 1
    assert compared >= 5, spec.name


def test_numpy_names_resolve() -> None:
    for spec in ROWS:
        if spec.kind in ("function", "infix", "prefix"):
            assert callable(numpy_function(spec.name))


def test_aliases_point_at_ops() -> None:
    for alias, name in ALIASES.items():
        assert name in OPS and alias not in OPS


def test_every_op_is_a_module_function() -> None:
    x = eqsat.symbol("x")
    assert eqsat.exp(x) is parse("exp(x)")
    assert str(eqsat.where(x > 0, x, 0)) == "where(x > 0, x, 0)"
    assert eqsat.fabs(x) is eqsat.abs(x)
    with pytest.raises(AttributeError):
        eqsat.not_an_op  # noqa: B018



def test_every_op_kind_is_one_of_the_enum_and_reads_as_its_text() -> None:
    from eqsat.term.ops import SCALAR_KINDS, OpKind

    assert all(isinstance(op.kind, OpKind) for op in ROWS)
    assert OPS["sin"].kind == "function" and OPS["sin"].kind in SCALAR_KINDS
    assert not OPS["diff"].is_value and OPS["sum"].kind is OpKind.TENSOR


NEW_OP = '''
import json, sys
import math

import mpmath
import numpy as np
import eqsat.term.ops as ops

ops.add_row(ops.Op("exp2", 1, ops.OpKind.FUNCTION, lambda a: mpmath.power(2, a), "np.exp2",
                   ("exp2f", "exp2"), 20, derivative="log(2)*exp2(a)*diff(a, x)",
                   defined_as="2^a", sign=ops.Sign.POSITIVE, numpy_cost=2.2))

import eqsat
from eqsat.rules import shipped_rules
from eqsat.rules.soundness import check_rule
from eqsat.rules.soundness_tensor import check_tensor_rule

rules = {rule.name: rule for rule in shipped_rules().rules}
gradient = eqsat.grad("exp2(x)*y", ["x", "y"])
print(json.dumps({
    "text": str(eqsat.parse("exp2(x) + 1")),
    "value": eqsat.evaluate("exp2(x) + 1", x=3),
    "diff": eqsat.evaluate(eqsat.diff("exp2(x^2)", "x"), x=1.5),
    "grad": [eqsat.evaluate(g, x=1.5, y=2) for g in gradient],
    "rules sound": [check_rule(rules["d-exp2"]).sound,
                    check_tensor_rule(rules["vjp-exp2"]).sound],
    "simplified": str(eqsat.simplify("abs(exp2(x))*1 + 0")),
    "latex": eqsat.latex(eqsat.parse("exp2(x)")),
    "pretty": eqsat.pretty(eqsat.parse("exp2(x)^2")),
    "sympy": str(eqsat.to_sympy(eqsat.parse("exp2(x)"))),
    "numpy": eqsat.compile("exp2(x) - 1", ["x"])(np.array([1.0, 2.0])).tolist(),
    "numpy cost": eqsat.codegen.COSTS["exp2"],
    "cuda": eqsat.compile("exp2(x) - 1", ["x"], target="cupy", dtype="float32").source,
}))
'''


def test_a_new_op_is_one_row() -> None:
    """A row added to the op table, and nothing else: it parses, evaluates, differentiates
    (diff and grad, by rules made from its derivative and checked sound), is known positive,
    prints in every printer, converts to SymPy, and compiles for NumPy and CUDA."""
    import json
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", NEW_OP], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    slope = float(mpmath.log(2) * 2 ** 2.25 * 3)  # d/dx 2^(x^2) = log(2)*2^(x^2)*2x at 1.5
    assert found["text"] == "exp2(x) + 1" and found["value"] == 9.0
    assert found["diff"] == pytest.approx(slope, rel=1e-12)
    assert found["grad"] == pytest.approx([2 * float(mpmath.log(2)) * 2**1.5, 2**1.5])
    assert found["rules sound"] == [True, True]
    assert found["simplified"] == "exp2(x)"  # abs of a positive op: its sign from the row
    assert found["latex"] == "\\operatorname{exp2}\\left(x\\right)"
    assert found["pretty"] == "exp2(x)²" and found["sympy"] == "2**x"
    assert found["numpy"] == [1.0, 3.0] and found["numpy cost"] == 2.2
    assert "exp2f(x)" in found["cuda"]


@pytest.mark.parametrize(("text", "value"), [
    ("acosh(cosh(x)) == x", None),  # rounded apart at any precision: not told (was 0)
    ("x == x", 1), ("x < 1", 1), ("x > 0.41", 0), ("x + 1e-40 > x", 1),
])
def test_a_comparison_rounding_cannot_decide_has_no_reference_value(text: str,
                                                                     value: int | None) -> None:
    found = reference(parse(text), {"x": mpmath.mpf(0.41)})
    assert found == value


@pytest.mark.parametrize(("text", "at_minus_two", "at_three"), [
    ("where(x > 0, log(x), 0)", 0, math.log(3)),  # the branch not taken may be undefined
    ("where(x > 0, 0, log(x))", None, 0),  # the branch taken may not
    ("where(log(x) > 0, 1, 2)", None, 1),  # nor the condition
    ("log(x) + where(x > 0, 1, 2)", None, math.log(3) + 1),
])
def test_a_where_is_defined_where_the_branch_it_takes_is(text: str, at_minus_two: float | None,
                                                         at_three: float) -> None:
    from eqsat.accuracy.measure import true_value

    for x, expected in ((-2.0, at_minus_two), (3.0, at_three)):
        exact = reference(parse(text), {"x": mpmath.mpf(x)})
        ball = true_value(parse(text), {"x": x}, "float64")
        if expected is None:
            assert exact is None and ball is None
        else:
            assert float(exact) == pytest.approx(expected) and ball == pytest.approx(expected)


@pytest.mark.parametrize("name", ["sinpi", "cospi"])
def test_sinpi_and_cospi_are_correctly_rounded_or_nearly_at_any_magnitude(name: str) -> None:
    """The argument reduced exactly (x less the nearest multiple of 1/2): within an ulp or
    two of the true value at half-integers, near them, and past 2^53 (every float an even
    integer there), where sin(pi*x) computed as written has no correct digit."""
    points = [0.5, 1.0, 1.5, 2.5 - 2**-50, -3.25, 7.0 / 3, 1e-300, 2.0**52 + 1, 2.0**53 + 2,
              -1e300, 123456789.5, 0.1, -0.75]
    spec = OPS[name]
    for dtype in (np.float64, np.float32):
        with np.errstate(over="ignore"):
            values = np.array(points, dtype=dtype)
        values = values[np.isfinite(values)]  # (-1e300 past float32's range)
        got = numpy_function(name)(values)
        assert got.dtype == dtype
        for x, value in zip(values, got, strict=True):
            exact = spec.reference(mpmath.mpf(float(x)))  # type: ignore[misc]
            assert abs(float(value) - float(exact)) <= 2 * abs(float(np.spacing(dtype(exact)))) \
                or float(exact) == value == 0, (name, dtype, x, value, exact)
    with np.errstate(invalid="ignore"):
        assert np.all(np.isnan(numpy_function(name)(np.array([np.inf, -np.inf, np.nan]))))


def test_fmod_is_c_s_remainder_exact_at_any_magnitude() -> None:
    """fmod(a, b) has a's sign and is exact in floats (the NumPy function, the reference and
    the balls agree with Python's integers at huge angles); it is undefined where b is 0."""
    spec = OPS["fmod"]
    for a, b in [(7.0, 3.0), (-7.0, 3.0), (7.0, -3.0), (-7.0, -3.0), (1.2345e300, 360.0),
                 (-1.2345e300, 360.0), (720.0, 360.0), (0.1, 360.0), (2.0**60 + 2**8, 90.0)]:
        exact = math.copysign(int(abs(a)) % int(abs(b)), a) if a == int(a) else math.fmod(a, b)
        assert float(numpy_function("fmod")(np.float64(a), np.float64(b))) == exact
        assert float(spec.reference(mpmath.mpf(a), mpmath.mpf(b))) == exact  # type: ignore[misc]
        assert true_value(call("fmod", symbol("a"), symbol("b")), {"a": a, "b": b},
                          "float64") == exact
    with pytest.raises(ZeroDivisionError):
        spec.reference(mpmath.mpf(1), mpmath.mpf(0))  # type: ignore[misc]


@pytest.mark.parametrize("name", ["erf", "erfc"])
def test_erf_of_a_number_is_computed_in_double(name: str) -> None:
    """(NumPy took the type of math.erf's results from a Python number as float32: x +
    erf(2/3) was 0.6542214155 where erf(2/3) is 0.6542214138488397.)"""
    exact = getattr(math, name)(2 / 3)
    assert float(eqsat.evaluate(f"x + {name}(2/3)", x=0.0)) == exact
    assert numpy_function(name)(np.float32([2 / 3])).dtype == np.float32


def test_erfcx_is_accurate_where_erfc_underflows_and_exp_overflows() -> None:
    """exp(x^2)*erfc(x) within a few ulps from -26 to 1e300 in double and float (x^2 split
    exactly below 26, the asymptotic series past it), in the reference and the balls too,
    where erfc(x) is 0 past 27 and exp(x^2) infinite; infinite at -inf and below -26.7."""
    spec = OPS["erfcx"]
    points = [-26.0, -3.5, -0.1, 0.0, 1e-300, 0.5, 2.0, 9.0, 25.99, 26.01, 27.5, 100.0, 1e4,
              1e6, 1.5e6, 1e150, 1e300]
    for x in points:
        with mpmath.workdps(40):  # (past 1e4 the series' two first terms: 1e-16 off)
            big = mpmath.mpf(x)
            exact = mpmath.exp(big**2) * mpmath.erfc(big) if x < 1e4 else \
                (1 - 1 / (2 * big**2)) / (big * mpmath.sqrt(mpmath.pi))
            assert float(spec.reference(big)) == pytest.approx(  # type: ignore[misc]
                float(exact), rel=1e-14)
        assert true_value(call("erfcx", symbol("x")), {"x": x}, "float64") == pytest.approx(
            float(exact), rel=1e-14)
        for dtype in (np.float64, np.float32):
            if abs(x) > 3e38 and dtype == np.float32:
                continue
            with np.errstate(over="ignore"):
                got = numpy_function("erfcx")(np.array([x], dtype=dtype))
                want = dtype(float(exact))
            assert got.dtype == dtype
            assert float(got[0]) == float(want) or \
                abs(float(got[0]) - float(want)) <= 4 * float(np.spacing(want)), (dtype, x, got)
    with np.errstate(over="ignore"):
        assert list(numpy_function("erfcx")(np.array([-np.inf, -27.0, np.inf]))) == \
            [np.inf, np.inf, 0.0]
