"""Rules on a term, without an e-graph: matching a left side, and whether any rule can fire."""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ..algebra.normal import square_root_of
from ..term.expr import Expr
from ..term.ops import folded
from ..term.reference import reference
from ..term.walks import tree_size
from .direct import ruled_out
from .model import Rule
from .modulo import (
    N_ARY,
    Steps,
    View,
    could_match,
    operand_needs,
    operand_tokens,
    subviews,
    tried_out,
    views,
)

Binding = dict[Expr, Expr]
NODES_PER_CLOCK_READ = 256  # subterms looked at between readings of the clock in untouched
MAX_SETTLED_NODES = 500  # a larger term goes to the e-graph without the check of `blockers`


def _irreducible(node: Expr) -> bool:
    """Whether an op of numbers stays as it is: it is defined (sqrt(-3) is not: an e-graph
    may prove a contradiction from it), no fold gives its value (log(2), 2^(1/2)), and a
    square root is of a number with no square factor (sqrt(5), not sqrt(8))."""
    numbers = [a.number for a in node.args]
    if folded(node.op, numbers) is not None or reference(node, {}, 20) is None:
        return False
    return node.op != "sqrt" or square_root_of(numbers[0]) is None


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


@dataclass(frozen=True)
class Changing:
    """A rule that changes a term's view, as `blockers` asks of it: its left side's view, its
    right side's, the ops (required_ops) and operands (operand_needs) a view must hold for
    the left side to match there."""

    rule: Rule
    pattern: View
    result: View
    needs: frozenset[str]
    operands: frozenset[object]


@dataclass(frozen=True)
class ViewSides:
    """A rule set as `blockers` asks of it: the rules that change a term's view, by the op
    at the root of their left side's view, and the rules whose two sides have one view (the
    canonical forms), by the op at the root of their left side, but for those that only
    reorder a term (associativity, commutativity: the same ops and variables on both sides,
    so the same cost whatever they bind, where costs are by op)."""

    changing: dict[str, list[Changing]] = field(default_factory=dict)
    keeping: dict[str, list[Rule]] = field(default_factory=dict)


def view_sides(rules: Iterable[Rule]) -> ViewSides:
    """The rules split by whether they change a term's view (see modulo.py)."""
    sides = ViewSides()
    for rule in rules:
        left, right = views(rule.lhs)[rule.lhs], views(rule.rhs)[rule.rhs]
        if left == right:
            if not _reorders(rule):
                sides.keeping.setdefault(rule.lhs.op, []).append(rule)
        else:
            sides.changing.setdefault(left.op, []).append(
                Changing(rule, left, right, required_ops(left), operand_needs(left)))
    return sides


def _reorders(rule: Rule) -> bool:
    """Whether a rule only reorders a term: the same ops, numbers and variables as often on
    both sides, and no negation or quotient on its right of variables and numbers alone
    (make folds -a and a/b into a number where they bind numbers), so that it costs the same
    on both sides whatever it binds (costs by op): a*b => b*a, not a*b/c => a*(b/c)."""
    def counts(side: Expr) -> Counter[object]:
        found: Counter[object] = Counter()
        for node in _tree(side):
            found[node.name if node.is_symbol else node.number if node.is_number else
                  node.op] += 1
        return found

    folds = any(node.op in ("neg", "div") and not any(a.args for a in node.args)
                for node in _tree(rule.rhs))
    return not folds and counts(rule.lhs) == counts(rule.rhs)


def _tree(side: Expr) -> list[Expr]:
    """Every node of a side, each occurrence."""
    found, stack = [], [side]
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(node.args)
    return found


def required_ops(pattern: View) -> frozenset[str]:
    """The ops a view must hold for the pattern to match somewhere in it (could_match): each
    op of the pattern but its variables, numbers, sums, products and powers (a product
    pattern matches powers split into factors: those ops need not be there as such)."""
    return frozenset(node.op for node in subviews(pattern)) - _ANY_SHAPE


_ANY_SHAPE = frozenset({"sym", "num", "add", "mul", "pow"})


def blockers(term: Expr, sides: ViewSides, cost: Callable[[Expr], float]) -> list[Rule] | None:
    """The rules that change views and could match some view the term's class holds
    (modulo.py) with guards that might hold (see direct.ruled_out), or the first such rule
    that shrinks terms alone (what follows one is an e-graph's to find); None where
    something else could make it cheaper in an e-graph: a rule that keeps the view makes a
    subterm cheaper where it matches as written, or an op has only numbers for arguments. A
    term of more than MAX_SETTLED_NODES nodes (its views take time quadratic in a sum's
    length), or too large to check within MAX_CHECK_STEPS tries, gives None too."""
    if tree_size(term) > MAX_SETTLED_NODES:
        return None
    found = views(term)
    for node in found:
        if node.args and all(a.is_number for a in node.args) and not _irreducible(node):
            return None
        for rule in sides.keeping.get(node.op, ()):
            binding = match(rule.lhs, node, {})
            if binding is not None and cost(rule.rhs.subs(binding)) < cost(node):
                return None
    anywhere = sides.changing.get("sym", [])  # a left side that is a bare variable
    budget = Steps()
    symbols = {s.name: s for s in term.free_symbols()}
    held = {view.op for view in subviews(found[term])}
    blocking: list[Rule] = []
    for view in subviews(found[term]):
        tokens = operand_tokens(view) if view.op in N_ARY else frozenset()
        for changing in [*sides.changing.get(view.op, ()), *anywhere]:
            rule, pattern = changing.rule, changing.pattern
            if not changing.needs <= held:  # an op it names is nowhere in the term
                continue
            if not changing.operands <= tokens and pattern.op == view.op:
                continue  # an operand it names is not among the view's
            if tried_out(budget):
                return None
            if rule not in blocking and could_match(pattern, view, budget, changing.result) \
                    and not ruled_out(rule, pattern, view, symbols):
                if rule.shrinks:
                    return [rule]
                blocking.append(rule)
    return blocking


def untouched(term: Expr, sides: Mapping[str, Sequence[Expr]],
              deadline: float = math.inf) -> bool:
    """Whether no rule can fire anywhere in the term, so that saturating an e-graph of it
    gives it back unchanged: no left side matches a subterm (whatever the rule's guards)
    and no op has only numbers for arguments (constant folding would act there). Top down,
    so that a sum or a product (which the commutativity rules match) ends it at once.
    False once time.perf_counter() passes the deadline (not known to be untouched)."""
    stack, seen, looked_at = [term], {term}, 0
    while stack:
        looked_at += 1
        if looked_at % NODES_PER_CLOCK_READ == 0 and time.perf_counter() > deadline:
            return False
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
