"""Rules as data: a rewrite with its guards and origin, and a file's checks."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from ..term.expr import Expr
from ..term.shape import is_tensor
from ..term.walks import multiplicands, postorder, summands, tree_size
from .guards import SHAPE_GUARDS


@dataclass(frozen=True)
class Origin:
    """Where a rule or check was written."""

    path: str
    line: int
    column: int = 1

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


@dataclass(frozen=True)
class Guard:
    """A side condition from the closed registry (see guards.py): `subject kind [argument]`."""

    kind: str  # a key of guards.GUARDS
    subject: Expr
    argument: Expr | None = None  # the variable of `free of x`

    def __str__(self) -> str:
        tail = f" {self.argument}" if self.argument is not None else ""
        return f"{self.subject} {self.kind}{tail}"


@dataclass(frozen=True)
class Rule:
    """One directed rewrite lhs => rhs, valid where every guard holds."""

    name: str
    lhs: Expr
    rhs: Expr
    guards: tuple[Guard, ...]
    ruleset: str
    origin: Origin

    def __str__(self) -> str:
        guards = f" if {', '.join(map(str, self.guards))}" if self.guards else ""
        return f"{self.name}: {self.lhs} => {self.rhs}{guards}"

    def __hash__(self) -> int:  # (rules key the matchers' tables: all fields, each time, cost)
        return hash((self.name, self.ruleset))

    def variables(self) -> frozenset[Expr]:
        return self.lhs.free_symbols()

    @cached_property
    def shrinks(self) -> bool:
        """Whether its right side is a smaller tree than its left (each pattern variable one
        node): such rules only ever make terms smaller, so running them alone ends soon."""
        return tree_size(self.rhs) < tree_size(self.lhs)

    @cached_property
    def reorders(self) -> bool:
        """Whether it only regroups or reorders the operands of a sum or of a product
        (a + b => b + a, (a*b)*c => a*(b*c)): both sides that one op over the same
        variables, each once. The direct path and the normal forms take terms modulo
        these (rules/modulo.py)."""
        op, sides = self.lhs.op, (self.lhs, self.rhs)
        if op not in ("add", "mul") or self.guards or \
                any(node.op != op and not node.is_symbol
                    for side in sides for node in postorder(side)):
            return False
        left, right = (multiplicands(side) if op == "mul" else [t for t, _ in summands(side)]
                       for side in sides)
        return len(set(left)) == len(left) and sorted(map(str, left)) == sorted(map(str, right))

    @property
    def about_tensors(self) -> bool:
        """Whether it is about tensors: tensor ops, gradients (vjp) or shape guards."""
        return any(is_tensor(side) or any(n.op == "vjp" for n in postorder(side))
                   for side in (self.lhs, self.rhs)) or \
            any(g.kind in SHAPE_GUARDS for g in self.guards)


@dataclass(frozen=True)
class Check:
    """`check: a == b`: the rules of the file must prove a and b equal."""

    lhs: Expr
    rhs: Expr
    origin: Origin


@dataclass
class RuleFile:
    """The rules and checks of one or more loaded files."""

    rules: list[Rule] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)

    def in_ruleset(self, name: str) -> list[Rule]:
        """Its rules of that ruleset, in the order written."""
        return [rule for rule in self.rules if rule.ruleset == name]

    def extend(self, other: RuleFile) -> None:
        self.rules.extend(other.rules)
        self.checks.extend(other.checks)

    def rulesets(self) -> list[str]:
        return list(dict.fromkeys(rule.ruleset for rule in self.rules))
