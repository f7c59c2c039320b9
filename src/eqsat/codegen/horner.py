"""Polynomial parts by Horner's scheme: a sum of terms c*v^k (c free of v) written
c0 + v*(c1 + v*(c2 + ...)), with a power of v for each gap between exponents, and the
coefficients, sums in the other variables, in turn; kept where it costs less."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from ..term.expr import Expr, make, number
from ..term.walks import multiplicands, postorder, summands

Cost = Callable[[Expr], float]
MAX_TERMS = 64  # a longer sum is left as written (each variable's scheme is measured whole)
_SUMS = frozenset({"add", "sub", "neg"})
Term = tuple[Fraction, list[Expr]]  # a number times a product of factors


def horner(expr: Expr, cost: Cost) -> Expr:
    """expr with each sum written by Horner's scheme in the variable that costs least, where
    that costs less than the sum as it is (x^3 + 2*x^2 + x as x*(x*(x + 2) + 1)). A sum of
    more than MAX_TERMS terms is left as it is."""
    nodes = postorder(expr)
    inner = {a for n in nodes if n.op in _SUMS for a in n.args if a.op in _SUMS}
    outer = {a for n in nodes if n.op not in _SUMS for a in n.args} | {expr}
    done: dict[Expr, Expr] = {}
    for node in nodes:  # arguments first
        as_written = make(node.op, *(done[a] for a in node.args)) if node.args else node
        done[node] = as_written
        if node.op in ("add", "sub") and (node in outer or node not in inner):
            terms = _terms(node)
            if len(terms) <= MAX_TERMS and _bases_raised(terms):  # (else nothing to factor out:
                # its costs measured at each sum of a chain 2,500 deep took 14 s)
                found = _scheme([(c, [done[f] for f in factors]) for c, factors in terms],
                                cost)
                done[node] = found if cost(found) < cost(as_written) else as_written
    return done[expr]


def _terms(node: Expr) -> list[Term]:
    """The sum's terms, each a signed number times the factors of a product."""
    found: list[Term] = []
    for part, sign in summands(node):
        coefficient, factors = Fraction(sign), []
        for factor in multiplicands(part):
            if factor.is_number:
                coefficient *= factor.number
            else:
                factors.append(factor)
        found.append((coefficient, factors))
    return found


def _power(factor: Expr) -> tuple[Expr, int]:
    """A factor as a base and a positive integer exponent (x^3: x, 3; sin(x): sin(x), 1)."""
    if factor.op == "pow" and factor.args[1].is_number:
        exponent = factor.args[1].number
        if exponent.denominator == 1 and exponent > 0:
            return factor.args[0], int(exponent)
    return factor, 1


def _bases_raised(terms: list[Term]) -> set[Expr]:
    """The bases raised to a power of 2 or more in some term: the variables of a scheme."""
    return {base for _, factors in terms for base, k in map(_power, factors) if k >= 2}


def _scheme(terms: list[Term], cost: Cost) -> Expr:
    """The sum by Horner's scheme in the variable, among those raised to a power of 2 or
    more in some term, that costs least; the terms added up where there is none."""
    found = [_in(variable, terms, cost) for variable in sorted(_bases_raised(terms), key=str)]
    return min(found, key=cost, default=_sum(terms))


def _in(variable: Expr, terms: list[Term], cost: Cost) -> Expr:
    """The sum by Horner's scheme in one variable (each coefficient in its own cheapest)."""
    by_exponent: dict[int, list[Term]] = {}
    for coefficient, factors in terms:
        exponent, rest = 0, []
        for factor in factors:
            base, k = _power(factor)
            if base == variable:
                exponent += k
            else:
                rest.append(factor)
        by_exponent.setdefault(exponent, []).append((coefficient, rest))
    exponents = sorted(by_exponent, reverse=True)
    found: Expr | None = None
    for higher, exponent in zip([None, *exponents], exponents, strict=False):
        group = by_exponent[exponent]
        part = min(_scheme(group, cost), _sum(group), key=cost)
        if found is None:
            found = part
        else:
            assert higher is not None
            found = _plus(_times(found, _raised(variable, higher - exponent)), part)
    assert found is not None
    return found if exponents[-1] == 0 else _times(found, _raised(variable, exponents[-1]))


def _times(left: Expr, right: Expr) -> Expr:
    return right if left.is_number and left.number == 1 else make("mul", left, right)


def _raised(variable: Expr, exponent: int) -> Expr:
    return variable if exponent == 1 else make("pow", variable, number(exponent))


def _plus(left: Expr, right: Expr) -> Expr:
    """left + right, as a difference where right has a negative number in front: x*(...) - 2
    and x*(...) - 3*y, not + -2 and + -3*y."""
    lead = right.args[0] if right.op == "mul" else right
    if lead.is_number and lead.number < 0:
        flipped = number(-lead.number)
        return make("sub", left, flipped if right is lead else
                    _times(flipped, right.args[1]))
    return make("add", left, right)


def _sum(terms: list[Term]) -> Expr:
    """The terms added up, in their order."""
    found: Expr | None = None
    for coefficient, factors in terms:
        found = _product(coefficient, factors) if found is None else \
            _plus(found, _product(coefficient, factors))
    return found if found is not None else number(0)


def _product(coefficient: Fraction, factors: list[Expr]) -> Expr:
    if not factors:
        return number(coefficient)
    found = factors[0]
    for factor in factors[1:]:
        found = make("mul", found, factor)
    return found if coefficient == 1 else make("mul", number(coefficient), found)
