"""Rules on a term, without an e-graph: matching a left side, and whether any rule can fire."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ..expr import Expr
from .model import Rule

Binding = dict[Expr, Expr]


def match(pattern: Expr, term: Expr, binding: Binding) -> Binding | None:
    """The binding of the pattern's variables that makes it the term, extending `binding`."""
    if pattern.is_symbol:
        bound = binding.get(pattern)
        if bound is None:
            return {**binding, pattern: term}
        return binding if bound == term else None
    if pattern.op != term.op or len(pattern.args) != len(term.args) or \
            (pattern.is_number and pattern.number != term.number):
        return None
    for sub, arg in zip(pattern.args, term.args, strict=True):
        found = match(sub, arg, binding)
        if found is None:
            return None
        binding = found
    return binding


def left_sides(rules: Iterable[Rule]) -> dict[str, list[Expr]]:
    """The rules' left sides by the op at their root."""
    found: dict[str, list[Expr]] = {}
    for rule in rules:
        found.setdefault(rule.lhs.op, []).append(rule.lhs)
    return found


def untouched(term: Expr, sides: Mapping[str, Sequence[Expr]]) -> bool:
    """Whether no rule can fire anywhere in the term, so that saturating an e-graph of it
    gives it back unchanged: no left side matches a subterm (whatever the rule's guards)
    and no op has only numbers for arguments (constant folding would act there). Top down,
    so that a sum or a product (which the commutativity rules match) ends it at once."""
    stack, seen = [term], {term}
    while stack:
        node = stack.pop()
        if node.args and all(a.is_number for a in node.args):
            return False
        if any(match(side, node, {}) is not None for side in sides.get(node.op, ())):
            return False
        for arg in node.args:
            if arg not in seen:
                seen.add(arg)
                stack.append(arg)
    return True
