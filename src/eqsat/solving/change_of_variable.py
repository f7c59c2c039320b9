"""An equation in one function of the unknown: exp(2*x) - 5*exp(x) + 6 as u^2 - 5*u + 6 with
u = exp(x), solved for u and then exp(x) = u solved for x (as SymPy's solve does)."""

from __future__ import annotations

from ..algebra.exponentials import as_powers
from ..algebra.normal import is_rational_node
from ..term.expr import Expr


def in_one_function(residual: Expr, unknown: Expr, fresh: Expr) -> tuple[Expr, Expr] | None:
    """(g, r) where the residual is r with the fresh symbol for g, the one function of the
    unknown in it that is not a rational one (exponentials of multiples of one term as
    powers of one: exp(2*x) is exp(x)^2); None where the unknown also stands outside it,
    or where there are several."""
    written = as_powers(residual)
    found: list[Expr] = []
    if not _functions(written, unknown, found) or len(set(found)) != 1:
        return None
    changed = written.subs({found[0]: fresh})
    return (found[0], changed) if unknown not in changed.free_symbols() else None


def _functions(node: Expr, unknown: Expr, found: list[Expr]) -> bool:
    """Collect the largest subterms with the unknown in them that are not rational ops;
    False where the unknown itself is an operand of a rational op."""
    if unknown not in node.free_symbols():
        return True
    if node == unknown:
        return False
    if node.args and is_rational_node(node):
        return all(_functions(arg, unknown, found) for arg in node.args)
    found.append(node)
    return True
