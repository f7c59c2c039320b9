"""Printing for people: LaTeX (notebooks, eqsat.latex) and one-line Unicode (eqsat --pretty)."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import TYPE_CHECKING, ClassVar

from .ops import OPS, REDUCING, ROWS
from .printing import ATOM, ELLIPSIS, InfixPrinter, Shown

if TYPE_CHECKING:
    from .expr import Expr

_P_MUL, _P_NEG, _P_POW = (OPS[n].precedence for n in ("mul", "neg", "pow"))
_REDUCING_NAMES = {op: name for name, op in REDUCING.items()}
_GREEK = frozenset((
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
    "lambda", "mu", "nu", "xi", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi",
    "psi", "omega", "Gamma", "Delta", "Theta", "Lambda", "Xi", "Pi", "Sigma", "Upsilon",
    "Phi", "Psi", "Omega"))
_SUBSCRIPTED = re.compile(r"([A-Za-z]+?)_?(\d+)\Z|([A-Za-z]+)_(\w+)\Z")


class LatexPrinter(InfixPrinter):
    """LaTeX math (without the dollars), as SymPy's latex() writes it."""

    infix: ClassVar[dict[str, str]] = {
        "mul": " ", "matmul": " ", "lt": " < ", "le": " \\leq ", "gt": " > ", "ge": " \\geq ",
        "ne": " \\neq ", "equation": " = "}
    functions: ClassVar[dict[str, str]] = {op.name: op.latex for op in ROWS if op.latex}
    constants: ClassVar[dict[str, str]] = functions  # pi and E are in the op table too

    def _symbol(self, name: str) -> str:
        if name == ELLIPSIS:
            return "\\ldots"
        split = _SUBSCRIPTED.match(name)
        if split and name not in _GREEK:
            base, index = (split[1], split[2]) if split[1] else (split[3], split[4])
            index_text = index if index.isdigit() or len(index) == 1 else f"\\mathrm{{{index}}}"
            return f"{self._symbol(base)}_{{{index_text}}}"
        if name in _GREEK:
            return f"\\{name}"
        return name if len(name) == 1 else f"\\mathrm{{{name}}}"

    def _number(self, value: Fraction) -> Shown:
        sign = "-" if value < 0 else ""
        if value.denominator == 1:
            return str(value), _P_NEG if value < 0 else ATOM
        return f"{sign}\\frac{{{abs(value.numerator)}}}{{{value.denominator}}}", \
            _P_NEG if value < 0 else _P_MUL

    def _paren(self, text: str) -> str:
        return f"\\left({text}\\right)"

    def _call(self, name: str, args: list[str]) -> Shown:
        head = name if name.startswith("\\") else _operator_name(name)
        return f"{head}{self._paren(', '.join(args))}", ATOM

    def _reduction(self, node: Expr, args: list[Shown]) -> Shown:
        axis = self._axis(node)
        below = f"_{{\\mathrm{{axis}}={axis}}}" if axis is not None else ""
        name = self.functions.get(node.op) or _operator_name(node.op)
        return f"{name}{below}{self._paren(', '.join(t for t, _ in args[:-1]))}", ATOM

    def _print_eq(self, node: Expr, args: list[Shown]) -> Shown:
        """A comparison's value (1 or 0) in Iverson's brackets: not an equation."""
        text, _ = self._infix(node, args, " = ")
        return f"\\left[{text}\\right]", ATOM

    def _print_mul(self, node: Expr, args: list[Shown]) -> Shown:
        left, right = node.args
        if left.shape and right.shape:
            separator = " \\odot "
        elif args[1][1] > _P_MUL and args[1][0][:1].isdigit():  # 2 \cdot 3, x \cdot 2^{k}
            separator = " \\cdot "
        else:
            separator = " "
        return self._infix(node, args, separator)

    def _print_div(self, node: Expr, args: list[Shown]) -> Shown:
        return f"\\frac{{{args[0][0]}}}{{{args[1][0]}}}", _P_MUL

    def _print_pow(self, node: Expr, args: list[Shown]) -> Shown:
        (base, bp), (exponent, _) = args
        if bp <= _P_POW or base.startswith("-") or "^" in base:
            base = self._paren(base)
        return f"{base}^{{{exponent}}}", _P_POW

    def _print_neg(self, node: Expr, args: list[Shown]) -> Shown:
        return self._prefix(node, args, "-")

    def _print_sqrt(self, node: Expr, args: list[Shown]) -> Shown:
        return f"\\sqrt{{{args[0][0]}}}", ATOM

    def _print_abs(self, node: Expr, args: list[Shown]) -> Shown:
        return f"\\left|{args[0][0]}\\right|", ATOM

    def _print_exp(self, node: Expr, args: list[Shown]) -> Shown:
        return f"e^{{{args[0][0]}}}", _P_POW

    def _print_transpose(self, node: Expr, args: list[Shown]) -> Shown:
        text, prec = args[0]
        base = text if prec == ATOM and not node.args[0].is_number else self._paren(text)
        return f"{base}^{{\\mathsf{{T}}}}", _P_POW

    def _print_dot(self, node: Expr, args: list[Shown]) -> Shown:
        return self._infix(node, args, " \\cdot ")

    def _print_outer(self, node: Expr, args: list[Shown]) -> Shown:
        return self._infix(node, args, " \\otimes ")

    def _print_diff(self, node: Expr, args: list[Shown]) -> Shown:
        (text, _), (variable, _) = args
        return f"\\frac{{\\partial}}{{\\partial {variable}}}{self._paren(text)}", ATOM


def _operator_name(name: str) -> str:
    escaped = name.replace("_", "\\_")
    return f"\\operatorname{{{escaped}}}"


_SUPERSCRIPTS = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


class UnicodePrinter(InfixPrinter):
    """One readable line: x·y, x², √x, π, ≤ (for reading; str() is the text to parse)."""

    infix: ClassVar[dict[str, str]] = {
        "mul": "·", "div": "/", "lt": " < ", "le": " ≤ ", "gt": " > ", "ge": " ≥ ", "eq": " = ",
        "ne": " ≠ ", "equation": " = ", "matmul": " @ "}
    constants: ClassVar[dict[str, str]] = {"pi": "π", "E": "e", "oo": "∞"}

    def _number(self, value: Fraction) -> Shown:
        if value.denominator != 1:
            return str(value), _P_MUL
        return str(value), _P_NEG if value < 0 else ATOM

    def _paren(self, text: str) -> str:
        return f"({text})"

    def _call(self, name: str, args: list[str]) -> Shown:
        return f"{name}({', '.join(args)})", ATOM

    def _reduction(self, node: Expr, args: list[Shown]) -> Shown:
        shown = [text for text, _ in args[:-1]]
        axis = self._axis(node)
        if axis is not None:
            shown.append(f"axis={axis}")
        return self._call(_REDUCING_NAMES.get(node.op, node.op), shown)

    def _print_pow(self, node: Expr, args: list[Shown]) -> Shown:
        exponent = node.args[1]
        if exponent.is_number and exponent.number.denominator == 1:
            (base, bp), _ = args
            if bp <= _P_POW or base.startswith("-"):
                base = self._paren(base)
            return base + str(exponent.number).translate(_SUPERSCRIPTS), _P_POW
        return self._infix(node, args, "^")

    def _print_neg(self, node: Expr, args: list[Shown]) -> Shown:
        return self._prefix(node, args, "-")

    def _print_sqrt(self, node: Expr, args: list[Shown]) -> Shown:
        text, prec = args[0]
        return "√" + (text if prec == ATOM else self._paren(text)), _P_POW

    def _print_abs(self, node: Expr, args: list[Shown]) -> Shown:
        return f"|{args[0][0]}|", ATOM

    def _print_transpose(self, node: Expr, args: list[Shown]) -> Shown:
        text, prec = args[0]
        return (text if prec == ATOM else self._paren(text)) + "ᵀ", _P_POW

    def _print_diff(self, node: Expr, args: list[Shown]) -> Shown:
        (text, _), (variable, _) = args
        return f"∂/∂{variable} {self._paren(text)}", ATOM


_TEXT_ESCAPES = str.maketrans({"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}",
                               "_": r"\_", "^": r"\^{}", "#": r"\#", "%": r"\%",
                               "&": r"\&", "$": r"\$"})


def latex_text(text: str) -> str:
    """Plain text made safe inside LaTeX's \\text{...}."""
    return text.translate(_TEXT_ESCAPES)


def latex(expr: Expr) -> str:
    """The LaTeX of an expression (math mode, without dollars): latex(x/2) is \\frac{x}{2}."""
    return LatexPrinter().doprint(expr)


def pretty(expr: Expr) -> str:
    """A one-line Unicode rendering for people: pretty(x**2*y) is x²·y."""
    return UnicodePrinter().doprint(expr)

