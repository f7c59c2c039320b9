"""Display order of extracted terms: 2*x not x*2, x + 1 not 1 + x, x - 2*y not x + -2*y."""

from __future__ import annotations

from ..expr import Expr, make, number, rebuild


def _negated(term: Expr) -> Expr | None:
    """-term when term is a negative number or a product led by one, else None."""
    if term.is_number and term.number < 0:
        return number(-term.number)
    if term.op == "mul" and term.args[0].is_number and term.args[0].number < 0:
        factor = -term.args[0].number
        return term.args[1] if factor == 1 else make("mul", number(factor), term.args[1])
    return None


def display_order(expr: Expr) -> Expr:
    """Rewrite by commutativity and a + (-c)*b = a - c*b into the forms people write."""

    def build(node: Expr, args: list[Expr]) -> Expr:
        if not node.args:
            return node
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
