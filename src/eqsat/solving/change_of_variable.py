"""An equation in one function of the unknown: exp(2*x) - 5*exp(x) + 6 as u^2 - 5*u + 6 with
u = exp(x), solved for u and then exp(x) = u solved for x (as SymPy's solve does)."""

from __future__ import annotations

from ..algebra.exponentials import as_powers
from ..algebra.normal import is_rational_node
from ..term.expr import Expr, make, number


def in_one_function(residual: Expr, unknown: Expr, fresh: Expr
                    ) -> tuple[Expr, Expr, bool] | None:
    """(g, r, squared) where the residual is r with the fresh symbol for g, the one function
    of the unknown in it that is not a rational one (exponentials of multiples of one term
    as powers of one: exp(2*x) is exp(x)^2), or g = sqrt(x) where the unknown x also stands
    outside it, x written as the fresh symbol squared (squared: True; x + 3 - (3 -
    sqrt(x))^2 is 6*u - 6); None where the unknown stands outside any other function, or
    where there are several."""
    written = as_powers(residual)
    found: list[Expr] = []
    bare = not _functions(written, unknown, found)
    if len(set(found)) != 1 or (bare and found[0] != make("sqrt", unknown)):
        return None
    changed = written.subs({found[0]: fresh})
    if bare:
        changed = changed.subs({unknown: make("pow", fresh, number(2))})
    return (found[0], changed, bare) if unknown not in changed.free_symbols() else None


def _functions(node: Expr, unknown: Expr, found: list[Expr]) -> bool:
    """Collect the largest subterms with the unknown in them that are not rational ops;
    False where the unknown itself is an operand of a rational op (still collecting)."""
    if unknown not in node.free_symbols():
        return True
    if node == unknown:
        return False
    if node.args and is_rational_node(node):
        return all([_functions(arg, unknown, found) for arg in node.args])
    found.append(node)
    return True
