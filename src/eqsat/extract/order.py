"""Display forms of results: 2*x not x*2, x - 2*y not x + -2*y, 1/sqrt(a) not a^(-1/2)."""

from __future__ import annotations

from fractions import Fraction

from ..expr import Expr, make, number, rebuild


def _negated(term: Expr) -> Expr | None:
    """-term when term is a negative number or a product led by one, else None."""
    if term.is_number and term.number < 0:
        return number(-term.number)
    if term.op == "mul" and term.args[0].is_number and term.args[0].number < 0:
        factor = -term.args[0].number
        return term.args[1] if factor == 1 else make("mul", number(factor), term.args[1])
    return None


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
    (2*x, x + 1), a + (-c)*b = a - c*b, a*(c*b) = c*a*b for a number c, and powers by
    _power."""

    def build(node: Expr, args: list[Expr]) -> Expr:
        if not node.args:
            return node
        if node.op == "neg" and args[0].op == "div" and args[0].args[0].is_number:
            return make("div", number(-args[0].args[0].number), args[0].args[1])
        if node.op == "pow" and args[1].is_number:
            shown = _power(args[0], args[1].number)
            if shown is not None:
                return shown
        if node.op == "mul" and args[1].op == "mul" and args[1].args[0].is_number \
                and not args[0].is_number:
            return make("mul", make("mul", args[1].args[0], args[0]), args[1].args[1])
        number_first = node.op == "mul" and args[1].is_number and not args[0].is_number
        number_last = node.op == "add" and args[0].is_number and not args[1].is_number
        if number_first or number_last:
            args = [args[1], args[0]]
        if node.op in ("add", "sub"):
            flipped = _negated(args[1])
            if flipped is not None:
                return make("sub" if node.op == "add" else "add", args[0], flipped)
        return make(node.op, *args)

    return rebuild(expr, build)
