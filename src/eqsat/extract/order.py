"""Display forms of results: 2*x not x*2, x - 2*y not x + -2*y, 1/sqrt(a) not a^(-1/2)."""

from __future__ import annotations

from fractions import Fraction

from ..algebra.normal import square_root_of
from ..term.expr import Expr, make, number
from ..term.ops import OPS
from ..term.shape import is_tensor
from ..term.walks import rebuild

FOLDED = ("add", "sub", "mul")  # exactly, by their folds in the op table


def _negated(term: Expr) -> Expr | None:
    """-term when term is a negation, a negative number, a product whose leftmost factor is
    one (as (-6*sin(x))*x) or a quotient whose numerator is one of these, else None."""
    if term.op == "neg":
        return term.args[0]
    if term.is_number and term.number < 0:
        return number(-term.number)
    if term.op == "div":
        top = _negated(term.args[0])
        return None if top is None else make("div", top, term.args[1])
    if term.op == "mul":
        left = _negated(term.args[0])
        if left is not None:
            return term.args[1] if left == number(1) else make("mul", left, term.args[1])
    return None


MAX_SHOWN_ROOT_POWER = 64  # b^(k/2) of a number b shown as a multiple of sqrt(b) up to this


def _power(base: Expr, exponent: Fraction) -> Expr | None:
    """a^(1/2) as sqrt(a), a^(-1/2) as 1/sqrt(a), a^(-k) as 1/a^k; None for other powers."""
    if exponent == Fraction(1, 2):
        return make("sqrt", base)
    if exponent == Fraction(-1, 2):
        return make("div", number(1), make("sqrt", base))
    if exponent < 0 and exponent.denominator == 1:
        shown = base if exponent == -1 else make("pow", base, number(-exponent))
        return make("div", number(1), shown)
    return None


def display_order(expr: Expr) -> Expr:
    """Rewrite into the forms people write, by rules the library proves sound: commutativity
    (2*x, x + 1), associativity of scalar sums and products (4*a*b, not 4*(a*b)), a + (-c)*b
    = a - c*b, a/(1/2) = 2*a, powers by _power, sums and products of two numbers folded, and
    square roots of numbers with their square factors outside (2*sqrt(2), not sqrt(8))."""
    scalar = not is_tensor(expr)  # a tensor product's order is its cost: kept

    def form(op: str, args: list[Expr]) -> Expr:
        if op in FOLDED and all(a.is_number for a in args):  # else 2*(3*x) would cycle
            return number(OPS[op].fold.exact(args[0].number, args[1].number))  # type: ignore[union-attr]
        if op in ("mul", "add") and scalar and args[1].op == op:
            inner, last = args[1].args
            return form(op, [form(op, [args[0], inner]), last])
        if op == "sqrt" and args[0].is_number and \
                (split := square_root_of(args[0].number)) is not None:
            return split  # 2*sqrt(2), not sqrt(8)
        if op == "pow" and args[0].is_number and args[1].is_number and \
                args[1].number.denominator == 2 and 0 < args[1].number < MAX_SHOWN_ROOT_POWER \
                and (split := square_root_of(args[0].number ** args[1].number.numerator)):
            return split  # 2^(3/2) as 2*sqrt(2)
        if op == "neg" and args[0].op == "div" and args[0].args[0].is_number:
            return make("div", number(-args[0].args[0].number), args[0].args[1])
        if op == "pow" and args[1].is_number:
            shown = _power(args[0], args[1].number)
            if shown is not None:
                return shown
        if op == "div" and args[0].is_number and args[0].number.denominator != 1 and scalar:
            top = args[0].number  # -1/2/x as -1/(2*x)
            return make("div", number(top.numerator),
                        form("mul", [number(top.denominator), args[1]]))
        if op == "div" and args[1].is_number and args[1].number.denominator != 1:
            return form("mul", [number(1 / args[1].number), args[0]])
        number_first = op == "mul" and args[1].is_number and not args[0].is_number
        number_last = op == "add" and args[0].is_number and not args[1].is_number
        if number_first or number_last:
            return form(op, [args[1], args[0]])
        if op in ("add", "sub"):
            flipped = _negated(args[1])
            if flipped is not None:
                return make("sub" if op == "add" else "add", args[0], flipped)
        return make(op, *args)

    return rebuild(expr, lambda node, args: form(node.op, args) if node.args else node)
