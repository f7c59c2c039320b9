"""Rules -> egglog rewrite commands, built as data (pattern variables never become program text)."""

from __future__ import annotations

from collections.abc import Sequence

from egglog import bindings

from ..encoding import commands as t
from ..encoding.shape_analysis import SHAPE_OF
from ..term.expr import Expr
from ..term.shape import SHAPE_ARGUMENTS
from ..term.walks import postorder
from .guards import DEPENDENCE_GUARDS, GUARDS, SHAPE_GUARDS
from .model import Guard, Rule


def pattern(expr: Expr) -> t.Term:
    """A rule side as an egglog pattern; its symbols are pattern variables."""
    done: dict[Expr, t.Term] = {}
    for node in postorder(expr):
        if node.is_symbol:
            done[node] = t.var(f"pv_{node.name}")
        elif node.is_number:
            done[node] = t.num(node.number)
        else:
            done[node] = t.op(node.op, *(done[a] for a in node.args))
    return done[expr]


def _conditions(guard: Guard, index: int) -> list[t.Term]:
    argument = pattern(guard.argument) if guard.argument is not None else None
    return GUARDS[guard.kind].conditions(pattern(guard.subject), argument, index)


def dropped(rule: Rule) -> list[Expr]:
    """The variables that give the left side its shape and not the right: with tensors,
    dropping one could change the shape (x - x => 0 for a vector x), so in tensor queries
    such a rule needs them scalar. A rule with a shape guard states its own conditions."""
    if any(g.kind in SHAPE_GUARDS for g in rule.guards):
        return []
    lost = shape_variables(rule.lhs) - shape_variables(rule.rhs)
    return sorted(lost, key=lambda v: v.name)


def shape_variables(expr: Expr) -> set[Expr]:
    """The symbols an expression's shape depends on: not an axis, not the value of a
    witness (expand's and sum_to's first argument), nothing under vjp or diff."""
    found: set[Expr] = set()
    stack = [expr]
    while stack:
        node = stack.pop()
        if node.is_symbol:
            found.add(node)
        else:
            stack += [node.args[k] for k in SHAPE_ARGUMENTS.get(node.op, range(len(node.args)))]
    return found


def needs_free_vars(rules: list[Rule]) -> bool:
    return any(g.kind in DEPENDENCE_GUARDS for rule in rules for g in rule.guards)


def rewrite_command(rule: Rule, scalar: Sequence[Expr] = ()) -> object:
    """The egglog command for one directed rule, named as the rule; `scalar`: variables it
    needs scalar (in a tensor e-graph)."""
    conditions = [c for i, g in enumerate(rule.guards) for c in _conditions(g, i)]
    conditions += [t.equal(t.call(SHAPE_OF, pattern(v)), t.integer(0)) for v in scalar]
    # (the rule's origin is in eqsat's messages, not in egglog's span: see commands.SPAN)
    rewrite = bindings.Rewrite(t.SPAN, pattern(rule.lhs), pattern(rule.rhs), conditions, rule.name)
    return bindings.RewriteCommand(rule.ruleset, rewrite, False)
