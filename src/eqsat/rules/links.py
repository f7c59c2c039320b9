"""Which operands of a sum or product a rule could combine though they share no symbol
(log(a) + log(b), exp(a)*exp(b), 2^a*2^b): the keys that keep them in one independent part."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from dataclasses import dataclass

from ..algebra.normal import is_rational_node
from ..term.expr import Expr, make
from ..term.walks import multiplicands, postorder
from .matching import match
from .model import Rule

# the sums' rules (a + b, a - b) and the products' (a*b, a/b), each context by its name in
# term.independent
CONTEXTS = {"add": "add", "sub": "add", "mul": "mul", "div": "mul"}
COMMUTATIVE = ("add", "mul")


@dataclass(frozen=True)
class _Side:
    """One operand of a rule's left side, with the pattern variables it shares with the
    other operand (they bind to the same term in both)."""

    rule: str
    pattern: Expr
    shared: tuple[Expr, ...]


@dataclass(frozen=True)
class Links:
    """The operand patterns of the rules whose left side joins two operands, by context and
    by the pattern's root op ("" for a pattern variable the other operand shares: a*b + a);
    but for the rules of rational arithmetic (a/b + c/d), which the normal forms settle on
    the whole term, and those with an operand any term matches (a + log(b)), which would tie
    every operand to every other: splits do not follow those."""

    sides: dict[tuple[str, str], list[_Side]]

    @classmethod
    def of(cls, rules: Iterable[Rule]) -> Links:
        sides: dict[tuple[str, str], list[_Side]] = {}
        for rule in rules:
            left = rule.lhs
            context = CONTEXTS.get(left.op)
            if context is None or all(is_rational_node(node) for side in (left, rule.rhs)
                                      for node in postorder(side)):
                continue
            first, second = left.args
            shared = first.free_symbols() & second.free_symbols()
            if any(side.is_symbol and side not in shared for side in (first, second)):
                continue  # (a side any operand matches: the rule is not followed here)
            ordered = tuple(sorted(shared, key=lambda s: s.name))
            for pattern in (first, second):
                sides.setdefault((context, "" if pattern.is_symbol else pattern.op), []).append(
                    _Side(rule.name, pattern, ordered))
        return cls(sides)

    def keys(self, context: str, operand: Expr) -> Iterator[Hashable]:
        """A key for each rule side the operand matches (or a form of it: _rewritable), with
        what the shared variables bind to: two operands with one key in common are operands
        the rule could combine."""
        for form in _rewritable(context, operand):
            for side in (*self.sides.get((context, form.op), ()),
                         *self.sides.get((context, ""), ())):
                binding = match(side.pattern, form, {})
                if binding is not None:
                    yield side.rule, tuple(binding[v] for v in side.shared)


def _rewritable(context: str, operand: Expr) -> Iterator[Expr]:
    """The operand, with its root's operands swapped where that op commutes, and what a rule
    on the operand alone could bring to its root: a sum's term's factors (2*log(y) is
    log(y^2)) and a product's power's base (exp(x)^2 is exp(2*x))."""
    yield operand
    if operand.op in COMMUTATIVE and len(operand.args) == 2:
        yield make(operand.op, operand.args[1], operand.args[0])
    if context == "add" and operand.op == "mul":
        yield from multiplicands(operand)
    if context == "mul" and operand.op == "pow":
        yield operand.args[0]
