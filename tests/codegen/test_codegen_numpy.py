"""The NumPy backend: kernels equal to eqsat.evaluate for every op, dtype and broadcast
shape; shared subterms once; few temporaries; saved modules that run on their own."""

from __future__ import annotations

import ast
import inspect
import re
import subprocess
import sys
import types
import typing
from pathlib import Path

import numpy as np
import pytest

import eqsat
from eqsat.term.ops import ROWS
from eqsat.term.shape import ELEMENTWISE
from tests.conftest import corpus

VALUE_OPS = [op for op in ROWS if op.name in ELEMENTWISE]
RNG = np.random.default_rng(7)


def _inputs(arity: int, dtype: type) -> list[np.ndarray]:
    return [RNG.uniform(0.1, 0.9, 11).astype(dtype) for _ in range(arity)]


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
@pytest.mark.parametrize("op", VALUE_OPS, ids=lambda op: op.name)
def test_every_op_matches_evaluate(op: eqsat.term.ops.Op, dtype: type) -> None:
    names = ["a", "b", "c"][: op.arity]
    expr = eqsat.call(op.name, *(eqsat.symbol(n) for n in names))
    values = _inputs(op.arity, dtype)
    kernel = eqsat.compile(expr, names, optimize=None)
    with np.errstate(invalid="ignore"):  # (the inputs leave some ops' domains: NaN, as NumPy's)
        got = np.asarray(kernel(*values))
    want = np.asarray(eqsat.evaluate(expr, dict(zip(names, values, strict=True))))
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-6 if dtype is np.float32 else 1e-13)


@pytest.mark.parametrize(("shapes"), [((5,), ()), ((4, 1), (1, 3)), ((2, 3, 4), (4,)), ((), ())])
def test_broadcasting_and_scalars(shapes: tuple[tuple[int, ...], ...]) -> None:
    text = "exp(x) * y + sin(x) / (1 + y^2) - x*y"
    kernel = eqsat.compile(text, ["x", "y"])
    x, y = (RNG.uniform(-1, 1, s) for s in shapes)
    got = kernel(x, y)
    assert np.shape(got) == np.broadcast_shapes(*shapes)
    np.testing.assert_allclose(got, eqsat.evaluate(text, x=x, y=y), rtol=1e-12)


@pytest.mark.parametrize("text", ["tanh(1)", "y^0", "(x - x)^0", "tanh(1) + 0*x", "x + 1"])
def test_every_output_has_the_broadcast_shape_of_all_arguments(text: str) -> None:
    x, y = np.linspace(0, 1, 3), np.ones((2, 1))
    kernel = eqsat.compile([text, "x*y"], ["x", "y"])
    first, second = kernel(x, y)
    assert first.shape == second.shape == (2, 3)
    np.testing.assert_array_equal(first, np.broadcast_to(eqsat.evaluate(text, x=x, y=y),
                                                         (2, 3)))
    assert np.shape(kernel(1.0, 2.0)[0]) == ()


def test_a_constant_kernel_takes_no_arguments() -> None:
    kernel = eqsat.compile("tanh(1) + 2", [])  # args=[] was refused as not a list of names
    assert kernel.args == [] and float(kernel()) == pytest.approx(2.7615941559557649)
    with pytest.raises(eqsat.EqsatError, match="uses x, not among the arguments"):
        eqsat.compile("x + 1", [])


@pytest.mark.parametrize(("text", "x", "dtype", "truth"), [
    # each kernel once took a cheaper form that cancels or overflows: -4096.0; 35.6 bits off
    # (0.0 in float32); inf
    ("(expm1(x^3)/x^3)*exp(2/3*log(x))", 3.3536973e-05, "float32", 0.0010399583),
    ("expm1(x*x)^3", 3.5967663e-06, "float64", 2.16507688e-33),
    ("expm1(x*x)^3", 3.5967663e-06, "float32", 2.16507688e-33),
    ("exp(log(hypot(sqrt(x), exp(x))))", 63.03, "float32", 2.363639e27),
])
def test_a_kernel_is_as_accurate_as_its_input(text: str, x: float, dtype: str,
                                              truth: float) -> None:
    kernel = eqsat.compile(text, ["x"], dtype=dtype)
    with np.errstate(all="ignore"):
        got = float(kernel(np.array([x], dtype=dtype))[0])
    assert got == pytest.approx(truth, rel=1e-4), str(kernel.outputs[0])


def test_an_overflow_inside_a_comparison_is_no_cheaper_form() -> None:
    """log(exp(x) + exp(y)) >= -4*x, cheaper than logaddexp's, is true where exp(y)
    overflows: at one point in twenty over the floats a finite value flips (2/x for 1/x), seldom
    more than twice among the points measured, not once where the two are far apart."""
    text = "((x < 6) + (logaddexp(x, y) >= x*(-4)))/x"
    kernel = eqsat.compile(text, ["x", "y"], dtype="float32")
    assert float(kernel(np.float32(-1e10), np.float32(1e9))) == pytest.approx(-1e-10), \
        str(kernel.outputs[0])


def test_a_helpers_value_feeds_a_ufunc_on_numbers() -> None:
    # sigmoid (a helper) gave a NumPy scalar into a temporary that logaddexp then wrote into
    text = "-5 + logaddexp(sigmoid((3 - y)^x^x), x)"
    kernel = eqsat.compile(text, ["x", "y"], optimize=None)
    assert float(kernel(0.7160787, 0.61266303)) == pytest.approx(
        float(eqsat.evaluate(text, x=0.7160787, y=0.61266303)), rel=1e-14)


@pytest.mark.parametrize(("values", "message"), [
    (((4, 5), (3, 4)), r"argument X has shape \(3, 4\): its m is 3, where W's is 5"),
    (((3,), (4, 5)), r"argument W has shape \(3,\), not of the 2 dimension\(s\) \(n, m\)"),
    (((3, 4), (4, 2)), r"argument X has shape \(4, 2\), not \(m, 3\)"),
])
def test_tensor_arguments_are_checked_at_the_call(values: tuple[tuple[int, ...], ...],
                                                 message: str) -> None:
    kernel = eqsat.compile("sum(W@X, axis=0)", shapes={"W": ("n", "m"), "X": ("m", 3)})
    assert kernel(np.ones((2, 4)), np.ones((4, 3))).shape == (3,)
    assert kernel(np.ones((2, 4)).tolist(), np.ones((4, 3)).tolist()).shape == (3,)  # lists
    with pytest.raises(ValueError, match=message):
        kernel(*(np.ones(shape) for shape in values))


@pytest.mark.parametrize("record", [r for r in corpus("fpbench.jsonl")
                                    if str(r.get("name", "")).startswith("Rump's expression")])
def test_accuracy_is_measured_on_the_domain_given(record: dict[str, object]) -> None:
    # Rump's expression at its one point: every float evaluation is far off; Horner's
    # scheme (cheaper) is 5 bits further off there, though not on floats at large
    given = str(record["input"]).replace("**", "^")
    kernel = eqsat.compile(given, ["x", "y"], domain=str(record["pre"]))
    plain = eqsat.compile(given, ["x", "y"], optimize=None)
    assert float(kernel(77617.0, 33096.0)) == float(plain(77617.0, 33096.0))


def test_integer_inputs_become_float64_and_dtype_casts() -> None:
    kernel = eqsat.compile("x / 2", ["x"], optimize=None)
    assert kernel(np.array([1, 2, 3])).dtype == np.float64
    single = eqsat.compile("x / 2 + y", ["x", "y"], dtype="float32", optimize=None)
    assert single(np.arange(3.0), 1.0).dtype == np.float32


def test_several_outputs_share_their_subterms() -> None:
    f = "exp(x*y) + sin(x*y)"
    gradient = [eqsat.diff(f, "x"), eqsat.diff(f, "y")]
    kernel = eqsat.compile([f, *gradient], ["x", "y"])
    x, y = RNG.uniform(-1, 1, (2, 9))
    for got, expr in zip(kernel(x, y), [f, *gradient], strict=True):
        np.testing.assert_allclose(got, eqsat.evaluate(expr, x=x, y=y), rtol=1e-12)
    body = kernel.source[kernel.source.index("def _kernel_tile"):]
    assert body.count("np.multiply(x, y") == 1  # x*y computed once for all three
    assert body.count("np.exp(") == 1 and body.count("np.sin(") == 1


def test_a_long_chain_reuses_a_few_buffers() -> None:
    chain = "x"
    for i in range(40):
        chain = f"sin({chain}) * {i % 3 + 2} + x"
    kernel = eqsat.compile(chain, ["x"], optimize=None)
    tile = kernel.source[kernel.source.index("def _kernel_tile"):]
    temporaries = set(re.findall(r"\b_t\d+\b", tile))
    assert 1 <= len(temporaries) <= 3, sorted(temporaries)  # 121 nodes
    x = np.linspace(-2, 2, 7)
    np.testing.assert_allclose(kernel(x), eqsat.evaluate(chain, x=x), rtol=1e-12)


def test_source_snapshot() -> None:
    kernel = eqsat.compile(["exp(x) - 1 + sin(x)*y", "sin(x)^2*y"], optimize="stabilize")
    body = kernel.source[kernel.source.index("def _kernel_tile"):]
    assert body == '''def _kernel_tile(x, y, _out0, _out1, _t0, _t1, _t2):
    """One tile of kernel: expm1(x) + sin(x)*y, sin(x)*(sin(x)*y), into _out0, _out1."""
    np.expm1(x, out=_t0)  # expm1(x)
    np.sin(x, out=_t1)  # sin(x)
    np.multiply(_t1, y, out=_t2)  # sin(x)*y
    np.add(_t0, _t2, out=_out0)  # expm1(x) + sin(x)*y
    np.multiply(_t1, _t2, out=_out1)  # sin(x)*(sin(x)*y)


def kernel(x, y, out=None):
    """expm1(x) + sin(x)*y, sin(x)*(sin(x)*y)"""
    x = _as_float(x)
    y = _as_float(y)
    return _run(_kernel_tile, (x, y), out, ((0, 1), (0, 1)), ((0,), (0,), (0, 1)))
'''


def test_simplify_folds_constants_and_cancels() -> None:
    kernel = eqsat.compile("x*y/x + 2*3", ["x", "y"])
    assert kernel.outputs == [eqsat.parse("y + 6")]
    assert "6.0" in kernel.source and "np.divide" not in kernel.source


@pytest.mark.parametrize(("text", "expected"), [
    ("(x + y)^2 - (x - y)^2", "4*x*y"),  # by the normal forms, as simplify finds it
    ("x^3 + 3*x^2*y + 3*x*y^2 + y^3", "(x + y)^3"),  # factored: 2 ufuncs and a cube
])
def test_compile_reaches_what_simplify_reaches(text: str, expected: str) -> None:
    kernel = eqsat.compile(text, ["x", "y"])
    assert kernel.outputs == [eqsat.parse(expected)]
    x, y = np.array([0.5, -2.0]), np.array([3.0, 0.25])
    np.testing.assert_allclose(kernel(x, y), eqsat.evaluate(text, x=x, y=y))


def test_kernel_is_inspectable_and_saves_a_self_contained_module(tmp_path: Path) -> None:
    kernel = eqsat.compile(["sigmoid(x) * erf(y)", "log1mexp(-x*x - 1)"], ["x", "y"])
    assert inspect.getsource(kernel.function).startswith("def kernel(x, y, out=None):")
    path = kernel.save(tmp_path / "kernel.py")
    imports = {line for line in path.read_text().splitlines() if line.startswith("import ")}
    assert imports == {"import contextvars", "import math", "import os",
                       "import numpy as np"}  # and a thread pool
    script = ("import sys; sys.path.insert(0, sys.argv[1]); import numpy as np; "
              "from kernel import kernel; print(*[list(np.round(v, 12)) for v in "
              "kernel(np.array([0.5, 1.5]), np.array([0.25, 2.0]))])")
    done = subprocess.run([sys.executable, "-I", "-c", script, str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    x, y = np.array([0.5, 1.5]), np.array([0.25, 2.0])
    expected = [list(np.round(eqsat.evaluate(e, x=x, y=y), 12)) for e in kernel.outputs]
    assert done.stdout.strip() == " ".join(str(v) for v in expected)


def test_theano_style_function_runs_the_compiled_kernel() -> None:
    a, b = eqsat.symbols("a b")
    f = eqsat.function([a, b], a * b / a + eqsat.exp(a))
    assert "def function(a, b, out=None)" in f.kernel.source
    np.testing.assert_allclose(f(np.array([0.0, 1.0]), 2.0), [3.0, 2.0 + np.e])


@pytest.mark.parametrize(("call", "message"), [
    (lambda: eqsat.compile("x", ["x; import os"]), "not a plain ASCII Python identifier"),
    (lambda: eqsat.compile("x", ["__import__"]), "not a plain ASCII Python identifier"),
    (lambda: eqsat.compile("x + y", ["x"]), "uses y, not among the arguments"),
    (lambda: eqsat.compile("x", target="cuda"), "unknown target"),
    (lambda: eqsat.compile("x", optimize="fast"), "optimize is"),
    (lambda: eqsat.compile("x", name="import os"), "kernel name"),
    (lambda: eqsat.compile([]), "at least one expression"),
    (lambda: eqsat.compile("x = 1"), "compile takes values; x = 1 is not one"),
    # checked even where nothing is measured (x + 1 is its own cheapest form)
    (lambda: eqsat.compile("x + 1", domain={"x": (3, 1)}), "the range of 'x' is empty"),
    (lambda: eqsat.compile("x + 1", domain="x <<< 3"), "malformed precondition"),
])
def test_bad_requests_are_clear_errors(call: object, message: str) -> None:
    with pytest.raises(eqsat.EqsatError, match=message):
        call()  # type: ignore[operator]


def test_cli_compile_prints_or_writes_the_module(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "eqsat.cli", "compile", "exp(x) - 1", "--optimize",
               "stabilize"]
    printed = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert printed.returncode == 0, printed.stderr
    assert "np.expm1(x, out=_out0)" in printed.stdout
    target = tmp_path / "k.py"
    written = subprocess.run([*command, "-o", str(target)], capture_output=True, text=True,
                             timeout=120)
    assert written.stdout == "" and target.read_text() == printed.stdout
    ranged = subprocess.run([*command, "--domain", "x=1e-9:1e-3"], capture_output=True,
                            text=True, timeout=120)
    assert ranged.returncode == 0 and "np.expm1(x, out=_out0)" in ranged.stdout, ranged.stderr


@pytest.mark.parametrize("text", ["exp(x) - 1 + y", "erf(x) + log1mexp(-x*x)", "x/3"])
def test_generated_modules_import_what_they_use_and_their_annotations_resolve(
        text: str) -> None:
    source = eqsat.compile(text).source
    tree = ast.parse(source)
    imported = {alias.asname or alias.name for node in ast.walk(tree)
                if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}  # annotations too
    assert imported - {"annotations"} <= used
    namespace: dict[str, object] = {}
    exec(compile(source, "<kernel>", "exec"), namespace)
    for value in namespace.values():
        if isinstance(value, types.FunctionType):
            typing.get_type_hints(value)


@pytest.mark.parametrize(("text", "shapes"), [
    ("where(x > 0, log(x), 0)", None),  # a tiled program
    ("sum(where(v > 0, log(v), 0))", {"v": ("n",)}),  # one over whole arrays
])
def test_a_branch_not_taken_warns_of_nothing(text: str, shapes: object) -> None:
    # np.where computes both branches; log(x) where x <= 0 is not the where's value
    import warnings

    kernel = eqsat.compile(text, shapes=shapes, optimize=None)  # type: ignore[arg-type]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        found = kernel(np.array([-2.0, 0.0, np.e]))
    assert np.allclose(found, [0.0, 0.0, 1.0] if shapes is None else 1.0)


def test_a_number_multiplies_a_product_last_where_first_it_would_overflow() -> None:
    """x*y + ... + x*y (50 terms) is 50*x*y as simplify shows it; (50*x)*y overflows where x
    is near the largest float and y small, while the sum does not: the kernel takes 50*(x*y)."""
    kernel = eqsat.compile(" + ".join(["x*y"] * 50))
    assert [str(output) for output in kernel.outputs] == ["50*(x*y)"]
    assert float(kernel(1e307, 1e-300)) == pytest.approx(5e8)
