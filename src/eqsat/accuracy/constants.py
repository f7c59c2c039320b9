"""Constant subterms as their correctly rounded values where the floats lose more than
LOST_BITS of them: 20 - (exp(pi) - pi) is 0.0009000208105242328 (computed in floats, 12 bits
off), as Herbie folds constants to their exact values; sqrt(exp(1)), rounded correctly as
written, and E + 2, an ulp off, stay as they are (a number is within half an ulp of the
constant, not equal to it: it is offered only where the floats do worse)."""

from __future__ import annotations

from fractions import Fraction

from ..term.expr import Expr, make, number
from ..term.walks import rebuild
from .measure import bits_at, sample_at

LOST_BITS = 1.0  # an ulp (ulp_bits: log2(1 + ulps))


def rounded_constants(term: Expr, dtype: str) -> Expr:
    """The term with each compound subterm free of variables whose float value is more than
    LOST_BITS off its correctly rounded true value as that value (the shortest decimal that
    rounds to it), the largest such where they nest; the others as they are."""

    def build(node: Expr, args: list[Expr]) -> Expr:
        if node.args and not node.free_symbols():
            return _rounded(node, dtype) or node
        return node if args == list(node.args) else make(node.op, *args)

    return rebuild(term, build)


def _rounded(constant: Expr, dtype: str) -> Expr | None:
    """The constant's correctly rounded value as a number, where its float value is more
    than LOST_BITS off it (None otherwise, and where it has no finite true value)."""
    found = sample_at(constant, [{}], dtype)  # (one point, no variables)
    if found is None or bits_at(constant, found)[0] <= LOST_BITS:
        return None
    return number(Fraction(str(found.truth[0])))
