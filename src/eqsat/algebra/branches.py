"""A where's branches know its test: a where on the same test nested in one takes that branch."""

from __future__ import annotations

from ..term.expr import Expr, make
from ..term.walks import postorder, rebuild

MAX_WHERES = 64  # a term with more where(...) nodes than this is left as it is


def same_test_branches(root: Expr) -> Expr:
    """root with each where(c, p, q) that stands inside a branch of a where(c, a, b) on the
    same test c replaced by the branch it takes there: p inside a (where c is nonzero), q
    inside b (where c is 0). Equal to root wherever root is defined: where(x < 0, 0,
    where(x < 0, 0, 1)/sqrt(x)) is where(x < 0, 0, 1/sqrt(x))."""
    wheres = [node for node in postorder(root) if node.op == "where"]
    if not wheres or len(wheres) > MAX_WHERES:
        return root

    def build(node: Expr, args: list[Expr]) -> Expr:
        if node.op != "where":
            return make(node.op, *args) if node.args else node
        test, taken, other = args
        return make("where", test, _decided(taken, test, True), _decided(other, test, False))

    return rebuild(root, build)


def _decided(term: Expr, test: Expr, holds: bool) -> Expr:
    """term with each where on `test` replaced by the branch it takes where test is nonzero
    (holds) or 0."""
    if not any(node.op == "where" and node.args[0] == test for node in postorder(term)):
        return term

    def build(node: Expr, args: list[Expr]) -> Expr:
        if node.op == "where" and node.args[0] == test:
            return args[1] if holds else args[2]
        return make(node.op, *args) if node.args else node

    return rebuild(term, build)
