"""An equation in one function of the unknown: exp(2*x) - 5*exp(x) + 6 as u^2 - 5*u + 6 with
u = exp(x), solved for u and then exp(x) = u solved for x (as SymPy's solve does)."""

from __future__ import annotations

from fractions import Fraction

from ..algebra.normal import is_rational_node, normalise
from ..extract import CostModel
from ..term.expr import Expr, make, number

TREE_COST = CostModel().tree_cost


def in_one_function(residual: Expr, unknown: Expr, fresh: Expr) -> tuple[Expr, Expr] | None:
    """(g, r) where the residual is r with the fresh symbol for g, a function of the unknown
    that is not a rational one: the one such function in it, or exp(a) where each is
    exp(k*a) for a whole k > 0 (exp(2*x) is u^2); None where the unknown also stands
    outside such functions, or where they are not one."""
    found: list[Expr] = []
    if not _functions(residual, unknown, found):
        return None
    functions = list(dict.fromkeys(found))
    if len(functions) == 1:
        mapping = {functions[0]: fresh}
        generator = functions[0]
    elif all(f.op == "exp" for f in functions):
        for generator in sorted(functions, key=TREE_COST):
            powers = [_multiple(f.args[0], generator.args[0]) for f in functions]
            if all(powers):
                break
        else:
            return None
        mapping = {f: make("pow", fresh, number(k)) if k > 1 else fresh
                   for f, k in zip(functions, powers, strict=True) if k is not None}
    else:
        return None
    changed = residual.subs(mapping)
    return (generator, changed) if unknown not in changed.free_symbols() else None


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


def _multiple(argument: Expr, base: Expr) -> int | None:
    """k where the argument is k times the base, k a whole number of 1 or more."""
    ratio = normalise(make("div", argument, base), TREE_COST).forms[0]
    if ratio.is_number and isinstance(ratio.number, Fraction) and \
            ratio.number.denominator == 1 and ratio.number >= 1:
        return int(ratio.number)
    return None
