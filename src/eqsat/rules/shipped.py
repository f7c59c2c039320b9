"""The shipped rules: the library files', each op's [diff] rule made from its row of the op
table, and the [grad] rules made from all [diff] rules."""

from __future__ import annotations

import re
from functools import cache

from ..limits.stored import Sources, package_sources, stored
from ..term.expr import make, symbol
from ..term.ops import ROWS
from .loader import check_unique, library_paths, load_rules, parse_rules
from .model import RuleFile
from .reverse import DIFF_RULESET, vjp_rules

OP_TABLE = "<the op table>"  # where the derivative rules come from, in messages


def shipped_rules() -> RuleFile:
    """The library files' rules, derivative_rules(), and a [grad] rule for each [diff] rule
    of an op (see reverse.py): made once, stored on disk for later processes (limits/stored.py),
    a fresh list each call."""
    parsed = _parsed()
    return RuleFile(list(parsed.rules), list(parsed.checks))


@cache
def shipped_sources() -> Sources:
    """What the shipped rules are made from (and what is made from them, stored on disk, is
    made again when it changes): the library files, eqsat's own source and the op table as
    this process holds it (its functions by name). Once per process, as the rules are read."""
    rows = "\n".join(repr(row) for row in ROWS)
    return Sources([*library_paths(), *package_sources()], re.sub(r" at 0x[0-9a-f]+", "", rows))


@cache
def _parsed() -> RuleFile:
    return stored("shipped-rules", shipped_sources(), _parse_shipped, RuleFile)


def _parse_shipped() -> RuleFile:
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
