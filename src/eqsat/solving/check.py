"""Checks by substitution: a candidate solves every equation at 60 digits, at random
parameter values where it is defined; and where a symbolic answer is defined."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

import mpmath

from ..expr import Expr, make, number, postorder
from ..numeric import reference
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


_DOMAIN = {"log": "gt", "sqrt": "ge", "log1p": "gt"}


def definedness(value: Expr) -> tuple[Expr, ...]:
    """Where a symbolic value is defined: denominators nonzero, logarithms of positives,
    square roots of non-negatives (for the subterms that involve a parameter)."""
    conditions = []
    for node in postorder(value):
        if not node.free_symbols():
            continue
        if node.op == "div" and node.args[1].free_symbols():
            conditions.append(make("ne", node.args[1], number(0)))
        elif node.op in _DOMAIN:
            bound = number(-1) if node.op == "log1p" else number(0)
            conditions.append(make(_DOMAIN[node.op], node.args[0], bound))
    return tuple(dict.fromkeys(conditions))
