"""Derivatives on the term itself: the [diff] rules applied by a direct rewriter, no e-graph.

The [diff] rules push `diff(e, x)` strictly inward, so on a term (a DAG of shared subterms)
they can be applied once per subterm that mentions x, outermost rule first, each result
reused wherever the subterm is shared. A rule applies where its left side matches and its
guards are decided true here: `free of` and `depends on` by whether the subterm mentions x
(`depends on` only keeps the e-graph's run finite; every diff rule is an identity wherever
both sides are defined), sign guards for numbers and for symbols declared so. Where no rule
is decided (a sign guard on a compound base, an op with no rule), the answer is None and the
caller saturates the rules in an e-graph, whose analyses prove more and whose errors name
what is missing.

A steep op (its row's `steep`: sqrt, asin, a power, ...) of operands whose derivatives are
piecewise (a comparison, sign, where, min or max in them: max(0, x)'s, (y > 1)*x's) may be
flat on a region at a point where its derivative is unbounded (sqrt(max(0, x)) for x < 0): the chain
rule's inf*0 is no value there, where the derivative is 0. Its derivative is 0 where its
operands' are all 0 (lazy where: docs/semantics.md), and the chain rule's elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..term.expr import Expr, make, number, tidy
from ..term.ops import JUMPS, OPS
from ..term.walks import postorder
from .guards import GUARDS
from .matching import Binding, match
from .model import Guard, Rule

Mentioned = Callable[[Expr], bool]
_PIECEWISE = JUMPS | {"min", "max"}  # the ops that can make a term flat on a region


class _Undecided(Exception):
    """No rule could be applied here: the e-graph is asked instead."""


@dataclass(frozen=True)
class DiffRules:
    """[diff] rules by the op of the term they differentiate, each list in the order written
    (a rule for any term, d-const's, in every list), so a step tries only those that can match."""

    by_op: dict[str, tuple[Rule, ...]]
    for_any: tuple[Rule, ...]

    @classmethod
    def of(cls, rules: Sequence[Rule]) -> DiffRules:
        ops = {rule.lhs.args[0].op for rule in rules}
        return cls({op: tuple(r for r in rules if r.lhs.args[0].op in (op, "sym")) for op in ops},
                   tuple(r for r in rules if r.lhs.args[0].op == "sym"))

    def at(self, node: Expr) -> tuple[Rule, ...]:
        return self.by_op.get(node.op, self.for_any)


def derivative(expr: Expr, wrt: Expr, rules: DiffRules | Sequence[Rule],
               ) -> tuple[Expr, dict[str, int]] | None:
    """The complete derivative of expr in the symbol wrt by these [diff] rules, with how often
    each applied; None where a step is not decided on the term (see the module's note)."""
    rules = rules if isinstance(rules, DiffRules) else DiffRules.of(rules)
    mentions = _mentions(expr, wrt)
    done: dict[Expr, Expr] = {}
    applied: dict[str, int] = {}
    try:
        for node in postorder(expr, into=mentions.__getitem__):
            found = _step(node, wrt, rules, mentions, done, applied)
            done[node] = _flat_where_flat(node, found, done, mentions)
    except _Undecided:
        return None
    return done[expr], applied


def _flat_where_flat(node: Expr, found: Expr, done: dict[Expr, Expr],
                     mentions: dict[Expr, bool]) -> Expr:
    """The derivative found of a steep op, 0 where its operands' piecewise derivatives are
    all 0, or for a power of a varying exponent, where its piecewise base is 0 (the chain
    rule takes log(base); 0^b is 0 wherever it is defined): see the module's note."""
    op = OPS.get(node.op)
    if op is None or not op.steep or not found.args:
        return found
    if node.op == "pow" and mentions.get(node.args[1]) and _piecewise(node.args[0]):
        return make("where", make("eq", node.args[0], number(0)), number(0), found)
    inner = [done[a] for a in node.args if mentions.get(a)]
    if not any(map(_piecewise, inner)):
        return found
    flat: Expr = number(0)
    for derivative in reversed(inner):  # (each operand's derivative 0, in turn)
        flat = make("where", make("eq", derivative, number(0)), flat, found)
    return flat


def _piecewise(term: Expr) -> bool:
    """Whether the term has a piecewise op in it (a comparison, sign, where, min or max)."""
    return any(node.op in _PIECEWISE for node in postorder(term))


def _mentions(root: Expr, wrt: Expr) -> dict[Expr, bool]:
    """Whether each subterm has wrt in it."""
    found: dict[Expr, bool] = {}
    for node in postorder(root):
        found[node] = node == wrt or any(found[a] for a in node.args)
    return found


def _step(node: Expr, wrt: Expr, rules: DiffRules, mentions: dict[Expr, bool],
          done: dict[Expr, Expr], applied: dict[str, int]) -> Expr:
    """diff(node, wrt) by the first rule that applies, its inner diffs taken from `done`."""
    def mentioned(term: Expr) -> bool:
        known = mentions.get(term)
        return known if known is not None else wrt in term.free_symbols()

    def inner(term: Expr) -> Expr:
        if term in done:
            return done[term]
        if mentioned(term):  # a term a rule made up, not one of the input's: the e-graph's
            raise _Undecided
        return _step(term, wrt, rules, mentions, done, applied)  # a constant: d-const

    for rule in rules.at(node):
        pattern, variable = rule.lhs.args
        binding = match(pattern, node, {variable: wrt})
        if binding is None or not all(_holds(g, binding, mentioned) for g in rule.guards):
            continue
        applied[rule.name] = applied.get(rule.name, 0) + 1
        return _instantiate(rule.rhs, binding, inner)
    raise _Undecided


def _holds(guard: Guard, binding: Binding, mentioned: Mentioned) -> bool:
    """Whether the guard is true of the bound terms; _Undecided where that is not known."""
    found = GUARDS[guard.kind].on_term(guard.subject.subs(binding), mentioned)
    if found is None:
        raise _Undecided
    return found


def _instantiate(rhs: Expr, binding: Binding, inner: Callable[[Expr], Expr]) -> Expr:
    """The right side with its variables bound; each diff(s, x) in it is s's derivative."""
    if rhs.op == "diff":
        return inner(rhs.args[0].subs(binding))
    if rhs.is_symbol:
        return binding.get(rhs, rhs)
    if not rhs.args:
        return rhs
    return tidy(rhs.op, [_instantiate(a, binding, inner) for a in rhs.args])
