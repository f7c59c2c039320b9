"""Differences of square roots as one quotient by their sum, the radicands' difference in
rational normal form: sqrt((a + d)^2 + (b - c)^2) - sqrt((a - d)^2 + (b + c)^2) is 4*(a*d -
b*c) over the sum of the roots, which rules reach only by expanding both radicands."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ..term.expr import Expr, make, number
from ..term.walks import postorder, tree_size


def conjugates(term: Expr, reduced: Callable[[Expr], Expr]) -> Iterator[tuple[Expr, Expr]]:
    """(difference, quotient) for each difference of two square roots (sqrt, or hypot: the
    root of a sum of squares) in the term whose radicands' difference `reduced` makes smaller
    than it is written. The quotient divides by 1 where both roots are 0: there the
    difference is 0, and so is the radicands'."""
    for node in postorder(term):
        if node.op != "sub":
            continue
        first, second = (_radicand(arg) for arg in node.args)
        if first is None or second is None:
            continue
        written = make("sub", first, second)
        difference = reduced(written)
        if tree_size(difference) >= tree_size(written):
            continue
        total = make("add", *node.args)
        yield node, make("div", difference,
                         make("where", make("gt", total, number(0)), total, number(1)))


def _radicand(root: Expr) -> Expr | None:
    """p of sqrt(p), a^2 + b^2 of hypot(a, b); None for other nodes."""
    if root.op == "sqrt":
        return root.args[0]
    if root.op == "hypot":
        return make("add", *(make("mul", arg, arg) for arg in root.args))
    return None
