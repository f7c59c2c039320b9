"""Rules -> egglog rewrite commands, built as data (pattern variables never become program text)."""

from __future__ import annotations

from egglog import bindings

from .. import egglog_terms as t
from ..expr import Expr, postorder
from .guards import GUARDS
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
    subject = pattern(guard.subject)
    if guard.kind == "is const":
        return [t.equal(subject, t.call("Num", t.var(f"gv_const{index}")))]
    if guard.kind in ("free of", "depends on"):
        assert guard.argument is not None
        name, bit = t.var(f"gv_name{index}"), t.var(f"gv_bit{index}")
        shared = t.call("&", t.call("FreeVars", subject), bit)
        test = t.equal(shared, t.integer(0)) if guard.kind == "free of" else \
            t.fact(t.call("!=", shared, t.integer(0)))
        return [t.equal(pattern(guard.argument), t.call("Sym", name)),
                t.equal(bit, t.call("VarBit", name)), test]
    return [t.fact(t.call(GUARDS[guard.kind].fact, subject))]


def needs_free_vars(rules: list[Rule]) -> bool:
    return any(g.kind in ("free of", "depends on") for rule in rules for g in rule.guards)


def rewrite_command(rule: Rule) -> object:
    """The egglog command for one directed rule, named as the rule."""
    span = bindings.RustSpan(rule.origin.path, rule.origin.line, rule.origin.column)
    conditions = [c for i, g in enumerate(rule.guards) for c in _conditions(g, i)]
    rewrite = bindings.Rewrite(span, pattern(rule.lhs), pattern(rule.rhs), conditions, rule.name)
    return bindings.RewriteCommand(rule.ruleset, rewrite, False)
