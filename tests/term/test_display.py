"""Display: LaTeX and Unicode for every op, reprs of results, the report's table and plot."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from matplotlib.mathtext import MathTextParser

import eqsat
from eqsat import latex, pretty
from eqsat.cli import main
from eqsat.term.expr import Expr, make, number
from eqsat.term.ops import ROWS

x, y, z = eqsat.symbols("x y z")
A = eqsat.tensor("A", ("n", "m"))
B = eqsat.tensor("B", ("m", "k"))
v = eqsat.tensor("v", (3,))

# op -> (an expression using it, a piece its LaTeX shows, a piece its Unicode form shows)
EXAMPLES: dict[str, tuple[Callable[[], Expr], str, str]] = {
    "add": (lambda: x + y, "x + y", "x + y"),
    "sub": (lambda: x - (y - z), r"x - \left(y - z\right)", "x - (y - z)"),
    "mul": (lambda: 2 * x * y, "2 x y", "2·x·y"),
    "div": (lambda: (x + 1) / y, r"\frac{x + 1}{y}", "(x + 1)/y"),
    "pow": (lambda: (x + 1) ** 2, r"\left(x + 1\right)^{2}", "(x + 1)²"),
    "neg": (lambda: -(x + y), r"-\left(x + y\right)", "-(x + y)"),
    "lt": (lambda: x < y, "x < y", "x < y"),
    "le": (lambda: x <= y, r"x \leq y", "x ≤ y"),
    "gt": (lambda: x > y, "x > y", "x > y"),
    "ge": (lambda: x >= y, r"x \geq y", "x ≥ y"),
    "eq": (lambda: eqsat.parse("x == y"), r"\left[x = y\right]", "x = y"),
    "ne": (lambda: eqsat.parse("x != y"), r"x \neq y", "x ≠ y"),
    "equation": (lambda: eqsat.parse("3x + 1 = 2(2x - 6)"),
                 r"3 x + 1 = 2 \left(2 x - 6\right)", "3·x + 1 = 2·(2·x - 6)"),
    "sqrt": (lambda: eqsat.sqrt(x + 1), r"\sqrt{x + 1}", "√(x + 1)"),
    "exp": (lambda: eqsat.exp(-x), "e^{-x}", "exp(-x)"),
    "log": (lambda: eqsat.log(x), r"\log\left(x\right)", "log(x)"),
    "sin": (lambda: eqsat.sin(x) ** 2, r"\sin\left(x\right)^{2}", "sin(x)²"),
    "cos": (lambda: eqsat.cos(x), r"\cos\left(x\right)", "cos(x)"),
    "tan": (lambda: eqsat.tan(x), r"\tan\left(x\right)", "tan(x)"),
    "sinpi": (lambda: eqsat.sinpi(x), r"\operatorname{sinpi}\left(x\right)", "sinpi(x)"),
    "fmod": (lambda: eqsat.fmod(x, 360), r"\operatorname{fmod}\left(x, 360\right)",
             "fmod(x, 360)"),
    "erfcx": (lambda: eqsat.erfcx(x), r"\operatorname{erfcx}\left(x\right)", "erfcx(x)"),
    "cospi": (lambda: eqsat.cospi(x), r"\operatorname{cospi}\left(x\right)", "cospi(x)"),
    "asin": (lambda: eqsat.asin(x), r"\arcsin\left(x\right)", "asin(x)"),
    "acos": (lambda: eqsat.acos(x), r"\arccos\left(x\right)", "acos(x)"),
    "atan": (lambda: eqsat.atan(x), r"\arctan\left(x\right)", "atan(x)"),
    "atan2": (lambda: eqsat.atan2(y, x), r"\operatorname{atan2}\left(y, x\right)",
              "atan2(y, x)"),
    "sinh": (lambda: eqsat.sinh(x), r"\sinh\left(x\right)", "sinh(x)"),
    "cosh": (lambda: eqsat.cosh(x), r"\cosh\left(x\right)", "cosh(x)"),
    "tanh": (lambda: eqsat.tanh(x), r"\tanh\left(x\right)", "tanh(x)"),
    "asinh": (lambda: eqsat.asinh(x), r"\operatorname{asinh}\left(x\right)", "asinh(x)"),
    "acosh": (lambda: eqsat.acosh(x), r"\operatorname{acosh}\left(x\right)", "acosh(x)"),
    "atanh": (lambda: eqsat.atanh(x), r"\operatorname{atanh}\left(x\right)", "atanh(x)"),
    "abs": (lambda: eqsat.abs(-x), r"\left|-x\right|", "|-x|"),
    "sign": (lambda: eqsat.sign(x), r"\operatorname{sign}\left(x\right)", "sign(x)"),
    "log1p": (lambda: eqsat.log1p(x), r"\operatorname{log1p}\left(x\right)", "log1p(x)"),
    "expm1": (lambda: eqsat.expm1(x), r"\operatorname{expm1}\left(x\right)", "expm1(x)"),
    "hypot": (lambda: eqsat.hypot(x, y), r"\operatorname{hypot}\left(x, y\right)",
              "hypot(x, y)"),
    "erf": (lambda: eqsat.erf(x), r"\operatorname{erf}\left(x\right)", "erf(x)"),
    "erfc": (lambda: eqsat.erfc(x), r"\operatorname{erfc}\left(x\right)", "erfc(x)"),
    "sigmoid": (lambda: eqsat.sigmoid(x), r"\operatorname{sigmoid}\left(x\right)",
                "sigmoid(x)"),
    "softplus": (lambda: eqsat.softplus(x), r"\operatorname{softplus}\left(x\right)",
                 "softplus(x)"),
    "log1mexp": (lambda: eqsat.log1mexp(x), r"\operatorname{log1mexp}\left(x\right)",
                 "log1mexp(x)"),
    "logaddexp": (lambda: eqsat.logaddexp(x, y), r"\operatorname{logaddexp}\left(x, y\right)",
                  "logaddexp(x, y)"),
    "min": (lambda: eqsat.min(x, 0), r"\min\left(x, 0\right)", "min(x, 0)"),
    "max": (lambda: eqsat.max(x, 0), r"\max\left(x, 0\right)", "max(x, 0)"),
    "where": (lambda: eqsat.where(x > 0, x, -x), r"\operatorname{where}\left(x > 0, x, -x\right)",
              "where(x > 0, x, -x)"),
    "diff": (lambda: make("diff", x**2, x), r"\frac{\partial}{\partial x}\left(x^{2}\right)",
             "∂/∂x (x²)"),
    "solve": (lambda: make("solve", eqsat.parse("x = 1"), x),
              r"\operatorname{solve}\left(x = 1, x\right)", "solve(x = 1, x)"),
    "matmul": (lambda: A @ B, "A B", "A @ B"),
    "transpose": (lambda: (A @ B).T, r"\left(A B\right)^{\mathsf{T}}", "(A @ B)ᵀ"),
    "dot": (lambda: eqsat.dot(v, v), r"v \cdot v", "dot(v, v)"),
    "outer": (lambda: eqsat.outer(v, v), r"v \otimes v", "outer(v, v)"),
    "sum": (lambda: eqsat.sum(A, axis=1), r"\sum_{\mathrm{axis}=1}\left(A\right)",
            "sum(A, axis=1)"),
    "mean": (lambda: eqsat.mean(A), r"\operatorname{mean}\left(A\right)", "mean(A)"),
    "prod": (lambda: eqsat.prod(A), r"\prod\left(A\right)", "prod(A)"),
    "amax": (lambda: eqsat.max(A, axis=0), r"\max_{\mathrm{axis}=0}\left(A\right)",
             "max(A, axis=0)"),
    "amin": (lambda: eqsat.min(A), r"\min\left(A\right)", "min(A)"),
    "logsumexp": (lambda: eqsat.logsumexp(A, axis=1),
                  r"\operatorname{logsumexp}_{\mathrm{axis}=1}\left(A\right)",
                  "logsumexp(A, axis=1)"),
    "softmax": (lambda: eqsat.softmax(v), r"\operatorname{softmax}\left(v\right)",
                "softmax(v)"),
    "log_softmax": (lambda: eqsat.log_softmax(v), r"\operatorname{log\_softmax}\left(v\right)",
                    "log_softmax(v)"),
    "vjp": (lambda: make("vjp", eqsat.sum(A), number(1), A),
            r"\operatorname{vjp}\left(\sum\left(A\right), 1, A\right)", "vjp(sum(A), 1, A)"),
    "expand": (lambda: make("expand", number(1), A, number(-1)),
               r"\operatorname{expand}\left(1, A\right)", "expand(1, A)"),
    "sum_to": (lambda: make("sum_to", A, A), r"\operatorname{sum\_to}\left(A, A\right)",
               "sum_to(A, A)"),
    "pi": (lambda: eqsat.pi * x, r"\pi x", "π·x"),
    "E": (lambda: eqsat.E ** x, "e^{x}", "e^x"),
    "oo": (lambda: -eqsat.oo, r"-\infty", "-∞"),
    "O": (lambda: x + make("O", x**2), r"x + \mathcal{O}\left(x^{2}\right)", "x + O(x²)"),
}
MATHTEXT = MathTextParser("path")


def test_every_op_has_a_display_case() -> None:
    assert sorted(EXAMPLES) == sorted(spec.name for spec in ROWS)


@pytest.mark.parametrize("op", sorted(EXAMPLES))
def test_latex_and_pretty_of_every_op(op: str) -> None:
    build, shown_latex, shown_pretty = EXAMPLES[op]
    expr = build()
    assert any(node.op == op for node in eqsat.term.expr.postorder(expr))
    assert latex(expr) == shown_latex
    assert pretty(expr) == shown_pretty
    assert expr._repr_latex_() == f"${shown_latex}$"
    MATHTEXT.parse(f"${latex(expr)}$")  # valid TeX math (matplotlib's parser raises if not)
    assert eqsat.parse(str(expr), list(expr.free_symbols())) == expr  # repr shows parseable text
    assert repr(expr) == f"Expr({str(expr)!r})"


def test_latex_names_symbols_as_mathematicians_write_them() -> None:
    e = eqsat.parse("alpha*x1 + y_max + rate")
    assert latex(e) == r"\alpha x_{1} + y_{\mathrm{max}} + \mathrm{rate}"


def test_fractions_and_signs() -> None:
    assert latex(eqsat.parse("-3/4*x")) == r"-\frac{3}{4} x"
    assert latex(eqsat.parse("x*2")) == r"x \cdot 2"
    assert latex(eqsat.parse("x^(-2)")) == "x^{-2}"
    assert pretty(eqsat.parse("x^(-2)")) == "x⁻²"
    assert pretty(eqsat.parse("x^(1/2)")) == "x^(1/2)"


def test_solution_repr_latex_and_pretty_carry_the_conditions() -> None:
    s = eqsat.solve("a*x = b", "x")
    assert repr(s).startswith("<Solution unique:\n  x = b/a, if a != 0")
    assert "if a == 0:" in repr(s)
    shown = s._repr_latex_()
    assert r"x = \frac{b}{a} \quad \text{if } a \neq 0" in shown and r"\text{every } x" in shown
    assert s.format(pretty_print=True).splitlines()[0] == "x = b/a, if a ≠ 0"
    assert repr(eqsat.solve("3x + 1 = 2(2x - 6)", "x")) == "<Solution unique: x = 13>"
    several = eqsat.solve("x^2 = 2", "x")
    assert several._repr_latex_() == r"$\begin{aligned}x = \sqrt{2} \ \text{or}\ x = -\sqrt{2}" \
        r"\end{aligned}$"


def test_run_report_is_a_short_table(tmp_path: Path) -> None:
    r = eqsat.simplify_report("log(exp(x))").report
    shown = repr(r)
    assert shown.startswith("<RunReport stopped: optimal after ")
    assert "log-exp" in shown
    html = r._repr_html_()
    assert "<table>" in html and "<td>log-exp</td>" in html


def test_report_plot_draws_each_round(tmp_path: Path) -> None:
    r = eqsat.simplify_report(  # two e-graphs
        "abs(x)/abs(x^2) + exp(log(x))*sin(y) + abs(y)/abs(y^3)").report
    assert r.rounds == 2
    figure = r.plot(tmp_path / "growth.png")
    assert (tmp_path / "growth.png").read_bytes()[:4] == b"\x89PNG"
    lines = figure.axes[0].lines
    assert len(lines) == 2  # one per round
    assert [list(line.get_ydata()) for line in lines] == [
        r.node_history[r.round_starts[0]:r.round_starts[1]], r.node_history[r.round_starts[1]:]]


def test_report_without_iterations_cannot_be_plotted() -> None:
    with pytest.raises(eqsat.EqsatError, match="no iterations"):
        eqsat.RunReport("saturated").plot()


def test_kernel_html_shows_highlighted_source() -> None:
    k = eqsat.compile("exp(x) - 1", name="em1")
    html = k._repr_html_()
    assert "Kernel(em1(x) -&gt; exp(x) - 1" in html
    assert html.count("<span") > 5 and "def</span>" in html  # keywords highlighted
    cuda = eqsat.compile("exp(x) - 1", target="cupy")._repr_html_()
    assert "__global__" in cuda and "<span" in cuda


def test_cli_pretty(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simplify", "sqrt(x^2)*x^3", "--pretty"]) == 0
    assert capsys.readouterr().out == "|x|·x³\n"
    assert main(["solve", "x^2 = 2", "--for", "x", "--pretty"]) == 0
    assert capsys.readouterr().out == "x = √2 or x = -√2\n"


def test_text_inside_latex_is_escaped() -> None:
    assert eqsat.term.display.latex_text(r"a_b {c} \ x^2 & 50% #1 $") == \
        r"a\_b \{c\} \textbackslash{} x\^{}2 \& 50\% \#1 \$"
    discarded = eqsat.solve("sqrt(y_1) = y_1 - 2", "y_1")._repr_latex_()
    assert r"\text{discarded y\_1 = 1: " in discarded


def test_deeply_nested_terms_print_whole() -> None:
    """The text printer joins its pieces once (a Rope): 30,000 levels of nesting print in
    full and in order (the parser reads back 200 levels of parentheses at most)."""
    x = eqsat.symbol("x")
    term = x
    for level in range(30_000):
        term = make("neg", term) if level % 2 else make("sin", term)
    text = str(term)
    assert text == "-sin(" * 15_000 + "x" + ")" * 15_000
    assert str(make("sub", x, make("neg", x))) == "x - (-x)"  # a leading minus, bracketed


def test_a_rope_answers_one_character_prefixes_only() -> None:
    from eqsat.term.printing import Rope

    rope = Rope("", Rope("-", "x"), ")")
    assert rope.startswith("-") and not rope.startswith("x") and str(rope) == "-x)"
    with pytest.raises(ValueError, match="one character"):
        rope.startswith("-x")


def test_a_comment_per_subterm_is_the_start_of_its_text() -> None:
    from eqsat.term.printing import Abbreviations, abbreviated, to_text
    from eqsat.term.walks import postorder

    chain = eqsat.parse("x")
    for i in range(400):  # deep enough that printing each subterm whole would be quadratic
        chain = eqsat.sin(chain) + eqsat.parse(f"y{i % 7}") if i % 2 else chain * 3
    comment = Abbreviations(width=40)
    for node in postorder(chain)[::37]:
        full = to_text(node)
        shown = comment(node)
        assert shown == (full if len(full) <= 40 else full[:37] + "...")
        if len(full) <= 40:
            assert shown == abbreviated(node, width=40)
    assert comment(chain).endswith("...")
    assert len(comment.done) == len(postorder(chain))  # each subterm made once, kept short
    assert max(len(text) for text, _ in comment.done.values()) <= 4 * 40
