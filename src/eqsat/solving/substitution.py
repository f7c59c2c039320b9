"""Checks by substitution: a candidate solves every equation at 60 digits, at random
parameter values where it is defined; and where a symbolic answer is defined."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import mpmath

from ..term.expr import Expr, make, number
from ..term.ops import OPS
from ..term.reference import reference
from ..term.sampling import special_then_uniform
from ..term.walks import postorder
from .solution import Discarded

CHECK_DIGITS = 60
CHECK_POINTS = 8  # random parameter values a symbolic candidate is checked at
TOLERANCE = mpmath.mpf(10) ** -30


def check_candidates(equations: Sequence[tuple[Expr, Expr]], unknowns: Sequence[Expr],
                     candidates: Sequence[Mapping[str, Expr]]
                     ) -> tuple[list[Mapping[str, Expr]], list[Discarded]]:
    """The candidates that solve every equation, and the others with the reason."""
    kept, discarded = [], []
    for candidate in candidates:
        reason = _failure(equations, unknowns, candidate)
        if reason is None:
            if candidate not in kept:
                kept.append(candidate)
        else:
            discarded.append(Discarded(candidate, reason))
    return kept, discarded


def _failure(equations: Sequence[tuple[Expr, Expr]], unknowns: Sequence[Expr],
             candidate: Mapping[str, Expr]) -> str | None:
    """Why the candidate does not solve every equation, or None if it does: checked at 60
    digits, at random parameter values where the candidate is defined."""
    mapping = {u: candidate[u.name] for u in unknowns}
    sides = [(lhs.subs(mapping), rhs.subs(mapping)) for lhs, rhs in equations]
    parameters = sorted({s.name for e in [*candidate.values(), *(x for p in sides for x in p)]
                         for s in e.free_symbols()})
    rng = random.Random(0)
    checked = 0
    for _attempt in range(CHECK_POINTS * 4 if parameters else 1):
        point = {p: mpmath.mpf(rng.uniform(-5, 5)) for p in parameters}
        if not all(reference(v, point, CHECK_DIGITS) is not None for v in candidate.values()):
            continue
        for number_, (lhs, rhs) in enumerate(sides, 1):
            left, right = (reference(side, point, CHECK_DIGITS) for side in (lhs, rhs))
            where = f" at {', '.join(f'{k} = {float(v):.6g}' for k, v in point.items())}" \
                if point else ""
            if left is None or right is None:
                return f"equation {number_} is undefined there{where}"
            if abs(left - right) > TOLERANCE * max(1, abs(left), abs(right)):
                return (f"equation {number_} does not hold: its sides are "
                        f"{float(left):.6g} and {float(right):.6g}{where}")
        checked += 1
        if checked >= CHECK_POINTS:
            break
    if checked == 0:
        return "the candidate is undefined at every point tried"
    return None


def holds_somewhere(equations: Sequence[tuple[Expr, Expr]], unknowns: Sequence[Expr],
                    candidate: Mapping[str, Expr]) -> bool:
    """Whether the candidate solves every equation at one of the random parameter values
    at least (sqrt(x) = a: x = a^2 where a >= 0)."""
    mapping = {u: candidate[u.name] for u in unknowns}
    sides = [(lhs.subs(mapping), rhs.subs(mapping)) for lhs, rhs in equations]
    parameters = sorted({s.name for pair in sides for side in pair for s in side.free_symbols()})
    rng = random.Random(0)
    for _attempt in range(CHECK_POINTS * 4):
        point = {p: mpmath.mpf(rng.uniform(-5, 5)) for p in parameters}
        if holds_at(sides, point):
            return True
    return False


def definedness(value: Expr) -> tuple[Expr, ...]:
    """Where a symbolic value is defined (for the subterms that involve a symbol):
    denominators nonzero, logarithms of positives, square roots of non-negatives, inverse
    functions within their ranges, powers with a fractional exponent of non-negatives."""
    conditions = []
    for node in postorder(value):
        if not node.free_symbols():
            continue
        if node.op in ("div", "fmod") and node.args[1].free_symbols():
            conditions.append(make("ne", node.args[1], number(0)))
        elif node.op == "tan":
            conditions.append(make("ne", make("cos", node.args[0]), number(0)))
        elif (spec := OPS.get(node.op)) is not None and spec.defined:  # the op row's domain
            conditions += [make(op, node.args[0], number(bound)) for op, bound in spec.defined]
        elif node.op == "pow" and node.args[0].free_symbols():
            conditions += _power_domain(*node.args)
    return tuple(dict.fromkeys(conditions))


def _power_domain(base: Expr, exponent: Expr) -> list[Expr]:
    if not exponent.is_number:
        return [make("gt", base, number(0))]
    if exponent.number.denominator == 1:
        return [make("ne", base, number(0))] if exponent.number < 0 else []
    return [make("gt" if exponent.number < 0 else "ge", base, number(0))]


# --- families: candidates that leave an unknown free ----------------------------------------

FAMILY_POINTS = 64


@dataclass(frozen=True)
class Family:
    """Where a candidate with free unknowns solves the equations: `conditions` (the
    equations' domain, and a sign condition on a free unknown where it holds on one side of
    0 only); None with a reason where it holds at no point, or on a set eqsat cannot state."""

    conditions: tuple[Expr, ...] | None
    reason: str = ""
    somewhere: bool = False  # it holds at some sampled points (the set is not empty)


def check_family(equations: Sequence[tuple[Expr, Expr]], unknowns: Sequence[Expr],
                 candidate: Mapping[str, Expr]) -> Family:
    """Sample the candidate's points (at 60 digits) and describe where it holds."""
    mapping = {u: candidate[u.name] for u in unknowns}
    sides = [(lhs.subs(mapping), rhs.subs(mapping)) for lhs, rhs in equations]
    domain = tuple(dict.fromkeys(c for pair in sides for side in pair
                                 for c in definedness(side)))
    names = sorted({s.name for pair in sides for side in pair for s in side.free_symbols()})
    holds: list[dict[str, mpmath.mpf]] = []
    fails: list[dict[str, mpmath.mpf]] = []
    for point in special_then_uniform(names, FAMILY_POINTS):
        if not all(_true(c, point) for c in domain):
            continue  # outside the equations' domain: no solution there, nothing to check
        verdict = holds_at(sides, point)
        if verdict is None:
            return Family(None, "the equations are undefined at points eqsat cannot describe "
                          f"({_where(point)})", somewhere=bool(holds))
        (holds if verdict else fails).append(point)
    if not holds:
        return Family(None, "it holds at no sampled point" + (
            f" (it fails at {_where(fails[0])})" if fails else " of the equations' domain"))
    if not fails:
        return Family(domain)
    free = [u for u in unknowns if candidate[u.name] == u]
    for unknown in free if len(names) == 1 else ():
        for op in ("ge", "gt", "le", "lt"):
            condition = make(op, unknown, number(0))
            if all(_true(condition, p) for p in holds) and \
                    not any(_true(condition, p) for p in fails):
                return Family((*domain, condition))
    return Family(None, f"it holds at some points and not at others ({_where(fails[0])} is "
                  "one where it fails), on a set eqsat cannot describe", somewhere=True)




def _true(condition: Expr, point: Mapping[str, mpmath.mpf]) -> bool:
    value = reference(condition, point, CHECK_DIGITS)
    return value is not None and value != 0


def holds_at(sides: Sequence[tuple[Expr, Expr]], point: Mapping[str, mpmath.mpf]
             ) -> bool | None:
    """Whether every equation holds at the point; None where one is undefined."""
    for lhs, rhs in sides:
        left, right = (reference(side, point, CHECK_DIGITS) for side in (lhs, rhs))
        if left is None or right is None:
            return None
        if abs(left - right) > TOLERANCE * max(1, abs(left), abs(right)):
            return False
    return True


def _where(point: Mapping[str, mpmath.mpf]) -> str:
    return ", ".join(f"{k} = {float(v):.6g}" for k, v in point.items())
