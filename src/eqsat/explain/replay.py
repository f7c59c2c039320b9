"""A derivation's raw rewrites replayed on the whole term, detours cut out."""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import EqsatError
from ..term.expr import Expr, make
from .derivation import RawStep, Step


def replay(start: Expr, raw: Sequence[RawStep]) -> list[Step]:
    """The steps with the whole term after each (checking that each rewrites what is
    there), less any detour that comes back to a term already passed."""
    steps: list[Step] = []
    term = start
    passed = {start: 0}  # term -> the number of steps that reach it
    for path, before, after, rule, reverse in raw:
        if subterm(term, path) != before:
            raise EqsatError(f"internal: a derivation step expected {before} at {path} of "
                             f"{term}")
        term = replace_at(term, path, after)
        if term in passed:  # a loop: cut it out
            del steps[passed[term]:]
            passed = {t: n for t, n in passed.items() if n <= len(steps)}
            continue
        steps.append(Step(rule, path, before, after, term, reverse))
        passed[term] = len(steps)
    return steps


def subterm(term: Expr, path: Sequence[int]) -> Expr:
    for index in path:
        term = term.args[index]
    return term


def replace_at(term: Expr, path: Sequence[int], new: Expr) -> Expr:
    """term with the subterm at path replaced by new."""
    if not path:
        return new
    args = list(term.args)
    args[path[0]] = replace_at(args[path[0]], path[1:], new)
    return make(term.op, *args)
