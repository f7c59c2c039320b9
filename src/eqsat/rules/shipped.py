"""The shipped rules: the library files', each op's [diff] rule made from its row of the op
table, and the [grad] rules made from all [diff] rules."""

from __future__ import annotations

from functools import cache

from ..term.expr import make, symbol
from ..term.ops import ROWS
from .loader import check_unique, library_paths, load_rules, parse_rules
from .model import RuleFile
from .reverse import DIFF_RULESET, vjp_rules

OP_TABLE = "<the op table>"  # where the derivative rules come from, in messages


def shipped_rules() -> RuleFile:
    """The library files' rules, derivative_rules(), and a [grad] rule for each [diff] rule
    of an op (see reverse.py): parsed once per process (0.7 s), a fresh list each call."""
    parsed = _parsed()
    return RuleFile(list(parsed.rules), list(parsed.checks))


@cache
def _parsed() -> RuleFile:
    shipped = load_rules(library_paths())
    shipped.extend(derivative_rules())
    shipped.rules.extend(vjp_rules(shipped.in_ruleset(DIFF_RULESET)))
    check_unique(shipped.rules)
    return shipped


def derivative_rules() -> RuleFile:
    """`d-<op>: diff(op(a, ...), x) => <its derivative> if op(a, ...) depends on x`, for each
    op whose row has a derivative (a term free of x is d-const's, in diff.rules)."""
    lines = ["[diff]"]
    for spec in ROWS:
        if spec.derivative:
            applied = make(spec.name, *map(symbol, spec.operands))
            lines.append(f"d-{spec.name}: diff({applied}, x) => {spec.derivative}  "
                         f"if ({applied}) depends on x")
    return parse_rules("\n".join(lines), OP_TABLE)
