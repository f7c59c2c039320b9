"""Tensor expressions: shapes, the tensor rules, matrix chains, stable forms, gradients."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import eqsat
from eqsat import ShapeError, tensor
from eqsat.rules import parse_rules
from eqsat.rules.soundness import check_rule
from eqsat.term.shape import shape_of
from tests.conftest import corpus

A, B, C = tensor("A", ("n", "m")), tensor("B", ("m", "k")), tensor("C", ("k", "n"))
V, W = tensor("v", ("m",)), tensor("w", ("n",))
KNOWN = [A, B, C, V, W]


def parse(text: str) -> eqsat.Expr:
    return eqsat.parse(text, KNOWN)


# --- shapes ----------------------------------------------------------------------------------
SHAPES = [  # expression => shape
    ("A @ B", ("n", "k")),
    ("A.T", ("m", "n")),
    ("(A @ B).T @ A", ("k", "m")),
    ("A @ v", ("n",)),
    ("v @ B", ("k",)),
    ("v @ v", ()),
    ("dot(v, v)", ()),
    ("outer(w, v)", ("n", "m")),
    ("A + v", ("n", "m")),           # broadcasting: v along the rows
    ("A * 2 + x", ("n", "m")),       # scalars broadcast
    ("sum(A)", ()),
    ("sum(A, axis=0)", ("m",)),
    ("max(A, axis=-1)", ("n",)),     # a negative axis counts from the end
    ("min(A)", ()),
    ("mean(A, axis=1) + w", ("n",)),
    ("prod(v)", ()),
    ("logsumexp(A, axis=1)", ("n",)),
    ("softmax(A, axis=0)", ("n", "m")),
    ("log_softmax(v)", ("m",)),
    ("max(A, 0)", ("n", "m")),       # two arguments: elementwise
]


@pytest.mark.parametrize(("text", "shape"), SHAPES)
def test_shape_inference(text: str, shape: tuple[object, ...]) -> None:
    assert shape_of(parse(text)) == shape


ERRORS = [  # expression => words the ShapeError must contain
    ("A @ A", ["matmul", "(n, m)", "(n, m)"]),
    ("A + B", ["add", "(n, m)", "(m, k)", "broadcast"]),
    ("v * w", ["mul", "(m,)", "(n,)"]),
    ("sum(A, axis=2)", ["sum", "axis 2", "(n, m)"]),
    ("outer(A, v)", ["outer", "vectors"]),
    ("dot(A, w)", ["dot", "(n, m)", "(n,)"]),
]


@pytest.mark.parametrize(("text", "words"), ERRORS)
def test_shape_errors_name_the_op_and_both_shapes(text: str, words: list[str]) -> None:
    with pytest.raises(ShapeError) as error:
        parse(text)
    for word in words:
        assert word in str(error.value), (word, str(error.value))


def test_shapes_of_concrete_sizes_and_the_api() -> None:
    x = tensor("x", (3, 1))
    assert shape_of(x + tensor("y", (4,))) == (3, 4)
    with pytest.raises(ShapeError, match="3 != 4"):
        tensor("p", (2, 3)) @ tensor("q", (4, 2))
    assert shape_of(eqsat.sum(A, axis=1)) == ("n",)
    assert shape_of(eqsat.max(A)) == () and shape_of(eqsat.max(A, A)) == ("n", "m")
    assert shape_of(eqsat.to_expr("sum(P @ Q)", shapes={"P": (2, 3), "Q": (3, 5)})) == ()
    with pytest.raises(ShapeError, match="positive integer or a name"):
        tensor("bad", (0, 2))
    with pytest.raises(ShapeError, match="takes no axis"):
        eqsat.exp(A, axis=0)


@pytest.mark.parametrize("text", [t for t, _ in SHAPES] + ["sum(A@B, axis=1)", "(-A).T",
                                                          "softmax(A, axis=1)"])
def test_tensor_text_reads_back(text: str) -> None:
    expr = parse(text)
    assert parse(str(expr)) is expr


# --- rules ---------------------------------------------------------------------------------------
UNSOUND = [  # each would be right for same-shaped operands, and is wrong under broadcasting
    "sum(a + b) => sum(a) + sum(b)",
    "sum(s*a) => s*sum(a)",
    "(a@b).T => a.T@b.T",
    "(a + b).T => a.T + b.T",
    "(a@b)@c => a@(b@c)",
    "a - a => 0",
]


@pytest.mark.parametrize("rule", UNSOUND)
def test_checker_finds_broadcasting_counterexamples(rule: str) -> None:
    (parsed, *_), = [parse_rules(f"[mine]\nmine: {rule}\n").rules]
    verdict = check_rule(parsed)
    if rule == "a - a => 0":  # scalar identity: the tensor-safe twin is what keeps it sound
        assert verdict.sound
        return
    assert not verdict.sound, rule


def test_rules_that_drop_a_variable_keep_tensor_shapes() -> None:
    x = tensor("x", (3,))
    values = {"x": np.array([1.0, 2.0, 4.0]), "y": 5.0}
    for text in ["sum(x/x)", "sum(x - x + 1)", "sum(x^0)", "sum(x*y/x)", "sum(0*x + 2)"]:
        start = eqsat.parse(text, [x])
        result = eqsat.simplify(start)
        assert shape_of(result) == shape_of(start)
        assert np.allclose(eqsat.evaluate(result, values), eqsat.evaluate(start, values)), text


SIMPLIFIED = [  # tensor identities the rules find
    ("A@B + A@(2*B)", "3*(A@B)"),
    ("(A@B).T", "B.T@A.T"),
    ("sum(3*A) - sum(A)", "2*sum(A)"),
    ("A.T.T", "A"),
    ("dot(v, v)", "v@v"),
]


@pytest.mark.parametrize(("text", "expected"), SIMPLIFIED)
def test_tensor_simplification(text: str, expected: str) -> None:
    result = eqsat.simplify(parse(text))
    assert eqsat.prove_equal(result, parse(expected)) or result is parse(expected), str(result)
    rng = np.random.default_rng(1)
    values = {"A": rng.normal(size=(3, 4)), "B": rng.normal(size=(4, 2)),
              "v": rng.normal(size=4)}
    assert np.allclose(eqsat.evaluate(result, values), eqsat.evaluate(parse(text), values))


def test_matrix_chain_takes_the_cheap_order() -> None:
    p, q, r = tensor("P", (1000, 20)), tensor("Q", (20, 1000)), tensor("R", (1000, 5))
    assert eqsat.simplify(p @ q @ r) is p @ (q @ r)           # 10^5 multiply-adds, not 2*10^7
    assert eqsat.simplify(r.T @ (p @ q)) is (r.T @ p) @ q
    s, t = tensor("S", ("a", "b")), tensor("T", ("b", "c"))
    u = tensor("U", ("c", 1))
    assert eqsat.simplify(s @ t @ u, sizes={"a": 500, "b": 500, "c": 500}) is s @ (t @ u)


# --- stable forms --------------------------------------------------------------------------------
VECTOR_CASES = [c for c in corpus("pytensor_stability.jsonl") if c.get("vector_op")]


@pytest.mark.parametrize("case", VECTOR_CASES, ids=lambda c: str(c["input"]))
def test_pytensor_vector_cases_reach_their_stable_form(case: dict[str, object]) -> None:
    x = tensor("x", ("n",))
    result = eqsat.stabilize(eqsat.parse(str(case["input"]), [x]))
    assert result is eqsat.parse(str(case["expect"]), [x])
    big = np.array([-800.0, 800.0])
    assert eqsat.evaluate(result, x=big) == pytest.approx(800.0)  # the naive form overflows
    assert eqsat.evaluate(result, x=np.array([-800.0, -805.0])) == pytest.approx(
        -800 + np.log1p(np.exp(-5.0)))


STABLE = [
    ("exp(x)/sum(exp(x))", "softmax(x)"),
    ("log(exp(x)/sum(exp(x)))", "log_softmax(x)"),
    ("x - log(sum(exp(x)))", "log_softmax(x)"),
]


@pytest.mark.parametrize(("text", "expected"), STABLE)
def test_softmax_forms(text: str, expected: str) -> None:
    x = tensor("x", ("n",))
    assert eqsat.stabilize(eqsat.parse(text, [x])) is eqsat.parse(expected, [x])


# --- gradients -----------------------------------------------------------------------------------
def numeric_gradient(f: eqsat.Expr, values: dict[str, np.ndarray], name: str) -> np.ndarray:
    point = np.array(values[name], dtype=np.float64)
    gradient = np.zeros_like(point)
    for index in np.ndindex(point.shape):
        step = 1e-6 * max(1.0, abs(float(point[index])))
        sides = []
        for sign in (1, -1):
            moved = point.copy()
            moved[index] += sign * step
            sides.append(float(eqsat.evaluate(f, {**values, name: moved})))
        gradient[index] = (sides[0] - sides[1]) / (2 * step)
    return gradient


X, Y, M = tensor("x", (4,)), tensor("y", (3, 4)), tensor("M", (3, 4))
Z, Q = tensor("z", (4,), nonzero=True), tensor("Q", (3, 4), nonzero=True)
GRADIENTS = [  # scalar-valued expressions of x (4,), y (3, 4), M (3, 4), z (4,) and Q (3, 4)
    # nonzero, s a scalar
    "sum(x*x)", "sum(x + y)", "sum(x*y)", "sum(y/x)", "sum(x^3)", "sum(exp(x)*s)",
    "sum(log(1 + x*x))", "sum(sqrt(2 + x))", "sum(sin(x) - cos(x))", "sum(tan(x/4))",
    "sum(asin(x/3) + acos(x/3))", "sum(atan(x))", "sum(atan2(x, y))", "sum(sinh(x))",
    "sum(cosh(x))", "sum(tanh(x))", "sum(asinh(x))", "sum(acosh(3 + x*x))", "sum(atanh(x/3))",
    "sum(abs(x))", "sum(log1p(x*x))", "sum(expm1(x))", "sum(hypot(x, y))", "sum(erf(x))",
    "sum(erfc(x))", "sum(sigmoid(x))", "sum(softplus(x))", "sum(log1mexp(-1 - x*x))",
    "sum(logaddexp(x, y))", "sum(min(x, y))", "sum(max(x, y))", "sum(where(x > 0, x, 2*x))",
    "sum((x > 0)*x)", "sum(-x)", "sum(2^x)", "sum(pi*x)",
    "mean(y*y)", "sum(mean(y, axis=0)*x)", "prod(z*z)", "sum(prod(Q, axis=1))", "max(y)",
    "sum(min(y, axis=1))",
    "logsumexp(x)", "sum(logsumexp(y, axis=1))", "sum(softmax(x)*x)",
    "sum(softmax(y, axis=0)*M)", "sum(log_softmax(y, axis=1)*M)",
    "sum(y @ x)", "sum(M.T @ y)", "x @ x", "dot(x, x)", "sum(outer(x, x))",
    "sum((y @ x) * (M @ x))", "sum(y.T)", "sum(sum(y, axis=0) * x)", "sum(max(y, axis=0)*x)",
]


@pytest.mark.parametrize("text", GRADIENTS)
def test_gradient_matches_finite_differences(text: str) -> None:
    s = eqsat.symbol("s")
    f = eqsat.parse(text, [X, Y, M, Z, Q, s])
    rng = np.random.default_rng(7)
    values = {"x": rng.uniform(0.2, 0.9, 4) * np.array([1, -1, 1, -1]),
              "y": rng.uniform(-1, 1, (3, 4)), "M": rng.uniform(-1, 1, (3, 4)), "s": 1.7,
              "z": np.array([0.5, -1.5, 2.0, 0.8]), "Q": rng.uniform(0.5, 2, (3, 4))}
    for variable in sorted(symbol.name for symbol in f.free_symbols()):
        gradient = eqsat.grad(f, variable)
        assert np.shape(eqsat.evaluate(gradient, values)) == np.shape(values[variable])
        expected = numeric_gradient(f, values, variable)
        got = np.asarray(eqsat.evaluate(gradient, values))
        assert np.allclose(got, expected, rtol=1e-5, atol=1e-6), (text, variable, str(gradient))


def test_tensorflow_gradient_of_a_matrix_product() -> None:
    a, b = tensor("a", (2, 2)), tensor("b", (2, 2))
    gradient = eqsat.grad(eqsat.sum(a @ b), a)
    values = {"a": np.array([[1.0, 2.0], [3.0, 4.0]]), "b": np.array([[5.0, 6.0], [7.0, 8.0]])}
    assert np.array_equal(eqsat.evaluate(gradient, values), np.ones((2, 2)) @ values["b"].T)
    kernel = eqsat.compile(gradient, ["a", "b"])
    assert np.array_equal(kernel(values["a"], values["b"]), [[11.0, 15.0], [11.0, 15.0]])


def test_gradient_of_logsumexp_is_a_stable_softmax() -> None:
    x = tensor("x", ("n",))
    for text in ["logsumexp(x)", "log(sum(exp(x)))"]:
        gradient = eqsat.grad(eqsat.parse(text, [x]), x)
        assert gradient is eqsat.softmax(x)
        assert np.allclose(eqsat.evaluate(gradient, x=np.array([-800.0, 800.0])), [0.0, 1.0])


def test_gradients_of_several_variables_and_constants() -> None:
    gx, gy = eqsat.grad(eqsat.parse("sum(x * y)", [X, Y]), [X, Y])
    assert shape_of(gx) == (4,) and shape_of(gy) == (3, 4)
    constant = eqsat.grad(eqsat.parse("sum(y)", [X, Y]), X)
    assert shape_of(constant) == (4,)
    assert np.array_equal(eqsat.evaluate(constant, x=np.ones(4), y=np.ones((3, 4))), np.zeros(4))


def test_gradient_errors() -> None:
    with pytest.raises(ShapeError, match="scalar-valued"):
        eqsat.grad(X * 2, X)
    with pytest.raises(eqsat.EqsatError, match="prod"):
        eqsat.grad(eqsat.prod(X), X)  # its rule needs x nonzero
    with pytest.raises(ShapeError, match="use grad"):
        eqsat.diff(eqsat.sum(X), "x")


# --- code generation -----------------------------------------------------------------------------
PROGRAMS = ["sum(A @ B)", "A @ B + 1", "softmax(w) * 2", "logsumexp(A, axis=1)",
            "mean(A, axis=0) + v", "exp(A) / sum(exp(A))", "outer(w, v) - A", "(A @ B).T",
            "max(A) - min(A)", "prod(v)"]


@pytest.mark.parametrize("text", PROGRAMS)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_numpy_tensor_programs_match_evaluate(text: str, dtype: str) -> None:
    expr = parse(text)
    names = sorted(s.name for s in expr.free_symbols())
    rng = np.random.default_rng(3)
    sizes = {"n": 3, "m": 4, "k": 2}
    values = {s.name: rng.uniform(0.5, 1.5, tuple(sizes[d] for d in s.shape)).astype(dtype)
              for s in expr.free_symbols()}
    kernel = eqsat.compile(expr, names)
    got = kernel(*(values[n] for n in names))
    expected = eqsat.evaluate(expr, values)
    assert np.shape(got) == np.shape(expected)
    assert np.allclose(got, expected, rtol=1e-5 if dtype == "float32" else 1e-12)


def test_numpy_gradient_kernel_never_computes_a_witness() -> None:
    a, b = tensor("a", ("n", "m")), tensor("b", ("m", "k"))
    kernel = eqsat.compile(eqsat.grad(eqsat.sum(a @ b), a), ["a", "b"])
    assert kernel.source.count("np.matmul") == 1  # ones @ b.T; a @ b only lends its shape
    assert "(a.shape[0], b.shape[1])" in kernel.source


def _best_chain_cost(dims: list[int]) -> int:
    """The fewest multiply-adds of a matrix chain (the textbook dynamic programme)."""
    count = len(dims) - 1
    best = [[0] * count for _ in range(count)]
    for span in range(1, count):
        for i in range(count - span):
            j = i + span
            best[i][j] = min(best[i][k] + best[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                             for k in range(i, j))
    return best[0][count - 1]


def _chain_cost(expr: eqsat.Expr) -> int:
    if expr.op != "matmul":
        return 0
    left, right = (shape_of(a) for a in expr.args)
    return _chain_cost(expr.args[0]) + _chain_cost(expr.args[1]) + \
        int(np.prod(left)) * int(right[-1])


@pytest.mark.parametrize("seed", range(6))
def test_matrix_chain_order_is_optimal(seed: int) -> None:
    rng = np.random.default_rng(seed)
    dims = [int(d) for d in rng.choice([2, 5, 10, 40, 100, 300], size=int(rng.integers(4, 7)))]
    factors = [tensor(f"M{k}", (dims[k], dims[k + 1])) for k in range(len(dims) - 1)]
    chain = factors[0]
    for factor in factors[1:]:
        chain = chain @ factor
    found = eqsat.simplify(chain)
    assert _chain_cost(found) == _best_chain_cost(dims), (dims, str(found))


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "eqsat.cli", *args], capture_output=True,
                          text=True, timeout=120)


def test_command_line_shapes_and_gradients() -> None:
    chain = run_cli("simplify", "A@B@C", "--shape", "A=1000,20", "--shape", "B=20,1000",
                    "--shape", "C=1000,5")
    assert chain.returncode == 0 and chain.stdout.strip() == "A@(B@C)"
    gradient = run_cli("grad", "sum(log(sum(exp(X @ W), axis=1)))", "--wrt", "W",
                       "--shape", "X=b,d", "--shape", "W=d,c")
    assert gradient.stdout.strip() == "X.T@softmax(X@W, axis=1)"
    stable = run_cli("stabilize", "log(sum(exp(x)))", "--shape", "x=n")
    assert stable.stdout.strip() == "logsumexp(x)"
    named = run_cli("simplify", "S@T@U", "--shape", "S=a,b", "--shape", "T=b,c",
                    "--shape", "U=c,1", "--size", "a=500", "--size", "b=500", "--size", "c=500")
    assert named.stdout.strip() == "S@(T@U)"
    bad = run_cli("simplify", "A@A", "--shape", "A=n,m")
    assert bad.returncode == 2 and bad.stderr.startswith("eqsat: error: <input>:1:1: matmul: "
                                                         "shapes (n, m)")
    assert "Traceback" not in bad.stderr
    scalar_only = run_cli("diff", "x^2", "--wrt", "x", "--shape", "x=3")
    assert scalar_only.returncode == 2 and "eqsat grad" in scalar_only.stderr
    malformed = run_cli("simplify", "A", "--shape", "A")
    assert malformed.returncode == 2 and "--shape takes NAME=DIM" in malformed.stderr


def test_every_value_op_has_a_gradient_rule() -> None:
    engine = eqsat.engine()
    covered = {rule.lhs.args[0].op for rule in engine.rules.rules
               if rule.ruleset == "grad" and rule.lhs.op == "vjp"}
    internal = {"expand", "sum_to"}  # the gradient's own bookkeeping: no gradients of gradients
    missing = [name for name, op in eqsat.OPS.items()
               if op.is_value and op.arity > 0 and name not in covered | internal]
    assert missing == []


def test_values_and_declarations_must_agree() -> None:
    x, y = tensor("x", ("n",)), tensor("y", ("n",))
    with pytest.raises(eqsat.EvaluationError, match=r"value has shape \(4,\) \(with n = 3\)"):
        eqsat.evaluate(x + y, x=np.ones(3), y=np.ones(4))
    with pytest.raises(eqsat.EvaluationError, match=r"declared with shape \(2, 3\)"):
        eqsat.evaluate(eqsat.sum(tensor("P", (2, 3))), P=np.ones((2, 2)))
    with pytest.raises(ShapeError, match="shapes= says"):
        eqsat.simplify(eqsat.sum(tensor("P", (2, 3))), shapes={"P": (3,)})
    with pytest.raises(ShapeError, match="solve takes scalar equations"):
        eqsat.solve(eqsat.sum(x))
    with pytest.raises(eqsat.EqsatError, match="error_bits measures scalar expressions"):
        eqsat.error_bits(eqsat.sum(x))
